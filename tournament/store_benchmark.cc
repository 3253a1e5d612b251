// The store's speed and size for tournaments: result writes per second, the
// bytes on disk of a stored match, and the time of a leaderboard query with
// 100,000 stored matches.
//
//   build/tournament/store_benchmark
//
// Writes go to a database file in WAL mode (as `hoard tournament` uses it),
// each match with its four seats and its record, one transaction per match
// (per_commit:1) or per 256 (per_commit:256, as a tournament's results
// writer batches them); disk_bytes_per_match is what the kernel wrote for
// the process (/proc/self/io), divided by the matches. The record is of a
// real 4-player village match between random bots, in the compact form a
// hosted match gives (format 3, docs/records.md), or a bare one.
// BM_BytesOnDisk stores 10,000 such matches and reports how much the
// database and its log grew, per match. The leaderboard queries read a
// database of 100,000 four-player matches among 8 bots, built once before
// they run (records bare); "current" is a query with its snapshot up to
// date, "recompute" one right after a match was stored (the whole scope
// rated again, with 1000 bootstrap resamples).

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "bots/local_match.h"
#include "db/store.h"
#include "engine/record_json.h"
#include "engine/registry.h"
#include "engine/rng.h"
#include "engine/seed_commitment.h"
#include "tournament/leaderboard.h"

namespace hoard::tournament {
namespace {

std::string FreshPath(const std::string& name) {
  const std::string path = absl::StrCat("/tmp/hoard_store_benchmark_", name, ".db");
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  return path;
}

// A finished 4-player village match as a tournament stores it: its seed,
// salt and commitment, time control, times and seats of built-in bots.
hoard::v1::Match FourSeats(int index, engine::Rng& rng, int bots) {
  hoard::v1::Match match;
  match.set_game("village");
  match.set_ruleset_version("1");
  match.set_status(hoard::v1::MATCH_STATUS_FINISHED);
  match.set_seed(rng.Next());
  match.set_seed_salt(engine::NewSeedSalt());
  match.set_seed_commitment(engine::SeedCommitment(match.seed(), match.seed_salt()));
  match.set_actions(59);
  match.mutable_time_control()->set_decision_ms(10000);
  match.set_started_unix_ms(1764633600000 + 3 * index);
  match.set_finished_unix_ms(match.started_unix_ms() + 2);
  std::vector<int> pool(bots);
  for (int b = 0; b < bots; ++b) pool[b] = b;
  rng.Shuffle(std::span<int>(pool));
  for (int seat = 0; seat < 4; ++seat) {
    hoard::v1::SeatInfo* info = match.add_seats();
    info->set_seat(seat);
    info->set_player(absl::StrCat("builtin:bot-", pool[seat]));
    info->set_connected(true);
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
  // Compact, as a hosted match gives it to be stored.
  return engine::RecordToProto(*engine::CompactRecord(played->record));
}

// Bytes this process has had written to disk so far (/proc/self/io), or -1.
std::int64_t DiskBytesWritten() {
  std::ifstream io("/proc/self/io");
  std::string key;
  std::int64_t value = 0;
  while (io >> key >> value) {
    if (key == "write_bytes:") return value;
  }
  return -1;
}

// One iteration stores `per_commit` matches: one transaction each
// (SaveFinished) when it is 1, else one transaction for all of them
// (SaveFinishedBatch, as a tournament's results writer stores them).
void BM_ResultWrites(benchmark::State& bench) {
  const bool full_record = bench.range(0) == 1;
  const int per_commit = static_cast<int>(bench.range(1));
  const std::string path =
      FreshPath(absl::StrCat("writes_", full_record ? "full" : "bare", "_", per_commit));
  std::unique_ptr<db::MatchStore> store = *db::OpenSqliteStore(path);
  hoard::v1::TournamentSpec spec;
  spec.set_game("village");
  const std::int64_t id = *store->CreateTournament(spec, "bench", 1 << 30, "");
  const hoard::v1::MatchRecord record = full_record ? VillageRecord() : hoard::v1::MatchRecord();
  engine::Rng rng(1);
  int index = 0;
  std::vector<db::FinishedResult> batch(per_commit);
  std::vector<const db::FinishedResult*> pointers;
  for (const db::FinishedResult& result : batch) pointers.push_back(&result);
  ::sync();
  const std::int64_t written_before = DiskBytesWritten();
  for (auto _ : bench) {
    if (per_commit == 1) {
      const db::TournamentSlot slot{.tournament_id = id, .schedule_index = index, .block = index};
      const hoard::v1::Match match = FourSeats(index++, rng, 8);
      if (!store->SaveFinished(0, match, record, &slot).ok()) bench.SkipWithError("write failed");
      continue;
    }
    for (db::FinishedResult& result : batch) {
      result.slot =
          db::TournamentSlot{.tournament_id = id, .schedule_index = index, .block = index};
      result.match = FourSeats(index++, rng, 8);
      result.record = record;
    }
    for (const absl::Status& saved : store->SaveFinishedBatch(pointers)) {
      if (!saved.ok()) bench.SkipWithError("write failed");
    }
  }
  store.reset();  // the last checkpoint is written too
  ::sync();
  const std::int64_t written_after = DiskBytesWritten();
  const double matches = static_cast<double>(bench.iterations()) * per_commit;
  bench.SetItemsProcessed(static_cast<std::int64_t>(matches));
  bench.counters["record_bytes"] = static_cast<double>(record.ByteSizeLong());
  if (written_before >= 0 && written_after >= written_before) {
    bench.counters["disk_bytes_per_match"] = (written_after - written_before) / matches;
  }
}
BENCHMARK(BM_ResultWrites)
    ->ArgNames({"full_record", "per_commit"})
    ->Args({1, 1})
    ->Args({0, 1})
    ->Args({1, 256})
    ->Args({0, 256})
    ->UseRealTime();

// The size on disk of 10,000 stored matches, each with its four seats and
// its record, stored 256 to a transaction as a tournament's results writer
// stores them: the growth of the database file and its write-ahead log
// (bytes_per_match), with the log's pages written back by the store's
// close.
std::int64_t FileBytes(const std::string& path) {
  std::int64_t total = 0;
  for (const char* suffix : {"", "-wal"}) {
    std::ifstream file(path + suffix, std::ios::binary | std::ios::ate);
    if (file) total += static_cast<std::int64_t>(file.tellg());
  }
  return total;
}

void BM_BytesOnDisk(benchmark::State& bench) {
  constexpr int kMatches = 10000;
  constexpr int kPerCommit = 256;
  const hoard::v1::MatchRecord record = VillageRecord();
  double bytes_per_match = 0;
  for (auto _ : bench) {
    const std::string path = FreshPath("bytes_on_disk");
    std::unique_ptr<db::MatchStore> store = *db::OpenSqliteStore(path);
    hoard::v1::TournamentSpec spec;
    spec.set_game("village");
    const std::int64_t id = *store->CreateTournament(spec, "bench", kMatches, "");
    // Measured from the file as the store's close leaves it: its log
    // written back and gone.
    store.reset();
    const std::int64_t before = FileBytes(path);
    store = *db::OpenSqliteStore(path);
    engine::Rng rng(3);
    for (int first = 0; first < kMatches; first += kPerCommit) {
      std::vector<db::FinishedResult> batch;
      for (int i = first; i < std::min(first + kPerCommit, kMatches); ++i) {
        hoard::v1::Match match = FourSeats(i, rng, 8);
        hoard::v1::MatchRecord its = record;
        its.set_seed(match.seed());
        its.set_seed_salt(match.seed_salt());
        its.set_seed_commitment(match.seed_commitment());
        batch.push_back(
            {.match = std::move(match),
             .record = std::move(its),
             .slot = db::TournamentSlot{.tournament_id = id, .schedule_index = i, .block = i}});
      }
      std::vector<const db::FinishedResult*> pointers;
      for (const db::FinishedResult& result : batch) pointers.push_back(&result);
      for (const absl::Status& saved : store->SaveFinishedBatch(pointers)) {
        if (!saved.ok()) bench.SkipWithError(std::string(saved.message()).c_str());
      }
    }
    store.reset();
    bytes_per_match = static_cast<double>(FileBytes(path) - before) / kMatches;
  }
  bench.counters["bytes_per_match"] = bytes_per_match;
  bench.counters["record_bytes"] = static_cast<double>(record.ByteSizeLong());
}
BENCHMARK(BM_BytesOnDisk)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

constexpr int kStoredMatches = 100000;

// A database of 100,000 stored matches, built once.
db::MatchStore& HundredThousand() {
  static db::MatchStore* store = [] {
    db::MatchStore* s = db::OpenSqliteStore(FreshPath("leaderboard"))->release();
    hoard::v1::TournamentSpec spec;
    spec.set_game("village");
    const std::int64_t id = *s->CreateTournament(spec, "bench", kStoredMatches, "");
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
