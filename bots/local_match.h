#ifndef HOARD_BOTS_LOCAL_MATCH_H_
#define HOARD_BOTS_LOCAL_MATCH_H_

// Plays one match in-process between built-in bots and records it.

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bots/bot.h"
#include "engine/game.h"
#include "engine/record.h"

namespace hoard::bots {

// What happened in one step, reported as the match goes.
struct Step {
  int number = 0;  // 1-based
  engine::Seat seat = 0;
  std::string text;                      // the action in words
  const engine::State* after = nullptr;  // the state after the action
};

struct PlayedMatch {
  engine::MatchRecord record;
  std::unique_ptr<engine::State> final_state;
};

// Plays `game` under `config` with bots[s] in seat s (named names[s]) until
// it is over, calling `on_step` (if set) after every action. Errors if the
// match cannot start or a bot picks an action outside its legal list.
absl::StatusOr<PlayedMatch> PlayLocalMatch(
    const engine::Game& game, const engine::MatchConfig& config, std::span<Bot* const> bots,
    std::vector<std::string> names, const std::function<void(const Step&)>& on_step = nullptr);

}  // namespace hoard::bots

#endif  // HOARD_BOTS_LOCAL_MATCH_H_
