#include "bots/bot.h"

#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "bots/local_match.h"
#include "engine/record.h"
#include "engine/registry.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::bots {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const engine::Game& Village() { return **engine::FindGame("village"); }

TEST(BotTest, UnknownBotsAreNamed) {
  EXPECT_THAT(MakeBot("genius", Village(), 1),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("unknown bot 'genius' for village (built-in bots: first, "
                                 "random, heuristic, mcts; mcts-N searches N iterations a "
                                 "decision, mcts-Nms N milliseconds)")));
}

TEST(BotTest, EveryGameHasAHeuristicAndASearchBot) {
  for (const engine::Game* game : engine::AllGames()) {
    EXPECT_THAT(BuiltinBotNames(*game), ElementsAre("first", "random", "heuristic", "mcts"))
        << game->info().id;
    EXPECT_NE(engine::DealFor(*game), nullptr) << game->info().id;
  }
}

TEST(BotTest, SearchBudgetsAreNamedInIterationsOrMilliseconds) {
  for (const char* name :
       {"mcts", "mcts-1", "mcts-250", "mcts-1000000", "mcts-5ms", "mcts-600000ms"}) {
    EXPECT_THAT(MakeBot(name, Village(), 1), IsOk()) << name;
  }
  for (const char* name : {"mcts-0", "mcts-", "mcts-x", "mcts--5", "mcts-+5", "mcts-1000001",
                           "mcts-0ms", "mcts-600001ms", "mcts-5s", "mctsx", "MCTS"}) {
    EXPECT_THAT(MakeBot(name, Village(), 1), StatusIs(absl::StatusCode::kNotFound, HasSubstr(name)))
        << name;
  }
}

// A bot is given a View and its legal actions, never the State (the
// interface has no way to pass one)...
static_assert(
    std::is_same_v<decltype(&Bot::Choose),
                   engine::Action (Bot::*)(const engine::View&, std::span<const engine::Action>)>);

// ...and what it decides depends on nothing else: the same bot, seeded the
// same, given the views of two matches that differ only in what the seat
// cannot see, makes the same choices. Hidden cards that leaked into a bot any
// other way would split them.
TEST(BotTest, BuiltinBotsDecideFromTheSeatsViewAlone) {
  for (const engine::Game* game : engine::AllGames()) {
    const int n = game->info().min_players == 2 ? 3 : game->info().min_players;
    for (std::string name : BuiltinBotNames(*game)) {
      if (name == "mcts") name = "mcts-40";  // the same search, quicker
      std::unique_ptr<Bot> real = *MakeBot(name, *game, 11);
      std::unique_ptr<Bot> twin = *MakeBot(name, *game, 11);
      engine::Rng rng(3);
      std::unique_ptr<engine::State> state = *game->NewMatch({.num_players = n, .seed = 8});
      int decisions = 0, hidden_differed = 0;
      for (int step = 0; !state->IsOver(); ++step) {
        const engine::Seat seat = state->SeatsToAct()[0];
        const std::vector<engine::Action> legal = state->LegalActions(seat);
        engine::Action action = legal[rng.Uniform(legal.size())];
        if (step % 5 == 0) {
          std::unique_ptr<engine::State> other =
              *engine::DealFor(*game)->Sample(*state->ViewFor(seat), rng);
          if (other->ToString() != state->ToString()) ++hidden_differed;
          const engine::Action mine = real->Choose(*state->ViewFor(seat), legal);
          ASSERT_EQ(mine, twin->Choose(*other->ViewFor(seat), legal))
              << game->info().id << " " << name << " step " << step;
          action = mine;
          ++decisions;
        }
        ASSERT_THAT(state->Apply(seat, action), IsOk());
      }
      EXPECT_GT(decisions, 5) << game->info().id << " " << name;
      EXPECT_GT(hidden_differed, decisions / 2) << game->info().id << " " << name;
    }
  }
}

TEST(BotTest, RandomBotPicksLegalActionsReproducibly) {
  std::unique_ptr<engine::State> state = *Village().NewMatch({.num_players = 3, .seed = 4});
  const std::vector<engine::Action> legal = state->LegalActions(0);
  auto view = state->ViewFor(0);
  RandomBot a(9), b(9);
  std::vector<engine::Action> picks;
  for (int i = 0; i < 50; ++i) {
    const engine::Action pick = a.Choose(*view, legal);
    EXPECT_EQ(pick, b.Choose(*view, legal));
    EXPECT_NE(std::find(legal.begin(), legal.end(), pick), legal.end());
    picks.push_back(pick);
  }
  std::sort(picks.begin(), picks.end());
  EXPECT_GT(std::unique(picks.begin(), picks.end()) - picks.begin(), 10);
}

TEST(LocalMatchTest, PlaysToTheEndAndRecordsAVerifiableMatch) {
  RandomBot b0(1), b1(2), b2(3);
  Bot* seats[] = {&b0, &b1, &b2};
  int steps = 0;
  absl::StatusOr<PlayedMatch> played = PlayLocalMatch(
      Village(), {.num_players = 3, .seed = 77}, seats, {"r0", "r1", "r2"}, [&](const Step& step) {
        EXPECT_EQ(step.number, ++steps);
        EXPECT_FALSE(step.text.empty());
      });
  ASSERT_THAT(played, IsOk());
  EXPECT_TRUE(played->final_state->IsOver());
  EXPECT_EQ(static_cast<int>(played->record.actions.size()), steps);
  EXPECT_EQ(played->record.seats, (std::vector<std::string>{"r0", "r1", "r2"}));
  EXPECT_THAT(engine::VerifyRecord(played->record), IsOk());
}

// Always answers with an action the seat cannot play.
class CheatingBot final : public Bot {
 public:
  engine::Action Choose(const engine::View&, std::span<const engine::Action>) override {
    return engine::Action(3);
  }
};

TEST(LocalMatchTest, ABotOutsideItsLegalListStopsTheMatchWithAReason) {
  CheatingBot cheat;
  RandomBot fair(1);
  Bot* seats[] = {&cheat, &fair};
  EXPECT_THAT(PlayLocalMatch(Village(), {.num_players = 2, .seed = 1}, seats, {"cheat", "fair"}),
              StatusIs(absl::StatusCode::kInternal,
                       HasSubstr("bot 'cheat' in seat 0 chose an action outside its legal list")));
  EXPECT_THAT(PlayLocalMatch(Village(), {.num_players = 3, .seed = 1}, seats, {"cheat", "fair"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("3 players need 3 bots")));
}

}  // namespace
}  // namespace hoard::bots
