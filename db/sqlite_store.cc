// The SQLite store: schema, migrations and every statement Hoard runs.

#include <sqlite3.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "db/store.h"

namespace hoard::db {
namespace {

// Numbered migrations: migration i (1-based) brings the schema from version
// i - 1 to i. Append, never edit: a database remembers which it has run.
constexpr const char* kMigrations[] = {
    // 1: finished matches, their seats and their records.
    R"sql(
    CREATE TABLE matches (
      id TEXT PRIMARY KEY,
      sequence INTEGER NOT NULL UNIQUE,
      game TEXT NOT NULL,
      ruleset_version TEXT NOT NULL,
      seed INTEGER NOT NULL,
      status TEXT NOT NULL,
      actions INTEGER NOT NULL,
      stored_at_ms INTEGER NOT NULL,
      summary BLOB NOT NULL  -- hoard.v1.Match
    );
    CREATE TABLE seats (
      match_id TEXT NOT NULL REFERENCES matches(id),
      seat INTEGER NOT NULL,
      player TEXT NOT NULL,
      score REAL NOT NULL,
      rank INTEGER NOT NULL,
      timeouts INTEGER NOT NULL,
      illegal_answers INTEGER NOT NULL,
      forfeited INTEGER NOT NULL,
      PRIMARY KEY (match_id, seat)
    );
    CREATE INDEX seats_by_player ON seats(player, match_id);
    CREATE TABLE match_records (
      match_id TEXT PRIMARY KEY REFERENCES matches(id),
      record BLOB NOT NULL  -- hoard.v1.MatchRecord
    );
    )sql",
};

// A prepared statement, finalized when it goes.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    status_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool ok() const { return status_ == SQLITE_OK; }
  Statement& Bind(int i, std::int64_t value) {
    sqlite3_bind_int64(stmt_, i, value);
    return *this;
  }
  Statement& Bind(int i, double value) {
    sqlite3_bind_double(stmt_, i, value);
    return *this;
  }
  Statement& Bind(int i, const std::string& text) {
    sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& BindBlob(int i, const std::string& bytes) {
    sqlite3_bind_blob(stmt_, i, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
    return *this;
  }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return sqlite3_step(stmt_); }
  std::int64_t Int(int column) { return sqlite3_column_int64(stmt_, column); }
  std::string Blob(int column) {
    const void* data = sqlite3_column_blob(stmt_, column);
    const int size = sqlite3_column_bytes(stmt_, column);
    return data == nullptr ? std::string() : std::string(static_cast<const char*>(data), size);
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  int status_;
};

class SqliteStore final : public MatchStore {
 public:
  SqliteStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteStore() override { sqlite3_close_v2(db_); }

  absl::Status Migrate() {
    absl::MutexLock lock(&mu_);
    if (absl::Status s = Exec("PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;"); !s.ok()) {
      return absl::DataLossError(absl::StrCat(path_, " is not a Hoard database: ", s.message()));
    }
    if (absl::Status s = Exec(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            "version INTEGER PRIMARY KEY, applied_at_ms INTEGER NOT NULL)");
        !s.ok()) {
      return s;
    }
    Statement current(db_, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
    if (!current.ok() || current.Step() != SQLITE_ROW) return Error("reading the schema version");
    const std::int64_t version = current.Int(0);
    const std::int64_t known = static_cast<std::int64_t>(std::size(kMigrations));
    if (version > known) {
      return absl::FailedPreconditionError(absl::StrCat(
          path_, " has schema version ", version, ", newer than this build's ", known));
    }
    for (std::int64_t next = version + 1; next <= known; ++next) {
      const std::string sql = absl::StrCat(
          "BEGIN; ", kMigrations[next - 1],
          "; INSERT INTO schema_migrations VALUES (", next,
          ", CAST(strftime('%s','now') AS INTEGER) * 1000); COMMIT;");
      if (absl::Status s = Exec(sql.c_str()); !s.ok()) {
        Exec("ROLLBACK").IgnoreError();
        return absl::Status(s.code(), absl::StrCat("migration ", next, ": ", s.message()));
      }
    }
    return absl::OkStatus();
  }

  absl::Status SaveFinished(std::int64_t sequence, const hoard::v1::Match& match,
                            const hoard::v1::MatchRecord& record) override {
    absl::MutexLock lock(&mu_);
    if (absl::Status s = Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
    absl::Status status = InsertLocked(sequence, match, record);
    if (!status.ok()) {
      Exec("ROLLBACK").IgnoreError();
      return status;
    }
    return Exec("COMMIT");
  }

  absl::StatusOr<std::optional<StoredMatch>> Get(const std::string& id) override {
    absl::MutexLock lock(&mu_);
    Statement select(db_, "SELECT sequence, summary FROM matches WHERE id = ?");
    if (!select.ok()) return Error("reading a match");
    select.Bind(1, id);
    const int step = select.Step();
    if (step == SQLITE_DONE) return std::optional<StoredMatch>();
    if (step != SQLITE_ROW) return Error("reading a match");
    StoredMatch stored{.sequence = select.Int(0)};
    if (!stored.match.ParseFromString(select.Blob(1))) {
      return absl::DataLossError(absl::StrCat(path_, ": match ", id, " cannot be read back"));
    }
    return std::optional<StoredMatch>(std::move(stored));
  }

  absl::StatusOr<std::optional<hoard::v1::MatchRecord>> GetRecord(
      const std::string& id) override {
    absl::MutexLock lock(&mu_);
    Statement select(db_, "SELECT record FROM match_records WHERE match_id = ?");
    if (!select.ok()) return Error("reading a record");
    select.Bind(1, id);
    const int step = select.Step();
    if (step == SQLITE_DONE) return std::optional<hoard::v1::MatchRecord>();
    if (step != SQLITE_ROW) return Error("reading a record");
    hoard::v1::MatchRecord record;
    if (!record.ParseFromString(select.Blob(0))) {
      return absl::DataLossError(absl::StrCat(path_, ": the record of ", id, " cannot be read back"));
    }
    return std::optional<hoard::v1::MatchRecord>(std::move(record));
  }

  absl::StatusOr<std::vector<StoredMatch>> List(std::int64_t after, int limit,
                                                const MatchFilter& filter) override {
    absl::MutexLock lock(&mu_);
    Statement select(db_,
                     "SELECT sequence, summary FROM matches WHERE sequence > ?1 "
                     "AND (?2 = '' OR game = ?2) "
                     "AND (?3 = '' OR id IN (SELECT match_id FROM seats WHERE player = 'bot:' || ?3)) "
                     "ORDER BY sequence LIMIT ?4");
    if (!select.ok()) return Error("listing matches");
    select.Bind(1, after).Bind(2, filter.game).Bind(3, filter.bot).Bind(4, std::int64_t{limit});
    std::vector<StoredMatch> matches;
    for (int step = select.Step(); step != SQLITE_DONE; step = select.Step()) {
      if (step != SQLITE_ROW) return Error("listing matches");
      StoredMatch stored{.sequence = select.Int(0)};
      if (!stored.match.ParseFromString(select.Blob(1))) {
        return absl::DataLossError(absl::StrCat(path_, ": a stored match cannot be read back"));
      }
      matches.push_back(std::move(stored));
    }
    return matches;
  }

  absl::StatusOr<std::int64_t> LastSequence() override {
    absl::MutexLock lock(&mu_);
    Statement select(db_, "SELECT COALESCE(MAX(sequence), 0) FROM matches");
    if (!select.ok() || select.Step() != SQLITE_ROW) return Error("reading the last match");
    return select.Int(0);
  }

 private:
  absl::Status InsertLocked(std::int64_t sequence, const hoard::v1::Match& match,
                            const hoard::v1::MatchRecord& record)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    Statement insert(db_,
                     "INSERT INTO matches (id, sequence, game, ruleset_version, seed, status, "
                     "actions, stored_at_ms, summary) VALUES (?, ?, ?, ?, ?, ?, ?, "
                     "CAST(strftime('%s','now') AS INTEGER) * 1000, ?)");
    if (!insert.ok()) return Error("storing a match");
    insert.Bind(1, match.match_id())
        .Bind(2, sequence)
        .Bind(3, match.game())
        .Bind(4, match.ruleset_version())
        .Bind(5, static_cast<std::int64_t>(match.seed()))
        .Bind(6, hoard::v1::MatchStatus_Name(match.status()))
        .Bind(7, std::int64_t{match.actions()})
        .BindBlob(8, match.SerializeAsString());
    if (const int step = insert.Step(); step != SQLITE_DONE) {
      if (step == SQLITE_CONSTRAINT) {
        return absl::AlreadyExistsError(
            absl::StrCat("match ", match.match_id(), " is already stored"));
      }
      return Error("storing a match");
    }
    for (const hoard::v1::SeatInfo& seat : match.seats()) {
      Statement row(db_,
                    "INSERT INTO seats (match_id, seat, player, score, rank, timeouts, "
                    "illegal_answers, forfeited) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
      if (!row.ok()) return Error("storing a seat");
      row.Bind(1, match.match_id())
          .Bind(2, std::int64_t{seat.seat()})
          .Bind(3, seat.player())
          .Bind(4, seat.score())
          .Bind(5, std::int64_t{seat.rank()})
          .Bind(6, std::int64_t{seat.timeouts()})
          .Bind(7, std::int64_t{seat.illegal_answers()})
          .Bind(8, std::int64_t{seat.forfeited() ? 1 : 0});
      if (row.Step() != SQLITE_DONE) return Error("storing a seat");
    }
    Statement insert_record(db_, "INSERT INTO match_records (match_id, record) VALUES (?, ?)");
    if (!insert_record.ok()) return Error("storing a record");
    insert_record.Bind(1, match.match_id()).BindBlob(2, record.SerializeAsString());
    if (insert_record.Step() != SQLITE_DONE) return Error("storing a record");
    return absl::OkStatus();
  }

  absl::Status Exec(const char* sql) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
      absl::Status status = absl::UnavailableError(
          absl::StrCat(path_, ": ", message != nullptr ? message : "unknown error"));
      sqlite3_free(message);
      return status;
    }
    return absl::OkStatus();
  }

  absl::Status Error(const std::string& what) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return absl::UnavailableError(
        absl::StrCat(path_, ": ", what, ": ", sqlite3_errmsg(db_)));
  }

  absl::Mutex mu_;
  sqlite3* const db_;
  const std::string path_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<MatchStore>> OpenSqliteStore(const std::string& path) {
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string reason = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    return absl::UnavailableError(absl::StrCat("cannot open ", path, ": ", reason));
  }
  sqlite3_busy_timeout(db, 5000);
  auto store = std::make_unique<SqliteStore>(db, path);
  if (absl::Status status = store->Migrate(); !status.ok()) return status;
  return std::unique_ptr<MatchStore>(std::move(store));
}

}  // namespace hoard::db
