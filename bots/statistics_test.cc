#include "bots/statistics.h"

#include <memory>
#include <string>
#include <vector>

#include "bots/bot.h"
#include "bots/local_match.h"
#include "engine/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::bots {
namespace {

using ::testing::HasSubstr;

StatsConfig VillageConfig(int players, std::vector<std::string> bots, int matches) {
  StatsConfig config;
  config.game = *engine::FindGame("village");
  config.match.num_players = players;
  config.match.seed = 11;
  config.bots = std::move(bots);
  config.matches = matches;
  return config;
}

TEST(StatsTest, EveryMatchHasOneWinnerShareAndEndsOneWay) {
  absl::StatusOr<StatsReport> report = CollectStats(VillageConfig(4, {"random"}, 300));
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->matches, 300);
  double wins = 0;
  for (double w : report->wins) wins += w;
  EXPECT_DOUBLE_EQ(wins, 300);
  // The village counts how each match ended: every match once.
  double ended = 0;
  for (const auto& [name, total] : report->counters) {
    if (name.starts_with("ended: ")) ended += total.total;
  }
  EXPECT_EQ(ended, 300);
  EXPECT_GE(report->actions.max, report->actions.median);
  EXPECT_GE(report->actions.median, report->actions.min);
  EXPECT_GT(report->actions.min, 0);
}

TEST(StatsTest, TheReportDoesNotDependOnTheThreads) {
  StatsConfig one = VillageConfig(3, {"heuristic", "random", "first"}, 120);
  StatsConfig three = one;
  three.threads = 3;
  absl::StatusOr<StatsReport> a = CollectStats(one);
  absl::StatusOr<StatsReport> b = CollectStats(three);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->wins, b->wins);
  EXPECT_EQ(a->mean_score, b->mean_score);
  EXPECT_EQ(a->actions.mean, b->actions.mean);
  EXPECT_EQ(a->counters.size(), b->counters.size());
  EXPECT_EQ(a->bot_wins, b->bot_wins);
}

// The header's promise: match i is `hoard play --seed MatchSeed(seed, i)`
// with the bots rotated i seats.
TEST(StatsTest, EachMatchIsTheMatchPlayReplaysFromItsSeed) {
  const std::vector<std::string> names = {"heuristic", "random", "first"};
  StatsConfig config = VillageConfig(3, names, 7);
  absl::StatusOr<StatsReport> report = CollectStats(config);
  ASSERT_TRUE(report.ok()) << report.status();
  std::vector<double> wins(3, 0);
  std::map<std::string, double> bot_wins;
  for (int i = 0; i < config.matches; ++i) {
    engine::MatchConfig match = config.match;
    match.seed = MatchSeed(config.match.seed, i);
    engine::Rng seeds(match.seed ^ 0x5eed5eed5eed5eedULL);
    std::vector<std::unique_ptr<Bot>> owned;
    std::vector<Bot*> bots;
    std::vector<std::string> seated;
    for (int seat = 0; seat < 3; ++seat) {
      seated.push_back(names[(seat + i) % 3]);
      owned.push_back(*MakeBot(seated.back(), *config.game, seeds.Fork()));
      bots.push_back(owned.back().get());
    }
    absl::StatusOr<PlayedMatch> played = PlayLocalMatch(*config.game, match, bots, seated);
    ASSERT_TRUE(played.ok()) << played.status();
    const std::vector<int> ranks = played->final_state->Ranks();
    const int firsts = static_cast<int>(std::count(ranks.begin(), ranks.end(), 1));
    for (int seat = 0; seat < 3; ++seat) {
      if (ranks[seat] != 1) continue;
      wins[seat] += 1.0 / firsts;
      bot_wins[seated[seat]] += 1.0 / firsts;
    }
  }
  EXPECT_EQ(report->wins, wins);
  for (const auto& [bot, won] : bot_wins) EXPECT_EQ(report->bot_wins.at(bot).first, won) << bot;
  // Rotation: each bot sat in 7 of the 21 seats.
  for (const std::string& bot : names) EXPECT_EQ(report->bot_wins.at(bot).second, 7) << bot;
}

TEST(StatsTest, ABadOptionOrBotIsNamed) {
  StatsConfig config = VillageConfig(4, {"random"}, 5);
  config.match.options["hand_size"] = "99";
  absl::StatusOr<StatsReport> bad_option = CollectStats(config);
  ASSERT_FALSE(bad_option.ok());
  EXPECT_THAT(bad_option.status().message(), HasSubstr("hand_size"));

  absl::StatusOr<StatsReport> bad_bot = CollectStats(VillageConfig(4, {"genius"}, 5));
  ASSERT_FALSE(bad_bot.ok());
  EXPECT_THAT(bad_bot.status().message(), HasSubstr("genius"));
}

TEST(StatsTest, SummariesAreOrderStatistics) {
  const Summary s = Summarize({5, 1, 3, 2, 4, 10, 6, 7, 8, 9});
  EXPECT_DOUBLE_EQ(s.mean, 5.5);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 10);
  EXPECT_EQ(s.p90, 9);
  EXPECT_GE(s.median, 5);
  EXPECT_LE(s.median, 6);
}

}  // namespace
}  // namespace hoard::bots
