#include "tournament/host.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::tournament {
namespace {

using ::testing::ElementsAre;

hoard::v1::BotInfo Bot(const std::string& name, bool connected, int running) {
  hoard::v1::BotInfo bot;
  bot.set_name(name);
  bot.set_connected(connected);
  bot.set_running_matches(running);
  return bot;
}

hoard::v1::ListBotsResponse List(const std::vector<hoard::v1::BotInfo>& bots) {
  hoard::v1::ListBotsResponse response;
  for (const hoard::v1::BotInfo& bot : bots) *response.add_bots() = bot;
  return response;
}

TEST(MergeBotListsTest, ABotIsConnectedOnlyWhenConnectedOnEveryServer) {
  const hoard::v1::ListBotsResponse merged =
      MergeBotLists({List({Bot("both", true, 2), Bot("one", true, 1), Bot("down", false, 0)}),
                     List({Bot("both", true, 3), Bot("one", false, 0), Bot("down", true, 0)})});
  std::vector<std::string> names, connected;
  for (const hoard::v1::BotInfo& bot : merged.bots()) {
    names.push_back(bot.name());
    if (bot.connected()) connected.push_back(bot.name());
    if (bot.name() == "both") {
      EXPECT_EQ(bot.running_matches(), 5);
    }
  }
  EXPECT_THAT(names, ElementsAre("both", "down", "one"));
  EXPECT_THAT(connected, ElementsAre("both"));
}

TEST(MergeBotListsTest, ABotOneServerDoesNotKnowIsNotConnected) {
  const hoard::v1::ListBotsResponse merged =
      MergeBotLists({List({Bot("here", true, 0)}), List({})});
  ASSERT_EQ(merged.bots_size(), 1);
  EXPECT_FALSE(merged.bots(0).connected());
}

TEST(MergeBotListsTest, OneListIsThatList) {
  const hoard::v1::ListBotsResponse merged =
      MergeBotLists({List({Bot("a", true, 1), Bot("b", false, 0)})});
  ASSERT_EQ(merged.bots_size(), 2);
  EXPECT_TRUE(merged.bots(0).connected());
  EXPECT_EQ(merged.bots(0).running_matches(), 1);
  EXPECT_FALSE(merged.bots(1).connected());
}

}  // namespace
}  // namespace hoard::tournament
