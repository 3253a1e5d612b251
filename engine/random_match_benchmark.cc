// Random matches per second on one core, and actions per second, for every
// game and player count.
//
//   build/engine/random_match_benchmark                       # every game
//   build/engine/random_match_benchmark --benchmark_filter=village
//
// Each iteration plays a full match from a new seed with every seat to act
// choosing uniformly among its legal actions (for a sealed decision, the
// seats in turn), through the generic State interface: legal actions listed
// and each action validated, as in a real match.

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "engine/registry.h"

namespace hoard::engine {
namespace {

void RandomMatches(benchmark::State& bench, const Game* game, int players) {
  Rng rng(12345);
  std::vector<Action> legal;
  std::int64_t actions = 0;
  for (auto _ : bench) {
    std::unique_ptr<State> state = *game->NewMatch({.num_players = players, .seed = rng.Fork()});
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
      benchmark::Counter(static_cast<double>(bench.iterations()), benchmark::Counter::kIsRate);
  bench.counters["actions/s"] =
      benchmark::Counter(static_cast<double>(actions), benchmark::Counter::kIsRate);
  bench.counters["actions/match"] =
      static_cast<double>(actions) / static_cast<double>(bench.iterations());
}

// BM_RandomMatch/<game>/<players>, registered from main: the games register
// themselves during static initialisation, in an order no other static may
// rely on.
void RegisterRandomMatches() {
  for (const Game* game : AllGames()) {
    for (int n = game->info().min_players; n <= game->info().max_players; ++n) {
      benchmark::RegisterBenchmark(
          absl::StrCat("BM_RandomMatch/", game->info().id, "/", n).c_str(),
          [game, n](benchmark::State& bench) { RandomMatches(bench, game, n); })
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

}  // namespace
}  // namespace hoard::engine

int main(int argc, char** argv) {
  hoard::engine::RegisterRandomMatches();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
