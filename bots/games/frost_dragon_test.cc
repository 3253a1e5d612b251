#include "bots/games/frost_dragon.h"

#include "gtest/gtest.h"

namespace hoard::bots::frost_dragon {
namespace {

TEST(frost_dragonBotsTest, Placeholder) { GTEST_SKIP() << "to be written"; }

}  // namespace
}  // namespace hoard::bots::frost_dragon
