#include "tournament/matchmaker.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <utility>

#include "engine/check.h"

namespace hoard::tournament {
namespace {

// Gauss–Hermite nodes and weights (10 points, the positive half): E f(X)
// for X ~ N(μ, σ²) is Σ w·f(μ + √2·σ·x) / √π over ±x.
constexpr double kHermiteNodes[] = {0.3429013272237046, 1.0366108297895137, 1.7566836492998818,
                                    2.5327316742327897, 3.4361591188377376};
constexpr double kHermiteWeights[] = {0.6108626337353258, 0.2401386110823147, 0.03387439445548106,
                                      0.0013436457467812327, 7.640432855232621e-06};
constexpr double kSqrtPi = 1.7724538509055159;

// Φ(−|d|/√v): the posterior probability that the order of two entrants
// whose difference has mean d and variance v is not the order of d.
double Misorder(double d, double v) { return 0.5 * std::erfc(std::abs(d) / std::sqrt(2 * v)); }

// The expected fall of Misorder(d, v) when a comparison cuts the variance
// of the difference by `reduction`: before it is seen, the new mean is
// distributed as N(d, reduction) (the preposterior), the new variance is
// v − reduction. The expectation is by Gauss–Hermite.
double OrderGain(double d, double v, double reduction) {
  const double after_variance = std::max(v - reduction, 1e-12);
  const double spread = std::sqrt(2 * reduction);
  double after = 0;
  for (int h = 0; h < 5; ++h) {
    const double shift = spread * kHermiteNodes[h];
    after += kHermiteWeights[h] *
             (Misorder(d + shift, after_variance) + Misorder(d - shift, after_variance));
  }
  return std::max(0.0, Misorder(d, v) - after / kSqrtPi);
}

// The van der Corput sequence in base 2 (1/2, 1/4, 3/4, 1/8, ...): the
// i-th point (from 1) spreads placement opponents over the field.
double VanDerCorput(int i) {
  double value = 0, digit = 0.5;
  for (; i > 0; i /= 2, digit /= 2) value += (i % 2) * digit;
  return value;
}

}  // namespace

Matchmaker::Matchmaker(MatchmakerOptions options) : options_(options), rng_(options.seed) {
  HOARD_CHECK(options_.players >= 2 && options_.players <= 6, "2 to 6 players a table");
  HOARD_CHECK(options_.placement_matches >= 0, "a negative number of placement matches");
  HOARD_CHECK(options_.prior_ties > 0 && std::isfinite(options_.prior_ties),
              "the prior needs a positive number of virtual ties");
}

void Matchmaker::Grow(int n) {
  if (n <= n_) return;
  n_ = n;
  matches_.resize(n, 0);
  waited_.resize(n, 0);
  seat_balance_.resize(n, 0);
  last_table_.resize(n);
  fitted_ = false;
}

int Matchmaker::entrants() const { return n_; }

void Matchmaker::Add(const std::vector<int>& seats, const std::vector<int>& ranks) {
  HOARD_CHECK(seats.size() >= 2, "a match needs two or more entrants");
  HOARD_CHECK(seats.size() == ranks.size(), "a rank per seat");
  MatchResult result;
  result.unit = static_cast<std::int64_t>(results_.size());
  for (std::size_t s = 0; s < seats.size(); ++s) {
    HOARD_CHECK(seats[s] >= 0 && seats[s] < n_, "an entrant below entrants()");
    HOARD_CHECK(ranks[s] >= 1, "ranks start at 1");
    for (std::size_t o = 0; o < s; ++o) HOARD_CHECK(seats[o] != seats[s], "distinct entrants");
    result.placings.push_back({seats[s], ranks[s]});
    ++matches_[seats[s]];
  }
  results_.push_back(std::move(result));
  fitted_ = false;
}

// Every result since the first, not an update: the ratings are those of
// the whole history, whatever its order. At 100 entrants and 3,000
// two-player results a refit (with the Next that needs it) takes about
// 2 ms, and Next without one 0.03 ms (ladder_benchmark --timing 100), so
// the ladder may call Next after every result.
void Matchmaker::Fit() {
  if (fitted_) return;
  posterior_ = MlLaplacePosterior(n_, results_, options_.prior_ties);
  std::vector<int> order(n_);
  for (int i = 0; i < n_; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return posterior_.rating[a] > posterior_.rating[b]; });
  rank_.assign(n_, 0);
  for (int r = 0; r < n_; ++r) rank_[order[r]] = r;
  fitted_ = true;
}

double Matchmaker::PairScore(int i, int j) const {
  if (focus_top_ > 0 && rank_[i] >= focus_top_ && rank_[j] >= focus_top_) return 0;
  const std::vector<double>& c = posterior_.covariance;
  const auto at = [this](int a, int b) { return static_cast<std::size_t>(a) * n_ + b; };
  const double d = (posterior_.rating[i] - posterior_.rating[j]) / kMlPointsPerLogUnit;
  const double v = std::max(1e-12, (c[at(i, i)] + c[at(j, j)] - 2 * c[at(i, j)]) /
                                       (kMlPointsPerLogUnit * kMlPointsPerLogUnit));
  // One comparison at the difference d carries the information q(1 − q),
  // q = σ(d): the variance falls to v / (1 + v·q(1 − q)) (the rank-one
  // update of the posterior's covariance, exact in the Laplace
  // approximation).
  const double q = 1 / (1 + std::exp(-d));
  return OrderGain(d, v, v * v * q * (1 - q) / (1 + v * q * (1 - q)));
}

bool Matchmaker::Repeats(std::vector<int> table) const {
  std::sort(table.begin(), table.end());
  for (int entrant : table) {
    if (last_table_[entrant] == table) return true;
  }
  return false;
}

std::vector<int> Matchmaker::BestTable(int anchor, const std::vector<int>& others,
                                       double& score) const {
  std::vector<int> table = {anchor};
  std::vector<bool> taken(others.size(), false);
  score = 0;
  while (static_cast<int>(table.size()) < options_.players) {
    const bool last = static_cast<int>(table.size()) == options_.players - 1;
    int best = -1;
    bool best_repeats = true;
    double best_gain = -1;
    for (std::size_t o = 0; o < others.size(); ++o) {
      if (taken[o]) continue;
      double gain = 0;
      for (int seated : table) gain += PairScore(seated, others[o]);
      bool repeats = false;
      if (last) {
        table.push_back(others[o]);
        repeats = Repeats(table);
        table.pop_back();
      }
      // A table that repeats is taken only when every candidate does.
      if (best < 0 || (best_repeats && !repeats) || (best_repeats == repeats && gain > best_gain)) {
        best = static_cast<int>(o);
        best_gain = gain;
        best_repeats = repeats;
      }
    }
    taken[best] = true;
    table.push_back(others[best]);
    score += best_gain;
  }
  return table;
}

std::vector<int> Matchmaker::PlacementTable(int anchor, const std::vector<int>& others) const {
  // The field strongest first; equal ratings keep the order of `others`
  // (shuffled by the caller).
  std::vector<int> field = others;
  std::stable_sort(field.begin(), field.end(),
                   [&](int a, int b) { return posterior_.rating[a] > posterior_.rating[b]; });
  const int size = static_cast<int>(field.size());
  std::vector<bool> taken(size, false);
  std::vector<int> table = {anchor};
  const int first_point = matches_[anchor] * (options_.players - 1) + 1;
  for (int m = 0; m < options_.players - 1; ++m) {
    const int target = std::min(size - 1, static_cast<int>(VanDerCorput(first_point + m) * size));
    // The free entrant nearest the target; for the last seat, one that
    // does not repeat a table if there is one.
    int chosen = -1;
    const bool last = m == options_.players - 2;
    for (int pass = 0; pass < 2 && chosen < 0; ++pass) {
      for (int distance = 0; distance < size && chosen < 0; ++distance) {
        for (const int at : {target - distance, target + distance}) {
          if (at < 0 || at >= size || taken[at]) continue;
          if (last && pass == 0) {
            table.push_back(field[at]);
            const bool repeats = Repeats(table);
            table.pop_back();
            if (repeats) continue;
          }
          chosen = at;
          break;
        }
      }
    }
    taken[chosen] = true;
    table.push_back(field[chosen]);
  }
  return table;
}

void Matchmaker::Seat(std::vector<int>& table, const std::vector<int>& available) {
  // Furthest back so far sits first; equal balances in a seeded order.
  rng_.Shuffle(std::span<int>(table));
  std::stable_sort(table.begin(), table.end(),
                   [&](int a, int b) { return seat_balance_[a] > seat_balance_[b]; });
  const int k = static_cast<int>(table.size());
  std::vector<int> sorted = table;
  std::sort(sorted.begin(), sorted.end());
  for (int entrant : available) ++waited_[entrant];
  for (int seat = 0; seat < k; ++seat) {
    const int entrant = table[seat];
    waited_[entrant] = 0;
    seat_balance_[entrant] += 2 * seat - (k - 1);
    last_table_[entrant] = sorted;
  }
}

std::vector<int> Matchmaker::Next(const std::vector<int>& available) {
  if (static_cast<int>(available.size()) < options_.players) return {};
  std::vector<bool> listed(n_, false);
  for (int entrant : available) {
    HOARD_CHECK(entrant >= 0 && entrant < n_, "an entrant below entrants()");
    HOARD_CHECK(!listed[entrant], "each available entrant listed once");
    listed[entrant] = true;
  }
  Fit();
  // A seeded order breaks every tie below.
  std::vector<int> candidates = available;
  rng_.Shuffle(std::span<int>(candidates));

  // The anchor: a placement entrant (fewest results first), else the
  // entrant who waited longest.
  const auto in_placement = [&](int e) { return matches_[e] < options_.placement_matches; };
  int anchor = candidates[0];
  for (int e : candidates) {
    const bool better =
        in_placement(e) != in_placement(anchor)
            ? in_placement(e)
            : (in_placement(e) && matches_[e] != matches_[anchor] ? matches_[e] < matches_[anchor]
                                                                  : waited_[e] > waited_[anchor]);
    if (better) anchor = e;
  }
  std::vector<int> others;
  for (int e : candidates) {
    if (e != anchor) others.push_back(e);
  }

  std::vector<int> table;
  if (in_placement(anchor)) {
    table = PlacementTable(anchor, others);
  } else if (focus_top_ == 0) {
    double score = 0;
    table = BestTable(anchor, others, score);
  } else {
    // A final evaluation: the best table over every anchor, as only the
    // order of the top counts and nobody else needs play.
    double best_score = -1;
    for (int a : candidates) {
      std::vector<int> rest;
      for (int e : candidates) {
        if (e != a) rest.push_back(e);
      }
      double score = 0;
      std::vector<int> t = BestTable(a, rest, score);
      if (score > best_score) {
        best_score = score;
        table = std::move(t);
      }
    }
  }
  Seat(table, available);
  return table;
}

std::vector<MatchmakerRating> Matchmaker::Ratings() {
  Fit();
  std::vector<MatchmakerRating> out(n_);
  for (int i = 0; i < n_; ++i) {
    out[i] = {.rating = posterior_.rating[i],
              .deviation = std::sqrt(posterior_.covariance[static_cast<std::size_t>(i) * n_ + i]),
              .matches = matches_[i]};
  }
  return out;
}

void Matchmaker::FocusOnTop(int top) { focus_top_ = std::max(0, top); }

double Matchmaker::TopOrderConfidence(int top, int samples) {
  HOARD_CHECK(top >= 1 && top <= n_, "a top of 1 to entrants() entrants");
  HOARD_CHECK(samples > 0, "confidence needs draws");
  Fit();
  std::vector<int> order(n_);
  for (int i = 0; i < n_; ++i) order[rank_[i]] = i;
  order.resize(top);
  // The seed mixes the results' count in, so that draws differ as results
  // come (SplitMix64's increment).
  const std::uint64_t seed =
      options_.seed + 0x9e3779b97f4a7c15ULL * (static_cast<std::uint64_t>(results_.size()) + 1);
  return TopOrderProbability(n_, results_, order,
                             {.samples = samples, .seed = seed, .prior_ties = options_.prior_ties});
}

}  // namespace hoard::tournament
