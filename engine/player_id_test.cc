#include "engine/player_id.h"

#include <string>

#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::engine {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;

TEST(PlayerIdTest, ReadsWhatItWrites) {
  for (const PlayerId& id : {PlayerId::Builtin("random"), PlayerId::Bot("alice"),
                             PlayerId::Bot("alice@2"), PlayerId::Builtin("mcts-100ms")}) {
    absl::StatusOr<PlayerId> parsed = PlayerId::Parse(id.ToString());
    ASSERT_THAT(parsed, IsOk()) << id.ToString();
    EXPECT_EQ(*parsed, id);
  }
}

TEST(PlayerIdTest, KeepsTheStringsStoredAndSentSoFar) {
  EXPECT_EQ(PlayerId::Builtin("random-1").ToString(), "builtin:random-1");
  EXPECT_EQ(PlayerId::Bot("alice@2").ToString(), "bot:alice@2");
  absl::StatusOr<PlayerId> bot = PlayerId::Parse("bot:alice@2");
  ASSERT_THAT(bot, IsOk());
  EXPECT_TRUE(bot->is_bot());
  EXPECT_EQ(bot->name(), "alice@2");
  EXPECT_EQ(bot->base_name(), "alice");
  EXPECT_EQ(bot->version(), "2");
  absl::StatusOr<PlayerId> builtin = PlayerId::Parse("builtin:first");
  ASSERT_THAT(builtin, IsOk());
  EXPECT_TRUE(builtin->is_builtin());
  EXPECT_EQ(builtin->base_name(), "first");
  EXPECT_EQ(builtin->version(), "");
}

TEST(PlayerIdTest, RefusesWhatIsNoPlayerAndSaysWhy) {
  EXPECT_THAT(PlayerId::Parse(kOpenSeat),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("builtin:NAME or bot:NAME, not 'open'")));
  EXPECT_THAT(PlayerId::Parse("robot:alice"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not 'robot:alice'")));
  EXPECT_THAT(PlayerId::Parse("bot:"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is empty")));
  EXPECT_THAT(PlayerId::Parse("builtin:a b"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("holds ' '")));
}

TEST(BotNameTest, TakesLettersDigitsAndOneVersion) {
  for (const char* name : {"a", "alice", "alice@2", "r2-d2_v1.0", "x@y.z",
                           "0123456789012345678901234567890123456789012345678901234567890123"}) {
    EXPECT_THAT(CheckBotName(name), IsOk()) << name;
  }
}

TEST(BotNameTest, SaysWhatIsWrongWithAName) {
  const auto refused = [](absl::string_view name, absl::string_view why) {
    EXPECT_THAT(CheckBotName(name), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(why)))
        << name;
  };
  refused("", "bot name is empty");
  refused(std::string(65, 'a'), "has 65 characters, more than 64");
  refused("c d", "bot name 'c d' holds ' ', which is not a letter, digit");
  refused("a:b", "holds ':'");
  refused("a/b", "holds '/'");
  refused("a,b", "holds ','");
  refused("a\nb", "'a\\nb' holds '\\n'");
  refused("a@b@c", "holds more than one '@'");
  refused("@v1", "has no name before its '@'");
  refused("alice@", "has no version after its '@'");
}

TEST(BotNameTest, AWordOfANameHoldsNoAt) {
  EXPECT_THAT(CheckBotNameWord("alice"), IsOk());
  EXPECT_THAT(
      CheckBotNameWord("a@b"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("'a@b' holds '@', which is not a letter, digit, '_', '-' or '.'")));
  EXPECT_THAT(CheckBotNameWord(""), StatusIs(absl::StatusCode::kInvalidArgument, "is empty"));
  EXPECT_EQ(JoinBotName("alice", "2"), "alice@2");
  EXPECT_EQ(JoinBotName("alice", ""), "alice");
}

}  // namespace
}  // namespace hoard::engine
