#include "bots/games/hedonia.h"

#include "gtest/gtest.h"

namespace hoard::bots::hedonia {
namespace {

TEST(hedoniaBotsTest, Placeholder) { GTEST_SKIP() << "to be written"; }

}  // namespace
}  // namespace hoard::bots::hedonia
