#ifndef HOARD_ENGINE_TESTING_RANDOM_RECORD_H_
#define HOARD_ENGINE_TESTING_RANDOM_RECORD_H_

// The record of a match of `game` between random players, for the tests of
// records: the same (game, players, seed) gives the same match. Each step
// the first seat to act (of a sealed decision, the first yet to answer)
// plays one of its legal actions, drawn from Rng(seed + 1).

#include <memory>
#include <string>
#include <vector>

#include "engine/record.h"
#include "engine/registry.h"
#include "engine/testing/status_matchers.h"
#include "gtest/gtest.h"

namespace hoard::testing {

inline engine::MatchRecord PlayRandomRecord(const std::string& game_id, int players,
                                            std::uint64_t seed) {
  const engine::Game& game = **engine::FindGame(game_id);
  engine::MatchConfig config{.num_players = players, .seed = seed};
  std::unique_ptr<engine::State> state = *game.NewMatch(config);
  engine::MatchRecorder recorder(game.info(), config, std::vector<std::string>(players, "random"),
                                 *state);
  engine::Rng rng(seed + 1);
  while (!state->IsOver()) {
    const engine::Seat seat = state->SeatsToAct()[0];
    const std::vector<engine::Action> legal = state->LegalActions(seat);
    const engine::Action action = legal[rng.Uniform(legal.size())];
    std::string text = state->ActionToString(seat, action);
    EXPECT_THAT(state->Apply(seat, action), IsOk());
    recorder.Record(seat, action, text, *state);
  }
  return recorder.Finish(*state);
}

}  // namespace hoard::testing

#endif  // HOARD_ENGINE_TESTING_RANDOM_RECORD_H_
