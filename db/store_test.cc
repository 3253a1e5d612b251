#include "db/store.h"

#include <libpq-fe.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "db/migrations.h"
#include "db/testing/temporary_postgres.h"
#include "engine/status_macros.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace hoard::db {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::IsOkAndHolds;
using ::hoard::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

hoard::v1::Match Finished(std::int64_t sequence, const std::string& game, const std::string& bot) {
  hoard::v1::Match match;
  match.set_match_id(absl::StrCat("m", sequence));
  match.set_game(game);
  match.set_ruleset_version("1");
  match.set_status(hoard::v1::MATCH_STATUS_FINISHED);
  match.set_seed(0xfedcba9876543210ULL);
  match.set_actions(42);
  for (int seat = 0; seat < 2; ++seat) {
    hoard::v1::SeatInfo* info = match.add_seats();
    info->set_seat(seat);
    info->set_player(seat == 0 ? "bot:" + bot : "builtin:random");
    info->set_score(10.5 - seat);
    info->set_rank(seat + 1);
  }
  return match;
}

hoard::v1::MatchRecord RecordOf(const hoard::v1::Match& match) {
  hoard::v1::MatchRecord record;
  record.set_format("hoard.match_record.v1");
  record.set_game(match.game());
  record.set_seed(match.seed());
  return record;
}

// The SQL that makes a database of schema version 10 (before matches were
// kept in one row) holding `matches` as that schema stored them: a row of
// each with its whole summary, a row of each seat with its bot, and its
// record (RecordOf) in match_records.
std::string Version10Database(const std::vector<hoard::v1::Match>& matches, SqlDatabase database) {
  const bool sqlite = database == SqlDatabase::kSqlite;
  auto blob = [&](const std::string& bytes) {
    const std::string hex = absl::BytesToHexString(bytes);
    return sqlite ? absl::StrCat("X'", hex, "'") : absl::StrCat("'\\x", hex, "'::bytea");
  };
  std::string sql =
      absl::StrCat("CREATE TABLE schema_migrations (version ", sqlite ? "INTEGER" : "BIGINT",
                   " PRIMARY KEY, applied_at_ms ", sqlite ? "INTEGER" : "BIGINT", " NOT NULL);");
  for (int version = 1; version <= 10; ++version) {
    absl::StrAppend(&sql, MigrationSql(version, database),
                    "; INSERT INTO schema_migrations VALUES (", version, ", 0);");
  }
  if (sqlite)
    absl::StrAppend(&sql, "PRAGMA application_id = 1213157956; PRAGMA user_version = 10;");
  for (const hoard::v1::Match& match : matches) {
    absl::StrAppend(&sql,
                    "INSERT INTO matches (id, sequence, game, ruleset_version, seed, status, "
                    "actions, stored_at_ms, summary, seed_salt) VALUES ('",
                    match.match_id(), "', ", match.match_id().substr(1), ", '", match.game(),
                    "', '", match.ruleset_version(), "', ", static_cast<std::int64_t>(match.seed()),
                    ", '", hoard::v1::MatchStatus_Name(match.status()), "', ", match.actions(),
                    ", 0, ", blob(match.SerializeAsString()), ", '", match.seed_salt(), "');");
    for (const hoard::v1::SeatInfo& seat : match.seats()) {
      const std::string bot = seat.player().substr(seat.player().find(':') + 1);
      absl::StrAppend(&sql, "INSERT INTO bots (name, version) VALUES ('", bot,
                      "', '') ON CONFLICT DO NOTHING; INSERT INTO seats (match_id, seat, player, "
                      "score, rank, timeouts, illegal_answers, forfeited, bot_id, disconnects) "
                      "VALUES ('",
                      match.match_id(), "', ", seat.seat(), ", '", seat.player(), "', ",
                      seat.score(), ", ", seat.rank(), ", ", seat.timeouts(), ", ",
                      seat.illegal_answers(), ", ", seat.forfeited() ? 1 : 0,
                      ", (SELECT id FROM bots WHERE name = '", bot, "'), ", seat.disconnects(),
                      ");");
    }
    absl::StrAppend(&sql, "INSERT INTO match_records (match_id, record) VALUES ('",
                    match.match_id(), "', ", blob(RecordOf(match).SerializeAsString()), ");");
  }
  return sql;
}

// A SQLite file of schema version 10 at `path` holding `matches`; false if
// it cannot be made.
bool Version10File(const std::string& path, const std::vector<hoard::v1::Match>& matches) {
  sqlite3* db = nullptr;
  const bool made = sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
                    sqlite3_exec(db, Version10Database(matches, SqlDatabase::kSqlite).c_str(),
                                 nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(db);
  return made;
}

std::string TempPath(const std::string& name) {
  const std::string path = absl::StrCat(::testing::TempDir(), "/", name);
  std::remove(path.c_str());
  std::remove((path + "-wal").c_str());
  std::remove((path + "-shm").c_str());
  return path;
}

// The store's contract, for each store: SQLite in memory, and a fresh
// database of a PostgreSQL server this test process starts (one per
// process, on first use).
enum class Backend { kSqlite, kPostgres };

class PostgresEnvironment : public ::testing::Environment {
 public:
  // The server, started on first use; null (with the test failed) if it
  // cannot start.
  static testing::TemporaryPostgres* Server() {
    if (server_ == nullptr && start_error_.ok()) {
      absl::StatusOr<std::unique_ptr<testing::TemporaryPostgres>> started =
          testing::TemporaryPostgres::Start();
      if (started.ok()) {
        server_ = std::move(*started);
      } else {
        start_error_ = started.status();
      }
    }
    if (server_ == nullptr) ADD_FAILURE() << "no PostgreSQL server: " << start_error_;
    return server_.get();
  }
  // A new empty database's address.
  static absl::StatusOr<std::string> NewDatabase() {
    testing::TemporaryPostgres* server = Server();
    if (server == nullptr) return start_error_;
    return server->NewDatabase(absl::StrCat("store_test_", ++databases_));
  }
  void TearDown() override { server_.reset(); }

 private:
  static inline std::unique_ptr<testing::TemporaryPostgres> server_;
  static inline absl::Status start_error_;
  static inline int databases_ = 0;
};
::testing::Environment* const kPostgresEnvironment =
    ::testing::AddGlobalTestEnvironment(new PostgresEnvironment);

class StoreContractTest : public ::testing::TestWithParam<Backend> {
 protected:
  // A new, empty store of the kind under test.
  absl::StatusOr<std::unique_ptr<MatchStore>> Fresh() const {
    if (GetParam() == Backend::kSqlite) return OpenSqliteStore(":memory:");
    ASSIGN_OR_RETURN(const std::string url, PostgresEnvironment::NewDatabase());
    return OpenPostgresStore(url);
  }
};

INSTANTIATE_TEST_SUITE_P(Stores, StoreContractTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::kSqlite ? "SQLite" : "PostgreSQL";
                         });

TEST_P(StoreContractTest, SavesAndReadsBackMatchesAndRecords) {
  absl::StatusOr<std::unique_ptr<MatchStore>> store = Fresh();
  ASSERT_THAT(store, IsOk());
  const hoard::v1::Match match = Finished(3, "village", "alice");
  ASSERT_THAT((*store)->SaveFinished(3, match, RecordOf(match)), IsOk());
  absl::StatusOr<std::optional<StoredMatch>> got = (*store)->Get("m3");
  ASSERT_THAT(got, IsOk());
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->sequence, 3);
  EXPECT_EQ((*got)->match.SerializeAsString(), match.SerializeAsString());
  absl::StatusOr<std::optional<hoard::v1::MatchRecord>> record = (*store)->GetRecord("m3");
  ASSERT_THAT(record, IsOk());
  ASSERT_TRUE(record->has_value());
  EXPECT_EQ((*record)->seed(), 0xfedcba9876543210ULL);
  EXPECT_FALSE((*(*store)->Get("m4")).has_value());
  EXPECT_THAT((*store)->SaveFinished(3, match, RecordOf(match)),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("m3 is already stored")));
  EXPECT_EQ(*(*store)->LastSequence(), 3);
}

TEST_P(StoreContractTest, SeedSaltsAreKeptWithTheirMatchesAndTournaments) {
  std::unique_ptr<MatchStore> store = *Fresh();
  hoard::v1::Match match = Finished(5, "village", "alice");
  match.set_seed_salt("00112233445566778899aabbccddeeff");
  match.set_seed_commitment("a4dd03cae561477bd3b71c19fd25261a8d39c293d210eac054f09d35765e1a34");
  ASSERT_THAT(store->SaveFinished(5, match, RecordOf(match)), IsOk());
  absl::StatusOr<std::optional<StoredMatch>> got = store->Get("m5");
  ASSERT_THAT(got, IsOk());
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->match.seed_salt(), match.seed_salt());
  EXPECT_EQ((*got)->match.seed_commitment(), match.seed_commitment());
  std::vector<StoredMatch> listed = *store->List(0, 10, {});
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].match.seed_salt(), match.seed_salt());

  hoard::v1::TournamentSpec spec;
  spec.set_game("village");
  const std::int64_t salted =
      *store->CreateTournament(spec, "h1", 4, "ffeeddccbbaa99887766554433221100");
  const std::int64_t unsalted = *store->CreateTournament(spec, "h2", 4, "");
  EXPECT_EQ((*store->GetTournament(salted))->seed_salt, "ffeeddccbbaa99887766554433221100");
  EXPECT_EQ((*store->FindTournament("h1"))->seed_salt, "ffeeddccbbaa99887766554433221100");
  EXPECT_EQ((*store->GetTournament(unsalted))->seed_salt, "");
  std::vector<StoredTournament> all = *store->ListTournaments();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].seed_salt, "ffeeddccbbaa99887766554433221100");
}

TEST_P(StoreContractTest, ListsInOrderWithFiltersAndPages) {
  std::unique_ptr<MatchStore> store = *Fresh();
  for (int i = 1; i <= 6; ++i) {
    const hoard::v1::Match match =
        Finished(i, i % 2 == 0 ? "village" : "hedonia", i <= 3 ? "alice" : "bob");
    ASSERT_THAT(store->SaveFinished(i, match, RecordOf(match)), IsOk());
  }
  // Oldest first after `from`, or newest first before it.
  auto ids = [&](std::int64_t from, int limit, MatchFilter filter, bool newest_first = false) {
    std::vector<std::string> out;
    absl::StatusOr<std::vector<StoredMatch>> listed =
        newest_first ? store->ListNewest(from, limit, filter) : store->List(from, limit, filter);
    EXPECT_THAT(listed, IsOk());
    for (const StoredMatch& m : *listed) out.push_back(m.match.match_id());
    return out;
  };
  EXPECT_THAT(ids(0, 4, {}), ::testing::ElementsAre("m1", "m2", "m3", "m4"));
  EXPECT_THAT(ids(4, 4, {}), ::testing::ElementsAre("m5", "m6"));
  EXPECT_THAT(ids(0, 10, {.game = "village"}), ::testing::ElementsAre("m2", "m4", "m6"));
  EXPECT_THAT(ids(0, 10, {.bot = "bob"}), ::testing::ElementsAre("m4", "m5", "m6"));
  EXPECT_THAT(ids(0, 10, {.game = "village", .bot = "alice"}), ::testing::ElementsAre("m2"));
  hoard::v1::Match aborted = Finished(7, "village", "bob");
  aborted.set_status(hoard::v1::MATCH_STATUS_ABORTED);
  ASSERT_THAT(store->SaveFinished(7, aborted, RecordOf(aborted)), IsOk());
  EXPECT_THAT(ids(0, 10, {.status = hoard::v1::MATCH_STATUS_ABORTED}),
              ::testing::ElementsAre("m7"));
  EXPECT_THAT(ids(4, 10, {.status = hoard::v1::MATCH_STATUS_FINISHED}),
              ::testing::ElementsAre("m5", "m6"));
  EXPECT_THAT(ids(0, 10, {.game = "village"}), ::testing::ElementsAre("m2", "m4", "m6", "m7"));
  // Newest first, before a sequence (0: from the newest).
  auto newest = [&](std::int64_t before, int limit, MatchFilter filter) {
    return ids(before, limit, filter, /*newest_first=*/true);
  };
  EXPECT_THAT(newest(0, 3, {}), ::testing::ElementsAre("m7", "m6", "m5"));
  EXPECT_THAT(newest(5, 3, {}), ::testing::ElementsAre("m4", "m3", "m2"));
  EXPECT_THAT(newest(2, 3, {}), ::testing::ElementsAre("m1"));
  EXPECT_THAT(newest(0, 10, {.game = "village", .status = hoard::v1::MATCH_STATUS_FINISHED}),
              ::testing::ElementsAre("m6", "m4", "m2"));
}

// A batch taken back whole takes back the bots it added: storing their
// matches again later links their seats to bots that exist.
TEST_P(StoreContractTest, ABotAddedByABatchTakenBackIsAddedAgainLater) {
  std::unique_ptr<MatchStore> store = *Fresh();
  const hoard::v1::Match first = Finished(1, "village", "alice");
  ASSERT_THAT(store->SaveFinished(1, first, RecordOf(first)), IsOk());
  // carol's match is fine; the second holds m1's number under another id.
  FinishedResult carol{.sequence = 2, .match = Finished(2, "village", "carol")};
  FinishedResult clash{.sequence = 1, .match = Finished(1, "village", "alice")};
  clash.match.set_match_id("m1b");
  EXPECT_THAT(store->SaveFinishedBatch({&carol, &clash}),
              ::testing::Each(StatusIs(absl::StatusCode::kFailedPrecondition,
                                       HasSubstr("belongs to another match"))));
  EXPECT_FALSE((*store->Get("m2")).has_value());
  ASSERT_THAT(store->SaveFinishedBatch({&carol}), ::testing::ElementsAre(IsOk()));
  absl::StatusOr<std::vector<StoredMatch>> listed = store->List(0, 10, {.bot = "carol"});
  ASSERT_THAT(listed, IsOk());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].match.match_id(), "m2");
}

TEST_P(StoreContractTest, TournamentsAreStoredFoundAndUpdated) {
  std::unique_ptr<MatchStore> store = *Fresh();
  hoard::v1::TournamentSpec spec;
  spec.set_name("league");
  spec.set_game("village");
  absl::StatusOr<std::int64_t> first = store->CreateTournament(spec, "hash-a", 12, "");
  ASSERT_THAT(first, IsOk());
  absl::StatusOr<std::int64_t> second = store->CreateTournament(spec, "hash-a", 12, "");
  ASSERT_THAT(second, IsOk());
  EXPECT_NE(*first, *second);
  absl::StatusOr<std::optional<StoredTournament>> found = store->FindTournament("hash-a");
  ASSERT_THAT(found, IsOk());
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->id, *second) << "the newest with that spec";
  EXPECT_EQ((*found)->spec.name(), "league");
  EXPECT_EQ((*found)->scheduled, 12);
  EXPECT_EQ((*found)->status, hoard::v1::TOURNAMENT_STATUS_RUNNING);
  EXPECT_FALSE((*store->FindTournament("hash-b")).has_value());

  ASSERT_THAT(store->SetTournamentStatus(*first, hoard::v1::TOURNAMENT_STATUS_FAILED, "why"),
              IsOk());
  std::optional<StoredTournament> got = *store->GetTournament(*first);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->status, hoard::v1::TOURNAMENT_STATUS_FAILED);
  EXPECT_EQ(got->error, "why");
  EXPECT_THAT(store->SetTournamentStatus(99, hoard::v1::TOURNAMENT_STATUS_FAILED, ""),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("no tournament 99")));
  std::vector<StoredTournament> all = *store->ListTournaments();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, *second) << "newest first";

  // A spec replaced keeps the tournament's identity.
  spec.mutable_ladder()->mutable_final_evaluation()->set_top(3);
  ASSERT_THAT(store->SetTournamentSpec(*second, spec), IsOk());
  got = *store->GetTournament(*second);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->spec.ladder().final_evaluation().top(), 3);
  EXPECT_EQ(got->spec_hash, "hash-a");
  EXPECT_THAT(store->SetTournamentSpec(99, spec),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("no tournament 99")));
}

TEST_P(StoreContractTest, ATournamentSlotIsStoredOnceWithItsBotsAndNumbering) {
  std::unique_ptr<MatchStore> store = *Fresh();
  hoard::v1::TournamentSpec spec;
  spec.set_game("village");
  const std::int64_t id = *store->CreateTournament(spec, "h", 4, "");
  hoard::v1::Match match = Finished(0, "village", "alice@2");
  match.clear_match_id();  // sequence 0: the store numbers and names it
  const TournamentSlot slot{.tournament_id = id, .schedule_index = 3, .block = 1};
  ASSERT_THAT(store->SaveFinished(0, match, RecordOf(match), &slot), IsOk());
  EXPECT_EQ(*store->LastSequence(), 1);
  std::optional<StoredMatch> stored = *store->Get("m1");
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->match.tournament_id(), id);
  EXPECT_EQ(stored->match.schedule_index(), 3);
  // The same slot again, under another id, is refused: no match is doubled.
  hoard::v1::Match again = Finished(5, "village", "alice@2");
  EXPECT_THAT(store->SaveFinished(5, again, RecordOf(again), &slot),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("slot 3")));
  EXPECT_FALSE((*store->Get("m5")).has_value()) << "nothing of a refused match is kept";
  EXPECT_THAT(*store->StoredSlots(id), ::testing::ElementsAre(3));

  // Rated by bot (name@version; the kind prefix dropped), ranks and scores.
  std::vector<RatedMatch> rated = *store->RatedMatches({.game = "village", .tournament_id = id});
  ASSERT_EQ(rated.size(), 1u);
  EXPECT_EQ(rated[0].block, 1);
  ASSERT_EQ(rated[0].seats.size(), 2u);
  EXPECT_EQ(rated[0].seats[0].bot, "alice@2");
  EXPECT_EQ(rated[0].seats[0].rank, 1);
  EXPECT_DOUBLE_EQ(rated[0].seats[0].score, 10.5);
  EXPECT_EQ(rated[0].seats[1].bot, "random");
  EXPECT_THAT(*store->List(0, 10, {.rated_bot = "alice@2"}), ::testing::SizeIs(1));
  EXPECT_THAT(*store->List(0, 10, {.rated_bot = "alice"}), ::testing::IsEmpty());
  EXPECT_THAT(*store->List(0, 10, {.tournament_id = id + 1}), ::testing::IsEmpty());
}

TEST_P(StoreContractTest, BotAccountsAreStoredReplacedAndDeleted) {
  std::unique_ptr<MatchStore> store = *Fresh();
  ASSERT_THAT(store->PutBotAccount({.name = "alice@2", .key_hash = "h1"}), IsOk());
  ASSERT_THAT(store->PutBotAccount({.name = "bob", .key_hash = "h2", .launched = true}), IsOk());
  ASSERT_THAT(store->PutBotAccount({.name = "alice@2", .key_hash = "h3"}), IsOk());
  std::vector<BotAccount> accounts = *store->BotAccounts();
  ASSERT_THAT(accounts, ::testing::SizeIs(2));
  EXPECT_EQ(accounts[0].name, "alice@2");
  EXPECT_EQ(accounts[0].key_hash, "h3");
  EXPECT_FALSE(accounts[0].launched);
  EXPECT_TRUE(accounts[1].launched);
  ASSERT_THAT(store->DeleteBotAccount("alice@2"), IsOk());
  ASSERT_THAT(store->DeleteBotAccount("nobody"), IsOk());
  EXPECT_THAT(*store->BotAccounts(), ::testing::SizeIs(1));
}

TEST_P(StoreContractTest, RatingSnapshotsFollowTheScopeVersion) {
  std::unique_ptr<MatchStore> store = *Fresh();
  const RatingScope scope{.game = "village"};
  EXPECT_EQ(*store->ScopeVersion(scope), 0);
  EXPECT_FALSE((*store->LatestRatingSnapshot(scope)).has_value());
  hoard::v1::Match match = Finished(1, "village", "alice");
  ASSERT_THAT(store->SaveFinished(1, match, RecordOf(match)), IsOk());
  const std::int64_t v1 = *store->ScopeVersion(scope);
  EXPECT_GT(v1, 0);
  hoard::v1::RatingSnapshot snapshot;
  snapshot.mutable_leaderboard()->set_matches(1);
  ASSERT_THAT(store->SaveRatingSnapshot(scope, v1, snapshot), IsOk());
  auto latest = *store->LatestRatingSnapshot(scope);
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->first, v1);
  EXPECT_EQ(latest->second.leaderboard().matches(), 1);
  // Another game's match leaves this scope's version alone; this game's moves it.
  hoard::v1::Match other = Finished(2, "hedonia", "bob");
  ASSERT_THAT(store->SaveFinished(2, other, RecordOf(other)), IsOk());
  EXPECT_EQ(*store->ScopeVersion(scope), v1);
  hoard::v1::Match more = Finished(3, "village", "bob");
  ASSERT_THAT(store->SaveFinished(3, more, RecordOf(more)), IsOk());
  EXPECT_GT(*store->ScopeVersion(scope), v1);
}

TEST(StoreTest, AFileSurvivesReopeningInWalMode) {
  const std::string path = TempPath("hoard_store_test.db");
  {
    std::unique_ptr<MatchStore> store = *OpenSqliteStore(path);
    const hoard::v1::Match match = Finished(7, "village", "alice");
    ASSERT_THAT(store->SaveFinished(7, match, RecordOf(match)), IsOk());
  }
  std::unique_ptr<MatchStore> again = *OpenSqliteStore(path);  // migrations run once
  EXPECT_EQ(*again->LastSequence(), 7);
  EXPECT_TRUE((*again->Get("m7")).has_value());
  std::ifstream header(path, std::ios::binary);
  std::string magic(16, '\0');
  header.read(magic.data(), 16);
  EXPECT_EQ(magic.substr(0, 15), "SQLite format 3");
}

TEST(StoreTest, MatchesStoredBeforeBotsWereKeptGetTheirBots) {
  const std::string path = TempPath("hoard_backfill.db");
  ASSERT_TRUE(Version10File(path, {Finished(1, "village", "alice@3")}));
  // As a database from before migration 3 has it: seats without bots.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(
          db,
          "UPDATE seats SET bot_id = NULL; DELETE FROM bots; "
          "DROP TABLE bot_accounts; ALTER TABLE seats DROP COLUMN disconnects; "
          "DROP TABLE slot_leases; ALTER TABLE matches DROP COLUMN seed_salt; "
          "ALTER TABLE tournaments DROP COLUMN seed_salt; ALTER TABLE matches DROP COLUMN unrated; "
          "DELETE FROM schema_migrations WHERE version >= 3; PRAGMA user_version = 2",
          nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  std::unique_ptr<MatchStore> store = *OpenSqliteStore(path);
  std::vector<RatedMatch> rated = *store->RatedMatches({.game = "village"});
  ASSERT_EQ(rated.size(), 1u);
  ASSERT_EQ(rated[0].seats.size(), 2u);
  EXPECT_EQ(rated[0].seats[0].bot, "alice@3");
  EXPECT_EQ(rated[0].seats[1].bot, "random");
}

// Runs `sql` on the file at `path`; false if it fails.
bool ExecFile(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  const bool ran = sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
                   sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(db);
  return ran;
}

// One answer of `sql` on the file at `path`, as text ("" for none).
std::string QueryFile(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  std::string answer;
  if (sqlite3_open(path.c_str(), &db) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0) != nullptr) {
      answer = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return answer;
}

TEST(StoreTest, SeatsStoredBeforeMigrationSevenKeepTheirBotsAndFilters) {
  const std::string path = TempPath("hoard_seats_by_match.db");
  std::vector<hoard::v1::Match> matches;
  for (int i = 1; i <= 3; ++i) {
    hoard::v1::Match& match =
        matches.emplace_back(Finished(i, "village", i == 2 ? "bob" : "alice"));
    match.mutable_seats(0)->set_disconnects(i);
  }
  ASSERT_TRUE(Version10File(path, matches));
  // As migration 6 left the seats: a table with rowids and two indexes.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(
          db,
          "BEGIN; CREATE TABLE seats6 (match_id TEXT NOT NULL REFERENCES "
          "matches(id), seat INTEGER NOT NULL, player TEXT NOT NULL, score REAL "
          "NOT NULL, rank INTEGER NOT NULL, timeouts INTEGER NOT NULL, "
          "illegal_answers INTEGER NOT NULL, forfeited INTEGER NOT NULL, bot_id "
          "INTEGER REFERENCES bots(id), disconnects INTEGER NOT NULL DEFAULT 0, "
          "PRIMARY KEY (match_id, seat)); "
          "INSERT INTO seats6 SELECT * FROM seats; DROP TABLE seats; "
          "ALTER TABLE seats6 RENAME TO seats; "
          "CREATE INDEX seats_by_player ON seats(player, match_id); "
          "CREATE INDEX seats_by_bot ON seats(bot_id, match_id); "
          "DROP TABLE slot_leases; ALTER TABLE matches DROP COLUMN seed_salt; "
          "ALTER TABLE tournaments DROP COLUMN seed_salt; ALTER TABLE matches DROP COLUMN unrated; "
          "DELETE FROM schema_migrations WHERE version >= 7; "
          "PRAGMA user_version = 6; COMMIT;",
          nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  ASSERT_EQ(QueryFile(path, "SELECT count(*) FROM sqlite_master WHERE name = 'seats_by_player'"),
            "1");

  std::unique_ptr<MatchStore> store = *OpenSqliteStore(path);
  EXPECT_EQ(QueryFile(path, "SELECT count(*) FROM sqlite_master WHERE name = 'seats_by_player'"),
            "0");
  // Each bot's three matches (alice two, bob one, random three).
  EXPECT_EQ(QueryFile(path, "SELECT count(*) FROM bot_matches"), "6");
  auto ids = [&](MatchFilter filter) {
    std::vector<std::string> out;
    absl::StatusOr<std::vector<StoredMatch>> listed = store->List(0, 10, filter);
    EXPECT_THAT(listed, IsOk());
    for (const StoredMatch& m : *listed) out.push_back(m.match.match_id());
    return out;
  };
  EXPECT_THAT(ids({.bot = "alice"}), ::testing::ElementsAre("m1", "m3"));
  EXPECT_THAT(ids({.bot = "bob"}), ::testing::ElementsAre("m2"));
  // A built-in bot's seat is no registered bot's: "random" names none.
  EXPECT_THAT(ids({.bot = "random"}), ::testing::IsEmpty());
  EXPECT_THAT(ids({.rated_bot = "random"}), ::testing::ElementsAre("m1", "m2", "m3"));
  std::vector<RatedMatch> rated = *store->RatedMatches({.game = "village"});
  ASSERT_EQ(rated.size(), 3u);
  EXPECT_EQ(rated[1].seats[0].bot, "bob");
  EXPECT_EQ(rated[2].seats[0].disconnects, 3);
  // Stored after the migration too.
  const hoard::v1::Match fourth = Finished(4, "village", "bob");
  ASSERT_THAT(store->SaveFinished(4, fourth, RecordOf(fourth)), IsOk());
  EXPECT_THAT(ids({.bot = "bob"}), ::testing::ElementsAre("m2", "m4"));
}

TEST(StoreTest, MatchesAndTournamentsStoredBeforeSaltsHaveNoneAndNewOnesKeepTheirs) {
  const std::string path = TempPath("hoard_seed_salts.db");
  ASSERT_TRUE(Version10File(path, {Finished(1, "village", "alice")}));
  // As migration 8 left the tables: no salts.
  ASSERT_TRUE(ExecFile(
      path,
      "INSERT INTO tournaments (name, game, spec, spec_hash, status, error, scheduled, "
      "created_at_ms, updated_at_ms) VALUES ('', 'village', X'', 'h', "
      "'TOURNAMENT_STATUS_RUNNING', '', 4, 0, 0); "
      "ALTER TABLE matches DROP COLUMN seed_salt; "
      "ALTER TABLE tournaments DROP COLUMN seed_salt; ALTER TABLE matches DROP COLUMN unrated; "
      "DELETE FROM schema_migrations WHERE version >= 9; "
      "PRAGMA user_version = 8;"));

  std::unique_ptr<MatchStore> store = *OpenSqliteStore(path);
  EXPECT_EQ(QueryFile(path, "SELECT '[' || seed_salt || ']' FROM matches WHERE id = 'm1'"), "[]");
  EXPECT_EQ((*store->GetTournament(1))->seed_salt, "");
  hoard::v1::Match salted = Finished(2, "village", "bob");
  salted.set_seed_salt("00112233445566778899aabbccddeeff");
  ASSERT_THAT(store->SaveFinished(2, salted, RecordOf(salted)), IsOk());
  EXPECT_EQ(QueryFile(path, "SELECT seed_salt FROM matches WHERE id = 'm2'"),
            "00112233445566778899aabbccddeeff");
}

TEST_P(StoreContractTest, WhereASeatLostTimeIsKeptForTheLeaderboard) {
  std::unique_ptr<MatchStore> store = *Fresh();
  hoard::v1::Match match = Finished(1, "village", "alice");
  hoard::v1::SeatInfo* alice = match.mutable_seats(0);
  alice->set_timeouts(3);
  alice->set_forfeited(true);
  alice->set_disconnects(2);
  ASSERT_THAT(store->SaveFinished(1, match, RecordOf(match)), IsOk());
  std::vector<RatedMatch> rated = *store->RatedMatches({.game = "village"});
  ASSERT_EQ(rated.size(), 1u);
  ASSERT_EQ(rated[0].seats.size(), 2u);
  EXPECT_EQ(rated[0].seats[0].timeouts, 3);
  EXPECT_TRUE(rated[0].seats[0].forfeited);
  EXPECT_EQ(rated[0].seats[0].disconnects, 2);
  EXPECT_EQ(rated[0].seats[1].timeouts, 0);
  EXPECT_FALSE(rated[0].seats[1].forfeited);
  EXPECT_EQ(rated[0].seats[1].disconnects, 0);
  // The summary keeps them too.
  std::optional<StoredMatch> stored = *store->Get("m1");
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->match.seats(0).disconnects(), 2);
}

TEST(StoreTest, AFileThatIsNoDatabaseIsNamed) {
  const std::string path = TempPath("hoard_not_a_db.db");
  std::ofstream(path) << "this is not a database, just some text that is long enough to matter";
  EXPECT_THAT(OpenSqliteStore(path),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("is not a Hoard database")));
  // A folder that cannot be made: beneath a file.
  EXPECT_THAT(OpenSqliteStore(path + "/dir/hoard.db"),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr("hoard_not_a_db.db/dir (Not a directory)")));
}

// The permission bits of the file at `path`, or -1.
int ModeOf(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 ? static_cast<int>(info.st_mode & 07777) : -1;
}

TEST(StoreTest, ADatabaseItsWalAndItsFoldersArePrivateToTheirOwner) {
  const std::string folder = TempPath("hoard_private");
  std::filesystem::remove_all(folder);
  const std::string path = folder + "/state/hoard.db";
  const mode_t umask_was = ::umask(022);  // the usual one, which leaves files 0644
  std::unique_ptr<MatchStore> store = *OpenSqliteStore(path);
  ::umask(umask_was);
  const hoard::v1::Match match = Finished(1, "village", "alice");
  ASSERT_THAT(store->SaveFinished(1, match, RecordOf(match)), IsOk());
  EXPECT_EQ(ModeOf(path), 0600);
  EXPECT_EQ(ModeOf(path + "-wal"), 0600);
  EXPECT_EQ(ModeOf(path + "-shm"), 0600);
  EXPECT_EQ(ModeOf(folder), 0700);
  EXPECT_EQ(ModeOf(folder + "/state"), 0700);
  EXPECT_THAT(store->notices(), ::testing::IsEmpty());
  // A folder that exists keeps its mode.
  ::chmod(folder.c_str(), 0755);
  std::unique_ptr<MatchStore> beside = *OpenSqliteStore(folder + "/other.db");
  EXPECT_EQ(ModeOf(folder), 0755);
  EXPECT_EQ(ModeOf(folder + "/other.db"), 0600);
  // A backup is as private as its database.
  ASSERT_THAT(BackupSqlite(path, folder + "/copy.db"), IsOk());
  EXPECT_EQ(ModeOf(folder + "/copy.db"), 0600);
}

TEST(StoreTest, ADatabaseOthersMayReadIsTightenedAndSaysSo) {
  const std::string path = TempPath("hoard_open_to_all.db");
  {
    std::unique_ptr<MatchStore> store = *OpenSqliteStore(path);
    const hoard::v1::Match match = Finished(1, "village", "alice");
    ASSERT_THAT(store->SaveFinished(1, match, RecordOf(match)), IsOk());
  }
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  // Read-only, it is left as it is.
  EXPECT_THAT((*OpenSqliteStore(path, StoreAccess::kReadOnly))->notices(), ::testing::IsEmpty());
  EXPECT_EQ(ModeOf(path), 0644);
  std::unique_ptr<MatchStore> store = *OpenSqliteStore(path);
  EXPECT_EQ(ModeOf(path), 0600);
  // The read-only open left a -wal and a -shm, made 0644 from the database.
  EXPECT_EQ(ModeOf(path + "-wal"), 0600);
  EXPECT_EQ(ModeOf(path + "-shm"), 0600);
  ASSERT_THAT(store->notices(), ::testing::Not(::testing::IsEmpty()));
  EXPECT_THAT(store->notices()[0], HasSubstr("the permissions of " + path + " were 0644"));
  EXPECT_THAT(store->notices(),
              ::testing::Each(AllOf(HasSubstr("were 0644"), HasSubstr("tightened to 0600"))));
  EXPECT_TRUE((*store->Get("m1")).has_value());
}

TEST(StoreTest, ADatabaseDeletedWhileInUseTakesNoMoreWritesAndIsCopiedWhole) {
  const std::string path = TempPath("hoard_deleted.db");
  std::remove((path + ".rescued").c_str());
  std::unique_ptr<MatchStore> store = *OpenSqliteStore(path);
  for (int i = 1; i <= 3; ++i) {
    const hoard::v1::Match match = Finished(i, "village", "alice");
    ASSERT_THAT(store->SaveFinished(i, match, RecordOf(match)), IsOk());
  }
  EXPECT_THAT(store->CheckFile(), IsOk());
  ASSERT_EQ(std::remove(path.c_str()), 0);
  const hoard::v1::Match fourth = Finished(4, "village", "alice");
  const auto deleted = StatusIs(absl::StatusCode::kFailedPrecondition,
                                AllOf(HasSubstr("the database " + path + " was deleted"),
                                      HasSubstr("copied to " + path + ".rescued")));
  EXPECT_THAT(store->SaveFinished(4, fourth, RecordOf(fourth)), deleted);
  EXPECT_THAT(store->CheckFile(), deleted);
  EXPECT_THAT(store->ReserveSequences(10), deleted);
  hoard::v1::TournamentSpec spec;
  EXPECT_THAT(store->CreateTournament(spec, "h", 1, ""), deleted);
  EXPECT_FALSE(std::filesystem::exists(path)) << "nothing is made in its place";
  // The copy holds every commit, and is private.
  EXPECT_EQ(ModeOf(path + ".rescued"), 0600);
  ASSERT_EQ(std::rename((path + ".rescued").c_str(), path.c_str()), 0);
  std::unique_ptr<MatchStore> restored = *OpenSqliteStore(path);
  EXPECT_EQ(*restored->LastSequence(), 3);
  EXPECT_FALSE((*restored->Get("m4")).has_value());
}

TEST(StoreTest, ADatabaseReplacedWhileInUseTakesNoMoreWrites) {
  const std::string path = TempPath("hoard_replaced.db");
  const std::string other = TempPath("hoard_replacement.db");
  std::remove((path + ".rescued").c_str());
  std::unique_ptr<MatchStore> store = *OpenSqliteStore(path);
  const hoard::v1::Match first = Finished(1, "village", "alice");
  ASSERT_THAT(store->SaveFinished(1, first, RecordOf(first)), IsOk());
  { std::unique_ptr<MatchStore> made = *OpenSqliteStore(other); }
  ASSERT_EQ(std::rename(other.c_str(), path.c_str()), 0);
  const hoard::v1::Match second = Finished(2, "village", "alice");
  EXPECT_THAT(store->SaveFinished(2, second, RecordOf(second)),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr(path + " was replaced by another file")));
  EXPECT_TRUE(std::filesystem::exists(path + ".rescued"));
  // The file that took its place is left as it is, and reads as it is: the
  // store's own -wal, which would have been read with it, is gone.
  EXPECT_EQ(*(*OpenSqliteStore(path, StoreAccess::kReadOnly))->LastSequence(), 0);
  store.reset();
  EXPECT_EQ(*(*OpenSqliteStore(path))->LastSequence(), 0);
}

TEST(StoreTest, ADatabaseAServerHoldsIsReadAsTheServerSeesIt) {
  const std::string path = TempPath("hoard_live.db");
  std::unique_ptr<MatchStore> server = *OpenSqliteStore(path);
  const hoard::v1::Match match = Finished(1, "village", "alice");
  ASSERT_THAT(server->SaveFinished(1, match, RecordOf(match)), IsOk());
  // The schema and the match are still in the -wal file: the header of the
  // file itself says version 0.
  ASSERT_GT(std::filesystem::file_size(path + "-wal"), 0u);
  absl::StatusOr<std::unique_ptr<MatchStore>> reader =
      OpenSqliteStore(path, StoreAccess::kReadOnly);
  ASSERT_THAT(reader, IsOk());
  EXPECT_EQ(*(*reader)->LastSequence(), 1);
  EXPECT_TRUE((*(*reader)->Get("m1")).has_value());
  // So does a backup.
  std::remove((path + ".copy").c_str());
  ASSERT_THAT(BackupSqlite(path, path + ".copy"), IsOk());
  EXPECT_EQ(*(*OpenSqliteStore(path + ".copy", StoreAccess::kReadOnly))->LastSequence(), 1);
}

TEST(StoreTest, AnAddressWithAPasswordIsRefusedWithoutShowingIt) {
  for (const std::string url : {"postgresql://hoard:s3cret@db.example/hoard",
                                "postgres://db.example/hoard?user=hoard&password=s3cret"}) {
    const absl::Status refused = CheckNoPasswordInAddress(url);
    EXPECT_THAT(refused,
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("HOARD_DB_PASSWORD_FILE")))
        << url;
    EXPECT_THAT(std::string(refused.message()), ::testing::Not(HasSubstr("s3cret")));
    EXPECT_THAT(OpenPostgresStore(url),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("holds a password")));
  }
  EXPECT_THAT(CheckNoPasswordInAddress("postgresql://hoard@db.example/hoard"), IsOk());
  EXPECT_THAT(CheckNoPasswordInAddress("hoard:s3cret@file.db"), IsOk()) << "a SQLite path";
}

// Servers sharing a database lease a tournament's slots before they play
// them: one holder at a time, until the lease runs out or is ended, and
// never a slot that is stored.
TEST_P(StoreContractTest, ASlotIsLeasedToOneServerAtATime) {
  std::unique_ptr<MatchStore> store = *Fresh();
  hoard::v1::TournamentSpec spec;
  spec.set_game("village");
  const std::int64_t id = *store->CreateTournament(spec, "h", 4, "");
  const absl::Duration minute = absl::Minutes(1);
  EXPECT_THAT(store->ClaimSlot(id, 0, "a", minute), IsOkAndHolds(true));
  EXPECT_THAT(store->ClaimSlot(id, 0, "b", minute), IsOkAndHolds(false)) << "a holds it";
  EXPECT_THAT(store->ClaimSlot(id, 0, "a", minute), IsOkAndHolds(true)) << "its own again";
  EXPECT_THAT(store->ClaimSlot(id, -1, "b", minute), IsOkAndHolds(true)) << "the whole one";
  // A lease that is not renewed runs out; one renewed in time does not.
  EXPECT_THAT(store->ClaimSlot(id, 1, "a", absl::Milliseconds(1)), IsOkAndHolds(true));
  EXPECT_THAT(store->ClaimSlot(id, 2, "a", absl::Milliseconds(1)), IsOkAndHolds(true));
  ASSERT_THAT(store->RenewLeases("a", minute), IsOk());
  EXPECT_THAT(store->ClaimSlot(id, 2, "b", minute), IsOkAndHolds(false)) << "renewed";
  EXPECT_THAT(store->ClaimSlot(id, 3, "a", absl::Milliseconds(1)), IsOkAndHolds(true));
  absl::SleepFor(absl::Milliseconds(30));
  EXPECT_THAT(store->ClaimSlot(id, 3, "b", minute), IsOkAndHolds(true)) << "a's ran out";
  // Ended leases free their slots; a stored slot is nobody's to lease.
  ASSERT_THAT(store->ReleaseLeases(id, "a"), IsOk());
  EXPECT_THAT(store->ClaimSlot(id, 1, "b", minute), IsOkAndHolds(true));
  hoard::v1::Match match = Finished(1, "village", "alice");
  const TournamentSlot slot{.tournament_id = id, .schedule_index = 0};
  ASSERT_THAT(store->SaveFinished(1, match, RecordOf(match), &slot), IsOk());
  ASSERT_THAT(store->ReleaseLeases(id, "a"), IsOk());
  EXPECT_THAT(store->ClaimSlot(id, 0, "c", minute), IsOkAndHolds(false)) << "stored";
}

// ---- PostgreSQL: what only a shared database server has.

// The address of a new PostgreSQL database that holds alice's match
// m<sequence>.
absl::StatusOr<std::string> PostgresHoldingAMatch(std::int64_t sequence) {
  ASSIGN_OR_RETURN(const std::string url, PostgresEnvironment::NewDatabase());
  ASSIGN_OR_RETURN(std::unique_ptr<MatchStore> store, OpenPostgresStore(url));
  const hoard::v1::Match match = Finished(sequence, "village", "alice");
  RETURN_IF_ERROR(store->SaveFinished(sequence, match, RecordOf(match)));
  return url;
}

// Runs `sql` on the PostgreSQL database at `url`: the first column of its
// answer's first row ("" for none), or "error: " and why it failed.
std::string RunOnPostgres(const std::string& url, const char* sql) {
  PGconn* conn = PQconnectdb(url.c_str());
  PGresult* result = PQexec(conn, sql);
  const ExecStatusType status = PQresultStatus(result);
  std::string answer =
      status == PGRES_TUPLES_OK && PQntuples(result) > 0 ? PQgetvalue(result, 0, 0) : "";
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    answer = absl::StrCat("error: ", PQerrorMessage(conn));
  }
  PQclear(result);
  PQfinish(conn);
  return answer;
}

TEST(PostgresStoreTest, AReopenedDatabaseKeepsItsMatchesAndMigratesOnce) {
  absl::StatusOr<std::string> url = PostgresHoldingAMatch(7);
  ASSERT_THAT(url, IsOk());
  absl::StatusOr<std::unique_ptr<MatchStore>> again = OpenStore(*url);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(*(*again)->LastSequence(), 7);
  EXPECT_TRUE((*(*again)->Get("m7")).has_value());
  // Read-only, it reads and keeps no rating snapshot.
  absl::StatusOr<std::unique_ptr<MatchStore>> reader = OpenStore(*url, StoreAccess::kReadOnly);
  ASSERT_THAT(reader, IsOk());
  EXPECT_THAT(*(*reader)->RatedMatches({.game = "village"}), ::testing::SizeIs(1));
  ASSERT_THAT((*reader)->SaveRatingSnapshot({.game = "village"}, 1, {}), IsOk());
  EXPECT_FALSE((*(*reader)->LatestRatingSnapshot({.game = "village"})).has_value());
}

// A database of an older schema (as migration 7 left it) is read only once
// brought up to date, which a read-write open does, keeping what it holds.
TEST(PostgresStoreTest, ADatabaseOfAnOlderSchemaIsBroughtUpToDate) {
  absl::StatusOr<std::string> url = PostgresEnvironment::NewDatabase();
  ASSERT_THAT(url, IsOk());
  ASSERT_EQ(
      RunOnPostgres(
          *url,
          Version10Database({Finished(1, "village", "alice")}, SqlDatabase::kPostgresql).c_str()),
      "");
  ASSERT_EQ(RunOnPostgres(*url,
                          "INSERT INTO tournaments (name, game, spec, spec_hash, status, error, "
                          "scheduled, created_at_ms, updated_at_ms) VALUES ('', 'village', '', "
                          "'h', 'TOURNAMENT_STATUS_RUNNING', '', 4, 0, 0); "
                          "ALTER TABLE matches DROP COLUMN seed_salt; "
                          "ALTER TABLE tournaments DROP COLUMN seed_salt; ALTER TABLE matches DROP "
                          "COLUMN unrated; DROP TABLE slot_leases; "
                          "DELETE FROM schema_migrations WHERE version >= 8"),
            "");

  EXPECT_THAT(OpenPostgresStore(*url, StoreAccess::kReadOnly),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("schema version 7")));
  absl::StatusOr<std::unique_ptr<MatchStore>> store = OpenPostgresStore(*url);
  ASSERT_THAT(store, IsOk());
  std::optional<StoredMatch> stored = *(*store)->Get("m1");
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->match.seed_salt(), "");
  EXPECT_EQ((*(*store)->GetTournament(1))->seed_salt, "");
  EXPECT_THAT((*store)->ClaimSlot(1, 0, "a", absl::Minutes(1)), IsOkAndHolds(true));
  hoard::v1::Match salted = Finished(2, "village", "bob");
  salted.set_seed_salt("00112233445566778899aabbccddeeff");
  ASSERT_THAT((*store)->SaveFinished(2, salted, RecordOf(salted)), IsOk());
  EXPECT_EQ(RunOnPostgres(
                *url, "SELECT string_agg(id || '=' || seed_salt, ',' ORDER BY id) FROM matches"),
            "m1=,m2=00112233445566778899aabbccddeeff");
  EXPECT_THAT(OpenPostgresStore(*url, StoreAccess::kReadOnly), IsOk());
}

TEST(PostgresStoreTest, ADatabaseThatHoldsNoHoardDataIsRefusedAndLeftAsItWas) {
  absl::StatusOr<std::string> url = PostgresEnvironment::NewDatabase();
  ASSERT_THAT(url, IsOk());
  EXPECT_THAT(OpenPostgresStore(*url, StoreAccess::kReadOnly),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("no Hoard database")));
  PGconn* conn = PQconnectdb(url->c_str());
  ASSERT_EQ(PQstatus(conn), CONNECTION_OK);
  PQclear(PQexec(conn, "CREATE TABLE invoices (id INTEGER)"));
  EXPECT_THAT(OpenPostgresStore(*url), StatusIs(absl::StatusCode::kFailedPrecondition,
                                                HasSubstr("holds another program's tables")));
  PGresult* tables = PQexec(conn,
                            "SELECT string_agg(tablename, ',') FROM pg_tables "
                            "WHERE schemaname = 'public'");
  EXPECT_STREQ(PQgetvalue(tables, 0, 0), "invoices");
  PQclear(tables);
  PQfinish(conn);
}

TEST(PostgresStoreTest, AnUnreachableDatabaseIsNamedWithoutItsPassword) {
  absl::StatusOr<std::unique_ptr<MatchStore>> store =
      OpenStore("postgresql://hoard@/hoard?host=/nonexistent/dir&connect_timeout=2");
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(store.status().message(), HasSubstr("cannot connect to postgresql://hoard@"));
  // An address with a password is refused before any connection; its name
  // never shows the password.
  store = OpenStore("postgresql://hoard:s3cret-word@/hoard?host=/nonexistent/dir");
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(std::string(store.status().message()), ::testing::Not(HasSubstr("s3cret")));
  EXPECT_EQ(StoreDisplayName("postgresql://hoard:s3cret-word@db.example:5433/results"),
            "postgresql://hoard@db.example:5433/results");
  EXPECT_THAT(OpenStore("postgresql://[bad"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a PostgreSQL address")));
}

// Several servers on one database: they migrate once between them, never
// share a match id, and store a tournament's slot once.
TEST(PostgresStoreTest, ServersSharingADatabaseNeverDoubleAnIdOrASlot) {
  absl::StatusOr<std::string> url = PostgresEnvironment::NewDatabase();
  ASSERT_THAT(url, IsOk());
  constexpr int kServers = 3;
  std::vector<std::unique_ptr<MatchStore>> stores(kServers);
  {
    std::vector<std::thread> opening;
    std::vector<absl::Status> opened(kServers);
    for (int i = 0; i < kServers; ++i) {
      opening.emplace_back([&, i] {
        absl::StatusOr<std::unique_ptr<MatchStore>> store = OpenPostgresStore(*url);
        opened[i] = store.status();
        if (store.ok()) stores[i] = *std::move(store);
      });
    }
    for (std::thread& t : opening) t.join();
    for (const absl::Status& status : opened) ASSERT_THAT(status, IsOk());
  }
  hoard::v1::TournamentSpec spec;
  spec.set_game("village");
  const std::int64_t tournament = *stores[0]->CreateTournament(spec, "h", 30, "");
  std::vector<std::vector<std::int64_t>> firsts(kServers);
  std::vector<std::vector<absl::Status>> slot_saves(kServers);
  std::vector<std::thread> working;
  for (int i = 0; i < kServers; ++i) {
    working.emplace_back([&, i] {
      for (int round = 0; round < 20; ++round) {
        absl::StatusOr<std::int64_t> first = stores[i]->ReserveSequences(10);
        if (first.ok()) firsts[i].push_back(*first);
      }
      // Every server tries every slot, each under a match id of its own.
      for (int slot = 0; slot < 30; ++slot) {
        hoard::v1::Match match = Finished(0, "village", absl::StrCat("bot", i));
        match.clear_match_id();
        const TournamentSlot place{.tournament_id = tournament, .schedule_index = slot};
        slot_saves[i].push_back(stores[i]->SaveFinished(0, match, RecordOf(match), &place));
      }
    });
  }
  for (std::thread& t : working) t.join();
  std::vector<std::int64_t> all;
  for (const auto& server : firsts) {
    EXPECT_EQ(server.size(), 20u);
    all.insert(all.end(), server.begin(), server.end());
  }
  std::sort(all.begin(), all.end());
  for (std::size_t i = 1; i < all.size(); ++i) {
    EXPECT_GE(all[i], all[i - 1] + 10) << "blocks of ten never overlap";
  }
  int stored = 0;
  for (const auto& server : slot_saves) {
    for (const absl::Status& status : server) {
      if (status.ok()) {
        ++stored;
      } else {
        EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists) << status;
      }
    }
  }
  EXPECT_EQ(stored, 30);
  std::vector<int> slots = *stores[1]->StoredSlots(tournament);
  ASSERT_EQ(slots.size(), 30u);
  for (int slot = 0; slot < 30; ++slot) EXPECT_EQ(slots[slot], slot);
  EXPECT_THAT(*stores[2]->RatedMatches({.game = "village", .tournament_id = tournament}),
              ::testing::SizeIs(30));
}

// A connection the database drops (a restart, a fault) fails at most the
// call that meets it; the next one connects again.
TEST(PostgresStoreTest, ALostConnectionIsMadeAgain) {
  absl::StatusOr<std::string> url = PostgresEnvironment::NewDatabase();
  ASSERT_THAT(url, IsOk());
  std::unique_ptr<MatchStore> store = *OpenPostgresStore(*url);
  std::unique_ptr<MatchStore> admin = *OpenPostgresStore(*url);
  const hoard::v1::Match first = Finished(1, "village", "alice");
  ASSERT_THAT(store->SaveFinished(1, first, RecordOf(first)), IsOk());
  PGconn* conn = PQconnectdb(url->c_str());
  ASSERT_EQ(PQstatus(conn), CONNECTION_OK);
  PGresult* killed = PQexec(conn,
                            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                            "WHERE datname = current_database() AND pid <> pg_backend_pid()");
  ASSERT_EQ(PQresultStatus(killed), PGRES_TUPLES_OK);
  EXPECT_GE(PQntuples(killed), 2);
  PQclear(killed);
  PQfinish(conn);
  const absl::StatusOr<std::int64_t> met = store->LastSequence();
  if (!met.ok()) {
    EXPECT_EQ(met.status().code(), absl::StatusCode::kUnavailable) << met.status();
  }
  const hoard::v1::Match second = Finished(2, "village", "alice");
  EXPECT_THAT(store->SaveFinished(2, second, RecordOf(second)), IsOk());
  EXPECT_EQ(*store->LastSequence(), 2);
  EXPECT_THAT(*store->List(0, 10, {.bot = "alice"}), ::testing::SizeIs(2));
}

// Matches stored before migration 11 (their seats in rows of their own and
// in their summaries, their records in match_records) read back as they
// were stored, on either database: one match, a page of them, a bot's, the
// record, the leaderboard's seats; and matches stored after read the same.
void ExpectUpgradedMatchesReadAsStored(MatchStore& store,
                                       const std::vector<hoard::v1::Match>& before) {
  std::vector<hoard::v1::Match> all = before;
  hoard::v1::Match after = Finished(4, "village", "alice");
  after.mutable_seats(1)->set_timeouts(2);
  after.mutable_seats(1)->set_score(-3.25);
  ASSERT_THAT(store.SaveFinished(4, after, RecordOf(after)), IsOk());
  all.push_back(after);
  for (const hoard::v1::Match& match : all) {
    SCOPED_TRACE(match.match_id());
    absl::StatusOr<std::optional<StoredMatch>> got = store.Get(match.match_id());
    ASSERT_THAT(got, IsOk());
    ASSERT_TRUE(got->has_value());
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals((*got)->match, match))
        << (*got)->match.DebugString() << " is not " << match.DebugString();
    absl::StatusOr<std::optional<hoard::v1::MatchRecord>> record =
        store.GetRecord(match.match_id());
    ASSERT_THAT(record, IsOk());
    ASSERT_TRUE(record->has_value());
    EXPECT_EQ((*record)->SerializeAsString(), RecordOf(match).SerializeAsString());
  }
  absl::StatusOr<std::vector<StoredMatch>> newest = store.ListNewest(0, 10, {});
  ASSERT_THAT(newest, IsOk());
  ASSERT_EQ(newest->size(), all.size());
  EXPECT_EQ((*newest)[0].match.match_id(), "m4");
  EXPECT_EQ((*newest)[0].match.seats(1).score(), -3.25);
  EXPECT_EQ((*newest)[3].match.seats(0).player(), "bot:alice");
  absl::StatusOr<std::vector<StoredMatch>> alices = store.List(0, 10, {.bot = "alice"});
  ASSERT_THAT(alices, IsOk());
  ASSERT_EQ(alices->size(), 3u);
  EXPECT_EQ((*alices)[1].match.match_id(), "m3");
  EXPECT_EQ((*alices)[2].match.match_id(), "m4");
  std::vector<RatedMatch> rated = *store.RatedMatches({.game = "village"});
  ASSERT_EQ(rated.size(), 4u);
  EXPECT_EQ(rated[1].seats[0].bot, "bob");
  EXPECT_EQ(rated[1].seats[0].disconnects, 1);
  EXPECT_EQ(rated[3].seats[1].bot, "random");
  EXPECT_TRUE(rated[3].seats[1].builtin);
  EXPECT_EQ(rated[3].seats[1].timeouts, 2);
  EXPECT_EQ(rated[3].seats[1].score, -3.25);
}

std::vector<hoard::v1::Match> ThreeOldMatches() {
  std::vector<hoard::v1::Match> matches;
  for (int i = 1; i <= 3; ++i) {
    hoard::v1::Match& match =
        matches.emplace_back(Finished(i, "village", i == 2 ? "bob" : "alice"));
    match.mutable_seats(0)->set_disconnects(i - 1);
    match.mutable_time_control()->set_decision_ms(1000 * i);
  }
  return matches;
}

TEST(StoreTest, MatchesStoredBeforeMigrationElevenReadAsTheyWereStored) {
  const std::string path = TempPath("hoard_one_row.db");
  ASSERT_TRUE(Version10File(path, ThreeOldMatches()));
  std::unique_ptr<MatchStore> store = *OpenSqliteStore(path);
  EXPECT_EQ(QueryFile(path,
                      "SELECT count(*) FROM sqlite_master WHERE name IN ('seats', "
                      "'match_records')"),
            "0");
  ExpectUpgradedMatchesReadAsStored(*store, ThreeOldMatches());
}

TEST(PostgresStoreTest, MatchesStoredBeforeMigrationElevenReadAsTheyWereStored) {
  absl::StatusOr<std::string> url = PostgresEnvironment::NewDatabase();
  ASSERT_THAT(url, IsOk());
  ASSERT_EQ(
      RunOnPostgres(*url, Version10Database(ThreeOldMatches(), SqlDatabase::kPostgresql).c_str()),
      "");
  std::unique_ptr<MatchStore> store = *OpenPostgresStore(*url);
  EXPECT_EQ(RunOnPostgres(*url,
                          "SELECT count(*) FROM pg_tables WHERE tablename IN ('seats', "
                          "'match_records')"),
            "0");
  ExpectUpgradedMatchesReadAsStored(*store, ThreeOldMatches());
}

TEST_P(StoreContractTest, AStoredMatchReadsBackAsItWasStored) {
  std::unique_ptr<MatchStore> store = *Fresh();
  for (const hoard::v1::Match& match : ThreeOldMatches()) {
    ASSERT_THAT(store->SaveFinished(0, match, RecordOf(match)), IsOk());
  }
  ExpectUpgradedMatchesReadAsStored(*store, ThreeOldMatches());
}

// The fields of `message` left at their defaults, by name.
std::vector<std::string> UnsetFields(const google::protobuf::Message& message) {
  std::vector<const google::protobuf::FieldDescriptor*> set;
  message.GetReflection()->ListFields(message, &set);
  std::vector<std::string> unset;
  const google::protobuf::Descriptor* descriptor = message.GetDescriptor();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    if (std::find(set.begin(), set.end(), descriptor->field(i)) == set.end()) {
      unset.push_back(descriptor->field(i)->name());
    }
  }
  return unset;
}

TEST_P(StoreContractTest, EveryFieldOfAMatchIsKept) {
  // A match of a tournament with every field of Match and SeatInfo set:
  // a field added to either and forgotten by the store (its columns, its
  // packed seats, the rest of its summary) fails here until it is set
  // below and kept.
  std::unique_ptr<MatchStore> store = *Fresh();
  hoard::v1::TournamentSpec spec;
  spec.set_game("village");
  const std::int64_t id = *store->CreateTournament(spec, "h", 4, "");
  hoard::v1::Match match = Finished(7, "village", "alice@2");
  match.mutable_time_control()->set_decision_ms(250);
  (*match.mutable_options())["favor_spaces"] = "7";
  match.set_started_unix_ms(1700000000000);
  match.set_finished_unix_ms(1700000000123);
  match.set_tournament_id(id);
  match.set_schedule_index(3);
  match.set_sealed(true);
  match.set_seed_salt("00112233445566778899aabbccddeeff");
  // Not the commitment the seed and salt give: kept as it is.
  match.set_seed_commitment(std::string(64, 'c'));
  match.set_unrated(true);
  hoard::v1::SeatInfo& seat = *match.mutable_seats(1);  // seat 0 has the default number
  seat.set_connected(true);
  seat.set_timeouts(1);
  seat.set_illegal_answers(2);
  seat.set_forfeited(true);
  seat.set_answers(30);
  seat.set_mean_round_trip_us(1234);
  seat.set_default_answers(4);
  seat.set_disconnects(5);
  EXPECT_THAT(UnsetFields(match), ::testing::IsEmpty());
  EXPECT_THAT(UnsetFields(seat), ::testing::IsEmpty());

  const TournamentSlot slot{.tournament_id = id, .schedule_index = 3, .block = 1};
  FinishedResult encoded{.sequence = 7, .match = match, .record = RecordOf(match), .slot = slot};
  store->Encode(encoded);
  FinishedResult plain = encoded;
  plain.sequence = 8;
  plain.match.set_match_id("m8");
  plain.slot->schedule_index = 4;
  plain.match.set_schedule_index(4);
  plain.encoded = {};
  ASSERT_THAT(store->SaveFinishedBatch({&encoded, &plain}), ::testing::Each(IsOk()));
  for (const FinishedResult* result : {&encoded, &plain}) {
    std::optional<StoredMatch> got = *store->Get(result->match.match_id());
    ASSERT_TRUE(got.has_value());
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(got->match, result->match))
        << got->match.DebugString() << " is not " << result->match.DebugString();
  }
}

}  // namespace
}  // namespace hoard::db
