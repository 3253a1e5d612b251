#include "tournament/leaderboard.h"

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "db/store.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::tournament {
namespace {

using ::hoard::testing::IsOk;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

// Stores a finished village match whose players (seat order) took first,
// second, ... place.
void Store(db::MatchStore& store, std::int64_t sequence, const std::vector<std::string>& players) {
  hoard::v1::Match match;
  match.set_match_id(absl::StrCat("m", sequence));
  match.set_game("village");
  match.set_ruleset_version("1");
  match.set_status(hoard::v1::MATCH_STATUS_FINISHED);
  for (std::size_t seat = 0; seat < players.size(); ++seat) {
    hoard::v1::SeatInfo* info = match.add_seats();
    info->set_seat(static_cast<int>(seat));
    info->set_player(players[seat]);
    info->set_score(10.0 - static_cast<double>(seat));
    info->set_rank(static_cast<int>(seat) + 1);
  }
  hoard::v1::MatchRecord record;
  record.set_format("hoard.match_record.v1");
  record.set_game("village");
  ASSERT_THAT(store.SaveFinished(sequence, match, record), IsOk());
}

// Each row's bot -> its matches.
std::map<std::string, int> MatchesByRow(const hoard::v1::Leaderboard& board) {
  std::map<std::string, int> rows;
  for (const hoard::v1::LeaderboardRow& row : board.rows()) rows[row.bot()] = row.matches();
  return rows;
}

TEST(LeaderboardTest, ABotAccountAndABuiltInOfOneNameAreTwoRows) {
  // An account named "random" (made before built-in names were reserved)
  // plays the built-in random bot and the built-in first bot: three rows,
  // the shared name shown with each one's kind.
  absl::StatusOr<std::unique_ptr<db::MatchStore>> store = db::OpenSqliteStore(":memory:");
  ASSERT_THAT(store, IsOk());
  Store(**store, 1, {"bot:random", "builtin:random"});
  Store(**store, 2, {"bot:random", "builtin:random"});
  Store(**store, 3, {"builtin:random", "bot:random"});
  Store(**store, 4, {"bot:random", "builtin:first"});
  Store(**store, 5, {"builtin:random", "builtin:first"});
  absl::StatusOr<hoard::v1::RatingSnapshot> snapshot = ComputeRatings(**store, {.game = "village"});
  ASSERT_THAT(snapshot, IsOk());
  const hoard::v1::Leaderboard board = RankBy(*snapshot, hoard::v1::RATING_SYSTEM_ML);
  EXPECT_THAT(MatchesByRow(board), UnorderedElementsAre(::testing::Pair("bot:random", 4),
                                                        ::testing::Pair("builtin:random", 4),
                                                        ::testing::Pair("first", 2)));
  EXPECT_EQ(board.rows(0).bot(), "bot:random");  // 3 wins of 4
  // Every interval finite, though "bot:random" never lost to "first".
  for (const hoard::v1::LeaderboardRow& row : board.rows()) {
    EXPECT_TRUE(std::isfinite(row.ml_low()) && std::isfinite(row.ml_high())) << row.bot();
  }
  EXPECT_THAT(FormatLeaderboard(board), HasSubstr("ML: separated tiers"));
}

TEST(LeaderboardTest, ANameHeldByOneKindKeepsItsPlainName) {
  absl::StatusOr<std::unique_ptr<db::MatchStore>> store = db::OpenSqliteStore(":memory:");
  ASSERT_THAT(store, IsOk());
  Store(**store, 1, {"bot:alice", "builtin:random"});
  Store(**store, 2, {"builtin:random", "bot:alice"});
  absl::StatusOr<hoard::v1::RatingSnapshot> snapshot = ComputeRatings(**store, {.game = "village"});
  ASSERT_THAT(snapshot, IsOk());
  EXPECT_THAT(MatchesByRow(RankBy(*snapshot, hoard::v1::RATING_SYSTEM_ML)),
              UnorderedElementsAre(::testing::Pair("alice", 2), ::testing::Pair("random", 2)));
}

TEST(LeaderboardTest, ProvisionalRatingsRankBelowTheEstablishedAndAreMarked) {
  // Three bots of 60 matches each (alice first in two of three), and a
  // newcomer that won its one match: by rating it leads; established first,
  // it is last, marked "?".
  absl::StatusOr<std::unique_ptr<db::MatchStore>> store = db::OpenSqliteStore(":memory:");
  ASSERT_THAT(store, IsOk());
  const std::vector<std::vector<std::string>> orders = {{"bot:alice", "bot:bob", "bot:carol"},
                                                        {"bot:alice", "bot:carol", "bot:bob"},
                                                        {"bot:bob", "bot:alice", "bot:carol"}};
  for (int m = 1; m <= 60; ++m) Store(**store, m, orders[m % 3]);
  Store(**store, 61, {"bot:newcomer", "bot:alice"});
  absl::StatusOr<hoard::v1::RatingSnapshot> snapshot = ComputeRatings(**store, {.game = "village"});
  ASSERT_THAT(snapshot, IsOk());
  const hoard::v1::Leaderboard by_rating = RankBy(*snapshot, hoard::v1::RATING_SYSTEM_ML);
  ASSERT_EQ(by_rating.rows_size(), 4);
  EXPECT_EQ(by_rating.rows(0).bot(), "newcomer");
  // Every surface reads the mark from the row.
  EXPECT_TRUE(by_rating.rows(0).provisional());
  for (int i = 1; i < 4; ++i) EXPECT_FALSE(by_rating.rows(i).provisional()) << i;
  const hoard::v1::Leaderboard board = EstablishedFirst(by_rating);
  EXPECT_EQ(board.rows(3).bot(), "newcomer");
  EXPECT_EQ(board.rows(3).rank(), 4);
  EXPECT_EQ(board.rows(0).bot(), "alice");
  EXPECT_EQ(board.rows(0).rank(), 1);
  const std::string table = FormatLeaderboard(board, /*mark_provisional=*/true);
  EXPECT_THAT(table, ::testing::ContainsRegex("\n4 +newcomer +\\+[0-9]+\\? \\["));
  EXPECT_THAT(table,
              HasSubstr("?: provisional (fewer than 15 matches and an ML interval wider than 400"));
  EXPECT_THAT(FormatLeaderboard(board), ::testing::Not(HasSubstr("?")));
}

TEST(LeaderboardTest, EveryRowHasItsChanceOfEachPlace) {
  absl::StatusOr<std::unique_ptr<db::MatchStore>> store = db::OpenSqliteStore(":memory:");
  ASSERT_THAT(store, IsOk());
  // alice beats bob and carol every time; bob and carol split their meetings.
  for (int m = 1; m <= 30; ++m) {
    Store(**store, m,
          m % 2 ? std::vector<std::string>{"bot:alice", "bot:bob", "bot:carol"}
                : std::vector<std::string>{"bot:alice", "bot:carol", "bot:bob"});
  }
  const db::RatingScope scope{.game = "village"};
  // A snapshot an older build stored for the same results (no method, no
  // probabilities) is computed again.
  absl::StatusOr<std::int64_t> version = (*store)->ScopeVersion(scope);
  ASSERT_THAT(version, IsOk());
  hoard::v1::RatingSnapshot old = *ComputeRatings(**store, scope);
  old.clear_method();
  for (hoard::v1::LeaderboardRow& row : *old.mutable_leaderboard()->mutable_rows()) {
    row.clear_rank_probabilities();
  }
  ASSERT_THAT((*store)->SaveRatingSnapshot(scope, *version, old), IsOk());
  absl::StatusOr<hoard::v1::RatingSnapshot> snapshot = CurrentRatings(**store, scope);
  ASSERT_THAT(snapshot, IsOk());
  const hoard::v1::Leaderboard board = RankBy(*snapshot, hoard::v1::RATING_SYSTEM_ML);
  EXPECT_EQ(board.rank_samples(), 10'000);
  ASSERT_EQ(board.rows_size(), 3);
  for (const hoard::v1::LeaderboardRow& row : board.rows()) {
    ASSERT_EQ(row.rank_probabilities_size(), 3) << row.bot();
    double sum = 0;
    for (double p : row.rank_probabilities()) sum += p;
    EXPECT_NEAR(sum, 1, 1e-12) << row.bot();
  }
  EXPECT_EQ(board.rows(0).bot(), "alice");
  EXPECT_GT(board.rows(0).rank_probabilities(0), 0.99);
  EXPECT_NEAR(board.rows(1).rank_probabilities(1), 0.5, 0.05);  // bob or carol second
  const std::string text = RankProbabilityText(board);
  EXPECT_THAT(text, ::testing::ContainsRegex("probability of rank +1st +2nd +3rd\n"));
  EXPECT_THAT(text, ::testing::ContainsRegex("\nalice +>99\\.9% +<0\\.1% +<0\\.1%\n"));
  EXPECT_THAT(text, HasSubstr("from 10000 draws of the ML model's posterior"));
  const std::string csv = LeaderboardCsv(board);
  EXPECT_THAT(csv, HasSubstr(",provisional,p_first\n"));
}

}  // namespace
}  // namespace hoard::tournament
