// The time of maximum-likelihood ratings with their bootstrap intervals.
//
//   build/tournament/ratings_benchmark
//
// Each iteration rates 100,000 four-player matches among 8 bots (the
// synthetic results of tournament/testing/random_results.h, neighbours
// about 68 rating points apart) with 1000 bootstrap resamples, or with none
// for the point estimate alone.

#include <vector>

#include "benchmark/benchmark.h"
#include "tournament/ratings.h"
#include "tournament/testing/random_results.h"

namespace hoard::tournament {
namespace {

void BM_MlRatings(benchmark::State& bench) {
  const int matches = static_cast<int>(bench.range(0));
  const int samples = static_cast<int>(bench.range(1));
  const std::vector<MatchResult> results = testing::RandomResults(8, matches, 4, 1, 0.3);
  for (auto _ : bench) {
    std::vector<MlRating> ratings = MlRatings(8, results, {.bootstrap_samples = samples});
    benchmark::DoNotOptimize(ratings);
  }
}
BENCHMARK(BM_MlRatings)
    ->ArgNames({"matches", "samples"})
    ->Args({100000, 0})
    ->Args({100000, 1000})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hoard::tournament

BENCHMARK_MAIN();
