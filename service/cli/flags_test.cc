#include "service/cli/flags.h"

#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::cli {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::vector<FlagSpec> kSpecs = {
    {"game", "ID", "game"},
    {"option", "NAME=VALUE", "option", true},
    {"quiet", "", "quiet"},
};

TEST(FlagsTest, ParsesBothFormsBooleansRepeatsAndPositionals) {
  absl::StatusOr<ParsedArgs> args = ParseArgs(
      {"verify", "--game", "village", "--option=a=1", "--option", "b=2", "--quiet", "file.json"},
      kSpecs);
  ASSERT_THAT(args, IsOk());
  EXPECT_EQ(args->Get("game", ""), "village");
  EXPECT_THAT(args->flags.at("option"), ElementsAre("a=1", "b=2"));
  EXPECT_TRUE(args->Has("quiet"));
  EXPECT_THAT(args->positionals, ElementsAre("verify", "file.json"));
  EXPECT_EQ(args->Get("missing", "fallback"), "fallback");
}

TEST(FlagsTest, MistakesAreNamed) {
  EXPECT_THAT(ParseArgs({"--players", "3"}, kSpecs),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown flag --players")));
  EXPECT_THAT(ParseArgs({"--game"}, kSpecs),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--game needs a value (ID)")));
  EXPECT_THAT(ParseArgs({"--game", "a", "--game", "b"}, kSpecs),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("more than once")));
  EXPECT_THAT(ParseArgs({"--quiet=yes"}, kSpecs),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("takes no value")));
  EXPECT_THAT(ParseInt("players", "four"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--players needs a whole number, not 'four'")));
}

TEST(FlagsTest, ADatabaseAddressWithAPasswordIsRefused) {
  const std::vector<FlagSpec> specs = {{"db", "FILE|URL", "the database"}};
  const absl::StatusOr<ParsedArgs> refused =
      ParseArgs({"--db", "postgresql://hoard:s3cret@db.example/hoard"}, specs);
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kInvalidArgument,
                                HasSubstr("--db: the database address holds a password")));
  EXPECT_THAT(std::string(refused.status().message()), ::testing::Not(HasSubstr("s3cret")));
  EXPECT_THAT(ParseArgs({"--db=postgresql://hoard@db.example/hoard"}, specs), IsOk());
  EXPECT_THAT(ParseArgs({"--db", "hoard.db"}, specs), IsOk());
}

TEST(FlagsTest, AnUnknownFlagNamesTheOneItLikelyMisspells) {
  EXPECT_THAT(ParseArgs({"--gmae", "village"}, kSpecs),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown flag --gmae (did you mean --game?)")));
  EXPECT_THAT(ParseArgs({"--opt", "a=1"}, kSpecs),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("(did you mean --option?)")));
  absl::StatusOr<ParsedArgs> far = ParseArgs({"--players", "3"}, kSpecs);
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.status().message(), "unknown flag --players");
}

TEST(FlagsTest, EditDistanceCountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(EditDistance("", ""), 0);
  EXPECT_EQ(EditDistance("match", "match"), 0);
  EXPECT_EQ(EditDistance("", "bot"), 3);
  EXPECT_EQ(EditDistance("mach", "match"), 1);
  EXPECT_EQ(EditDistance("matchs", "match"), 1);
  EXPECT_EQ(EditDistance("metch", "match"), 1);
  EXPECT_EQ(EditDistance("tournamnet", "tournament"), 2);  // a swap is two edits
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3);
}

TEST(FlagsTest, DidYouMeanSuggestsOnlyNearMisses) {
  const std::vector<std::string> commands = {"play",        "bot",        "bots",  "match",
                                             "leaderboard", "tournament", "health"};
  EXPECT_EQ(DidYouMean("mach", commands), "match");
  EXPECT_EQ(DidYouMean("helth", commands), "health");
  EXPECT_EQ(DidYouMean("lederbord", commands), "leaderboard");
  EXPECT_EQ(DidYouMean("tournamnet", commands), "tournament");
  EXPECT_EQ(DidYouMean("tourn", commands), "tournament");  // an abbreviation
  EXPECT_EQ(DidYouMean("bts", commands), "bots");          // one edit, where bot is two
  EXPECT_EQ(DidYouMean("fly", commands), "");              // two edits from play: too far
  EXPECT_EQ(DidYouMean("chess", commands), "");
  EXPECT_EQ(DidYouMean("mach", {}), "");
}

TEST(FlagsTest, OptionsAndSeedsAreReadOrNamedAsWrong) {
  const std::vector<FlagSpec> specs = {{"option", "NAME=VALUE", "", true}, {"seed", "N", ""}};
  absl::StatusOr<ParsedArgs> args =
      ParseArgs({"--option", "a=1", "--option", "b=x=y", "--option", "a=2", "--seed", "42"}, specs);
  ASSERT_TRUE(args.ok());
  std::map<std::string, std::string> options;
  ASSERT_TRUE(ReadOptionFlags(*args, &options).ok());
  EXPECT_EQ(options, (std::map<std::string, std::string>{{"a", "2"}, {"b", "x=y"}}));
  EXPECT_EQ(*ReadSeedFlag(*args, 7), 42u);
  EXPECT_EQ(*ReadSeedFlag(*ParseArgs({}, specs), 7), 7u);
  for (const char* bad : {"=3", "novalue"}) {
    absl::StatusOr<ParsedArgs> wrong = ParseArgs({"--option", bad}, specs);
    EXPECT_EQ(ReadOptionFlags(*wrong, &options).message(),
              std::string("--option needs NAME=VALUE, not '") + bad + "'");
  }
  EXPECT_EQ(ReadSeedFlag(*ParseArgs({"--seed", "-1"}, specs), 0).status().message(),
            "--seed needs a whole number from 0 to 2^64-1, not '-1'");
}

}  // namespace
}  // namespace hoard::cli
