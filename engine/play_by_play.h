#ifndef HOARD_ENGINE_PLAY_BY_PLAY_H_
#define HOARD_ENGINE_PLAY_BY_PLAY_H_

// What the table is told of the play: the one place that decides which
// actions every observer — each seat and each spectator alike — hears of,
// and when.
//
// Decisions are played in the open: each action is told as it is played,
// with its text as the acting seat describes it. The answers of a sealed
// decision (several seats to act at once) are the exception: each is told
// only as "answered (sealed)" until the last seat of the decision has
// answered, and then all of them are revealed, in the order they came.
// Chance is never told here: what a draw shows, and to whom, is in each
// observer's view (State::ViewFor).

#include <optional>
#include <string>
#include <vector>

#include "engine/game.h"

namespace hoard::engine {

// One thing the table is told.
struct ToldAction {
  // The number of actions played once this one is (1 for the first).
  int step = 0;
  Seat seat = 0;
  // Unset while the action is a sealed answer not yet revealed.
  std::optional<Action> action;
  std::string text;
  // Played for the seat by the server (a time-out or a forfeit).
  bool by_default = false;
  bool operator==(const ToldAction&) const = default;
};

inline constexpr char kSealedAnswerText[] = "answered (sealed)";

class PlayByPlay {
 public:
  // What is told now that `seat` plays `action`, described as `text`, in
  // `before` (the state it is played in, not yet applied): nothing, one
  // item, or — when it completes a sealed decision — its own sealed item
  // followed by every answer of the decision revealed.
  std::vector<ToldAction> Tell(const State& before, Seat seat, Action action, std::string text,
                               bool by_default);

 private:
  // The seats of the sealed decision in progress that have yet to answer,
  // and the answers withheld until they all have.
  int steps_ = 0;
  std::vector<Seat> sealed_group_;
  std::vector<ToldAction> withheld_;
};

}  // namespace hoard::engine

#endif  // HOARD_ENGINE_PLAY_BY_PLAY_H_
