#include "bots/games/dragons_gold.h"

#include "gtest/gtest.h"

namespace hoard::bots::dragons_gold {
namespace {

TEST(dragons_goldBotsTest, Placeholder) { GTEST_SKIP() << "to be written"; }

}  // namespace
}  // namespace hoard::bots::dragons_gold
