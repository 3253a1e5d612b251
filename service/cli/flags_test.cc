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
      {"verify", "--game", "village", "--option=a=1", "--option", "b=2",
       "--quiet", "file.json"},
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
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown flag --players")));
  EXPECT_THAT(ParseArgs({"--game"}, kSpecs),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--game needs a value (ID)")));
  EXPECT_THAT(ParseArgs({"--game", "a", "--game", "b"}, kSpecs),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("more than once")));
  EXPECT_THAT(ParseArgs({"--quiet=yes"}, kSpecs),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("takes no value")));
  EXPECT_THAT(ParseInt("players", "four"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--players needs a whole number, not 'four'")));
}

}  // namespace
}  // namespace hoard::cli
