// Coin pile, registered in the tests alone, is picked up like any game: by
// the registry, the conformance suite and the built-in bots.

#include "tests/games/coin_pile/coin_pile.h"

#include <memory>
#include <vector>

#include "bots/bot.h"
#include "bots/local_match.h"
#include "engine/registry.h"
#include "engine/testing/conformance.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::engine::coin_pile {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(CoinPileTest, AHigherCoinScoresALowerOneDoesNotAndTheStackRefillsTheHand) {
  Position p;
  p.hands = {{0, 1, 1}, {1, 0, 0}};
  p.stack = {1};
  p.scores = {0, 0};
  CoinPileState state(p);
  EXPECT_THAT(state.Apply(1, Action(1)),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not seat 1's turn")));
  EXPECT_THAT(state.Apply(0, Action(1)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no coin of value 1")));
  ASSERT_THAT(state.Apply(0, Action(3)), IsOk());
  EXPECT_THAT(state.Scores(), ElementsAre(3, 0));
  ASSERT_THAT(state.Apply(1, Action(1)), IsOk());  // 1 does not beat 3
  EXPECT_THAT(state.Scores(), ElementsAre(3, 0));
  // Seat 0 drew the stack's last coin, a 1; seat 1 found it empty.
  EXPECT_THAT(state.LegalActions(0), ElementsAre(Action(1), Action(2)));
  EXPECT_TRUE(state.LegalActions(1).empty());
  EXPECT_FALSE(state.IsOver());
}

TEST(CoinPileTest, IsRegisteredWithItsDealAndBots) {
  absl::StatusOr<const Game*> game = FindGame("coin_pile");
  ASSERT_THAT(game, IsOk());
  EXPECT_NE(DealFor(**game), nullptr);
  EXPECT_THAT(FindCodec("coin_pile"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("no wire codec")));
  EXPECT_THAT(bots::BuiltinBotNames(**game), ElementsAre("first", "random", "heuristic", "mcts"));
}

TEST(CoinPileTest, PassesTheConformanceSuite) {
  const Game& game = **FindGame("coin_pile");
  for (int players = 2; players <= 4; ++players) {
    engine::testing::ConformanceOptions options;
    options.matches = 2000;
    absl::StatusOr<engine::testing::ConformanceReport> report =
        engine::testing::CheckConformance(game, *DealFor(game), players, options);
    ASSERT_THAT(report, IsOk()) << players << " players";
    EXPECT_GT(report->deals_that_moved_cards, report->steps / 2);
    EXPECT_GT(report->deals_visible_to_others, 0);
  }
}

TEST(CoinPileTest, TheSearchBotBeatsRandomPlay) {
  const Game& game = **FindGame("coin_pile");
  int wins = 0;
  constexpr int kMatches = 40;
  for (int m = 0; m < kMatches; ++m) {
    std::unique_ptr<bots::Bot> search = *bots::MakeBot("mcts-200", game, m);
    std::unique_ptr<bots::Bot> random = *bots::MakeBot("random", game, m + 1000);
    bots::Bot* seats[] = {search.get(), random.get()};
    absl::StatusOr<bots::PlayedMatch> played =
        bots::PlayLocalMatch(game, {.num_players = 2, .seed = static_cast<std::uint64_t>(m)}, seats,
                             {"mcts-200", "random"});
    ASSERT_THAT(played, IsOk());
    const std::vector<double> scores = played->final_state->Scores();
    if (scores[0] > scores[1]) ++wins;
  }
  EXPECT_GT(wins, kMatches / 2) << wins << " of " << kMatches;
}

}  // namespace
}  // namespace hoard::engine::coin_pile
