#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <set>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bots/balanced_channel.h"
#include "bots/client.h"
#include "bots/client_auth.h"
#include "db/faulty_store.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "service/arena_host.h"
#include "service/grpc_server.h"
#include "tournament/host.h"
#include "tournament/leaderboard.h"
#include "tournament/manager.h"
#include "tournament/runner.h"
#include "tournament/spec.h"

namespace hoard::tournament {
namespace {

using ::hoard::testing::IsOk;
using hoard::v1::Tournament;
using hoard::v1::TournamentSpec;
using ::testing::HasSubstr;

TournamentSpec Spec(const std::string& text) {
  TournamentSpec spec;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &spec)) << text;
  absl::StatusOr<TournamentSpec> normalized = Normalize(spec);
  EXPECT_THAT(normalized, IsOk());
  return normalized.ok() ? *normalized : spec;
}

std::string TempDb(const std::string& name) {
  const std::string path = absl::StrCat(::testing::TempDir(), "/", name);
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  return path;
}

// An arena in this process keeping its matches in a database.
struct Local {
  explicit Local(const std::string& db) {
    auto store = std::make_unique<db::FaultyStore>(*db::OpenSqliteStore(db));
    faults = store.get();
    EXPECT_THAT(arena.UseStore(std::move(store)), IsOk());
    host = service::ArenaHost(&arena, "");
  }
  db::MatchStore& store() { return *arena.store(); }
  service::Arena arena;
  std::unique_ptr<MatchHost> host;
  // Makes the store fail on demand (it passes everything on meanwhile).
  db::FaultyStore* faults = nullptr;
};

std::int64_t Create(db::MatchStore& store, const TournamentSpec& spec) {
  bool resumed = false;
  absl::StatusOr<std::int64_t> id = CreateOrResume(store, spec, /*fresh=*/false, &resumed);
  EXPECT_THAT(id, IsOk());
  return *id;
}

// Every slot of the schedule stored exactly once.
void ExpectEverySlotOnce(db::MatchStore& store, std::int64_t id, int scheduled) {
  std::vector<int> slots = *store.StoredSlots(id);
  EXPECT_EQ(static_cast<int>(slots.size()), scheduled);
  EXPECT_EQ(std::set<int>(slots.begin(), slots.end()).size(), slots.size());
}

// Two servers (two arenas, each with its own connection to one database)
// share a tournament: each slot is played and stored once, both play, and
// the slots a dead server had leased are played once its leases run out.
TEST(RunnerTest, RunnersSharingATournamentPlayEachSlotOnceAndTakeOverADeadServersSlots) {
  const std::string db = TempDb("runner_shared.db");
  Local a(db);
  Local b(db);
  const TournamentSpec spec = Spec(R"pb(
    game: "village"
    players_per_match: 2
    rounds: 60
    seed: 11
    concurrency: 2
    participants { name: "r" builtin: "random" }
    participants { name: "f" builtin: "first" })pb");
  const std::int64_t id = Create(a.store(), spec);
  // A server that leased ten slots and died.
  for (int slot = 0; slot < 10; ++slot) {
    ASSERT_THAT(a.store().ClaimSlot(id, slot, "dead", absl::Milliseconds(1500)),
                ::hoard::testing::IsOkAndHolds(true));
  }
  const absl::Time began = absl::Now();
  auto options = [](const std::string& holder) {
    return RunnerOptions{.lease_holder = holder, .share_poll = absl::Milliseconds(50)};
  };
  TournamentRunner first(&a.store(), a.host.get(), options("a"));
  TournamentRunner second(&b.store(), b.host.get(), options("b"));
  absl::StatusOr<Tournament> done_b;
  std::thread other([&] { done_b = second.Run(id); });
  absl::StatusOr<Tournament> done_a = first.Run(id);
  other.join();
  ASSERT_THAT(done_a, IsOk());
  ASSERT_THAT(done_b, IsOk());
  EXPECT_EQ(done_a->status(), hoard::v1::TOURNAMENT_STATUS_FINISHED);
  EXPECT_EQ(done_b->status(), hoard::v1::TOURNAMENT_STATUS_FINISHED);
  EXPECT_EQ(done_a->progress().finished(), 120);
  EXPECT_EQ(done_b->progress().finished(), 120);
  EXPECT_GE(absl::Now() - began, absl::Milliseconds(1500)) << "the dead server's leases ran";
  ExpectEverySlotOnce(a.store(), id, 120);
  EXPECT_GT(a.faults->stored(), 0);
  EXPECT_GT(b.faults->stored(), 0);
  // No slot played twice: matches played on the two arenas, all told.
  EXPECT_EQ(a.arena.metrics().Game("village").finished + b.arena.metrics().Game("village").finished,
            120);
  EXPECT_EQ((*a.store().GetTournament(id))->status, hoard::v1::TOURNAMENT_STATUS_FINISHED);
}

// A tournament another server cancels ends on this one too, without this
// one storing a status; a server going down leaves a shared tournament
// running (for the others, and for its own next start).
TEST(RunnerTest, ASharedTournamentFollowsAnotherServersCancelAndOutlivesAServerGoingDown) {
  const std::string db = TempDb("runner_shared_cancel.db");
  Local a(db);
  const TournamentSpec spec = Spec(R"pb(
    game: "village"
    players_per_match: 2
    rounds: 500
    seed: 12
    concurrency: 1
    participants { name: "m" builtin: "mcts-50" }
    participants { name: "f" builtin: "first" })pb");
  const std::int64_t id = Create(a.store(), spec);
  const RunnerOptions options{.lease_holder = "a",
                              .lease_ttl = absl::Milliseconds(300),
                              .share_poll = absl::Milliseconds(50)};
  {
    TournamentRunner going_down(&a.store(), a.host.get(), options);
    std::thread stop([&] {
      absl::SleepFor(absl::Milliseconds(300));
      going_down.Cancel(hoard::v1::TOURNAMENT_STATUS_STOPPED);
    });
    absl::StatusOr<Tournament> left = going_down.Run(id);
    stop.join();
    ASSERT_THAT(left, IsOk());
    EXPECT_EQ((*a.store().GetTournament(id))->status, hoard::v1::TOURNAMENT_STATUS_RUNNING);
    // Its leases are given up: another server may play any slot now.
    EXPECT_THAT(a.store().ClaimSlot(id, 999, "b", absl::Seconds(1)),
                ::hoard::testing::IsOkAndHolds(true));
    ASSERT_THAT(a.store().ReleaseLeases(id, "b"), IsOk());
  }
  TournamentRunner runner(&a.store(), a.host.get(), options);
  std::thread cancel([&] {
    absl::SleepFor(absl::Milliseconds(300));
    ASSERT_THAT(a.store().SetTournamentStatus(id, hoard::v1::TOURNAMENT_STATUS_CANCELLED,
                                              "by another server"),
                IsOk());
  });
  const absl::Time began = absl::Now();
  absl::StatusOr<Tournament> ended = runner.Run(id);
  cancel.join();
  ASSERT_THAT(ended, IsOk());
  EXPECT_EQ(ended->status(), hoard::v1::TOURNAMENT_STATUS_CANCELLED);
  EXPECT_EQ(ended->error(), "by another server");
  EXPECT_LT(absl::Now() - began, absl::Seconds(30)) << "it stopped well before its end";
  EXPECT_LT(ended->progress().finished(), 1000);
  EXPECT_EQ((*a.store().GetTournament(id))->error, "by another server");
}

TEST(RunnerTest, ARoundRobinOfFourBuiltInBotsStoresEveryMatchAndRatesThem) {
  Local local(TempDb("runner_round_robin.db"));
  const TournamentSpec spec = Spec(R"pb(
    game: "village"
    players_per_match: 4
    rounds: 50
    seed: 7
    participants { name: "r1" builtin: "random" }
    participants { name: "r2" builtin: "random" }
    participants { name: "f1" builtin: "first" }
    participants { name: "f2" builtin: "first" })pb");
  const std::int64_t id = Create(local.store(), spec);
  std::vector<int> reported;  // finished matches in each progress report
  const absl::Time began = absl::Now();
  TournamentRunner runner(
      &local.store(), local.host.get(),
      {.on_progress = [&](const Tournament& t) { reported.push_back(t.progress().finished()); }});
  absl::StatusOr<Tournament> done = runner.Run(id);
  const absl::Duration took = absl::Now() - began;
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->status(), hoard::v1::TOURNAMENT_STATUS_FINISHED);
  EXPECT_EQ(done->progress().finished(), 200);
  EXPECT_EQ(done->progress().scheduled(), 200);
  // Progress is sampled (at most one report per 200 ms, besides the first
  // and the last), never goes back, and ends with every match.
  ASSERT_GE(reported.size(), 2u);
  EXPECT_LE(reported.size(), 3 + static_cast<std::size_t>(took / absl::Milliseconds(200)));
  EXPECT_TRUE(std::is_sorted(reported.begin(), reported.end()));
  EXPECT_EQ(reported.front(), 0);
  EXPECT_EQ(reported.back(), 200);
  // Results were stored several to a transaction.
  EXPECT_GT(local.faults->largest_batch(), 1);
  ExpectEverySlotOnce(local.store(), id, 200);
  EXPECT_EQ((*local.store().GetTournament(id))->status, hoard::v1::TOURNAMENT_STATUS_FINISHED);

  absl::StatusOr<hoard::v1::RatingSnapshot> ratings =
      CurrentRatings(local.store(), {.game = "village", .tournament_id = id});
  ASSERT_THAT(ratings, IsOk());
  const hoard::v1::Leaderboard board = RankBy(*ratings, hoard::v1::RATING_SYSTEM_ML);
  EXPECT_EQ(board.matches(), 200);
  ASSERT_EQ(board.rows_size(), 4);
  for (const hoard::v1::LeaderboardRow& row : board.rows()) {
    EXPECT_EQ(row.matches(), 200) << row.bot();
    EXPECT_LT(row.ml_low(), row.ml()) << row.bot();
    EXPECT_GT(row.ml_high(), row.ml()) << row.bot();
    EXPECT_GT(row.openskill_sigma(), 0) << row.bot();
    EXPECT_NE(row.elo(), 1500) << row.bot();
  }
  // Random play beats always playing the default action, clearly.
  EXPECT_THAT(board.rows(0).bot(), ::testing::StartsWith("r"));
  EXPECT_THAT(board.rows(1).bot(), ::testing::StartsWith("r"));
  EXPECT_GT(board.rows(1).ml_low(), board.rows(2).ml_high());
  EXPECT_EQ(ratings->head_to_head().pairs_size(), 6);
}

TEST(RunnerTest, TheSameSpecRunTwiceGivesTheSameRatingsAndIntervals) {
  // One match at a time, then eight: with eight the matches are stored in
  // an order that varies from run to run. Every rating must not: maximum
  // likelihood and its intervals, and Elo and OpenSkill, which replay the
  // matches in schedule order. Bit for bit.
  Local local(TempDb("runner_twice.db"));
  TournamentSpec spec = Spec(R"pb(
    game: "village"
    players_per_match: 3
    rounds: 20
    seed: 5
    concurrency: 1
    format: FORMAT_DUPLICATE
    participants { name: "a" builtin: "random" }
    participants { name: "b" builtin: "random" }
    participants { name: "c" builtin: "first" }
    participants { name: "d" builtin: "random" })pb");
  std::vector<hoard::v1::Leaderboard> boards;
  for (int concurrency : {1, 8}) {
    spec.set_concurrency(concurrency);
    bool resumed = false;
    const std::int64_t id = *CreateOrResume(local.store(), spec, /*fresh=*/true, &resumed);
    TournamentRunner runner(&local.store(), local.host.get());
    absl::StatusOr<Tournament> done = runner.Run(id);
    ASSERT_THAT(done, IsOk());
    boards.push_back(
        RankBy(*CurrentRatings(local.store(), {.game = "village", .tournament_id = id}),
               hoard::v1::RATING_SYSTEM_ML));
    // The standings, as the run ends and as read back, show the
    // leaderboard's Elo: one number per bot whatever order matches ended in.
    std::map<std::string, double> board_elo;
    for (const hoard::v1::LeaderboardRow& row : boards.back().rows())
      board_elo[row.bot()] = row.elo();
    absl::StatusOr<Tournament> loaded = LoadTournament(local.store(), id);
    ASSERT_THAT(loaded, IsOk());
    for (const Tournament* t : {&*done, &*loaded}) {
      ASSERT_EQ(t->progress().standings_size(), 4);
      for (const hoard::v1::Standing& row : t->progress().standings()) {
        EXPECT_EQ(row.elo(), board_elo[row.bot()])
            << row.bot() << " at concurrency " << concurrency;
      }
    }
  }
  ASSERT_EQ(boards[0].rows_size(), 4);
  for (int i = 0; i < 4; ++i) {
    const hoard::v1::LeaderboardRow& one = boards[0].rows(i);
    const hoard::v1::LeaderboardRow& eight = boards[1].rows(i);
    EXPECT_EQ(one.bot(), eight.bot());
    EXPECT_EQ(one.ml(), eight.ml()) << one.bot();
    EXPECT_EQ(one.ml_low(), eight.ml_low()) << one.bot();
    EXPECT_EQ(one.ml_high(), eight.ml_high()) << one.bot();
    EXPECT_EQ(one.elo(), eight.elo()) << one.bot();
    EXPECT_EQ(one.openskill_mu(), eight.openskill_mu()) << one.bot();
    EXPECT_EQ(one.openskill_sigma(), eight.openskill_sigma()) << one.bot();
  }
}

// Live standings take matches as they end, in any order; at every moment
// their Elo is the replay in schedule order of the matches so far.
TEST(StandingsTest, EloIsTheScheduleOrderReplayOfTheMatchesAddedSoFar) {
  std::vector<std::vector<db::RatedSeat>> slots;
  for (int i = 0; i < 40; ++i) {
    // Four bots, three seats a match, places rotating, a shared place now and then.
    std::vector<db::RatedSeat> seats;
    for (int s = 0; s < 3; ++s) {
      seats.push_back({.bot = absl::StrCat("b", (i + s) % 4),
                       .rank = i % 6 == 0 && s > 0 ? 2 : 1 + (i + s * 2) % 3,
                       .score = static_cast<double>((i * 7 + s * 3) % 5)});
    }
    slots.push_back(std::move(seats));
  }
  std::vector<int> order(slots.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  // Ended out of order: a window of eight, reversed, and slot 3 last.
  for (std::size_t i = 0; i + 8 <= order.size(); i += 8) {
    std::reverse(order.begin() + static_cast<std::ptrdiff_t>(i),
                 order.begin() + static_cast<std::ptrdiff_t>(i + 8));
  }
  order.erase(std::find(order.begin(), order.end(), 3));
  order.push_back(3);
  Standings standings;
  std::set<int> added;
  for (int slot : order) {
    standings.Add(slot, slots[slot]);
    standings.Add(slot, slots[slot]);  // a slot counts once
    added.insert(slot);
    std::map<Identity, double> expected;
    for (int s : added) AddToElo(slots[s], expected);
    for (const hoard::v1::Standing& row : standings.Sorted()) {
      EXPECT_EQ(row.elo(), expected.at({row.bot(), false}))
          << row.bot() << " after " << added.size();
    }
  }
  int seats = 0;
  for (const hoard::v1::Standing& row : standings.Sorted()) seats += row.matches();
  EXPECT_EQ(seats, 40 * 3);
}

TEST(RunnerTest, AStoppedTournamentResumesWithoutLosingOrDoublingAMatch) {
  const std::string db = TempDb("runner_resume.db");
  const TournamentSpec spec = Spec(R"pb(
    game: "village"
    players_per_match: 3
    rounds: 10
    seed: 3
    concurrency: 4
    format: FORMAT_DUPLICATE
    participants { name: "a" builtin: "random" }
    participants { name: "b" builtin: "random" }
    participants { name: "c" builtin: "first" }
    participants { name: "d" builtin: "random" })pb");
  const int scheduled = 4 * 3 * 10;
  std::int64_t id;
  int stored_first;
  {
    Local local(db);
    id = Create(local.store(), spec);
    TournamentRunner* self = nullptr;
    TournamentRunner runner(&local.store(), local.host.get(),
                            {.on_progress =
                                 [&](const Tournament& t) {
                                   if (t.progress().finished() >= 30) self->Cancel();
                                 },
                             .results_per_commit = 1,
                             .progress_every = absl::ZeroDuration()});
    self = &runner;
    absl::StatusOr<Tournament> stopped = runner.Run(id);
    ASSERT_THAT(stopped, IsOk());
    EXPECT_EQ(stopped->status(), hoard::v1::TOURNAMENT_STATUS_CANCELLED);
    stored_first = static_cast<int>(local.store().StoredSlots(id)->size());
    EXPECT_GE(stored_first, 30);
    EXPECT_LT(stored_first, scheduled);
  }
  Local local(db);  // as after a restart
  std::atomic<int> started{0};
  local.arena.SetEventSink([&](absl::string_view event, const service::LogFields&) {
    if (event == "match_started") ++started;
  });
  bool resumed = false;
  EXPECT_EQ(*CreateOrResume(local.store(), spec, false, &resumed), id);
  EXPECT_TRUE(resumed);
  TournamentRunner runner(&local.store(), local.host.get());
  absl::StatusOr<Tournament> done = runner.Run(id);
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->status(), hoard::v1::TOURNAMENT_STATUS_FINISHED);
  EXPECT_EQ(done->progress().finished(), scheduled);
  ExpectEverySlotOnce(local.store(), id, scheduled);
  // The second run created only the matches the first left, so none was
  // played twice.
  EXPECT_EQ(started, scheduled - stored_first);
  // Each match kept its deal: a duplicate block's rotations share a seed.
  std::map<int, std::uint64_t> seeds;
  const std::vector<db::StoredMatch> stored = *local.store().List(0, 1000, {.tournament_id = id});
  for (const db::StoredMatch& m : stored) {
    seeds[m.match.schedule_index()] = m.match.seed();
  }
  ASSERT_EQ(static_cast<int>(seeds.size()), scheduled);
  for (int block = 0; block < scheduled / 3; ++block) {
    EXPECT_EQ(seeds[3 * block], seeds[3 * block + 1]);
    EXPECT_EQ(seeds[3 * block], seeds[3 * block + 2]);
  }
}

// A Swiss of `n` built-in bots (random, first and heuristic in turn), the
// strongest seeded first.
TournamentSpec SwissSpec(int n, int k, int rounds, int concurrency) {
  std::string text = absl::StrCat("game: \"village\" format: FORMAT_SWISS players_per_match: ", k,
                                  " rounds: ", rounds, " seed: 21 concurrency: ", concurrency);
  const char* kinds[] = {"heuristic", "random", "first"};
  for (int i = 0; i < n; ++i) {
    absl::StrAppendFormat(&text, " participants { name: \"b%02d\" builtin: \"%s\" }", i,
                          kinds[i % 3]);
  }
  return Spec(text);
}

// Each stored match's participants by seat, by its place in the schedule.
std::map<int, std::vector<std::string>> SeatsBySlot(db::MatchStore& store, std::int64_t id) {
  std::map<int, std::vector<std::string>> seats;
  const std::vector<db::RatedMatch> matches =
      *store.RatedMatches({.game = "village", .tournament_id = id});
  for (const db::RatedMatch& m : matches) {
    for (const db::RatedSeat& seat : m.seats) {
      seats[static_cast<int>(m.schedule_index)].push_back(absl::StrCat(seat.bot, "#", seat.rank));
    }
  }
  return seats;
}

TEST(RunnerTest, ASwissOfSixtyFourBotsSeatsNoTwoTogetherTwice) {
  Local local(TempDb("runner_swiss64.db"));
  const TournamentSpec spec = SwissSpec(64, 2, 0, 8);
  EXPECT_EQ(spec.rounds(), 6);  // log2(64)
  const std::int64_t id = Create(local.store(), spec);
  std::vector<int> rounds_seen;
  TournamentRunner runner(
      &local.store(), local.host.get(),
      {.on_progress = [&](const Tournament& t) { rounds_seen.push_back(t.progress().round()); }});
  absl::StatusOr<Tournament> done = runner.Run(id);
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->status(), hoard::v1::TOURNAMENT_STATUS_FINISHED) << done->error();
  EXPECT_EQ(done->progress().scheduled(), 6 * 32);
  ExpectEverySlotOnce(local.store(), id, 6 * 32);
  // Rounds one at a time, in order.
  EXPECT_TRUE(std::is_sorted(rounds_seen.begin(), rounds_seen.end()));
  EXPECT_EQ(rounds_seen.back(), 6);
  std::set<std::pair<std::string, std::string>> met;
  std::map<std::string, int> matches;
  const std::vector<db::RatedMatch> stored =
      *local.store().RatedMatches({.game = "village", .tournament_id = id});
  for (const db::RatedMatch& m : stored) {
    ASSERT_EQ(m.seats.size(), 2u);
    const std::pair<std::string, std::string> pair = std::minmax(m.seats[0].bot, m.seats[1].bot);
    EXPECT_TRUE(met.insert(pair).second) << pair.first << " and " << pair.second << " met twice";
    ++matches[m.seats[0].bot];
    ++matches[m.seats[1].bot];
  }
  EXPECT_EQ(matches.size(), 64u);
  for (const auto& [bot, count] : matches) EXPECT_EQ(count, 6) << bot;
  // Standings: everyone, by points; the heuristic bots (every third seed)
  // lead the field.
  ASSERT_EQ(done->progress().standings_size(), 64);
  for (int i = 1; i < 64; ++i) {
    EXPECT_GE(done->progress().standings(i - 1).points(), done->progress().standings(i).points());
  }
  int heuristic_in_top_ten = 0;
  for (int i = 0; i < 10; ++i) {
    const std::string& bot = done->progress().standings(i).bot();
    heuristic_in_top_ten += std::stoi(bot.substr(1)) % 3 == 0 ? 1 : 0;
  }
  EXPECT_GE(heuristic_in_top_ten, 8);
  // A stored tournament shows the same standings.
  const Tournament loaded = *LoadTournament(local.store(), id);
  ASSERT_EQ(loaded.progress().standings_size(), 64);
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(loaded.progress().standings(i).bot(), done->progress().standings(i).bot());
    EXPECT_EQ(loaded.progress().standings(i).buchholz(), done->progress().standings(i).buchholz());
  }
}

TEST(RunnerTest, AStoppedSwissResumesWithTheSamePairings) {
  // 17 bots, 3 a table: 5 tables and 2 byes a round. Stopped in round 2,
  // resumed; every match seats whom an uninterrupted run seats, with the
  // same results.
  const TournamentSpec spec = SwissSpec(17, 3, 5, 4);
  std::map<int, std::vector<std::string>> whole;
  {
    Local local(TempDb("runner_swiss_whole.db"));
    const std::int64_t id = Create(local.store(), spec);
    TournamentRunner runner(&local.store(), local.host.get());
    ASSERT_THAT(runner.Run(id), IsOk());
    whole = SeatsBySlot(local.store(), id);
  }
  ASSERT_EQ(whole.size(), 25u);
  const std::string db = TempDb("runner_swiss_resumed.db");
  std::int64_t id;
  {
    Local local(db);
    id = Create(local.store(), spec);
    TournamentRunner* self = nullptr;
    TournamentRunner runner(&local.store(), local.host.get(),
                            {.on_progress =
                                 [&](const Tournament& t) {
                                   if (t.progress().finished() >= 7) self->Cancel();
                                 },
                             .results_per_commit = 1,
                             .progress_every = absl::ZeroDuration()});
    self = &runner;
    absl::StatusOr<Tournament> stopped = runner.Run(id);
    ASSERT_THAT(stopped, IsOk());
    EXPECT_EQ(stopped->status(), hoard::v1::TOURNAMENT_STATUS_CANCELLED);
    EXPECT_LT(stopped->progress().finished(), 25);
    EXPECT_EQ(stopped->progress().round(), 2);
  }
  Local local(db);
  TournamentRunner runner(&local.store(), local.host.get());
  absl::StatusOr<Tournament> done = runner.Run(id);
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->status(), hoard::v1::TOURNAMENT_STATUS_FINISHED) << done->error();
  EXPECT_EQ(SeatsBySlot(local.store(), id), whole);
  for (const hoard::v1::Standing& row : done->progress().standings()) {
    EXPECT_EQ(row.matches() + row.byes(), 5) << row.bot();
  }
}

TEST(RunnerTest, ASwissRoundThatLosesAMatchStopsBeforeTheNextIsPaired) {
  const std::string db = TempDb("runner_swiss_absent.db");
  std::unique_ptr<service::ArenaServer> server = *service::ArenaServer::Start(
      {.core = {.db_path = db}, .grpc = {.listen = "127.0.0.1:0"}, .serve_tournaments = false});
  std::unique_ptr<MatchHost> host =
      service::ArenaHost(&server->arena(), absl::StrCat("127.0.0.1:", server->port()));
  TournamentSpec spec = SwissSpec(16, 2, 4, 4);
  spec.mutable_participants(5)->set_command("sleep 60");
  spec.mutable_fault_policy()->set_start_timeout_ms(300);
  spec.mutable_fault_policy()->set_max_failed_matches(100);
  db::MatchStore& store = *server->arena().store();
  const std::int64_t id = Create(store, spec);
  TournamentRunner runner(&store, host.get());
  absl::StatusOr<Tournament> done = runner.Run(id);
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->status(), hoard::v1::TOURNAMENT_STATUS_FAILED);
  // Round 1's other 7 matches were played; round 2 was never paired.
  EXPECT_EQ(done->progress().failed(), 1);
  EXPECT_EQ(done->progress().finished(), 7);
  EXPECT_EQ(done->progress().round(), 1);
  EXPECT_THAT(done->error(), HasSubstr("1 match failed (run the tournament again to retry it)"));
  EXPECT_THAT(done->error(), HasSubstr("participant 'b05' did not connect"));
}

TEST(RunnerTest, AStoreThatIsLockedForAWhilePausesTheTournamentAndItFinishes) {
  const TournamentSpec spec = Spec(R"pb(
    game: "village"
    players_per_match: 2
    rounds: 20
    seed: 5
    concurrency: 3
    participants { name: "a" builtin: "random" }
    participants { name: "b" builtin: "first" })pb");
  Local local(TempDb("runner_locked.db"));
  const std::int64_t id = Create(local.store(), spec);
  absl::Mutex mu;
  std::vector<std::string> warnings;
  std::vector<Tournament> paused_views;
  std::atomic<bool> locked{false};
  std::thread unlocker;
  TournamentRunner runner(&local.store(), local.host.get(),
                          {.on_progress =
                               [&](const Tournament& t) {
                                 // Locked once, after a few matches, for 300 ms.
                                 if (t.progress().finished() >= 5 && !locked.exchange(true)) {
                                   local.faults->SetFault(absl::UnavailableError(
                                       "runner_locked.db: database is locked"));
                                   unlocker = std::thread([&] {
                                     absl::SleepFor(absl::Milliseconds(300));
                                     local.faults->SetFault(absl::OkStatus());
                                   });
                                 }
                                 if (absl::StrContains(t.error(), "paused")) {
                                   absl::MutexLock lock(&mu);
                                   paused_views.push_back(t);
                                 }
                               },
                           .on_warning =
                               [&](const std::string& line) {
                                 absl::MutexLock lock(&mu);
                                 warnings.push_back(line);
                               },
                           .results_per_commit = 1,
                           .progress_every = absl::ZeroDuration()});
  absl::StatusOr<Tournament> done = runner.Run(id);
  if (unlocker.joinable()) unlocker.join();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->status(), hoard::v1::TOURNAMENT_STATUS_FINISHED) << done->error();
  EXPECT_EQ(done->error(), "");
  ExpectEverySlotOnce(local.store(), id, 40);
  EXPECT_GT(local.faults->failed_saves(), 0);
  absl::MutexLock lock(&mu);
  // While it waited, the tournament said so, and its log said when it went on.
  ASSERT_FALSE(paused_views.empty());
  EXPECT_THAT(paused_views[0].error(), HasSubstr("database is locked"));
  EXPECT_EQ(paused_views[0].status(), hoard::v1::TOURNAMENT_STATUS_RUNNING);
  EXPECT_THAT(absl::StrJoin(warnings, "\n"), HasSubstr("paused: cannot store match"));
  EXPECT_THAT(absl::StrJoin(warnings, "\n"), HasSubstr("goes on"));
}

TEST(RunnerTest, ALaunchedBotThatNeverConnectsFailsItsMatchesAfterTheStartTimeout) {
  const std::string db = TempDb("runner_silent.db");
  std::unique_ptr<service::ArenaServer> server = *service::ArenaServer::Start(
      {.core = {.db_path = db}, .grpc = {.listen = "127.0.0.1:0"}, .serve_tournaments = false});
  std::unique_ptr<MatchHost> host =
      service::ArenaHost(&server->arena(), absl::StrCat("127.0.0.1:", server->port()));
  // The start timeout leaves a shell time to start and exit on a busy
  // machine, so 'gone' is seen exiting rather than not connecting.
  const TournamentSpec spec = Spec(R"pb(
    game: "village"
    players_per_match: 2
    participants { name: "quiet" command: "sleep 60" }
    participants { name: "gone" command: "echo leaving; exit 3" }
    participants { name: "r" builtin: "random" }
    fault_policy { start_timeout_ms: 2000 max_failed_matches: 100 })pb");
  db::MatchStore& store = *server->arena().store();
  const std::int64_t id = Create(store, spec);
  std::vector<std::string> warnings;
  TournamentRunner runner(&store, host.get(),
                          {.on_warning = [&](const std::string& w) { warnings.push_back(w); },
                           .bot_log_dir = ::testing::TempDir() + "/runner_silent_logs"});
  absl::StatusOr<Tournament> done = runner.Run(id);
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->status(), hoard::v1::TOURNAMENT_STATUS_FAILED);
  // Every match holds one of the two absent bots: all 6 fail, none hangs.
  EXPECT_EQ(done->progress().failed(), 6);
  EXPECT_EQ(done->progress().finished(), 0);
  EXPECT_THAT(done->error(), HasSubstr("6 matches failed"));
  const std::string all = absl::StrJoin(warnings, "\n");
  EXPECT_THAT(all, HasSubstr("participant 'quiet' did not connect to 127.0.0.1:"));
  EXPECT_THAT(all, HasSubstr("within 2000 ms (command: sleep 60"));
  EXPECT_THAT(all, HasSubstr("participant 'gone' exited with status 3 before it connected"));
  EXPECT_THAT(all, HasSubstr("runner_silent_logs/gone.log"));
}

TEST(RunnerTest, BotsOverGrpcAndBuiltInBotsPlayOneTournament) {
  const std::string db = TempDb("runner_grpc.db");
  std::unique_ptr<service::ArenaServer> server =
      *service::ArenaServer::Start({.core = {.db_path = db, .limits = {.open_registration = true}},
                                    .grpc = {.listen = "127.0.0.1:0"},
                                    .serve_tournaments = false});
  const std::string address = absl::StrCat("127.0.0.1:", server->port());
  std::unique_ptr<MatchHost> host = service::ArenaHost(&server->arena(), address);
  std::vector<std::unique_ptr<bots::BotClient>> clients;
  std::vector<std::thread> threads;
  for (const std::string name : {"ext-1", "ext-2"}) {
    clients.push_back(std::make_unique<bots::BotClient>(
        grpc::CreateChannel(address, grpc::InsecureChannelCredentials()),
        bots::ClientOptions{.name = name, .key = "k", .max_matches = 4},
        std::make_unique<bots::RandomStrategy>(5)));
    threads.emplace_back([client = clients.back().get()] { client->Run().IgnoreError(); });
  }
  const TournamentSpec spec = Spec(R"pb(
    game: "village"
    players_per_match: 3
    rounds: 2
    concurrency: 4
    participants { name: "ext-1" registered: true }
    participants { name: "ext-2" registered: true }
    participants { name: "house" builtin: "random" })pb");
  db::MatchStore& store = *server->arena().store();
  const std::int64_t id = Create(store, spec);
  TournamentRunner runner(&store, host.get());
  absl::StatusOr<Tournament> done = runner.Run(id);
  for (auto& client : clients) client->Stop();
  for (std::thread& t : threads) t.join();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->status(), hoard::v1::TOURNAMENT_STATUS_FINISHED) << done->error();
  ExpectEverySlotOnce(store, id, 6);
  const std::vector<db::StoredMatch> stored = *store.List(0, 100, {.tournament_id = id});
  ASSERT_EQ(stored.size(), 6u);
  for (const db::StoredMatch& m : stored) {
    std::set<std::string> players;
    for (const hoard::v1::SeatInfo& seat : m.match.seats()) players.insert(seat.player());
    EXPECT_THAT(players, ::testing::ElementsAre("bot:ext-1", "bot:ext-2", "builtin:house"));
  }
}

TEST(RunnerTest, ARemoteServerPlaysAndTheRunnersDatabaseKeepsTheResults) {
  std::unique_ptr<service::ArenaServer> server = *service::ArenaServer::Start(
      {.core = {.admin_tokens = {"runner-admin"}}, .grpc = {.listen = "127.0.0.1:0"}});
  const std::string address = absl::StrCat("127.0.0.1:", server->port());
  std::shared_ptr<grpc::Channel> channel =
      bots::AuthorizedChannel(address, grpc::InsecureChannelCredentials(), "runner-admin");
  std::unique_ptr<MatchHost> host = RemoteHost(channel, {{.address = address, .channel = channel}});
  std::unique_ptr<db::MatchStore> store = *db::OpenSqliteStore(TempDb("runner_remote.db"));
  const TournamentSpec spec = Spec(R"pb(
    game: "village"
    players_per_match: 2
    rounds: 3
    participants { name: "a" builtin: "random" }
    participants { name: "b" builtin: "first" })pb");
  const std::int64_t id = Create(*store, spec);
  TournamentRunner runner(store.get(), host.get());
  absl::StatusOr<Tournament> done = runner.Run(id);
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->status(), hoard::v1::TOURNAMENT_STATUS_FINISHED) << done->error();
  ExpectEverySlotOnce(*store, id, 6);
  EXPECT_EQ(*store->LastSequence(), 6) << "numbered by the runner's own database";
}

// Servers sharing a database look at each running tournament every second:
// one that another server runs whole is left to it on the strength of its
// row and its lease, without reading its results.
TEST(RunnerTest, ATournamentRunWholeElsewhereIsLeftBeforeItsResultsAreRead) {
  Local a(TempDb("runner_whole_elsewhere.db"));
  const std::int64_t id = Create(a.store(), SwissSpec(6, 2, 3, 2));
  ASSERT_THAT(a.store().ClaimSlot(id, -1, "other", absl::Seconds(60)),
              ::hoard::testing::IsOkAndHolds(true));
  const int reads = a.faults->results_reads();
  TournamentRunner runner(&a.store(), a.host.get(), {.lease_holder = "me"});
  absl::StatusOr<Tournament> done = runner.Run(id);
  EXPECT_EQ(done.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(done.status().message(), HasSubstr(kRunByAnotherServer));
  EXPECT_EQ(a.faults->results_reads(), reads);
  EXPECT_EQ(a.faults->stored(), 0);
}

// A server's tournament manager following the database: a running Swiss
// that another server holds whole is left alone, none of its results read,
// and taken over once that server's lease runs out.
TEST(RunnerTest, AServerFollowingTheStoreLeavesASwissRunElsewhereAloneUntilItsLeaseEnds) {
  Local b(TempDb("manager_whole_elsewhere.db"));
  const std::int64_t id = Create(b.store(), SwissSpec(6, 2, 3, 2));
  ASSERT_THAT(b.store().SetTournamentStatus(id, hoard::v1::TOURNAMENT_STATUS_RUNNING, ""), IsOk());
  ASSERT_THAT(b.store().ClaimSlot(id, -1, "other", absl::Seconds(3)),
              ::hoard::testing::IsOkAndHolds(true));
  const int reads = b.faults->results_reads();
  TournamentManager on_b(&b.store(), b.host.get(), {.lease_holder = "b"});
  absl::SleepFor(absl::Milliseconds(2200));  // b has looked twice
  EXPECT_EQ(b.faults->results_reads(), reads);
  EXPECT_EQ(b.faults->stored(), 0);
  for (int i = 0; i < 300; ++i) {
    if ((*b.store().GetTournament(id))->status != hoard::v1::TOURNAMENT_STATUS_RUNNING) break;
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_EQ((*b.store().GetTournament(id))->status, hoard::v1::TOURNAMENT_STATUS_FINISHED);
  ExpectEverySlotOnce(b.store(), id, 9);
  EXPECT_EQ(b.faults->stored(), 9) << "b played it all once the lease ran out";
}

// Two servers behind one channel that balances over them, as `hoard
// tournament --server A --server B` makes it, and the runner's own database.
struct TwoServers {
  explicit TwoServers(const std::string& db) : store(*db::OpenSqliteStore(TempDb(db))) {
    std::vector<RemoteServer> remote;
    for (auto* server : {&a, &b}) {
      *server = *service::ArenaServer::Start(
          {.core = {.admin_tokens = {"two-servers-admin"}}, .grpc = {.listen = "127.0.0.1:0"}});
      const std::string address = absl::StrCat("127.0.0.1:", (*server)->port());
      addresses.push_back(address);
      remote.push_back({.address = address,
                        .channel = bots::AuthorizedChannel(
                            address, grpc::InsecureChannelCredentials(), "two-servers-admin")});
    }
    grpc::ChannelArguments args;
    args.SetLoadBalancingPolicyName("round_robin");
    std::shared_ptr<grpc::Channel> play =
        bots::AuthorizedChannel(*bots::StaticTarget(addresses), grpc::InsecureChannelCredentials(),
                                "two-servers-admin", args);
    EXPECT_TRUE(bots::AwaitEveryServer(*play, 2, absl::Seconds(10)));
    host = RemoteHost(play, std::move(remote));
  }

  // How many matches `server` started (they stay in its memory), and how
  // many of them finished.
  static int Played(service::ArenaServer& server) { return Count(server, {}); }
  static int Finished(service::ArenaServer& server) {
    return Count(server, hoard::v1::MATCH_STATUS_FINISHED);
  }
  static int Count(service::ArenaServer& server, hoard::v1::MatchStatus status) {
    hoard::v1::ListMatchesRequest request;
    request.set_page_size(500);
    request.set_status(status);
    return (*server.arena().ListMatches(request, /*admin=*/true)).matches_size();
  }

  // A tournament of `spec` in the runner's database.
  std::int64_t Tournament(const std::string& spec) { return Create(*store, Spec(spec)); }

  std::unique_ptr<db::MatchStore> store;
  std::unique_ptr<service::ArenaServer> a, b;
  std::vector<std::string> addresses;
  std::unique_ptr<MatchHost> host;
};

TEST(RunnerTest, ABalancedChannelSpreadsTheMatchesEvenlyOverTwoServers) {
  TwoServers servers("runner_balanced.db");
  const std::int64_t id = servers.Tournament(R"pb(
    game: "village"
    players_per_match: 2
    rounds: 10
    concurrency: 2
    participants { name: "a" builtin: "random" }
    participants { name: "b" builtin: "first" })pb");
  TournamentRunner runner(servers.store.get(), servers.host.get());
  absl::StatusOr<Tournament> done = runner.Run(id);
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->status(), hoard::v1::TOURNAMENT_STATUS_FINISHED) << done->error();
  ExpectEverySlotOnce(*servers.store, id, 20);
  // round_robin: each call to the next server, so 10 and 10.
  EXPECT_EQ(TwoServers::Played(*servers.a), 10);
  EXPECT_EQ(TwoServers::Played(*servers.b), 10);
  EXPECT_THAT(servers.host->bot_addresses(),
              ::testing::ElementsAre(servers.addresses[0], servers.addresses[1]));
}

TEST(RunnerTest, AServerThatStopsMidTournamentLeavesItsMatchesToTheOther) {
  TwoServers servers("runner_balanced_stop.db");
  // Searching 20 ms a decision, each match lasts a while: some are on
  // server b when it stops.
  const std::int64_t id = servers.Tournament(R"pb(
    game: "village"
    players_per_match: 2
    rounds: 8
    concurrency: 4
    participants { name: "m" builtin: "mcts-20ms" }
    participants { name: "r" builtin: "random" })pb");
  std::vector<std::string> warnings;
  TournamentRunner runner(servers.store.get(), servers.host.get(),
                          {.on_warning = [&](const std::string& w) { warnings.push_back(w); }});
  service::ArenaServer::StopReport stopped;
  std::thread stop([&] {
    while (TwoServers::Played(*servers.b) < 2 || servers.b->arena().running_matches() == 0) {
      absl::SleepFor(absl::Milliseconds(5));
    }
    stopped = servers.b->Stop(absl::ZeroDuration());
  });
  absl::StatusOr<Tournament> done = runner.Run(id);
  stop.join();
  ASSERT_THAT(done, IsOk());
  EXPECT_GE(stopped.aborted, 1) << "a match was cut short on the server that stopped";
  EXPECT_EQ(done->status(), hoard::v1::TOURNAMENT_STATUS_FINISHED) << done->error();
  EXPECT_EQ(done->progress().failed(), 0) << absl::StrJoin(warnings, "\n");
  ExpectEverySlotOnce(*servers.store, id, 16);
  EXPECT_EQ(TwoServers::Finished(*servers.a) + TwoServers::Finished(*servers.b), 16)
      << "each slot finished on one server, once";
}

}  // namespace
}  // namespace hoard::tournament
