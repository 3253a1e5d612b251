#include "engine/registry.h"

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::engine {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;

// Every test here walks the registry, so a new game is checked without a
// line changed here.
TEST(RegistryTest, EveryGameIsFoundByItsIdWithEveryRequiredPart) {
  ASSERT_FALSE(AllGames().empty());
  std::string previous;
  for (const Game* game : AllGames()) {
    const GameInfo& info = game->info();
    EXPECT_GT(info.id, previous) << "ordered by id, each once";
    previous = info.id;
    for (char c : info.id) {
      EXPECT_TRUE(absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '_') << info.id;
    }
    absl::StatusOr<const Game*> found = FindGame(info.id);
    ASSERT_THAT(found, IsOk());
    EXPECT_EQ(*found, game);
    EXPECT_FALSE(info.name.empty()) << info.id;
    EXPECT_GE(info.min_players, 1) << info.id;
    EXPECT_LE(info.min_players, info.max_players) << info.id;
    EXPECT_FALSE(info.ruleset_version.empty()) << info.id;
    EXPECT_GT(info.max_actions, 0) << info.id;
    EXPECT_NE(DealFor(*game), nullptr) << info.id << " has no deal";
  }
}

TEST(RegistryTest, UnknownGameNamesTheKnownOnes) {
  std::vector<std::string> ids;
  for (const Game* game : AllGames()) ids.push_back(game->info().id);
  EXPECT_THAT(FindGame("chess"), StatusIs(absl::StatusCode::kNotFound,
                                          HasSubstr(absl::StrCat("unknown game 'chess' (known: ",
                                                                 absl::StrJoin(ids, ", "), ")"))));
  EXPECT_THAT(FindCodec("chess"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("chess")));
}

TEST(RegistryTest, BadPlayerCountsAndUnknownOptionsAreRefused) {
  for (const Game* game : AllGames()) {
    const GameInfo& info = game->info();
    EXPECT_THAT(game->NewMatch({.num_players = info.max_players + 1}),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr(absl::StrCat("not ", info.max_players + 1))))
        << info.id;
    EXPECT_THAT(game->NewMatch({.num_players = info.min_players - 1}),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("players")))
        << info.id;
    EXPECT_THAT(
        game->NewMatch({.num_players = info.min_players, .options = {{"no_such_option", "2"}}}),
        StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no option 'no_such_option'")))
        << info.id;
    EXPECT_THAT(game->NewMatch({.num_players = info.min_players, .seed = 1}), IsOk()) << info.id;
  }
}

}  // namespace
}  // namespace hoard::engine
