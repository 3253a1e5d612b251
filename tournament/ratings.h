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
#include <utility>
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
std::vector<double> EloUpdate(const std::vector<double>& ratings, const std::vector<int>& places,
                              const EloOptions& options = {});

// Every match in order, from `initial` for each of n bots.
std::vector<double> EloRatings(int n, const std::vector<MatchResult>& results,
                               const EloOptions& options = {});

// ---- Order-independent maximum likelihood (Bradley–Terry) -------------------
// Bradley–Terry over all pairwise outcomes within each match (a win counts
// 1, a tie 1/2 to each) with a prior (BayesElo's): `prior_ties` virtual
// ties between each bot and a virtual player of strength 1. The estimate is
// the maximum of the penalized likelihood (the posterior mode), found by
// Newton's method on the log-strengths (a line search keeps every step one
// that raises it) until no rating moves by more than 1e-9 natural-log units
// in a step; each step costs O(pairs of bots that met) plus, up to 128
// bots, a dense n×n solve, above that conjugate gradients (no O(n³) step).
// Ratings are 400·log10(γ), shifted so that their mean weighted by each
// bot's share of the pairwise meetings is 0 (a bot of one match barely
// moves it; with no meetings, the plain mean). Newton stops
// after 200 steps at the latest (a safeguard; a few to a few tens suffice,
// separated data included).
//
// Every rating and every interval is finite, whatever the results: a bot
// that won every meeting, or played one match, is held by its virtual ties.
//
// A 95% interval (of a bot against that mean, or of the difference of two
// bots) is the wider of two, so that it stays honest both when matches come
// in correlated blocks and when a group of bots never loses
// (docs/ratings.md, "Intervals"):
//  - a percentile bootstrap over units: `bootstrap_samples` resamplings,
//    each unit drawn with a Poisson(1) weight from a generator seeded with
//    `seed`, the units taken in an order fixed by their contents (not by
//    their ids or the order of `results`);
//  - the profile interval of the penalized likelihood (the values whose
//    best fit is within χ²₁(0.95)/2 = 1.92 of the maximum), for up to
//    kMlProfileMaxBots bots.
// Where the comparisons are separated (a set of bots never lost a meeting to
// the bots outside it), the data bound that gap from below only and the
// prior from above: the interval is finite and its far end is the prior's.
//
// The numbers depend on the results, the bot numbering and the options
// only: the same results listed in any order, with their units numbered in
// any way (the same matches grouped the same), give the same bits.

// The prior's default strength: two virtual ties per bot, as BayesElo.
// With two, the prior on a bot's natural-log strength is exactly the
// standard logistic distribution (density σ(x)·σ(−x)): a standard
// deviation of π/√3 = 1.81 natural-log units, 315 rating points.
inline constexpr double kMlPriorTies = 2;

// Rating points per natural-log unit of strength: a rating is
// kMlPointsPerLogUnit·log(γ) = 400·log10(γ).
inline constexpr double kMlPointsPerLogUnit = 400 / 2.302585092994046;  // 400 / ln 10

struct MlOptions {
  int bootstrap_samples = 1000;  // 0: no bootstrap
  std::uint64_t seed = 1;
  bool profile_likelihood = true;    // false: the bootstrap alone
  double prior_ties = kMlPriorTies;  // > 0
};

// Above this many bots the profile likelihood (its cost grows as n⁴) is
// left out; the intervals are the bootstrap's.
inline constexpr int kMlProfileMaxBots = 50;

struct MlRating {
  double rating = 0;
  double low = 0;   // lower end of the 95% interval (finite)
  double high = 0;  // upper end (finite)
  // The connected group of the bot (bots of different groups were never
  // compared, directly or through others; their ratings are set against
  // each other by the prior alone). Groups are numbered 0, 1, ... in order
  // of their first bot.
  int group = 0;
  // Separation within the group: tier 0 holds the bots no one outside
  // their set ever beat or tied; tier k+1 those beaten only by tiers up to
  // k. A group with one tier (every tier 0) is not separated.
  int tier = 0;
};

std::vector<MlRating> MlRatings(int n, const std::vector<MatchResult>& results,
                                const MlOptions& options = {});

// The rating difference of two bots and its 95% interval, by the method of
// MlRatings (the same fit, bootstrap and profile, applied to the
// difference rather than to a bot against the mean).
struct MlDifference {
  int a = 0, b = 0;
  double difference = 0;  // rating(a) − rating(b)
  double low = 0, high = 0;
};

// One entry per pair, in order. REQUIRES (besides the file's): each pair
// holds two distinct bots of 0..n-1.
std::vector<MlDifference> MlDifferences(int n, const std::vector<MatchResult>& results,
                                        const std::vector<std::pair<int, int>>& pairs,
                                        const MlOptions& options = {});

// ---- Who is likely best -----------------------------------------------------
// The probability of each rank for each bot, from the posterior of the ML
// model above (its penalized likelihood with the same prior) in the Laplace
// approximation, as BayesElo's likelihood of superiority: a normal
// distribution of the strengths centred on the estimate whose covariance
// is the inverse of the information matrix there. `samples` draws of it
// (from a generator seeded with `seed`) are each ranked, strongest first;
// out[i][r] is the share of draws in which bot i ranks r + 1 (0-based r).
// Each row and each column sums to 1. The draws' error is at most
// 0.5/√samples (one standard deviation: 0.005 at 10,000).
//
// Costs O(n³) once and O(n²) per draw, so it is offered up to
// kRankProbabilityMaxBots bots.
inline constexpr int kRankProbabilityMaxBots = 200;

struct RankOptions {
  int samples = 10'000;  // > 0
  std::uint64_t seed = 1;
  double prior_ties = kMlPriorTies;  // > 0
};

// REQUIRES (besides the file's): n <= kRankProbabilityMaxBots.
std::vector<std::vector<double>> RankProbabilities(int n, const std::vector<MatchResult>& results,
                                                   const RankOptions& options = {});

// The posterior of the ML model in the Laplace approximation, as
// RankProbabilities draws it (the strengths normal, centred on the
// estimate, with the inverse of the information matrix there as their
// covariance): the ratings of MlRatings and their covariance under it, in
// rating points squared (row-major n×n), each rating taken against the
// mean MlRatings sets them against. So √c_ii is a rating's standard
// deviation and c_ii + c_jj − 2·c_ij the variance of the difference of two.
// Costs one fit (MlRatings without bootstrap or profile) and O(n³).
struct MlPosterior {
  std::vector<double> rating;
  std::vector<double> covariance;
};

// REQUIRES (besides the file's): prior_ties > 0.
MlPosterior MlLaplacePosterior(int n, const std::vector<MatchResult>& results,
                               double prior_ties = kMlPriorTies);

// The posterior probability, from `options.samples` draws as
// RankProbabilities makes them, that the bots of `order` are the best
// order.size() bots and in that order (first the strongest).
// REQUIRES (besides the file's and RankProbabilities'): `order` lists
// distinct bots of 0..n-1.
double TopOrderProbability(int n, const std::vector<MatchResult>& results,
                           const std::vector<int>& order, const RankOptions& options = {});

// Whether some group of `ratings` has more than one tier (some bots never
// lose to others), and whether there is more than one group (some bots
// were never compared with others).
bool Separated(const std::vector<MlRating>& ratings);
bool Disconnected(const std::vector<MlRating>& ratings);

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
  double score = 0;      // (W + D/2) / n
  double elo = 0;        // the Elo difference the score implies
  double margin = 0;     // half-width of its 95% interval
  double los = 0;        // likelihood of superiority, 0..1 (0.5 if W+L = 0)
  bool defined = false;  // false when n = 0 or the score is 0 or 1
};

// Scores, Elo difference and margin as cutechess computes them. Without
// `defined`, elo and margin are 0; margin is infinite when the interval of
// the score reaches 0 or 1 (too few games to bound the Elo difference).
// REQUIRES: no count is negative.
HeadToHead HeadToHeadStats(int wins, int losses, int draws);

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_RATINGS_H_
