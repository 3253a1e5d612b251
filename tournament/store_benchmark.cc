// The store's speed for tournaments: result writes per second, and the time
// of a leaderboard query with 100,000 stored matches.
//
//   build/tournament/store_benchmark
//
// Writes go to a database file in WAL mode (as `hoard tournament` uses it),
// one transaction per match with its four seats and its record: the record
// of a real 4-player village match between random bots (every step with its
// state), or a bare one. The leaderboard queries read a database of 100,000
// four-player matches among 8 bots, built once before they run (records
// bare); "current" is a query with its snapshot up to date, "recompute" one
// right after a match was stored (the whole scope rated again, with 1000
// bootstrap resamples).

#include <cstdio>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "bots/local_match.h"
#include "db/store.h"
#include "engine/record_json.h"
#include "engine/registry.h"
#include "engine/rng.h"
#include "tournament/leaderboard.h"

namespace hoard::tournament {
namespace {

std::string FreshPath(const std::string& name) {
  const std::string path = absl::StrCat("/tmp/hoard_store_benchmark_", name, ".db");
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  return path;
}

hoard::v1::Match FourSeats(int index, engine::Rng& rng, int bots) {
  hoard::v1::Match match;
  match.set_game("village");
  match.set_ruleset_version("1");
  match.set_status(hoard::v1::MATCH_STATUS_FINISHED);
  match.set_seed(index + 1);
  std::vector<int> pool(bots);
  for (int b = 0; b < bots; ++b) pool[b] = b;
  rng.Shuffle(std::span<int>(pool));
  for (int seat = 0; seat < 4; ++seat) {
    hoard::v1::SeatInfo* info = match.add_seats();
    info->set_seat(seat);
    info->set_player(absl::StrCat("builtin:bot-", pool[seat]));
    info->set_rank(seat + 1);
    info->set_score(40 - 10 * seat);
  }
  return match;
}

hoard::v1::MatchRecord VillageRecord() {
  const engine::Game& game = **engine::FindGame("village");
  std::vector<std::unique_ptr<bots::Bot>> players;
  std::vector<bots::Bot*> seats;
  for (int s = 0; s < 4; ++s) {
    players.push_back(std::make_unique<bots::RandomBot>(s + 1));
    seats.push_back(players.back().get());
  }
  absl::StatusOr<bots::PlayedMatch> played =
      bots::PlayLocalMatch(game, {.num_players = 4, .seed = 7}, seats, {"a", "b", "c", "d"});
  return engine::RecordToProto(played->record);
}

void BM_ResultWrites(benchmark::State& bench) {
  const bool full_record = bench.range(0) == 1;
  std::unique_ptr<db::MatchStore> store =
      *db::OpenSqliteStore(FreshPath(full_record ? "writes_full" : "writes_bare"));
  hoard::v1::TournamentSpec spec;
  spec.set_game("village");
  const std::int64_t id = *store->CreateTournament(spec, "bench", 1 << 30);
  const hoard::v1::MatchRecord record = full_record ? VillageRecord() : hoard::v1::MatchRecord();
  engine::Rng rng(1);
  int index = 0;
  for (auto _ : bench) {
    const db::TournamentSlot slot{.tournament_id = id, .schedule_index = index, .block = index};
    const hoard::v1::Match match = FourSeats(index++, rng, 8);
    if (!store->SaveFinished(0, match, record, &slot).ok()) bench.SkipWithError("write failed");
  }
  bench.SetItemsProcessed(bench.iterations());
  bench.counters["record_bytes"] = static_cast<double>(record.ByteSizeLong());
}
BENCHMARK(BM_ResultWrites)->ArgNames({"full_record"})->Arg(1)->Arg(0)->UseRealTime();

constexpr int kStoredMatches = 100000;

// A database of 100,000 stored matches, built once.
db::MatchStore& HundredThousand() {
  static db::MatchStore* store = [] {
    db::MatchStore* s = db::OpenSqliteStore(FreshPath("leaderboard"))->release();
    hoard::v1::TournamentSpec spec;
    spec.set_game("village");
    const std::int64_t id = *s->CreateTournament(spec, "bench", kStoredMatches);
    engine::Rng rng(2);
    for (int i = 0; i < kStoredMatches; ++i) {
      const db::TournamentSlot slot{.tournament_id = id, .schedule_index = i, .block = i};
      (void)s->SaveFinished(0, FourSeats(i, rng, 8), {}, &slot);
    }
    return s;
  }();
  return *store;
}

void BM_LeaderboardCurrent(benchmark::State& bench) {
  db::MatchStore& store = HundredThousand();
  const db::RatingScope scope{.game = "village"};
  (void)CurrentRatings(store, scope);  // the snapshot is now up to date
  for (auto _ : bench) {
    absl::StatusOr<hoard::v1::RatingSnapshot> snapshot = CurrentRatings(store, scope);
    hoard::v1::Leaderboard board = RankBy(*snapshot, hoard::v1::RATING_SYSTEM_ML);
    if (board.matches() != kStoredMatches) bench.SkipWithError("not every match was rated");
    benchmark::DoNotOptimize(board);
  }
}
BENCHMARK(BM_LeaderboardCurrent)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LeaderboardRecompute(benchmark::State& bench) {
  db::MatchStore& store = HundredThousand();
  const db::RatingScope scope{.game = "village"};
  for (auto _ : bench) {
    absl::StatusOr<hoard::v1::RatingSnapshot> snapshot = ComputeRatings(store, scope);
    benchmark::DoNotOptimize(snapshot);
  }
}
BENCHMARK(BM_LeaderboardRecompute)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace
}  // namespace hoard::tournament

BENCHMARK_MAIN();
