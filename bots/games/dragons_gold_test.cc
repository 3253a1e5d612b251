#include "bots/games/dragons_gold.h"

#include <algorithm>
#include <iostream>
#include "bots/bot.h"
#include "engine/registry.h"
#include "gtest/gtest.h"

namespace hoard::bots::dragons_gold {
namespace {

std::vector<std::string> AllCards(const engine::State& state) {
  std::vector<std::string> cards;
  for (const engine::Zone& zone : state.Zones()) {
    cards.insert(cards.end(), zone.cards.begin(), zone.cards.end());
  }
  std::sort(cards.begin(), cards.end());
  return cards;
}

TEST(Diag, Diag) {
  const engine::Game& game = **engine::FindGame("dragons_gold");
  auto sampler = MakeSampler();
  engine::Rng rng(3);
  auto state = *game.NewMatch({.num_players = 4, .seed = 7});
  auto start = AllCards(*state);
  std::vector<engine::Action> legal;
  int mismatch_state = 0, mismatch_real = 0, steps = 0;
  while (!state->IsOver()) {
    ++steps;
    auto now = AllCards(*state);
    if (now != start) ++mismatch_state;
    auto view = state->ViewFor(0);
    auto sample = *sampler->Sample(*view, rng);
    if (AllCards(*sample) != now) ++mismatch_real;
    auto seat = state->SeatsToAct()[0];
    state->LegalActions(seat, &legal);
    ASSERT_TRUE(state->Apply(seat, legal[rng.Uniform(legal.size())]).ok());
  }
  std::cout << steps << " steps; real state's cards differ from the start's at " << mismatch_state
            << "; sample's from the real state's at " << mismatch_real << "\n";
}

}  // namespace
}  // namespace hoard::bots::dragons_gold
