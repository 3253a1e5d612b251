#ifndef HOARD_TOURNAMENT_RATINGS_H_
#define HOARD_TOURNAMENT_RATINGS_H_

// Ratings from match results (formulas and test vectors: docs/ratings.md).
//
// Bots are numbered 0..n-1 by the caller; a result lists who played and the
// place each took (1 = first; tied players share a place). Pure functions:
// no I/O, no clocks; the same results give the same numbers.

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

// One match: the ratings after it, in the order of `ratings` (which lists the
// ratings before it of the players in `places` order). All players update
// from the ratings before the match.
std::vector<double> EloUpdate(const std::vector<double>& ratings,
                              const std::vector<int>& places,
                              const EloOptions& options = {});

// Every match in order, from `initial` for each of n bots.
std::vector<double> EloRatings(int n, const std::vector<MatchResult>& results,
                               const EloOptions& options = {});

// ---- Order-independent maximum likelihood (Bradley–Terry) -------------------
// Bradley–Terry over all pairwise outcomes within each match (a win counts
// 1, a tie 1/2 to each), solved with Hunter's MM algorithm to a largest
// relative change < 1e-9, with a prior of one virtual tie between each bot
// and a virtual player of strength 1. Ratings are 400·log10(γ), shifted so
// that their mean is 0. The 95% interval of each bot is a percentile
// bootstrap over units: `bootstrap_samples` resamplings (each unit drawn
// with a Poisson(1) weight from a generator seeded with `seed`), so the same
// results always give the same interval.
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
  double los = 0;           // likelihood of superiority, 0..1
  bool defined = false;     // false when n = 0 or the score is 0 or 1
};

HeadToHead HeadToHeadStats(int wins, int losses, int draws);

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_RATINGS_H_
