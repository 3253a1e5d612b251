// Calibration of the maximum likelihood intervals: results drawn from bots
// of known strength, fitted, and the 95% intervals of every rating
// difference checked against the true differences.
//
// HOARD_CALIBRATION_RUNS sets the number of simulated tournaments per
// scenario (default 400, about 15 s of one core; docs/ratings.md reports a
// run of 5000). Coverage must lie in [93%, 97%], widened by three binomial
// standard errors of the number of intervals, so that a small run is not
// failed by its noise alone.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <span>
#include <string>

#include "engine/rng.h"
#include "gtest/gtest.h"
#include "tournament/ratings.h"

namespace hoard::tournament {
namespace {

int CalibrationRuns() {
  const char* runs = std::getenv("HOARD_CALIBRATION_RUNS");
  return runs != nullptr && std::atoi(runs) > 0 ? std::atoi(runs) : 400;
}

// `count` distinct bots of 0..n-1 drawn at random.
std::vector<int> Draw(int n, int count, engine::Rng& rng) {
  std::vector<int> pool(n);
  for (int b = 0; b < n; ++b) pool[b] = b;
  rng.Shuffle(std::span<int>(pool));
  pool.resize(count);
  return pool;
}

// A match of `seats` (bots of true ratings `truth`, in points), placed by an
// exponential race: Plackett–Luce, whose pairwise chances are
// Bradley–Terry's.
MatchResult Race(const std::vector<double>& truth, const std::vector<int>& seats, std::int64_t unit,
                 engine::Rng& rng) {
  const std::size_t players = seats.size();
  std::vector<double> finish(players);
  for (std::size_t s = 0; s < players; ++s) {
    const double u = (static_cast<double>(rng.Next() >> 11) + 0.5) * 0x1p-53;
    finish[s] = -std::log(u) / std::pow(10.0, truth[seats[s]] / 400);
  }
  MatchResult result{.unit = unit};
  for (std::size_t s = 0; s < players; ++s) {
    int place = 1;
    for (std::size_t o = 0; o < players; ++o) place += finish[o] < finish[s] ? 1 : 0;
    result.placings.push_back({seats[s], place});
  }
  return result;
}

// `matches` matches of `players` bots drawn at random from those of `truth`.
std::vector<MatchResult> Tournament(const std::vector<double>& truth, int matches, int players,
                                    engine::Rng& rng) {
  std::vector<MatchResult> results;
  for (int m = 0; m < matches; ++m) {
    results.push_back(Race(truth, Draw(static_cast<int>(truth.size()), players, rng), m, rng));
  }
  return results;
}

struct Coverage {
  int runs = 0, held = 0, intervals = 0, separated = 0;  // separated: runs
};

// Over `runs` tournaments drawn by `simulate`, how many 95% intervals of
// the rating differences of every pair of bots hold the true difference.
Coverage Measure(const std::vector<double>& truth,
                 const std::function<std::vector<MatchResult>(engine::Rng&)>& simulate, int runs) {
  const int n = static_cast<int>(truth.size());
  std::vector<std::pair<int, int>> pairs;
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) pairs.push_back({a, b});
  }
  engine::Rng rng(2024);
  Coverage coverage{.runs = runs};
  for (int run = 0; run < runs; ++run) {
    const std::vector<MatchResult> results = simulate(rng);
    for (const MlDifference& d : MlDifferences(n, results, pairs)) {
      const double true_difference = truth[d.a] - truth[d.b];
      EXPECT_TRUE(std::isfinite(d.low) && std::isfinite(d.high));
      coverage.held += d.low <= true_difference && true_difference <= d.high ? 1 : 0;
      ++coverage.intervals;
    }
    coverage.separated +=
        Separated(MlRatings(n, results, {.bootstrap_samples = 0, .profile_likelihood = false})) ? 1
                                                                                                : 0;
  }
  return coverage;
}

void ExpectCalibrated(const std::string& scenario, const Coverage& c) {
  const double share = static_cast<double>(c.held) / c.intervals;
  const double slack = 3 * std::sqrt(0.95 * 0.05 / c.intervals);
  std::printf("%s: %d of %d intervals (%.2f%%) hold the true difference; %d runs separated\n",
              scenario.c_str(), c.held, c.intervals, 100 * share, c.separated);
  EXPECT_GE(share, 0.93 - slack) << scenario;
  EXPECT_LE(share, 0.97 + slack) << scenario;
}

TEST(MlCalibrationTest, Balanced) {
  // Six bots 50 points apart, 120 four-player matches (the main job's size).
  const std::vector<double> truth = {-125, -75, -25, 25, 75, 125};
  ExpectCalibrated("balanced",
                   Measure(
                       truth, [&](engine::Rng& rng) { return Tournament(truth, 120, 4, rng); },
                       CalibrationRuns()));
}

TEST(MlCalibrationTest, Lopsided) {
  // Four bots 400 points apart, 40 four-player matches: the best loses to
  // the worst about once in a thousand meetings, and some runs are
  // separated.
  const std::vector<double> truth = {600, 200, -200, -600};
  const Coverage c = Measure(
      truth, [&](engine::Rng& rng) { return Tournament(truth, 40, 4, rng); }, CalibrationRuns());
  EXPECT_GT(c.separated, 0);
  ExpectCalibrated("lopsided", c);
}

TEST(MlCalibrationTest, Sparse) {
  // Ten bots 100 points apart (about the prior's spread), 25 two-player
  // matches: five per bot, nearly always separated, so that the prior
  // carries much of every interval.
  std::vector<double> truth;
  for (int b = 0; b < 10; ++b) truth.push_back(100.0 * b - 450);
  const Coverage c = Measure(
      truth, [&](engine::Rng& rng) { return Tournament(truth, 25, 2, rng); }, CalibrationRuns());
  EXPECT_GT(c.separated, c.runs / 2);
  ExpectCalibrated("sparse", c);
}

TEST(MlCalibrationTest, OneOffMatch) {
  // The balanced field, and a seventh bot, 150 points above the mean, that
  // plays one four-player match against three of them.
  const std::vector<double> truth = {-125, -75, -25, 25, 75, 125, 150};
  ExpectCalibrated("one-off", Measure(
                                  truth,
                                  [&](engine::Rng& rng) {
                                    std::vector<MatchResult> results =
                                        Tournament({-125, -75, -25, 25, 75, 125}, 120, 4, rng);
                                    std::vector<int> seats = Draw(6, 3, rng);
                                    seats.push_back(6);
                                    results.push_back(Race(truth, seats, 120, rng));
                                    return results;
                                  },
                                  CalibrationRuns()));
}

}  // namespace
}  // namespace hoard::tournament
