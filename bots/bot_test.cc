#include "bots/bot.h"

#include <algorithm>
#include <memory>

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
using ::testing::HasSubstr;

const engine::Game& Village() { return **engine::FindGame("village"); }

TEST(BotTest, UnknownBotsAreNamed) {
  EXPECT_THAT(MakeBot("genius", Village(), 1),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("unknown bot 'genius' for village (built-in bots: first, random)")));
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
      Village(), {.num_players = 3, .seed = 77}, seats, {"r0", "r1", "r2"},
      [&](const Step& step) {
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
