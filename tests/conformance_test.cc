// Every registered game passes the conformance suite for every player count.

#include "engine/testing/conformance.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "engine/registry.h"
#include "engine/testing/status_matchers.h"
#include "gtest/gtest.h"

namespace hoard {
namespace {

using ::hoard::testing::IsOk;

struct Case {
  std::string game;
  int players;
  friend void PrintTo(const Case& c, std::ostream* os) {
    *os << c.game << " with " << c.players << " players";
  }
};

class ConformanceTest : public ::testing::TestWithParam<Case> {};

// 2,000 random matches for every player count of every game in the test
// run (some 34,000 matches, a few minutes of both cores), unless
// HOARD_CONFORMANCE_MATCHES says how many: 40,000 for a thorough run.
int MatchesPerPlayerCount() {
  const char* knob = std::getenv("HOARD_CONFORMANCE_MATCHES");
  int matches = 0;
  return knob != nullptr && absl::SimpleAtoi(knob, &matches) && matches > 0 ? matches : 2000;
}

TEST_P(ConformanceTest, RandomMatchesKeepTheContract) {
  const engine::Game& game = **engine::FindGame(GetParam().game);
  engine::testing::ConformanceOptions options;
  const int matches = MatchesPerPlayerCount();
  options.matches = matches;
  options.seed = 20261123;
  const engine::Sampler* deal = engine::DealFor(game);
  ASSERT_NE(deal, nullptr);
  absl::StatusOr<const engine::GameCodec*> codec = engine::FindCodec(game.info().id);
  ASSERT_THAT(codec, IsOk());
  options.codec = *codec;
  // What each seat is told, and the views' wire bytes, in one match of ten.
  options.told_matches = std::max(1, matches / 10);
  absl::StatusOr<engine::testing::ConformanceReport> report =
      engine::testing::CheckConformance(game, *deal, GetParam().players, options);
  ASSERT_THAT(report, IsOk());
  EXPECT_EQ(report->matches, matches);
  // The checks bit: hidden cards really moved, and other seats noticed.
  EXPECT_GT(report->deals_that_moved_cards, report->steps / 2);
  EXPECT_GT(report->deals_visible_to_others, report->steps / 2);
  EXPECT_GT(report->illegal_refused, report->steps);
  // What each seat is told was compared in dealt states, for its own
  // actions and for others', and views as wire bytes.
  EXPECT_GT(report->told_alike, report->told_steps);
  EXPECT_GT(report->told_alike_others, report->told_steps / 4);
  EXPECT_GT(report->view_bytes_compared, report->told_steps);
}

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (const engine::Game* game : engine::AllGames()) {
    for (int n = game->info().min_players; n <= game->info().max_players; ++n) {
      cases.push_back({game->info().id, n});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllGames, ConformanceTest, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return absl::StrCat(info.param.game, "_", info.param.players, "p");
                         });

}  // namespace
}  // namespace hoard
