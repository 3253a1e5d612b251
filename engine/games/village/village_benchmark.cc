// Random village matches per second on one core, and actions per second.
//
//   build/engine/village_benchmark
//
// Each iteration plays a full match from a new seed with every seat choosing
// uniformly among its legal actions, through the generic State interface
// (legal actions listed and each action validated, as in a real match).

#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "engine/registry.h"

namespace hoard::engine {
namespace {

void BM_RandomVillageMatch(benchmark::State& bench) {
  const Game& game = **FindGame("village");
  const int players = static_cast<int>(bench.range(0));
  Rng rng(12345);
  std::vector<Action> legal;
  std::int64_t actions = 0;
  for (auto _ : bench) {
    std::unique_ptr<State> state =
        *game.NewMatch({.num_players = players, .seed = rng.Fork()});
    while (!state->IsOver()) {
      const Seat seat = state->SeatsToAct()[0];
      state->LegalActions(seat, &legal);
      if (!state->Apply(seat, legal[rng.Uniform(legal.size())]).ok()) {
        bench.SkipWithError("a legal action was refused");
        return;
      }
      ++actions;
    }
    benchmark::DoNotOptimize(state);
  }
  bench.counters["matches/s"] =
      benchmark::Counter(static_cast<double>(bench.iterations()),
                         benchmark::Counter::kIsRate);
  bench.counters["actions/s"] = benchmark::Counter(
      static_cast<double>(actions), benchmark::Counter::kIsRate);
  bench.counters["actions/match"] =
      static_cast<double>(actions) / static_cast<double>(bench.iterations());
}
BENCHMARK(BM_RandomVillageMatch)->DenseRange(2, 5)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace hoard::engine

BENCHMARK_MAIN();
