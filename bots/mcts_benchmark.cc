// Search speed: MCTS iterations per second on one core, for every game with a
// sampler, at three players, from decisions spread over a match.
//
//   build/bots/mcts_benchmark
//   build/bots/mcts_benchmark --benchmark_filter=village
//
// Each benchmark iteration is one decision of a 200-iteration search with
// uniformly random rollouts (each iteration: a determinization from the
// sampler, a walk down the tree and a random playout to the end) at one of
// 64 positions taken from seeded random matches, every 8th step, where the
// seat to act has a choice. The built-in "mcts" bot rolls out with the game's
// heuristic instead, which costs more per iteration. Reported: iterations/s
// (the search's speed) and decisions/s at this budget.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "bots/mcts.h"
#include "engine/registry.h"

namespace hoard::bots {
namespace {

constexpr int kPlayers = 3;
constexpr int kPositions = 64;
constexpr int kIterations = 200;

struct Position {
  std::unique_ptr<engine::View> view;
  std::vector<engine::Action> legal;
};

std::vector<Position> Positions(const engine::Game& game) {
  std::vector<Position> positions;
  engine::Rng rng(2026);
  std::vector<engine::Action> legal;
  while (static_cast<int>(positions.size()) < kPositions) {
    std::unique_ptr<engine::State> state =
        *game.NewMatch({.num_players = kPlayers, .seed = rng.Fork()});
    for (int step = 0; !state->IsOver(); ++step) {
      const engine::Seat seat = state->SeatsToAct()[0];
      state->LegalActions(seat, &legal);
      if (step % 8 == 0 && legal.size() > 1 && static_cast<int>(positions.size()) < kPositions) {
        positions.push_back({state->ViewFor(seat), legal});
      }
      if (!state->Apply(seat, legal[rng.Uniform(legal.size())]).ok()) break;
    }
  }
  return positions;
}

void Search(benchmark::State& bench, const engine::Game* game) {
  const engine::Sampler* sampler = engine::DealFor(*game);
  const std::vector<Position> positions = Positions(*game);
  MctsBot bot(*sampler, {.iterations = kIterations}, 7);
  std::int64_t iterations = 0;
  std::size_t next = 0;
  for (auto _ : bench) {
    const Position& p = positions[next++ % positions.size()];
    benchmark::DoNotOptimize(bot.Choose(*p.view, p.legal));
    iterations += bot.last_search().iterations;
    if (bot.last_search().sample_errors > 0) {
      bench.SkipWithError("the sampler refused a view");
      return;
    }
  }
  bench.counters["iterations/s"] =
      benchmark::Counter(static_cast<double>(iterations), benchmark::Counter::kIsRate);
  bench.counters["decisions/s"] =
      benchmark::Counter(static_cast<double>(bench.iterations()), benchmark::Counter::kIsRate);
}

// BM_MctsSearch/<game>, registered from main: the games register themselves
// during static initialisation, in an order no other static may rely on.
void RegisterSearches() {
  for (const engine::Game* game : engine::AllGames()) {
    if (engine::DealFor(*game) == nullptr) continue;
    benchmark::RegisterBenchmark(absl::StrCat("BM_MctsSearch/", game->info().id).c_str(),
                                 [game](benchmark::State& bench) { Search(bench, game); })
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace
}  // namespace hoard::bots

int main(int argc, char** argv) {
  hoard::bots::RegisterSearches();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
