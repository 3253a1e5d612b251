#ifndef HOARD_ENGINE_TESTING_CONFORMANCE_H_
#define HOARD_ENGINE_TESTING_CONFORMANCE_H_

// The conformance suite every game must pass.
//
// It plays many seeded random matches and, at every step, checks the
// contract of engine/game.h:
//  * SeatsToAct() is empty exactly when the match is over; each seat to act
//    has legal actions, without duplicates; every other seat has none, and
//    its (empty) list is complete;
//  * a seat whose list is not complete (LegalActionsComplete() false) has a
//    LegalActionsHint(), and a seat whose list is complete has none;
//  * every listed action applies (on a clone), and actions that are not
//    legal — well-formed actions seen legal elsewhere but not listed for a
//    seat whose list is complete, any action from a seat that may not act
//    now, and seats that do not exist — are refused with an error and leave
//    the state exactly as it was. An action missing from an incomplete list
//    is never taken for an illegal one, but if it is refused, the refusal
//    must meet the same terms;
//  * Clone() is equal to the original, and so are its views;
//  * view invariance, through the game's one deal (engine/sampler.h): for
//    every seat, states dealt from its view give it an identical view,
//    identical legal actions (with the same completeness and hint), leave it
//    to act and the match over exactly as before, and look the same to the
//    spectator (who may see only what every seat sees); the deal never
//    refuses a view of a real match;
//  * what the table is told (engine/play_by_play.h) is alike for every
//    observer in matches it cannot tell apart: before each action, for
//    every seat, a state dealt from its view in which the action is legal
//    tells it of the action in exactly the same items (seat, action, text);
//    and, given the game's codec, every view compared above is the same
//    bytes on the wire. With view invariance at the next step, every event
//    a seat receives (what it is told, and its view after) is a function of
//    what it may know;
//  * the match ends within GameInfo::max_actions actions;
//  * ranks are consistent with scores (a higher score never ranks worse,
//    shared ranks have equal scores, ranks count the better players);
//  * determinism: replaying the seed and the actions gives the same state at
//    every step.
// The first violation is returned as an error naming the game, player count,
// match seed and step, so it can be reproduced.

#include <cstdint>

#include "absl/status/statusor.h"
#include "engine/codec.h"
#include "engine/game.h"
#include "engine/sampler.h"

namespace hoard::engine::testing {

struct ConformanceOptions {
  // Random matches to play.
  int matches = 1000;
  // Seeds the match seeds and every random choice of the suite.
  std::uint64_t seed = 1;
  // In the first `exhaustive_matches` matches every legal action is applied
  // at every step; later, `sampled_legal_actions` random ones per step.
  int exhaustive_matches = 20;
  int sampled_legal_actions = 3;
  // Refused actions tried per step.
  int illegal_probes = 4;
  // States dealt per seat per step for view invariance.
  int deals = 1;
  // States dealt per seat per step, at most, to find one in which the
  // action about to be played is legal too (to compare what is told).
  int told_deals = 3;
  // The game's codec, to compare views as wire bytes (optional).
  const GameCodec* codec = nullptr;
  // In how many of the first matches what is told, and the views' bytes,
  // are compared (-1: all).
  int told_matches = -1;
};

// What the suite saw, so a test can assert it was not vacuous.
struct ConformanceReport {
  int matches = 0;
  std::int64_t steps = 0;
  std::int64_t views_compared = 0;
  std::int64_t illegal_refused = 0;
  // Seats asked to act whose legal actions were examples only (counted once
  // per seat and step).
  std::int64_t incomplete_lists = 0;
  // Actions missing from an incomplete list that Apply accepted.
  std::int64_t unlisted_accepted = 0;
  // Dealt states that differed from the original (hidden cards moved).
  std::int64_t deals_that_moved_cards = 0;
  // ...and of those, how often some other seat's view changed.
  std::int64_t deals_visible_to_others = 0;
  // Actions told alike in a dealt state (per seat and step), and of those,
  // actions of another seat than the one the state was dealt for.
  std::int64_t told_alike = 0;
  std::int64_t told_alike_others = 0;
  // Views compared as wire bytes.
  std::int64_t view_bytes_compared = 0;
  // Steps of the matches where what is told was compared.
  std::int64_t told_steps = 0;
};

// Checks `game`, with `deal` its deal, for `num_players` seats.
absl::StatusOr<ConformanceReport> CheckConformance(const Game& game, const Sampler& deal,
                                                   int num_players,
                                                   const ConformanceOptions& options);

}  // namespace hoard::engine::testing

#endif  // HOARD_ENGINE_TESTING_CONFORMANCE_H_
