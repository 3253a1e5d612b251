#ifndef HOARD_TOURNAMENT_MATCHMAKER_H_
#define HOARD_TOURNAMENT_MATCHMAKER_H_

// A ladder's matchmaking: which entrants sit at the next table, chosen for
// what its result will teach about the ranking (docs/tournaments.md,
// "Ladders").
//
// The ratings are the order-independent maximum likelihood of ratings.h
// over every result so far, with its Laplace posterior (a normal
// distribution of the strengths centred on the estimate, whose covariance
// is the inverse of the information matrix there). A table is scored by
// the expected reduction of uncertainty about who is above whom among the
// entrants it seats, weighted toward close ratings; the table chosen is the
// best scoring one among those that seat the entrant who has waited
// longest (so every present entrant gets a share of play), with three
// rules before the score:
//  - placement: an entrant with fewer than placement_matches results plays
//    those first, against opponents spread over the field's ratings;
//  - no repeat: the same set of entrants is not seated again while another
//    set would do;
//  - seats rotate: at a table, the entrant whose seats so far were furthest
//    back sits first.
//
// Deterministic: the same options, entrants, results and calls give the
// same tables.
//
// Thread safety: none; the ladder's format calls it under the runner's
// lock.

#include <cstdint>
#include <vector>

#include "engine/rng.h"
#include "tournament/ratings.h"

namespace hoard::tournament {

struct MatchmakerOptions {
  int players = 2;  // seats per table, 2..6
  // Results an entrant plays as placement before the score chooses its
  // tables.
  int placement_matches = 3;
  double prior_ties = kMlPriorTies;
  std::uint64_t seed = 1;  // ties between equal scores
};

// One entrant's rating as the matchmaker sees it.
struct MatchmakerRating {
  double rating = 0;     // ML rating (Elo points), as MlRatings
  double deviation = 0;  // the posterior's standard deviation, Elo points
  int matches = 0;
};

class Matchmaker {
 public:
  explicit Matchmaker(MatchmakerOptions options);

  // Entrants are numbered 0, 1, ... by the caller; this makes room for
  // entrants up to n - 1 (n never shrinks: an entrant who leaves keeps its
  // number and its results).
  void Grow(int n);
  int entrants() const;

  // A finished match: the entrant in each seat and its rank (1 = first; a
  // tie shares a place). REQUIRES: two or more distinct entrants below
  // entrants(), ranks of the same length, each at least 1. The ratings are
  // fitted again, over every result, when next needed.
  void Add(const std::vector<int>& seats, const std::vector<int>& ranks);

  // The next table, the entrants by seat, from `available` (entrants that
  // may be seated now, each listed once); empty when fewer than `players`
  // are available. Counts the table as played for waiting and rotation (a
  // table that is then lost is not taken back: its entrants waited less).
  std::vector<int> Next(const std::vector<int>& available);

  // Every entrant's rating from the results so far.
  std::vector<MatchmakerRating> Ratings();

  // A final evaluation: from now on the score counts only what settles the
  // order of the `top` best entrants (by rating) and who they are, and the
  // best scoring table is taken whoever it seats (nobody's waiting counts:
  // an entrant outside the top's reach may not play again). Placement
  // still comes first. A top of 0 ends the focus.
  void FocusOnTop(int top);

  // The posterior probability that the `top` best entrants by rating are
  // the best `top` and in that order, from `samples` draws of the
  // posterior (seeded by the options' seed and the results so far).
  // REQUIRES: 1 <= top <= entrants() <= kRankProbabilityMaxBots,
  // samples > 0.
  double TopOrderConfidence(int top, int samples);

 private:
  // Fits the ratings again if results came since the last fit.
  void Fit();
  // What seating i and j at one table is expected to teach about their
  // order (natural-log units; see matchmaker.cc), counted only where the
  // focus (FocusOnTop) cares about the pair.
  double PairScore(int i, int j) const;
  // Whether `table` (any order) is the last table of one of its entrants.
  bool Repeats(std::vector<int> table) const;
  // The best table seating `anchor` among `others`, built greedily; its
  // score in `score`.
  std::vector<int> BestTable(int anchor, const std::vector<int>& others, double& score) const;
  // A placement table for `anchor`: opponents spread over the ratings of
  // `others`.
  std::vector<int> PlacementTable(int anchor, const std::vector<int>& others) const;
  // Orders `table` by seat (furthest back so far first) and counts it.
  void Seat(std::vector<int>& table, const std::vector<int>& available);

  MatchmakerOptions options_;
  int n_ = 0;
  std::vector<MatchResult> results_;
  bool fitted_ = false;
  MlPosterior posterior_;  // of results_, when fitted_
  std::vector<int> rank_;  // by rating, 0 = best, when fitted_
  int focus_top_ = 0;      // 0: no focus
  // Per entrant: results, calls of Next it was available and not seated
  // since it was last seated, the sum of 2·seat − (players − 1) over its
  // tables (as swiss.h), and its last table (sorted).
  std::vector<int> matches_;
  std::vector<std::int64_t> waited_;
  std::vector<int> seat_balance_;
  std::vector<std::vector<int>> last_table_;
  engine::Rng rng_;
};

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_MATCHMAKER_H_
