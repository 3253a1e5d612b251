#ifndef HOARD_ENGINE_MATCH_STATS_H_
#define HOARD_ENGINE_MATCH_STATS_H_

// What a game counts in its matches, for `hoard stats`.
//
// `hoard stats` plays many matches and reports what every game has: how long
// they ran, win rate per seat, shared ranks, score spread. A game adds its own
// counters (how its matches ended, the action spaces used, the card kinds
// scored, the dragons slain, the steals) with a MatchCounter: one is made per
// match, told every action, and asked for its counts when the match is over.
// Counts are summed over the matches; a Ratio divides two sums (points per
// claimed card of a kind).

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/game.h"

namespace hoard::engine {

// Counter name -> amount in one match. A name of the form "group: item"
// (such as "ended: deck exhausted") is shown under its group; the share of
// matches with a non-zero amount is shown beside each.
using MatchCounts = std::map<std::string, double>;

// A line "name = sum(numerator) / sum(denominator)" over all matches.
struct Ratio {
  std::string name;
  std::string numerator;
  std::string denominator;
};

class MatchCounter {
 public:
  virtual ~MatchCounter() = default;
  // After `seat` played `action`, which turned `before` into `after`.
  virtual void OnAction(const State& /*before*/, Seat /*seat*/, Action /*action*/,
                        const State& /*after*/) {}
  // Once, when the match is over: adds this match's counts.
  virtual void OnEnd(const State& final_state, MatchCounts* counts) = 0;
};

// A game's counters: a new one per match, and the ratios shown from them.
struct MatchStatistics {
  std::unique_ptr<MatchCounter> (*make_counter)() = nullptr;
  std::vector<Ratio> ratios;
};

}  // namespace hoard::engine

#endif  // HOARD_ENGINE_MATCH_STATS_H_
