#include "tournament/ratings.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "engine/check.h"
#include "engine/rng.h"

namespace hoard::tournament {
namespace {

// Newton's method on the likelihood (SolveBradleyTerry) stops when no
// rating moves by more than kMlTolerance natural-log units, or as a
// safeguard after kMlMaxIterations (a few to a few tens suffice); it takes
// full steps once no strength moves by more than kMlFullStep. Up to
// kMlDenseNewtonMaxBots bots each step solves the n×n system directly;
// above, by conjugate gradients, so that no step costs O(n³).
constexpr int kMlMaxIterations = 200;
constexpr double kMlTolerance = 1e-9;
constexpr double kMlFullStep = 1e-3;
constexpr int kMlDenseNewtonMaxBots = 128;

// One match of EloUpdate or OpenSkillUpdate, with `ratings` ratings.
void CheckMatch(std::size_t ratings, const std::vector<int>& places) {
  HOARD_CHECK(places.size() >= 2, "a match needs two or more players");
  HOARD_CHECK(ratings == places.size(), "a rating per place");
  for (int place : places) HOARD_CHECK(place >= 1, "places start at 1");
}

void CheckResults(int n, const std::vector<MatchResult>& results) {
  HOARD_CHECK(n >= 0, "the number of bots cannot be negative");
  // last_match[bot] is the index of the last match the bot was seen in.
  std::vector<std::size_t> last_match(n, std::numeric_limits<std::size_t>::max());
  for (std::size_t m = 0; m < results.size(); ++m) {
    const std::vector<Placing>& placings = results[m].placings;
    HOARD_CHECK(placings.size() >= 2, "a match needs two or more players");
    for (const Placing& p : placings) {
      HOARD_CHECK(p.bot >= 0 && p.bot < n, "a bot outside 0..n-1");
      HOARD_CHECK(p.place >= 1, "places start at 1");
      HOARD_CHECK(last_match[p.bot] != m, "a bot appears twice in one match");
      last_match[p.bot] = m;
    }
  }
}

// Replays the matches in order from `initial` for every bot, with
// `update(before, places)` giving the ratings of a match's players after it.
template <typename Rating, typename Update>
std::vector<Rating> ReplayInOrder(int n, const std::vector<MatchResult>& results,
                                  const Rating& initial, Update update) {
  CheckResults(n, results);
  std::vector<Rating> ratings(n, initial);
  for (const MatchResult& match : results) {
    std::vector<Rating> before;
    std::vector<int> places;
    for (const Placing& p : match.placings) {
      before.push_back(ratings[p.bot]);
      places.push_back(p.place);
    }
    const std::vector<Rating> after = update(before, places);
    for (std::size_t i = 0; i < after.size(); ++i) ratings[match.placings[i].bot] = after[i];
  }
  return ratings;
}

// The outcome of i against j in halves of a point: 2 win, 1 tie, 0 loss.
int HalfPoints(int place_i, int place_j) {
  return place_i < place_j ? 2 : place_i == place_j ? 1 : 0;
}

// ---- Bradley–Terry ----------------------------------------------------------

// The pairwise outcomes of the results: every pair of bots that met (a < b),
// and each unit's tally per pair, so that a bootstrap resample is a weighted
// sum of unit tallies.
struct PairwiseOutcomes {
  struct Pair {
    int a = 0, b = 0;
  };
  // Twelve bytes, as a bootstrap reads every tally once per resample.
  struct Tally {
    std::int32_t pair = 0;      // index into `pairs`
    std::int32_t a_halves = 0;  // a's points against b, in halves
    std::int32_t meetings = 0;
  };
  std::vector<Pair> pairs;              // sorted
  std::vector<Tally> tallies;           // grouped by unit, units by id
  std::vector<std::size_t> unit_begin;  // unit u: [unit_begin[u], unit_begin[u+1])
};

bool operator<(const PairwiseOutcomes::Tally& x, const PairwiseOutcomes::Tally& y) {
  return std::tie(x.pair, x.a_halves, x.meetings) < std::tie(y.pair, y.a_halves, y.meetings);
}

// `outcomes` with its units sorted by their tallies, so that the bootstrap
// draws the same weight for the same unit whatever its id: units of equal
// tallies are interchangeable, so the order is fixed by the results alone.
PairwiseOutcomes CanonicalUnitOrder(PairwiseOutcomes outcomes) {
  const std::size_t units = outcomes.unit_begin.size() - 1;
  std::vector<std::size_t> order(units);
  for (std::size_t u = 0; u < units; ++u) order[u] = u;
  const auto begin = [&](std::size_t u) {
    return outcomes.tallies.begin() + static_cast<std::ptrdiff_t>(outcomes.unit_begin[u]);
  };
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return std::lexicographical_compare(begin(x), begin(x + 1), begin(y), begin(y + 1));
  });
  PairwiseOutcomes sorted;
  sorted.pairs = std::move(outcomes.pairs);
  sorted.tallies.reserve(outcomes.tallies.size());
  for (std::size_t u : order) {
    sorted.unit_begin.push_back(sorted.tallies.size());
    sorted.tallies.insert(sorted.tallies.end(), begin(u), begin(u + 1));
  }
  sorted.unit_begin.push_back(sorted.tallies.size());
  return sorted;
}

PairwiseOutcomes CollectOutcomes(int n, const std::vector<MatchResult>& results) {
  struct Outcome {
    std::int64_t unit;
    std::int64_t pair_key;  // a * n + b
    int a_halves;
  };
  std::vector<Outcome> outcomes;
  for (const MatchResult& match : results) {
    const std::vector<Placing>& p = match.placings;
    for (std::size_t i = 0; i < p.size(); ++i) {
      for (std::size_t j = i + 1; j < p.size(); ++j) {
        const bool i_first = p[i].bot < p[j].bot;
        const Placing& a = i_first ? p[i] : p[j];
        const Placing& b = i_first ? p[j] : p[i];
        outcomes.push_back(
            {match.unit, std::int64_t{a.bot} * n + b.bot, HalfPoints(a.place, b.place)});
      }
    }
  }
  // Grouped by unit, and within a unit by pair; the units' order is fixed
  // by their contents below.
  std::sort(outcomes.begin(), outcomes.end(), [](const Outcome& x, const Outcome& y) {
    return std::tie(x.unit, x.pair_key) < std::tie(y.unit, y.pair_key);
  });
  std::vector<std::int64_t> keys;
  keys.reserve(outcomes.size());
  for (const Outcome& o : outcomes) keys.push_back(o.pair_key);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());

  PairwiseOutcomes out;
  for (std::int64_t key : keys) {
    out.pairs.push_back({static_cast<int>(key / n), static_cast<int>(key % n)});
  }
  for (std::size_t k = 0; k < outcomes.size(); ++k) {
    const Outcome& o = outcomes[k];
    const bool new_unit = k == 0 || o.unit != outcomes[k - 1].unit;
    if (new_unit) out.unit_begin.push_back(out.tallies.size());
    if (new_unit || o.pair_key != outcomes[k - 1].pair_key) {
      const int pair =
          static_cast<int>(std::lower_bound(keys.begin(), keys.end(), o.pair_key) - keys.begin());
      out.tallies.push_back({pair, 0, 0});
    }
    out.tallies.back().a_halves += o.a_halves;
    out.tallies.back().meetings += 1;
  }
  out.unit_begin.push_back(out.tallies.size());
  return CanonicalUnitOrder(std::move(out));
}

// log(e^u + e^v) without overflow.
double LogAddExp(double u, double v) {
  const double top = std::max(u, v);
  return top + std::log1p(std::exp(-std::abs(u - v)));
}

double Logistic(double z) { return 1 / (1 + std::exp(-z)); }

// The curvature of the log-likelihood at a point: its Hessian is
// −(diag(diagonal) + Σ_p pair_weight[p]·(e_a − e_b)(e_a − e_b)ᵀ) over the
// pairs p = (a, b), a positive definite matrix (the information) negated.
struct Curvature {
  std::vector<double> diagonal;     // the virtual ties' c·p(1 − p)
  std::vector<double> pair_weight;  // n_ab·p(1 − p)
};

// The penalized Bradley–Terry log-likelihood in natural-log strengths x
// (γ = e^x), the virtual player at x = 0. Per pair p: a_halves[p] is
// pairs[p].a's points against pairs[p].b in halves, meetings[p] the number
// of their meetings. Each bot also has c virtual ties against the virtual
// player (the prior: MlOptions::prior_ties), which make the function
// strictly concave and send it to −∞ as any strength goes to ±∞.
class Likelihood {
 public:
  // `prior_ties` virtual ties of every bot with the virtual player.
  Likelihood(int n, const std::vector<PairwiseOutcomes::Pair>& pairs,
             const std::vector<std::int64_t>& a_halves, const std::vector<std::int64_t>& meetings,
             double prior_ties)
      : n_(n),
        pairs_(pairs),
        prior_ties_(prior_ties),
        meetings_(meetings.size()),
        wins_(n, prior_ties / 2) {
    for (std::size_t p = 0; p < pairs_.size(); ++p) {
      meetings_[p] = static_cast<double>(meetings[p]);
      wins_[pairs_[p].a] += 0.5 * static_cast<double>(a_halves[p]);
      wins_[pairs_[p].b] += 0.5 * static_cast<double>(2 * meetings[p] - a_halves[p]);
    }
  }

  double Value(const std::vector<double>& x) const {
    double f = 0;
    for (int i = 0; i < n_; ++i) f += wins_[i] * x[i] - prior_ties_ * LogAddExp(x[i], 0);
    for (std::size_t p = 0; p < pairs_.size(); ++p) {
      f -= meetings_[p] * LogAddExp(x[pairs_[p].a], x[pairs_[p].b]);
    }
    return f;
  }

  // The gradient and the curvature at x.
  void Derivatives(const std::vector<double>& x, std::vector<double>& gradient,
                   Curvature& curvature) const {
    gradient.resize(n_);
    curvature.diagonal.resize(n_);
    curvature.pair_weight.resize(pairs_.size());
    for (int i = 0; i < n_; ++i) {
      const double p = Logistic(x[i]);
      gradient[i] = wins_[i] - prior_ties_ * p;
      curvature.diagonal[i] = prior_ties_ * p * (1 - p);
    }
    for (std::size_t q = 0; q < pairs_.size(); ++q) {
      const int a = pairs_[q].a, b = pairs_[q].b;
      const double p = Logistic(x[a] - x[b]);
      gradient[a] -= meetings_[q] * p;
      gradient[b] -= meetings_[q] * (1 - p);
      curvature.pair_weight[q] = meetings_[q] * p * (1 - p);
    }
  }

  // The information matrix (the Hessian negated), row-major n×n.
  std::vector<double> Information(const Curvature& curvature) const {
    std::vector<double> m(static_cast<std::size_t>(n_) * n_, 0);
    for (int i = 0; i < n_; ++i) m[static_cast<std::size_t>(i) * n_ + i] = curvature.diagonal[i];
    for (std::size_t q = 0; q < pairs_.size(); ++q) {
      const std::size_t a = pairs_[q].a, b = pairs_[q].b;
      const double w = curvature.pair_weight[q];
      m[a * n_ + a] += w;
      m[b * n_ + b] += w;
      m[a * n_ + b] -= w;
      m[b * n_ + a] -= w;
    }
    return m;
  }

  // The information matrix times v, in O(n + pairs).
  std::vector<double> TimesInformation(const Curvature& curvature,
                                       const std::vector<double>& v) const {
    std::vector<double> out(n_);
    for (int i = 0; i < n_; ++i) out[i] = curvature.diagonal[i] * v[i];
    for (std::size_t q = 0; q < pairs_.size(); ++q) {
      const int a = pairs_[q].a, b = pairs_[q].b;
      const double flow = curvature.pair_weight[q] * (v[a] - v[b]);
      out[a] += flow;
      out[b] -= flow;
    }
    return out;
  }

  // The diagonal of the information matrix, in O(n + pairs).
  std::vector<double> InformationDiagonal(const Curvature& curvature) const {
    std::vector<double> out = curvature.diagonal;
    for (std::size_t q = 0; q < pairs_.size(); ++q) {
      out[pairs_[q].a] += curvature.pair_weight[q];
      out[pairs_[q].b] += curvature.pair_weight[q];
    }
    return out;
  }

  int n() const { return n_; }

 private:
  int n_;
  const std::vector<PairwiseOutcomes::Pair>& pairs_;
  double prior_ties_;
  std::vector<double> meetings_;
  std::vector<double> wins_;  // points, with the virtual ties' halves
};

// Solves the dense system m·z = rhs (m is k×k, row-major; both are
// overwritten) by Gaussian elimination with partial pivoting.
std::vector<double> SolveLinear(std::vector<double>& m, std::vector<double>& rhs) {
  const std::size_t k = rhs.size();
  for (std::size_t c = 0; c < k; ++c) {
    std::size_t pivot = c;
    for (std::size_t r = c + 1; r < k; ++r) {
      if (std::abs(m[r * k + c]) > std::abs(m[pivot * k + c])) pivot = r;
    }
    if (pivot != c) {
      for (std::size_t j = 0; j < k; ++j) std::swap(m[c * k + j], m[pivot * k + j]);
      std::swap(rhs[c], rhs[pivot]);
    }
    for (std::size_t r = c + 1; r < k; ++r) {
      const double factor = m[r * k + c] / m[c * k + c];
      if (factor == 0) continue;
      for (std::size_t j = c; j < k; ++j) m[r * k + j] -= factor * m[c * k + j];
      rhs[r] -= factor * rhs[c];
    }
  }
  std::vector<double> z(k);
  for (std::size_t c = k; c-- > 0;) {
    double sum = rhs[c];
    for (std::size_t j = c + 1; j < k; ++j) sum -= m[c * k + j] * z[j];
    z[c] = sum / m[c * k + c];
  }
  return z;
}

double Dot(const std::vector<double>& u, const std::vector<double>& v) {
  double sum = 0;
  for (std::size_t i = 0; i < u.size(); ++i) sum += u[i] * v[i];
  return sum;
}

// The Newton step d of `likelihood` at a point with `gradient` and
// `curvature`: information·d = gradient. Up to kMlDenseNewtonMaxBots bots
// it is solved directly, in O(n³); above, by conjugate gradients
// preconditioned with the diagonal, each iteration O(n + pairs), until the
// residual is 10⁻¹⁰ of the gradient's (or after n iterations).
std::vector<double> NewtonStep(const Likelihood& likelihood, const std::vector<double>& gradient,
                               const Curvature& curvature) {
  const int n = likelihood.n();
  if (n <= kMlDenseNewtonMaxBots) {
    std::vector<double> information = likelihood.Information(curvature);
    std::vector<double> rhs = gradient;
    return SolveLinear(information, rhs);
  }
  const std::vector<double> diagonal = likelihood.InformationDiagonal(curvature);
  std::vector<double> step(n, 0), residual = gradient, preconditioned(n);
  for (int i = 0; i < n; ++i) preconditioned[i] = residual[i] / diagonal[i];
  std::vector<double> direction = preconditioned;
  double rz = Dot(residual, preconditioned);
  const double target = 1e-20 * Dot(gradient, gradient);
  for (int iteration = 0; iteration < n && Dot(residual, residual) > target; ++iteration) {
    const std::vector<double> image = likelihood.TimesInformation(curvature, direction);
    const double alpha = rz / Dot(direction, image);
    for (int i = 0; i < n; ++i) {
      step[i] += alpha * direction[i];
      residual[i] -= alpha * image[i];
      preconditioned[i] = residual[i] / diagonal[i];
    }
    const double next_rz = Dot(residual, preconditioned);
    for (int i = 0; i < n; ++i) direction[i] = preconditioned[i] + next_rz / rz * direction[i];
    rz = next_rz;
  }
  return step;
}

// Maximizes `likelihood` from `x` (which it overwrites) by Newton's method;
// the likelihood is strictly concave (the virtual ties make it so).
//
// Away from the maximum, a backtracking line search makes every step raise
// the likelihood. Once no strength moves by more than a relative
// kMlFullStep, the quadratic model is exact to about that fraction and
// full steps are taken: there the gain of a step soon falls below what the
// likelihood's value resolves in double precision. Stops when no rating
// moves by more than kMlTolerance (that step taken; the strengths' common
// factor, which the mean-0 ratings do not see, aside), when a full step
// fails to halve the last (rounding, not the model, now sets the step),
// when no step raises the likelihood, or after kMlMaxIterations.
void SolveBradleyTerry(const Likelihood& likelihood, std::vector<double>& x) {
  const int n = likelihood.n();
  std::vector<double> gradient, next(n);
  Curvature curvature;
  double value = likelihood.Value(x);
  double last_moved = std::numeric_limits<double>::infinity();
  for (int iteration = 0; iteration < kMlMaxIterations; ++iteration) {
    likelihood.Derivatives(x, gradient, curvature);
    const std::vector<double> step = NewtonStep(likelihood, gradient, curvature);
    double largest = 0, mean = 0;
    for (double d : step) {
      largest = std::max(largest, std::abs(d));
      mean += d / n;
    }
    double moved = 0;  // the most a rating moves, in natural-log units
    for (double d : step) moved = std::max(moved, std::abs(d - mean));
    if (largest <= kMlFullStep) {
      if (moved >= last_moved / 2) return;
      for (int i = 0; i < n; ++i) x[i] += step[i];
      if (moved < kMlTolerance) return;
      last_moved = moved;
      value = likelihood.Value(x);
      continue;
    }
    const double ascent = Dot(gradient, step);
    bool raised = false;
    double scale = 1;
    for (int halving = 0; halving < 60 && ascent > 0; ++halving, scale /= 2) {
      for (int i = 0; i < n; ++i) next[i] = x[i] + scale * step[i];
      const double next_value = likelihood.Value(next);
      if (next_value > value && next_value >= value + 1e-4 * scale * ascent) {
        x.swap(next);
        value = next_value;
        raised = true;
        break;
      }
    }
    if (!raised) return;
  }
}

// A Poisson(1) draw by inversion of its distribution function, compared in
// 64-bit integers so that every platform draws the same weights. Weights
// above 16 (probability 1e-15) are drawn as 16.
int PoissonOne(engine::Rng& rng) {
  static const std::array<std::uint64_t, 16> kThresholds = [] {
    std::array<std::uint64_t, 16> thresholds{};
    double probability = 0.36787944117144233;  // e^-1, P(0)
    double cumulative = 0;
    for (std::size_t k = 0; k < thresholds.size(); ++k) {
      if (k > 0) probability /= static_cast<double>(k);
      cumulative += probability;
      thresholds[k] = static_cast<std::uint64_t>(cumulative * 0x1p64);
    }
    return thresholds;
  }();
  const std::uint64_t x = rng.Next();
  int k = 0;
  while (k < static_cast<int>(kThresholds.size()) && x >= kThresholds[k]) ++k;
  return k;
}

// Draws of Poisson(k), the sum of k Poisson(1) weights, by inversion of its
// distribution function as PoissonOne's: over the values the mode ± 10
// standard deviations and 20 span (the rest has a probability below
// 1e-20), each value's probability from its neighbour's by a ratio of
// whole numbers, compared in 64-bit integers.
class PoissonDraw {
 public:
  explicit PoissonDraw(std::int64_t mean) {
    HOARD_CHECK(mean > 0, "a Poisson draw of a positive mean");
    const double k = static_cast<double>(mean);
    const std::int64_t spread = static_cast<std::int64_t>(10 * std::sqrt(k)) + 20;
    first_ = std::max<std::int64_t>(0, mean - spread);
    const std::int64_t last = mean + spread;
    std::vector<double> weight(static_cast<std::size_t>(last - first_ + 1));
    auto at = [&](std::int64_t value) -> double& {
      return weight[static_cast<std::size_t>(value - first_)];
    };
    at(mean) = 1;  // a mode, as is mean - 1
    for (std::int64_t value = mean + 1; value <= last; ++value) {
      at(value) = at(value - 1) * k / static_cast<double>(value);
    }
    for (std::int64_t value = mean - 1; value >= first_; --value) {
      at(value) = at(value + 1) * static_cast<double>(value + 1) / k;
    }
    double total = 0;
    for (double w : weight) total += w;
    double cumulative = 0;
    thresholds_.reserve(weight.size());
    for (double w : weight) {
      cumulative += w;
      const double share = cumulative / total;
      thresholds_.push_back(share >= 1 ? std::numeric_limits<std::uint64_t>::max()
                                       : static_cast<std::uint64_t>(share * 0x1p64));
    }
  }

  std::int64_t Draw(engine::Rng& rng) const {
    const std::uint64_t x = rng.Next();
    // As PoissonOne: the value is how many thresholds x reaches.
    const auto reached = std::upper_bound(thresholds_.begin(), thresholds_.end(), x);
    const std::int64_t index = std::min<std::int64_t>(
        reached - thresholds_.begin(), static_cast<std::int64_t>(thresholds_.size()) - 1);
    return first_ + index;
  }

 private:
  std::int64_t first_ = 0;
  std::vector<std::uint64_t> thresholds_;
};

// The q-quantile of `values` (which it reorders), interpolating linearly
// between order statistics.
double Quantile(std::vector<double>& values, double q) {
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const std::size_t below = static_cast<std::size_t>(position);
  if (below + 1 >= values.size()) return values.back();
  const double fraction = position - static_cast<double>(below);
  return values[below] + fraction * (values[below + 1] - values[below]);
}

// ---- Separation and profile likelihood --------------------------------------

// The comparison structure of the results: connected groups and the tiers
// of separation within them.
struct Structure {
  std::vector<int> group, tier;
};

// Bot a "scored against" b if it beat or tied b at least once. Strongly
// connected sets of that relation are the sets whose relative strengths the
// data bound on both sides; between them, one set never lost to the other,
// and only the prior bounds the gap from above.
Structure FindStructure(int n, const PairwiseOutcomes& outcomes) {
  std::vector<std::int64_t> a_halves(outcomes.pairs.size(), 0), meetings(outcomes.pairs.size(), 0);
  for (const PairwiseOutcomes::Tally& t : outcomes.tallies) {
    a_halves[t.pair] += t.a_halves;
    meetings[t.pair] += t.meetings;
  }
  std::vector<std::vector<int>> scored(n), scored_by(n), met(n);
  for (std::size_t p = 0; p < outcomes.pairs.size(); ++p) {
    if (meetings[p] == 0) continue;
    const int a = outcomes.pairs[p].a, b = outcomes.pairs[p].b;
    met[a].push_back(b);
    met[b].push_back(a);
    if (a_halves[p] > 0) {
      scored[a].push_back(b);
      scored_by[b].push_back(a);
    }
    if (a_halves[p] < 2 * meetings[p]) {
      scored[b].push_back(a);
      scored_by[a].push_back(b);
    }
  }
  // Every bot reachable from `start` along `edges`, marked with `mark` in
  // `label` (those already marked are left alone).
  const auto flood = [](const std::vector<std::vector<int>>& edges, int start, int mark,
                        std::vector<int>& label) {
    std::vector<int> stack = {start};
    label[start] = mark;
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      for (int w : edges[v]) {
        if (label[w] == -1) {
          label[w] = mark;
          stack.push_back(w);
        }
      }
    }
  };
  Structure s;
  s.group.assign(n, -1);
  int groups = 0;
  for (int v = 0; v < n; ++v) {
    if (s.group[v] == -1) flood(met, v, groups++, s.group);
  }
  // Strongly connected sets: those reachable both ways (Kosaraju's first
  // pass replaced by reachability per set: groups are small or sparse).
  std::vector<int> set(n, -1);
  int sets = 0;
  for (int v = 0; v < n; ++v) {
    if (set[v] != -1) continue;
    std::vector<int> forward(n, -1), backward(n, -1);
    flood(scored, v, 0, forward);
    flood(scored_by, v, 0, backward);
    for (int w = 0; w < n; ++w) {
      if (forward[w] == 0 && backward[w] == 0) set[w] = sets;
    }
    ++sets;
  }
  // Between sets: above[x] holds the sets that scored against x (and so
  // never lost to it). Tier: the longest chain of sets above.
  std::vector<std::set<int>> above(sets);
  for (int v = 0; v < n; ++v) {
    for (int w : scored[v]) {
      if (set[v] != set[w]) above[set[w]].insert(set[v]);
    }
  }
  std::vector<int> set_tier(sets, -1);
  const std::function<int(int)> tier_of = [&](int x) {
    if (set_tier[x] >= 0) return set_tier[x];
    int t = 0;
    for (int y : above[x]) t = std::max(t, tier_of(y) + 1);
    return set_tier[x] = t;
  };
  s.tier.assign(n, 0);
  for (int v = 0; v < n; ++v) s.tier[v] = tier_of(set[v]);
  return s;
}

// The profile likelihood of the contrast `a` (a·x, Σa = 0) at t: the
// largest penalized likelihood with a·x = t, by Newton's method on the
// constrained problem (the function is strictly concave) from `x`, which it
// moves to the maximizer.
double Profile(const Likelihood& likelihood, const std::vector<double>& a, double t,
               std::vector<double>& x) {
  const int n = likelihood.n();
  // Onto the constraint along a.
  const double shift = (t - Dot(a, x)) / Dot(a, a);
  for (int i = 0; i < n; ++i) x[i] += shift * a[i];
  std::vector<double> gradient;
  Curvature curvature;
  double value = likelihood.Value(x);
  for (int iteration = 0; iteration < 100; ++iteration) {
    likelihood.Derivatives(x, gradient, curvature);
    const std::vector<double> information = likelihood.Information(curvature);
    // The KKT system [I a; aᵀ 0] [dx; ν] = [g; 0], with I the information
    // (the Hessian negated).
    const std::size_t k = static_cast<std::size_t>(n) + 1;
    std::vector<double> m(k * k, 0), rhs(k, 0);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) m[i * k + j] = information[static_cast<std::size_t>(i) * n + j];
      m[i * k + n] = a[i];
      m[n * k + i] = a[i];
      rhs[i] = gradient[i];
    }
    const std::vector<double> step = SolveLinear(m, rhs);
    double ascent = 0;
    for (int i = 0; i < n; ++i) ascent += gradient[i] * step[i];
    if (!(ascent > 1e-13)) break;
    double scale = 1;
    std::vector<double> next(n);
    for (int halving = 0; halving < 60; ++halving, scale /= 2) {
      for (int i = 0; i < n; ++i) next[i] = x[i] + scale * step[i];
      const double next_value = likelihood.Value(next);
      if (next_value >= value + 1e-4 * scale * ascent) {
        x.swap(next);
        value = next_value;
        break;
      }
    }
    if (scale * ascent < 1e-13) break;
  }
  return value;
}

// χ²₁(0.95) / 2: the drop of the log-likelihood at the ends of a 95%
// profile likelihood interval.
constexpr double kProfileDrop = 3.841458820694124 / 2;

// The end of the profile likelihood interval of the contrast `a` in
// `direction` (+1 above, −1 below), in natural-log units. The prior sends
// the penalized likelihood to −∞ in every direction, so the end is finite:
// it is found by doubling steps from the estimate (the doubling stops at
// 2^16 units, far past any prior-bound end, as a safeguard), then
// bisection to 10⁻¹⁰ units.
double ProfileBound(const Likelihood& likelihood, const std::vector<double>& best_x,
                    double best_value, const std::vector<double>& a, int direction) {
  const double target = best_value - kProfileDrop;
  const double best_t = Dot(a, best_x);
  std::vector<double> x = best_x;
  double inside = 0, outside = 0.5;  // distances from best_t
  while (outside < 0x1p16 && Profile(likelihood, a, best_t + direction * outside, x) > target) {
    inside = outside;
    outside *= 2;
  }
  std::vector<double> inside_x = best_x;
  for (int step = 0; step < 60 && outside - inside > 1e-10; ++step) {
    const double middle = (inside + outside) / 2;
    x = inside_x;
    if (Profile(likelihood, a, best_t + direction * middle, x) <= target) {
      outside = middle;
    } else {
      inside = middle;
      inside_x = x;
    }
  }
  return best_t + direction * outside;
}

// The fitted model and its bootstrap: the estimate and 95% interval of any
// contrast of the strengths (a bot against the mean, or one bot against
// another) by the method MlOptions documents.
class MlFit {
 public:
  MlFit(int n, const std::vector<MatchResult>& results, const MlOptions& options)
      : n_(n),
        options_(options),
        outcomes_(CollectOutcomes(n, results)),
        a_halves_(outcomes_.pairs.size(), 0),
        meetings_(outcomes_.pairs.size(), 0) {
    for (const PairwiseOutcomes::Tally& t : outcomes_.tallies) {
      a_halves_[t.pair] += t.a_halves;
      meetings_[t.pair] += t.meetings;
    }
    const Likelihood likelihood = Of(a_halves_, meetings_);
    best_x_.assign(n, 0.0);
    SolveBradleyTerry(likelihood, best_x_);
    best_value_ = likelihood.Value(best_x_);
    Resample();
  }
  MlFit(const MlFit&) = delete;
  MlFit& operator=(const MlFit&) = delete;

  const PairwiseOutcomes& outcomes() const { return outcomes_; }
  // The estimate, in natural-log strengths.
  const std::vector<double>& estimate() const { return best_x_; }

  // The information matrix at the estimate (row-major n×n): the inverse of
  // the posterior's covariance in the Laplace approximation.
  std::vector<double> Information() const {
    const Likelihood likelihood = Of(a_halves_, meetings_);
    std::vector<double> gradient;
    Curvature curvature;
    likelihood.Derivatives(best_x_, gradient, curvature);
    return likelihood.Information(curvature);
  }

  // Each bot's share of all meetings (each meeting counted for both of its
  // bots): the weights of the mean that ratings are set against, so that a
  // bot of few matches barely moves it. Equal shares without meetings.
  std::vector<double> MeetingShares() const {
    std::vector<double> share(n_, 0.0);
    double total = 0;
    for (std::size_t p = 0; p < outcomes_.pairs.size(); ++p) {
      share[outcomes_.pairs[p].a] += static_cast<double>(meetings_[p]);
      share[outcomes_.pairs[p].b] += static_cast<double>(meetings_[p]);
      total += 2 * static_cast<double>(meetings_[p]);
    }
    for (double& s : share) s = total > 0 ? s / total : 1.0 / n_;
    return share;
  }

  // {estimate, low, high} of a·x in rating points. REQUIRES: Σa = 0.
  std::array<double, 3> Interval(const std::vector<double>& a) const {
    const double estimate = Dot(a, best_x_);
    double low = estimate, high = estimate;
    if (options_.profile_likelihood && n_ >= 2 && n_ <= kMlProfileMaxBots) {
      const Likelihood likelihood = Of(a_halves_, meetings_);
      low = std::min(low, ProfileBound(likelihood, best_x_, best_value_, a, -1));
      high = std::max(high, ProfileBound(likelihood, best_x_, best_value_, a, +1));
    }
    const int samples = options_.bootstrap_samples;
    if (samples > 0) {
      std::vector<double> values(samples);
      for (int s = 0; s < samples; ++s) {
        const double* x = resampled_.data() + static_cast<std::size_t>(s) * n_;
        values[s] = 0;
        for (int i = 0; i < n_; ++i) values[s] += a[i] * x[i];
      }
      low = std::min(low, Quantile(values, 0.025));
      high = std::max(high, Quantile(values, 0.975));
    }
    return {estimate * kMlPointsPerLogUnit, low * kMlPointsPerLogUnit, high * kMlPointsPerLogUnit};
  }

 private:
  Likelihood Of(const std::vector<std::int64_t>& a_halves,
                const std::vector<std::int64_t>& meetings) const {
    return Likelihood(n_, outcomes_.pairs, a_halves, meetings, options_.prior_ties);
  }

  // Fills resampled_: each resample's strengths, refitted from the
  // estimate on the units weighted by Poisson(1) draws.
  void Resample() {
    const int samples = options_.bootstrap_samples;
    const std::size_t num_units = outcomes_.unit_begin.size() - 1;
    resampled_.resize(static_cast<std::size_t>(n_) * samples);
    std::vector<std::int64_t> a_halves(outcomes_.pairs.size()), meetings(outcomes_.pairs.size());
    engine::Rng rng(options_.seed);
    // Units of equal tallies lie side by side (CanonicalUnitOrder), and a
    // run of k of them is weighted at once: the sum of k Poisson(1) weights
    // is one Poisson(k) weight (PoissonDraw), times one unit's tallies. A
    // tournament of few bots has few kinds of unit, so a resample costs a
    // draw per kind; a unit alike to no other is drawn as before.
    struct Run {
      std::size_t first_unit = 0, units = 0;
    };
    std::vector<Run> runs;
    const auto same = [&](std::size_t x, std::size_t y) {
      const auto begin = outcomes_.tallies.begin();
      return std::equal(begin + static_cast<std::ptrdiff_t>(outcomes_.unit_begin[x]),
                        begin + static_cast<std::ptrdiff_t>(outcomes_.unit_begin[x + 1]),
                        begin + static_cast<std::ptrdiff_t>(outcomes_.unit_begin[y]),
                        begin + static_cast<std::ptrdiff_t>(outcomes_.unit_begin[y + 1]),
                        [](const PairwiseOutcomes::Tally& a, const PairwiseOutcomes::Tally& b) {
                          return !(a < b) && !(b < a);
                        });
    };
    for (std::size_t u = 0; u < num_units; ++u) {
      if (runs.empty() || !same(runs.back().first_unit, u)) runs.push_back({u, 0});
      ++runs.back().units;
    }
    std::map<std::size_t, PoissonDraw> draws;  // by run length, from 2
    for (const Run& run : runs) {
      if (run.units > 1) draws.try_emplace(run.units, static_cast<std::int64_t>(run.units));
    }
    for (int s = 0; s < samples; ++s) {
      std::fill(a_halves.begin(), a_halves.end(), 0);
      std::fill(meetings.begin(), meetings.end(), 0);
      for (const Run& run : runs) {
        const std::int64_t weight =
            run.units == 1 ? PoissonOne(rng) : draws.at(run.units).Draw(rng);
        if (weight == 0) continue;
        const std::size_t u = run.first_unit;
        for (std::size_t k = outcomes_.unit_begin[u]; k < outcomes_.unit_begin[u + 1]; ++k) {
          const PairwiseOutcomes::Tally& t = outcomes_.tallies[k];
          a_halves[t.pair] += weight * t.a_halves;
          meetings[t.pair] += weight * t.meetings;
        }
      }
      std::vector<double> x = best_x_;  // a warm start from the estimate
      SolveBradleyTerry(Of(a_halves, meetings), x);
      std::copy(x.begin(), x.end(), resampled_.begin() + static_cast<std::ptrdiff_t>(s) * n_);
    }
  }

  int n_;
  MlOptions options_;
  PairwiseOutcomes outcomes_;
  std::vector<std::int64_t> a_halves_, meetings_;  // summed over the units
  std::vector<double> best_x_;
  double best_value_ = 0;
  std::vector<double> resampled_;  // resample s, bot i: [s * n + i]
};

}  // namespace

// ---- Elo --------------------------------------------------------------------

std::vector<double> EloUpdate(const std::vector<double>& ratings, const std::vector<int>& places,
                              const EloOptions& options) {
  CheckMatch(ratings.size(), places);
  const std::size_t n = places.size();
  const double pairs = static_cast<double>(n * (n - 1) / 2);
  std::vector<double> updated(n);
  for (std::size_t i = 0; i < n; ++i) {
    // The linear score of i's place (ties sharing the scores of the places
    // they span) is its pairwise points: a win 1, a tie 1/2.
    double actual = 0, expected = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (j == i) continue;
      actual += 0.5 * HalfPoints(places[i], places[j]);
      expected += 1 / (1 + std::pow(10.0, (ratings[j] - ratings[i]) / options.d));
    }
    updated[i] = ratings[i] + options.k * static_cast<double>(n - 1) * (actual - expected) / pairs;
  }
  return updated;
}

std::vector<double> EloRatings(int n, const std::vector<MatchResult>& results,
                               const EloOptions& options) {
  return ReplayInOrder(n, results, options.initial,
                       [&](const std::vector<double>& before, const std::vector<int>& places) {
                         return EloUpdate(before, places, options);
                       });
}

// ---- Maximum likelihood -----------------------------------------------------

void CheckMlOptions(const MlOptions& options) {
  HOARD_CHECK(options.bootstrap_samples >= 0, "a negative number of samples");
  HOARD_CHECK(options.prior_ties > 0 && std::isfinite(options.prior_ties),
              "the prior needs a positive number of virtual ties");
}

std::vector<MlRating> MlRatings(int n, const std::vector<MatchResult>& results,
                                const MlOptions& options) {
  CheckResults(n, results);
  CheckMlOptions(options);
  const MlFit fit(n, results, options);
  const Structure structure = FindStructure(n, fit.outcomes());
  std::vector<MlRating> out(n);
  // Bot i against the mean weighted by meetings: the contrast e_i − share.
  const std::vector<double> share = fit.MeetingShares();
  for (int i = 0; i < n; ++i) {
    std::vector<double> contrast(n);
    for (int j = 0; j < n; ++j) contrast[j] = (j == i ? 1.0 : 0.0) - share[j];
    const auto [rating, low, high] = fit.Interval(contrast);
    out[i] = {.rating = rating,
              .low = low,
              .high = high,
              .group = structure.group[i],
              .tier = structure.tier[i]};
  }
  return out;
}

std::vector<MlDifference> MlDifferences(int n, const std::vector<MatchResult>& results,
                                        const std::vector<std::pair<int, int>>& pairs,
                                        const MlOptions& options) {
  CheckResults(n, results);
  CheckMlOptions(options);
  for (const auto& [a, b] : pairs) {
    HOARD_CHECK(a >= 0 && a < n && b >= 0 && b < n && a != b, "a pair of two bots in 0..n-1");
  }
  const MlFit fit(n, results, options);
  std::vector<MlDifference> out;
  std::vector<double> contrast(n, 0.0);
  for (const auto& [a, b] : pairs) {
    contrast[a] = 1;
    contrast[b] = -1;
    const auto [difference, low, high] = fit.Interval(contrast);
    contrast[a] = contrast[b] = 0;
    out.push_back({.a = a, .b = b, .difference = difference, .low = low, .high = high});
  }
  return out;
}

namespace {

// The Cholesky factor L (lower triangular, row-major) of the symmetric
// positive definite k×k matrix m: m = L·Lᵀ.
std::vector<double> Cholesky(const std::vector<double>& m, int k) {
  std::vector<double> l(m.size(), 0.0);
  for (int i = 0; i < k; ++i) {
    for (int j = 0; j <= i; ++j) {
      double sum = m[static_cast<std::size_t>(i) * k + j];
      for (int c = 0; c < j; ++c) {
        sum -= l[static_cast<std::size_t>(i) * k + c] * l[static_cast<std::size_t>(j) * k + c];
      }
      l[static_cast<std::size_t>(i) * k + j] =
          i == j ? std::sqrt(sum) : sum / l[static_cast<std::size_t>(j) * k + j];
    }
  }
  return l;
}

// Standard normal draws, two at a time (Box–Muller), from uniform doubles in
// (0, 1) made of the generator's top 53 bits.
class NormalDraws {
 public:
  explicit NormalDraws(std::uint64_t seed) : rng_(seed) {}
  double Next() {
    if (spare_) {
      spare_ = false;
      return second_;
    }
    const double u = Uniform(), v = Uniform();
    const double radius = std::sqrt(-2 * std::log(u));
    constexpr double kTwoPi = 6.283185307179586;
    second_ = radius * std::sin(kTwoPi * v);
    spare_ = true;
    return radius * std::cos(kTwoPi * v);
  }

 private:
  double Uniform() { return (static_cast<double>(rng_.Next() >> 11) + 0.5) * 0x1.0p-53; }
  engine::Rng rng_;
  bool spare_ = false;
  double second_ = 0;
};

}  // namespace

namespace {

// The Laplace posterior of the fit over `results`: the estimate (natural-log
// strengths) and the Cholesky factor L of the information there
// (information = L·Lᵀ), so that estimate + y with Lᵀ·y = z, z standard
// normal, is a draw of the posterior.
struct LaplaceFactor {
  std::vector<double> estimate;
  std::vector<double> l;      // row-major n×n, lower triangular
  std::vector<double> share;  // MlFit::MeetingShares
};

LaplaceFactor FactorPosterior(int n, const std::vector<MatchResult>& results, double prior_ties) {
  const MlOptions fit_options{
      .bootstrap_samples = 0, .profile_likelihood = false, .prior_ties = prior_ties};
  CheckMlOptions(fit_options);
  const MlFit fit(n, results, fit_options);
  return {fit.estimate(), Cholesky(fit.Information(), n), fit.MeetingShares()};
}

// Calls `visit(x)` with `samples` draws x of the posterior's natural-log
// strengths, from a generator seeded with `seed`.
template <typename Visit>
void ForEachDraw(const LaplaceFactor& posterior, int samples, std::uint64_t seed, Visit visit) {
  const int n = static_cast<int>(posterior.estimate.size());
  const std::vector<double>& l = posterior.l;
  NormalDraws normal(seed);
  std::vector<double> x(n);
  for (int s = 0; s < samples; ++s) {
    for (int i = 0; i < n; ++i) x[i] = normal.Next();
    for (int i = n - 1; i >= 0; --i) {
      double sum = x[i];
      for (int j = i + 1; j < n; ++j) sum -= l[static_cast<std::size_t>(j) * n + i] * x[j];
      x[i] = sum / l[static_cast<std::size_t>(i) * n + i];
    }
    for (int i = 0; i < n; ++i) x[i] += posterior.estimate[i];
    visit(x);
  }
}

void CheckRankOptions(int n, const RankOptions& options) {
  HOARD_CHECK(n <= kRankProbabilityMaxBots, "rank probabilities of too many bots");
  HOARD_CHECK(options.samples > 0, "rank probabilities need draws");
}

}  // namespace

MlPosterior MlLaplacePosterior(int n, const std::vector<MatchResult>& results, double prior_ties) {
  CheckResults(n, results);
  MlPosterior out;
  if (n == 0) return out;
  const LaplaceFactor posterior = FactorPosterior(n, results, prior_ties);
  double mean = 0;
  for (int i = 0; i < n; ++i) mean += posterior.share[i] * posterior.estimate[i];
  out.rating.resize(n);
  for (int i = 0; i < n; ++i) out.rating[i] = (posterior.estimate[i] - mean) * kMlPointsPerLogUnit;
  // The covariance (L·Lᵀ)⁻¹ = L⁻ᵀ·L⁻¹: L's inverse M (lower triangular) by
  // forward substitution, then the products of its columns.
  const std::vector<double>& l = posterior.l;
  const auto at = [n](int i, int j) { return static_cast<std::size_t>(i) * n + j; };
  std::vector<double> m(static_cast<std::size_t>(n) * n, 0.0);
  for (int j = 0; j < n; ++j) {
    m[at(j, j)] = 1 / l[at(j, j)];
    for (int i = j + 1; i < n; ++i) {
      double sum = 0;
      for (int c = j; c < i; ++c) sum += l[at(i, c)] * m[at(c, j)];
      m[at(i, j)] = -sum / l[at(i, i)];
    }
  }
  std::vector<double> strengths(static_cast<std::size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j <= i; ++j) {
      double sum = 0;  // column i of M times column j: rows from i down
      for (int r = i; r < n; ++r) sum += m[at(r, i)] * m[at(r, j)];
      strengths[at(i, j)] = strengths[at(j, i)] = sum;
    }
  }
  // Rating i is the contrast e_i − share of the strengths: its covariance
  // with rating j is C_ij − (C·share)_i − (C·share)_j + shareᵀ·C·share.
  const std::vector<double>& share = posterior.share;
  std::vector<double> c_share(n, 0.0);
  double share_c_share = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) c_share[i] += strengths[at(i, j)] * share[j];
    share_c_share += share[i] * c_share[i];
  }
  const double scale = kMlPointsPerLogUnit * kMlPointsPerLogUnit;
  out.covariance.resize(strengths.size());
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      out.covariance[at(i, j)] =
          (strengths[at(i, j)] - c_share[i] - c_share[j] + share_c_share) * scale;
    }
  }
  return out;
}

std::vector<std::vector<double>> RankProbabilities(int n, const std::vector<MatchResult>& results,
                                                   const RankOptions& options) {
  CheckResults(n, results);
  CheckRankOptions(n, options);
  std::vector<std::vector<double>> out(n, std::vector<double>(n, 0.0));
  if (n == 0) return out;
  std::vector<std::vector<int>> counts(n, std::vector<int>(n, 0));
  std::vector<int> order(n);
  ForEachDraw(FactorPosterior(n, results, options.prior_ties), options.samples, options.seed,
              [&](const std::vector<double>& x) {
                for (int i = 0; i < n; ++i) order[i] = i;
                std::sort(order.begin(), order.end(), [&](int a, int b) { return x[a] > x[b]; });
                for (int r = 0; r < n; ++r) ++counts[order[r]][r];
              });
  for (int i = 0; i < n; ++i) {
    for (int r = 0; r < n; ++r) out[i][r] = static_cast<double>(counts[i][r]) / options.samples;
  }
  return out;
}

double TopOrderProbability(int n, const std::vector<MatchResult>& results,
                           const std::vector<int>& order, const RankOptions& options) {
  CheckResults(n, results);
  CheckRankOptions(n, options);
  std::vector<bool> listed(n, false);
  for (int bot : order) {
    HOARD_CHECK(bot >= 0 && bot < n && !listed[bot], "distinct bots of 0..n-1");
    listed[bot] = true;
  }
  if (order.empty()) return 1;
  int hits = 0;
  ForEachDraw(FactorPosterior(n, results, options.prior_ties), options.samples, options.seed,
              [&](const std::vector<double>& x) {
                for (std::size_t r = 1; r < order.size(); ++r) {
                  if (!(x[order[r - 1]] > x[order[r]])) return;
                }
                const double last = x[order.back()];
                for (int i = 0; i < n; ++i) {
                  if (!listed[i] && !(x[i] < last)) return;
                }
                ++hits;
              });
  return static_cast<double>(hits) / options.samples;
}

bool Separated(const std::vector<MlRating>& ratings) {
  return std::any_of(ratings.begin(), ratings.end(), [](const MlRating& r) { return r.tier > 0; });
}

bool Disconnected(const std::vector<MlRating>& ratings) {
  return std::any_of(ratings.begin(), ratings.end(), [](const MlRating& r) { return r.group > 0; });
}

// ---- OpenSkill --------------------------------------------------------------

std::vector<OpenSkillRating> OpenSkillUpdate(const std::vector<OpenSkillRating>& ratings,
                                             const std::vector<int>& places,
                                             const OpenSkillOptions& options) {
  CheckMatch(ratings.size(), places);
  const std::size_t n = places.size();
  std::vector<double> variance(n);
  double c_squared = 0;
  double top_mu = ratings[0].mu;
  for (std::size_t i = 0; i < n; ++i) {
    variance[i] = ratings[i].sigma * ratings[i].sigma + options.tau * options.tau;
    c_squared += variance[i] + options.beta * options.beta;
    top_mu = std::max(top_mu, ratings[i].mu);
  }
  const double c = std::sqrt(c_squared);
  // e^(μ/c), scaled by e^(-top_mu/c) so that it cannot overflow: only its
  // ratios enter.
  std::vector<double> strength(n);
  for (std::size_t i = 0; i < n; ++i) strength[i] = std::exp((ratings[i].mu - top_mu) / c);
  // sum_q: the strengths of q and everyone placed no better; ties_q: A_q.
  std::vector<double> sum_q(n, 0);
  std::vector<int> ties_q(n, 0);
  for (std::size_t q = 0; q < n; ++q) {
    for (std::size_t s = 0; s < n; ++s) {
      if (places[s] >= places[q]) sum_q[q] += strength[s];
      if (places[s] == places[q]) ++ties_q[q];
    }
  }
  std::vector<OpenSkillRating> updated(n);
  for (std::size_t i = 0; i < n; ++i) {
    double omega = 0, delta = 0;
    for (std::size_t q = 0; q < n; ++q) {
      if (places[q] > places[i]) continue;
      const double p = strength[i] / sum_q[q];
      omega += ((q == i ? 1.0 : 0.0) - p) / ties_q[q];
      delta += p * (1 - p) / ties_q[q];
    }
    const double sigma = std::sqrt(variance[i]);
    updated[i].mu = ratings[i].mu + variance[i] / c * omega;
    delta *= (sigma / c) * (variance[i] / c_squared);
    updated[i].sigma = sigma * std::sqrt(std::max(1 - delta, options.kappa));
  }
  return updated;
}

std::vector<OpenSkillRating> OpenSkillRatings(int n, const std::vector<MatchResult>& results,
                                              const OpenSkillOptions& options) {
  return ReplayInOrder(
      n, results, OpenSkillRating{options.mu, options.sigma},
      [&](const std::vector<OpenSkillRating>& before, const std::vector<int>& places) {
        return OpenSkillUpdate(before, places, options);
      });
}

// ---- Head to head -----------------------------------------------------------

HeadToHead HeadToHeadStats(int wins, int losses, int draws) {
  HOARD_CHECK(wins >= 0 && losses >= 0 && draws >= 0, "negative counts");
  HeadToHead h;
  h.wins = wins;
  h.losses = losses;
  h.draws = draws;
  const double w = wins, l = losses, d = draws, n = w + l + d;
  h.los = wins + losses > 0 ? 0.5 + 0.5 * std::erf((w - l) / std::sqrt(2 * (w + l))) : 0.5;
  if (n == 0) return h;
  const double mu = (w + d / 2) / n;
  h.score = mu;
  if (mu <= 0 || mu >= 1) return h;
  h.defined = true;
  const double sigma = std::sqrt((w / n) * (1 - mu) * (1 - mu) + (l / n) * mu * mu +
                                 (d / n) * (0.5 - mu) * (0.5 - mu)) /
                       std::sqrt(n);
  auto elo = [](double p) { return -400 * std::log10(1 / p - 1); };
  h.elo = elo(mu);
  const double high = mu + 1.95996 * sigma, low = mu - 1.95996 * sigma;
  h.margin =
      high < 1 && low > 0 ? (elo(high) - elo(low)) / 2 : std::numeric_limits<double>::infinity();
  return h;
}

}  // namespace hoard::tournament
