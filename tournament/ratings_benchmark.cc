// The time of maximum-likelihood ratings with their bootstrap intervals.
//
//   build/tournament/ratings_benchmark
//
// Each iteration rates one data set (the synthetic results of
// tournament/testing/random_results.h) with 1000 bootstrap resamples, or
// with none for the point estimate and the profile likelihood alone:
//  - BM_MlRatings: 100,000 four-player matches among 8 bots, neighbours
//    about 68 rating points apart (balanced);
//  - BM_MlRatingsLopsided: 10,000 four-player matches of the same 4 bots,
//    two of which never lose to the other two (like two random bots against
//    two that always take the first action): separated, the gap bounded
//    by the prior alone;
//  - BM_MlRatingsLopsidedField: 20,000 four-player matches among 32 bots in
//    four tiers of 8, each tier never losing to the tiers below it.

#include <vector>

#include "benchmark/benchmark.h"
#include "tournament/ratings.h"
#include "tournament/testing/random_results.h"

namespace hoard::tournament {
namespace {

// Rates `results` of `bots` bots with bench.range(1) resamples per iteration.
void Rate(benchmark::State& bench, int bots, const std::vector<MatchResult>& results) {
  const int samples = static_cast<int>(bench.range(1));
  for (auto _ : bench) {
    std::vector<MlRating> ratings = MlRatings(bots, results, {.bootstrap_samples = samples});
    benchmark::DoNotOptimize(ratings);
  }
}

void BM_MlRatings(benchmark::State& bench) {
  const int matches = static_cast<int>(bench.range(0));
  Rate(bench, 8, testing::RandomResults(8, matches, 4, 1, 0.3));
}

void BM_MlRatingsLopsided(benchmark::State& bench) {
  const int matches = static_cast<int>(bench.range(0));
  Rate(bench, 4, testing::ResultsOfStrengths({3, 3, 0, 0}, matches, 4, 1));
}

void BM_MlRatingsLopsidedField(benchmark::State& bench) {
  const int matches = static_cast<int>(bench.range(0));
  std::vector<double> strengths;
  for (int bot = 0; bot < 32; ++bot) strengths.push_back(3.0 * (bot / 8));
  Rate(bench, 32, testing::ResultsOfStrengths(strengths, matches, 4, 1));
}

BENCHMARK(BM_MlRatings)
    ->ArgNames({"matches", "samples"})
    ->Args({100000, 0})
    ->Args({100000, 1000})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MlRatingsLopsided)
    ->ArgNames({"matches", "samples"})
    ->Args({10000, 0})
    ->Args({10000, 1000})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MlRatingsLopsidedField)
    ->ArgNames({"matches", "samples"})
    ->Args({20000, 0})
    ->Args({20000, 1000})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hoard::tournament

BENCHMARK_MAIN();
