#ifndef HOARD_TOURNAMENT_RATINGS_H_
#define HOARD_TOURNAMENT_RATINGS_H_

// Ratings from match results (formulas and test vectors: docs/ratings.md).
//
// Bots are numbered 0..n-1 by the caller; a result lists who played and the
// place each took (1 = first; tied players share a place). Only the order of
// the places counts: 1,1,3 and 1,1,2 both mean a tie for first. Pure
// functions: no I/O, no clocks; the same results give the same numbers.
//
// REQUIRES (of every function here; callers validate their input, and a
// broken requirement aborts through HOARD_CHECK): each match has two or more
// placings of distinct bots in 0..n-1, every place is at least 1, and a
// match's `ratings` and `places` have the same length.

#include <cstdint>
#include <vector>

namespace hoard::tournament {

struct Placing {
  int bot = 0;    // 0..n-1
  int place = 1;  // 1 = first; ties share a place
};

struct MatchResult {
  std::vector<Placing> placings;  // two or more distinct bots
  // The statistical unit the match belongs to (a duplicate block: every
  // seat rotation of one deal). Matches of one unit are resampled together
  // for intervals. Distinct per match when there are no blocks.
  std::int64_t unit = 0;
};

// ---- Incremental multiplayer Elo (pairwise decomposition) -------------------
// Depends on the order of the matches: replaying them in another order gives
// other numbers.
struct EloOptions {
  double k = 32;
  double d = 400;
  double initial = 1500;
};

// One match: `ratings[i]` is the rating before the match of the player who
// took `places[i]`; returns the ratings after it in the same order. All
// players update from the ratings before the match.
std::vector<double> EloUpdate(const std::vector<double>& ratings,
                              const std::vector<int>& places,
                              const EloOptions& options = {});

// Every match in order, from `initial` for each of n bots.
std::vector<double> EloRatings(int n, const std::vector<MatchResult>& results,
                               const EloOptions& options = {});

// ---- Order-independent maximum likelihood (Bradley–Terry) -------------------
// Bradley–Terry over all pairwise outcomes within each match (a win counts
// 1, a tie 1/2 to each) with a prior of one virtual tie between each bot
// and a virtual player of strength 1, solved with Hunter's MM algorithm (the
// common scale set to its best value after each step) to a largest relative
// change < 1e-9. Ratings are 400·log10(γ), shifted so that their mean is 0.
// The 95% interval of each bot is a percentile bootstrap over units:
// `bootstrap_samples` resamplings (each unit drawn with a Poisson(1) weight
// from a generator seeded with `seed`), so the same results always give the
// same interval, whatever order they are listed in.
// MM stops after 100000 iterations at the latest (a safeguard; tournament
// data converges in far fewer).
struct MlOptions {
  int bootstrap_samples = 1000;  // 0: no intervals (low = high = rating)
  std::uint64_t seed = 1;
};

struct MlRating {
  double rating = 0;
  double low = 0;   // 2.5th percentile
  double high = 0;  // 97.5th percentile
};

std::vector<MlRating> MlRatings(int n, const std::vector<MatchResult>& results,
                                const MlOptions& options = {});

// ---- OpenSkill (Weng–Lin, Plackett–Luce model, one bot per team) ------------
struct OpenSkillOptions {
  double mu = 25.0;
  double sigma = 25.0 / 3.0;
  double beta = 25.0 / 6.0;
  double kappa = 1e-4;
  double tau = 25.0 / 300.0;  // 0 for bots of fixed strength
};

struct OpenSkillRating {
  double mu = 25.0;
  double sigma = 25.0 / 3.0;
  double Ordinal() const { return mu - 3 * sigma; }  // the leaderboard value
};

// One match: the ratings after it, in the order of `ratings`, whose players
// took `places`.
std::vector<OpenSkillRating> OpenSkillUpdate(const std::vector<OpenSkillRating>& ratings,
                                             const std::vector<int>& places,
                                             const OpenSkillOptions& options = {});

// Every match in order (order-dependent, like Elo), from the defaults.
std::vector<OpenSkillRating> OpenSkillRatings(int n, const std::vector<MatchResult>& results,
                                              const OpenSkillOptions& options = {});

// ---- Head to head (two bots, as cutechess reports it) -----------------------
struct HeadToHead {
  int wins = 0, losses = 0, draws = 0;
  double score = 0;         // (W + D/2) / n
  double elo = 0;           // the Elo difference the score implies
  double margin = 0;        // half-width of its 95% interval
  double los = 0;           // likelihood of superiority, 0..1 (0.5 if W+L = 0)
  bool defined = false;     // false when n = 0 or the score is 0 or 1
};

// Scores, Elo difference and margin as cutechess computes them. Without
// `defined`, elo and margin are 0; margin is infinite when the interval of
// the score reaches 0 or 1 (too few games to bound the Elo difference).
// REQUIRES: no count is negative.
HeadToHead HeadToHeadStats(int wins, int losses, int draws);

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_RATINGS_H_
