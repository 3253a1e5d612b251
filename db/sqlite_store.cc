// The SQLite store: schema, migrations and every statement Hoard runs.

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "db/bot_names.h"
#include "db/migrations.h"
#include "db/store.h"
#include "engine/player_id.h"
#include "engine/status_macros.h"

namespace hoard::db {
namespace {

// Marks a SQLite file as Hoard's ("HORD"); its user_version is the schema
// version. A file without the mark is never written to unless it is empty or
// a Hoard database from before the mark.
constexpr std::int32_t kHoardApplicationId = 0x484f5244;

// How a failed SQLite call is reported: kDataLoss for a damaged file,
// kFailedPrecondition for one this process may not write, kUnavailable for
// what may pass (a lock held by another process, a full disk, an I/O error):
// the store's writer retries those.
absl::StatusCode CodeFor(int sqlite_code) {
  switch (sqlite_code & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return absl::StatusCode::kDataLoss;
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return absl::StatusCode::kFailedPrecondition;
    default:
      return absl::StatusCode::kUnavailable;
  }
}

// Makes a new, empty file at `path` that only its owner may read and
// write: kAlreadyExists if there is one.
absl::Status CreatePrivateFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int error = errno;
    return absl::Status(
        error == EEXIST ? absl::StatusCode::kAlreadyExists : absl::StatusCode::kUnavailable,
        absl::StrCat("cannot create ", path, ": ", std::strerror(error)));
  }
  ::close(fd);
  return absl::OkStatus();
}

// Makes the directories missing from `path`'s (a file's) folder, each
// 0700; those that exist keep their mode.
absl::Status MakePrivateDirectories(const std::string& path) {
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (folder.empty()) return absl::OkStatus();
  std::filesystem::path made;
  for (const std::filesystem::path& part : folder) {
    made /= part;
    if (::mkdir(made.c_str(), 0700) != 0 && errno != EEXIST) {
      return absl::UnavailableError(absl::StrCat("cannot make the directory ", made.string(), " (",
                                                 std::strerror(errno), ") for ", path));
    }
  }
  return absl::OkStatus();
}

// Takes the permissions of group and others from the database at `path`
// and its -wal and -shm, where it has any; says what it did.
std::vector<std::string> TightenModes(const std::string& path) {
  std::vector<std::string> notices;
  for (const std::string& file : {path, path + "-wal", path + "-shm"}) {
    struct stat info;
    if (::stat(file.c_str(), &info) != 0 || (info.st_mode & 077) == 0) continue;
    const mode_t was = info.st_mode & 07777;
    const mode_t tight = was & ~static_cast<mode_t>(077);
    if (::chmod(file.c_str(), tight) == 0) {
      notices.push_back(absl::StrCat(
          "the permissions of ", file, " were ", absl::StrFormat("%04o", was), "; tightened to ",
          absl::StrFormat("%04o", tight), " (it holds sealed seeds and bot key hashes)"));
    } else {
      notices.push_back(absl::StrCat(file, " may be read by others (mode ",
                                     absl::StrFormat("%04o", was), ") and cannot be tightened (",
                                     std::strerror(errno), "): make it 0600"));
    }
  }
  return notices;
}

constexpr const char* kNowMs = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";

// Every statement the store runs, prepared once and kept.
class StatementCache {
 public:
  explicit StatementCache(sqlite3* db) : db_(db) {}
  ~StatementCache() { Clear(); }
  void Clear() {
    for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
    cache_.clear();
  }
  // The statement for `sql`, or null if it cannot be prepared.
  sqlite3_stmt* Get(absl::string_view sql) {
    auto it = cache_.find(sql);
    if (it != cache_.end()) return it->second;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                           &stmt, nullptr) != SQLITE_OK) {
      sqlite3_finalize(stmt);
      return nullptr;
    }
    cache_.emplace(sql, stmt);
    return stmt;
  }

 private:
  sqlite3* const db_;
  absl::flat_hash_map<std::string, sqlite3_stmt*> cache_;
};

// One use of a cached statement: reset, its bindings cleared, when it goes.
class Statement {
 public:
  Statement(StatementCache& cache, absl::string_view sql) : stmt_(cache.Get(sql)) {}
  ~Statement() {
    if (stmt_ != nullptr) {
      sqlite3_reset(stmt_);
      sqlite3_clear_bindings(stmt_);
    }
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool ok() const { return stmt_ != nullptr; }
  Statement& BindNull(int i) {
    sqlite3_bind_null(stmt_, i);
    return *this;
  }
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
  // Binds `bytes` without a copy: they must stay as they are until this
  // statement has stepped for the last time.
  Statement& BindKeptBlob(int i, const std::string& bytes) {
    sqlite3_bind_blob(stmt_, i, bytes.data(), static_cast<int>(bytes.size()), SQLITE_STATIC);
    return *this;
  }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return sqlite3_step(stmt_); }
  std::int64_t Int(int column) { return sqlite3_column_int64(stmt_, column); }
  double Double(int column) { return sqlite3_column_double(stmt_, column); }
  std::string Text(int column) {
    const unsigned char* text = sqlite3_column_text(stmt_, column);
    return text == nullptr ? std::string()
                           : std::string(reinterpret_cast<const char*>(text),
                                         sqlite3_column_bytes(stmt_, column));
  }
  std::string Blob(int column) {
    const void* data = sqlite3_column_blob(stmt_, column);
    const int size = sqlite3_column_bytes(stmt_, column);
    return data == nullptr ? std::string() : std::string(static_cast<const char*>(data), size);
  }

 private:
  sqlite3_stmt* const stmt_;
};

class SqliteStore final : public MatchStore {
 public:
  SqliteStore(sqlite3* db, std::string path, bool read_only, std::vector<std::string> notices)
      : db_(db), path_(std::move(path)), read_only_(read_only) {
    notices_ = std::move(notices);
  }
  ~SqliteStore() override {
    statements_.Clear();
    sqlite3_close_v2(db_);
  }

  absl::Status Migrate() {
    absl::MutexLock lock(&mu_);
    if (absl::Status s =
            Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
        !s.ok()) {
      return absl::DataLossError(absl::StrCat(path_, " is not a Hoard database: ", s.message()));
    }
    if (absl::Status s = Exec("CREATE TABLE IF NOT EXISTS schema_migrations ("
                              "version INTEGER PRIMARY KEY, applied_at_ms INTEGER NOT NULL)");
        !s.ok()) {
      return s;
    }
    std::int64_t version = 0;
    {
      // Reset before the migrations run: a table cannot be dropped while a
      // statement reads.
      Statement current(statements_, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
      if (!current.ok() || current.Step() != SQLITE_ROW) {
        return Error("reading the schema version");
      }
      version = current.Int(0);
    }
    const std::int64_t known = static_cast<std::int64_t>(MigrationCount());
    if (version > known) {
      return absl::FailedPreconditionError(absl::StrCat(path_, " has schema version ", version,
                                                        ", newer than this build's ", known));
    }
    for (std::int64_t next = version + 1; next <= known; ++next) {
      const std::string sql = absl::StrCat(
          "BEGIN; ", Migrations()[next - 1].sqlite, "; INSERT INTO schema_migrations VALUES (",
          next, ", ", kNowMs, "); PRAGMA application_id = ", kHoardApplicationId,
          "; PRAGMA user_version = ", next, "; COMMIT;");
      if (absl::Status s = Exec(sql.c_str()); !s.ok()) {
        Exec("ROLLBACK").IgnoreError();
        return absl::Status(s.code(), absl::StrCat("migration ", next, ": ", s.message()));
      }
    }
    // A database from before the marks were kept gets them; every start
    // proves the file takes a write before any match depends on it.
    const std::string mark =
        absl::StrCat("BEGIN IMMEDIATE; PRAGMA application_id = ", kHoardApplicationId,
                     "; PRAGMA user_version = ", known, "; COMMIT;");
    if (absl::Status s = Exec(mark.c_str()); !s.ok()) {
      Exec("ROLLBACK").IgnoreError();
      return absl::FailedPreconditionError(
          absl::StrCat(path_, " cannot be written (", s.message(),
                       "): check the file's and its directory's permissions and free space"));
    }
    return absl::OkStatus();
  }

  // Notes which -wal and -shm files beside the path are this connection's:
  // once it has written, they stay the same files until it closes.
  void RememberWalFiles() {
    absl::MutexLock lock(&mu_);
    for (const std::string& file : {path_ + "-wal", path_ + "-shm"}) {
      struct stat info;
      if (::stat(file.c_str(), &info) == 0) own_wal_files_[file] = {info.st_dev, info.st_ino};
    }
  }

  absl::Status CheckFile() override {
    absl::MutexLock lock(&mu_);
    return CheckFileLocked();
  }

  absl::Status SaveFinished(std::int64_t sequence, const hoard::v1::Match& match,
                            const hoard::v1::MatchRecord& record,
                            const TournamentSlot* slot) override {
    absl::MutexLock lock(&mu_);
    const absl::Time started = absl::Now();
    RETURN_IF_ERROR(CheckFileLocked());
    if (absl::Status s = Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
    absl::Status status = InsertLocked(sequence, match, record, slot);
    if (!status.ok()) {
      Exec("ROLLBACK").IgnoreError();
      return status;
    }
    absl::Status committed = Exec("COMMIT");
    if (!committed.ok()) {
      Exec("ROLLBACK").IgnoreError();  // as a failed batch: nothing of it stays
      return committed;
    }
    ObserveCommit(started, 1);
    return committed;
  }

  std::vector<absl::Status> SaveFinishedBatch(
      const std::vector<const FinishedResult*>& results) override {
    absl::MutexLock lock(&mu_);
    std::vector<absl::Status> statuses(results.size());
    auto all = [&](const absl::Status& error) {
      std::fill(statuses.begin(), statuses.end(), error);
      return statuses;
    };
    const absl::Time started = absl::Now();
    if (absl::Status s = CheckFileLocked(); !s.ok()) return all(s);
    if (absl::Status s = Exec("BEGIN IMMEDIATE"); !s.ok()) return all(s);
    for (std::size_t i = 0; i < results.size(); ++i) {
      // A savepoint each: one already stored leaves the others in.
      if (absl::Status s = Exec("SAVEPOINT one"); !s.ok()) {
        Exec("ROLLBACK").IgnoreError();
        return all(s);
      }
      const FinishedResult& result = *results[i];
      statuses[i] = InsertLocked(result.sequence, result.match, result.record,
                                 result.slot ? &*result.slot : nullptr);
      if (statuses[i].code() == absl::StatusCode::kAlreadyExists) {
        Exec("ROLLBACK TO one").IgnoreError();
      } else if (!statuses[i].ok()) {
        const absl::Status error = statuses[i];
        Exec("ROLLBACK").IgnoreError();
        return all(error);
      }
      if (absl::Status s = Exec("RELEASE one"); !s.ok()) {
        Exec("ROLLBACK").IgnoreError();
        return all(s);
      }
    }
    if (absl::Status s = Exec("COMMIT"); !s.ok()) {
      Exec("ROLLBACK").IgnoreError();
      return all(s);
    }
    ObserveCommit(started,
                  static_cast<int>(std::count_if(statuses.begin(), statuses.end(),
                                                 [](const absl::Status& s) { return s.ok(); })));
    return statuses;
  }

  absl::StatusOr<std::optional<StoredMatch>> Get(const std::string& id) override {
    absl::MutexLock lock(&mu_);
    Statement select(statements_, "SELECT sequence, summary FROM matches WHERE id = ?");
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

  absl::StatusOr<std::optional<hoard::v1::MatchRecord>> GetRecord(const std::string& id) override {
    absl::MutexLock lock(&mu_);
    Statement select(statements_, "SELECT record FROM match_records WHERE match_id = ?");
    if (!select.ok()) return Error("reading a record");
    select.Bind(1, id);
    const int step = select.Step();
    if (step == SQLITE_DONE) return std::optional<hoard::v1::MatchRecord>();
    if (step != SQLITE_ROW) return Error("reading a record");
    hoard::v1::MatchRecord record;
    if (!record.ParseFromString(select.Blob(0))) {
      return absl::DataLossError(
          absl::StrCat(path_, ": the record of ", id, " cannot be read back"));
    }
    return std::optional<hoard::v1::MatchRecord>(std::move(record));
  }

  absl::StatusOr<std::vector<StoredMatch>> List(std::int64_t after, int limit,
                                                const MatchFilter& filter) override {
    absl::MutexLock lock(&mu_);
    const auto [rated_name, rated_version] = SplitBotName(filter.rated_bot);
    const auto [bot_name, bot_version] = SplitBotName(filter.bot);
    // A seat of a registered bot (filter.bot) or of any bot by its name
    // (filter.rated_bot, built-in ones too), both found through seats_by_bot.
    Statement select(statements_,
                     "SELECT sequence, summary FROM matches WHERE sequence > ?1 "
                     "AND (?2 = '' OR game = ?2) "
                     "AND (?3 = '' OR id IN (SELECT s.match_id FROM seats s JOIN bots b "
                     "ON b.id = s.bot_id WHERE b.name = ?8 AND b.version = ?9 "
                     "AND s.player = 'bot:' || ?3)) "
                     "AND (?5 = 0 OR tournament_id = ?5) "
                     "AND (?6 = '' OR id IN (SELECT s.match_id FROM seats s JOIN bots b "
                     "ON b.id = s.bot_id WHERE b.name = ?6 AND b.version = ?7)) "
                     "ORDER BY sequence LIMIT ?4");
    if (!select.ok()) return Error("listing matches");
    select.Bind(1, after).Bind(2, filter.game).Bind(3, filter.bot).Bind(4, std::int64_t{limit});
    select.Bind(5, filter.tournament_id).Bind(6, rated_name).Bind(7, rated_version);
    select.Bind(8, bot_name).Bind(9, bot_version);
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
    Statement select(statements_, "SELECT COALESCE(MAX(sequence), 0) FROM matches");
    if (!select.ok() || select.Step() != SQLITE_ROW) return Error("reading the last match");
    return select.Int(0);
  }

  absl::StatusOr<std::int64_t> ReserveSequences(int count) override {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(CheckFileLocked());
    if (absl::Status s = Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
    absl::StatusOr<std::int64_t> first = ReserveLocked(count);
    if (!first.ok()) {
      Exec("ROLLBACK").IgnoreError();
      return first.status();
    }
    if (absl::Status s = Exec("COMMIT"); !s.ok()) {
      Exec("ROLLBACK").IgnoreError();
      return s;
    }
    return first;
  }

  absl::StatusOr<std::int64_t> CreateTournament(const hoard::v1::TournamentSpec& spec,
                                                const std::string& spec_hash, int scheduled,
                                                const std::string& seed_salt) override {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(CheckFileLocked());
    Statement insert(
        statements_,
        absl::StrCat(
            "INSERT INTO tournaments (name, game, spec, spec_hash, status, error, scheduled, "
            "created_at_ms, updated_at_ms, seed_salt) VALUES (?, ?, ?, ?, ?, '', ?, ",
            kNowMs, ", ", kNowMs, ", ?)")
            .c_str());
    if (!insert.ok()) return Error("storing a tournament");
    insert.Bind(1, spec.name())
        .Bind(2, spec.game())
        .BindBlob(3, spec.SerializeAsString())
        .Bind(4, spec_hash)
        .Bind(5, hoard::v1::TournamentStatus_Name(hoard::v1::TOURNAMENT_STATUS_RUNNING))
        .Bind(6, std::int64_t{scheduled})
        .Bind(7, seed_salt);
    if (insert.Step() != SQLITE_DONE) return Error("storing a tournament");
    return static_cast<std::int64_t>(sqlite3_last_insert_rowid(db_));
  }

  absl::StatusOr<std::optional<StoredTournament>> GetTournament(std::int64_t id) override {
    absl::MutexLock lock(&mu_);
    ASSIGN_OR_RETURN(std::vector<StoredTournament> found,
                     TournamentsLocked("WHERE id = ?1", id, ""));
    if (found.empty()) return std::optional<StoredTournament>();
    return std::optional<StoredTournament>(std::move(found[0]));
  }

  absl::StatusOr<std::optional<StoredTournament>> FindTournament(
      const std::string& spec_hash) override {
    absl::MutexLock lock(&mu_);
    ASSIGN_OR_RETURN(
        std::vector<StoredTournament> found,
        TournamentsLocked("WHERE spec_hash = ?2 ORDER BY id DESC LIMIT 1", 0, spec_hash));
    if (found.empty()) return std::optional<StoredTournament>();
    return std::optional<StoredTournament>(std::move(found[0]));
  }

  absl::StatusOr<std::vector<StoredTournament>> ListTournaments() override {
    absl::MutexLock lock(&mu_);
    return TournamentsLocked("ORDER BY id DESC", 0, "");
  }

  absl::Status SetTournamentStatus(std::int64_t id, hoard::v1::TournamentStatus status,
                                   const std::string& error) override {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(CheckFileLocked());
    Statement update(statements_, absl::StrCat("UPDATE tournaments SET status = ?, error = ?, "
                                               "updated_at_ms = ",
                                               kNowMs, " WHERE id = ?")
                                      .c_str());
    if (!update.ok()) return Error("updating a tournament");
    update.Bind(1, hoard::v1::TournamentStatus_Name(status)).Bind(2, error).Bind(3, id);
    if (update.Step() != SQLITE_DONE) return Error("updating a tournament");
    if (sqlite3_changes(db_) == 0) {
      return absl::NotFoundError(absl::StrCat("no tournament ", id));
    }
    return absl::OkStatus();
  }

  absl::Status PutBotAccount(const BotAccount& account) override {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(CheckFileLocked());
    Statement upsert(statements_,
                     absl::StrCat("INSERT INTO bot_accounts (name, key_hash, launched, "
                                  "created_at_ms) VALUES (?, ?, ?, ",
                                  kNowMs,
                                  ") ON CONFLICT (name) DO UPDATE SET key_hash = "
                                  "excluded.key_hash, launched = excluded.launched"));
    if (!upsert.ok()) return Error("storing a bot account");
    upsert.Bind(1, account.name)
        .Bind(2, account.key_hash)
        .Bind(3, static_cast<std::int64_t>(account.launched));
    if (upsert.Step() != SQLITE_DONE) return Error("storing a bot account");
    return absl::OkStatus();
  }

  absl::Status DeleteBotAccount(const std::string& name) override {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(CheckFileLocked());
    Statement remove(statements_, "DELETE FROM bot_accounts WHERE name = ?");
    if (!remove.ok()) return Error("deleting a bot account");
    remove.Bind(1, name);
    if (remove.Step() != SQLITE_DONE) return Error("deleting a bot account");
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<BotAccount>> BotAccounts() override {
    absl::MutexLock lock(&mu_);
    Statement select(statements_,
                     "SELECT name, key_hash, launched FROM bot_accounts ORDER BY name");
    if (!select.ok()) return Error("reading bot accounts");
    std::vector<BotAccount> accounts;
    for (int step = select.Step(); step != SQLITE_DONE; step = select.Step()) {
      if (step != SQLITE_ROW) return Error("reading bot accounts");
      accounts.push_back(
          {.name = select.Text(0), .key_hash = select.Text(1), .launched = select.Int(2) != 0});
    }
    return accounts;
  }

  absl::StatusOr<std::vector<int>> StoredSlots(std::int64_t tournament_id) override {
    absl::MutexLock lock(&mu_);
    Statement select(statements_,
                     "SELECT schedule_index FROM matches WHERE tournament_id = ? "
                     "ORDER BY schedule_index");
    if (!select.ok()) return Error("reading a tournament's matches");
    select.Bind(1, tournament_id);
    std::vector<int> slots;
    for (int step = select.Step(); step != SQLITE_DONE; step = select.Step()) {
      if (step != SQLITE_ROW) return Error("reading a tournament's matches");
      slots.push_back(static_cast<int>(select.Int(0)));
    }
    return slots;
  }

  absl::StatusOr<bool> ClaimSlot(std::int64_t tournament_id, int schedule_index,
                                 const std::string& holder, absl::Duration ttl) override {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(CheckFileLocked());
    Statement claim(
        statements_,
        absl::StrCat(
            "INSERT INTO slot_leases (tournament_id, schedule_index, holder, expires_at_ms) "
            "SELECT ?1, ?2, ?3, ",
            kNowMs,
            " + ?4 WHERE NOT EXISTS (SELECT 1 FROM matches "
            "WHERE tournament_id = ?1 AND schedule_index = ?2) "
            "ON CONFLICT (tournament_id, schedule_index) DO UPDATE SET holder = excluded.holder, "
            "expires_at_ms = excluded.expires_at_ms WHERE slot_leases.holder = excluded.holder "
            "OR slot_leases.expires_at_ms < ",
            kNowMs));
    if (!claim.ok()) return Error("leasing a slot");
    claim.Bind(1, tournament_id)
        .Bind(2, std::int64_t{schedule_index})
        .Bind(3, holder)
        .Bind(4, absl::ToInt64Milliseconds(ttl));
    if (claim.Step() != SQLITE_DONE) return Error("leasing a slot");
    return sqlite3_changes(db_) > 0;
  }

  absl::Status RenewLeases(const std::string& holder, absl::Duration ttl) override {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(CheckFileLocked());
    // The leases of slots stored since go: renewals touch only the slots in play.
    Statement done(statements_,
                   "DELETE FROM slot_leases WHERE holder = ?1 AND EXISTS (SELECT 1 FROM matches m "
                   "WHERE m.tournament_id = slot_leases.tournament_id "
                   "AND m.schedule_index = slot_leases.schedule_index)");
    if (!done.ok()) return Error("renewing leases");
    done.Bind(1, holder);
    if (done.Step() != SQLITE_DONE) return Error("renewing leases");
    Statement renew(statements_, absl::StrCat("UPDATE slot_leases SET expires_at_ms = ", kNowMs,
                                              " + ?2 WHERE holder = ?1"));
    if (!renew.ok()) return Error("renewing leases");
    renew.Bind(1, holder).Bind(2, absl::ToInt64Milliseconds(ttl));
    if (renew.Step() != SQLITE_DONE) return Error("renewing leases");
    return absl::OkStatus();
  }

  absl::Status ReleaseLeases(std::int64_t tournament_id, const std::string& holder) override {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(CheckFileLocked());
    Statement release(statements_,
                      "DELETE FROM slot_leases WHERE tournament_id = ? AND holder = ?");
    if (!release.ok()) return Error("ending leases");
    release.Bind(1, tournament_id).Bind(2, holder);
    if (release.Step() != SQLITE_DONE) return Error("ending leases");
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<RatedMatch>> RatedMatches(const RatingScope& scope) override {
    absl::MutexLock lock(&mu_);
    Statement select(statements_,
                     "SELECT m.sequence, COALESCE(m.tournament_id, 0), COALESCE(m.block, 0), "
                     "s.rank, s.score, b.name, b.version, COALESCE(m.schedule_index, 0), "
                     "s.timeouts, s.forfeited, s.disconnects, s.player LIKE 'builtin:%' "
                     "FROM matches m "
                     "JOIN seats s ON s.match_id = m.id JOIN bots b ON b.id = s.bot_id "
                     "WHERE m.game = ?1 AND (?2 = 0 OR m.tournament_id = ?2) "
                     "AND m.status = 'MATCH_STATUS_FINISHED' ORDER BY m.rowid, s.seat");
    if (!select.ok()) return Error("reading results");
    select.Bind(1, scope.game).Bind(2, scope.tournament_id);
    std::vector<RatedMatch> matches;
    for (int step = select.Step(); step != SQLITE_DONE; step = select.Step()) {
      if (step != SQLITE_ROW) return Error("reading results");
      const std::int64_t sequence = select.Int(0);
      if (matches.empty() || matches.back().sequence != sequence) {
        RatedMatch match;
        match.sequence = sequence;
        match.tournament_id = select.Int(1);
        match.block = match.tournament_id != 0 ? select.Int(2) : sequence;
        match.schedule_index = select.Int(7);
        matches.push_back(std::move(match));
      }
      matches.back().seats.push_back({.bot = engine::JoinBotName(select.Text(5), select.Text(6)),
                                      .rank = static_cast<int>(select.Int(3)),
                                      .score = select.Double(4),
                                      .timeouts = static_cast<int>(select.Int(8)),
                                      .forfeited = select.Int(9) != 0,
                                      .disconnects = static_cast<int>(select.Int(10)),
                                      .builtin = select.Int(11) != 0});
    }
    return matches;
  }

  absl::StatusOr<std::int64_t> ScopeVersion(const RatingScope& scope) override {
    absl::MutexLock lock(&mu_);
    // The rowid grows with every insert: the newest match in scope.
    Statement select(statements_,
                     scope.tournament_id != 0
                         ? "SELECT COALESCE(MAX(rowid), 0) FROM matches "
                           "WHERE tournament_id = ?2"
                         : "SELECT COALESCE(MAX(rowid), 0) FROM matches WHERE game = ?1");
    if (!select.ok()) return Error("reading results");
    if (scope.tournament_id != 0) {
      select.Bind(2, scope.tournament_id);
    } else {
      select.Bind(1, scope.game);
    }
    if (select.Step() != SQLITE_ROW) return Error("reading results");
    return select.Int(0);
  }

  absl::Status SaveRatingSnapshot(const RatingScope& scope, std::int64_t version,
                                  const hoard::v1::RatingSnapshot& snapshot) override {
    // A snapshot only saves work next time; a read-only store computes anew.
    if (read_only_) return absl::OkStatus();
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(CheckFileLocked());
    Statement insert(
        statements_,
        absl::StrCat("INSERT OR REPLACE INTO rating_snapshots (game, tournament_id, version, "
                     "computed_at_ms, snapshot) VALUES (?, ?, ?, ",
                     kNowMs, ", ?)")
            .c_str());
    if (!insert.ok()) return Error("storing ratings");
    insert.Bind(1, scope.game)
        .Bind(2, scope.tournament_id)
        .Bind(3, version)
        .BindBlob(4, snapshot.SerializeAsString());
    if (insert.Step() != SQLITE_DONE) return Error("storing ratings");
    // Only the newest snapshot of a scope is ever read.
    Statement prune(statements_,
                    "DELETE FROM rating_snapshots WHERE game = ? AND tournament_id = ? "
                    "AND version < ?");
    if (!prune.ok()) return Error("pruning ratings");
    prune.Bind(1, scope.game).Bind(2, scope.tournament_id).Bind(3, version);
    if (prune.Step() != SQLITE_DONE) return Error("pruning ratings");
    return absl::OkStatus();
  }

  absl::StatusOr<std::optional<std::pair<std::int64_t, hoard::v1::RatingSnapshot>>>
  LatestRatingSnapshot(const RatingScope& scope) override {
    using Result = std::optional<std::pair<std::int64_t, hoard::v1::RatingSnapshot>>;
    absl::MutexLock lock(&mu_);
    Statement select(statements_,
                     "SELECT version, snapshot FROM rating_snapshots WHERE game = ? "
                     "AND tournament_id = ? ORDER BY version DESC LIMIT 1");
    if (!select.ok()) return Error("reading ratings");
    select.Bind(1, scope.game).Bind(2, scope.tournament_id);
    const int step = select.Step();
    if (step == SQLITE_DONE) return Result();
    if (step != SQLITE_ROW) return Error("reading ratings");
    std::pair<std::int64_t, hoard::v1::RatingSnapshot> latest;
    latest.first = select.Int(0);
    if (!latest.second.ParseFromString(select.Blob(1))) {
      return absl::DataLossError(absl::StrCat(path_, ": a rating snapshot cannot be read back"));
    }
    return Result(std::move(latest));
  }

 private:
  // Tournaments selected by `where` (which may use ?1 = id, ?2 = hash).
  absl::StatusOr<std::vector<StoredTournament>> TournamentsLocked(const char* where,
                                                                  std::int64_t id,
                                                                  const std::string& hash)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    Statement select(statements_,
                     absl::StrCat("SELECT id, spec, spec_hash, status, error, scheduled, "
                                  "created_at_ms, updated_at_ms, seed_salt FROM tournaments ",
                                  where)
                         .c_str());
    if (!select.ok()) return Error("reading tournaments");
    if (std::string(where).find("?1") != std::string::npos) select.Bind(1, id);
    if (std::string(where).find("?2") != std::string::npos) select.Bind(2, hash);
    std::vector<StoredTournament> tournaments;
    for (int step = select.Step(); step != SQLITE_DONE; step = select.Step()) {
      if (step != SQLITE_ROW) return Error("reading tournaments");
      StoredTournament t;
      t.id = select.Int(0);
      if (!t.spec.ParseFromString(select.Blob(1))) {
        return absl::DataLossError(
            absl::StrCat(path_, ": tournament ", t.id, " cannot be read back"));
      }
      t.spec_hash = select.Text(2);
      if (!hoard::v1::TournamentStatus_Parse(select.Text(3), &t.status)) {
        return absl::DataLossError(absl::StrCat(path_, ": tournament ", t.id,
                                                " has an unknown status '", select.Text(3), "'"));
      }
      t.error = select.Text(4);
      t.scheduled = static_cast<int>(select.Int(5));
      t.created_unix_ms = select.Int(6);
      t.updated_unix_ms = select.Int(7);
      t.seed_salt = select.Text(8);
      tournaments.push_back(std::move(t));
    }
    return tournaments;
  }

  absl::StatusOr<std::int64_t> ReserveLocked(int count) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    Statement select(statements_,
                     "SELECT MAX(COALESCE((SELECT value FROM counters WHERE name = "
                     "'next_sequence'), 1), COALESCE((SELECT MAX(sequence) FROM matches), 0) + 1)");
    if (!select.ok() || select.Step() != SQLITE_ROW) return Error("reserving match ids");
    const std::int64_t first = select.Int(0);
    Statement update(statements_,
                     "INSERT INTO counters (name, value) VALUES ('next_sequence', ?) "
                     "ON CONFLICT (name) DO UPDATE SET value = excluded.value");
    if (!update.ok()) return Error("reserving match ids");
    update.Bind(1, first + count);
    if (update.Step() != SQLITE_DONE) return Error("reserving match ids");
    return first;
  }

  absl::Status InsertLocked(std::int64_t sequence, hoard::v1::Match match,
                            const hoard::v1::MatchRecord& record, const TournamentSlot* slot)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (sequence == 0) {
      // From the reserved numbers too, so that no server is given it.
      ASSIGN_OR_RETURN(sequence, ReserveLocked(1));
      if (match.match_id().empty()) match.set_match_id(absl::StrCat("m", sequence));
    }
    if (slot != nullptr) {
      match.set_tournament_id(slot->tournament_id);
      match.set_schedule_index(slot->schedule_index);
    }
    static const std::string kInsertMatch = absl::StrCat(
        "INSERT INTO matches (id, sequence, game, ruleset_version, seed, status, actions, "
        "stored_at_ms, summary, tournament_id, schedule_index, block, started_at_ms, "
        "finished_at_ms, seed_salt) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ",
        kNowMs, ", ?8, ?9, ?10, ?11, ?12, ?13, ?14)");
    Statement insert(statements_, kInsertMatch);
    if (!insert.ok()) return Error("storing a match");
    const std::string summary = match.SerializeAsString();
    insert.Bind(1, match.match_id())
        .Bind(2, sequence)
        .Bind(3, match.game())
        .Bind(4, match.ruleset_version())
        .Bind(5, static_cast<std::int64_t>(match.seed()))
        .Bind(6, hoard::v1::MatchStatus_Name(match.status()))
        .Bind(7, std::int64_t{match.actions()})
        .BindKeptBlob(8, summary)
        .Bind(12, match.started_unix_ms())
        .Bind(13, match.finished_unix_ms())
        .Bind(14, match.seed_salt());
    if (slot != nullptr) {
      insert.Bind(9, slot->tournament_id)
          .Bind(10, std::int64_t{slot->schedule_index})
          .Bind(11, slot->block);
    } else {
      insert.BindNull(9).BindNull(10).BindNull(11);
    }
    if (const int step = insert.Step(); step != SQLITE_DONE) {
      if (step == SQLITE_CONSTRAINT) {
        if (slot != nullptr) {
          return absl::AlreadyExistsError(absl::StrCat("match ", match.match_id(), " or slot ",
                                                       slot->schedule_index, " of tournament ",
                                                       slot->tournament_id, " is already stored"));
        }
        Statement same(statements_, "SELECT 1 FROM matches WHERE id = ?");
        if (!same.ok()) return Error("storing a match");
        same.Bind(1, match.match_id());
        if (same.Step() == SQLITE_ROW) {
          return absl::AlreadyExistsError(
              absl::StrCat("match ", match.match_id(), " is already stored"));
        }
        // Not this match: another holds its number.
        return absl::FailedPreconditionError(absl::StrCat("match ", match.match_id(),
                                                          " cannot be stored: its sequence ",
                                                          sequence, " belongs to another match"));
      }
      return Error("storing a match");
    }
    for (const hoard::v1::SeatInfo& seat : match.seats()) {
      Statement row(statements_,
                    "INSERT INTO seats (match_id, seat, player, score, rank, timeouts, "
                    "illegal_answers, forfeited, bot_id, disconnects) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
      if (!row.ok()) return Error("storing a seat");
      if (auto bot = SeatBot(seat.player())) {
        ASSIGN_OR_RETURN(const std::int64_t bot_id, BotIdLocked(bot->first, bot->second));
        row.Bind(9, bot_id);
      } else {
        row.BindNull(9);
      }
      row.Bind(1, match.match_id())
          .Bind(2, std::int64_t{seat.seat()})
          .Bind(3, seat.player())
          .Bind(4, seat.score())
          .Bind(5, std::int64_t{seat.rank()})
          .Bind(6, std::int64_t{seat.timeouts()})
          .Bind(7, std::int64_t{seat.illegal_answers()})
          .Bind(8, std::int64_t{seat.forfeited() ? 1 : 0})
          .Bind(10, std::int64_t{seat.disconnects()});
      if (row.Step() != SQLITE_DONE) return Error("storing a seat");
    }
    // An aborted match keeps no record: it never finished, and its deal may
    // be played again.
    if (match.status() == hoard::v1::MATCH_STATUS_ABORTED) return absl::OkStatus();
    Statement insert_record(statements_,
                            "INSERT INTO match_records (match_id, record) VALUES (?, ?)");
    if (!insert_record.ok()) return Error("storing a record");
    const std::string bytes = record.SerializeAsString();
    insert_record.Bind(1, match.match_id()).BindKeptBlob(2, bytes);
    if (insert_record.Step() != SQLITE_DONE) return Error("storing a record");
    return absl::OkStatus();
  }

  absl::StatusOr<std::int64_t> BotIdLocked(const std::string& name, const std::string& version)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const std::pair<std::string, std::string> key(name, version);
    if (auto it = bot_ids_.find(key); it != bot_ids_.end()) return it->second;
    Statement insert(statements_, "INSERT OR IGNORE INTO bots (name, version) VALUES (?, ?)");
    if (!insert.ok()) return Error("storing a bot");
    insert.Bind(1, name).Bind(2, version);
    if (insert.Step() != SQLITE_DONE) return Error("storing a bot");
    Statement select(statements_, "SELECT id FROM bots WHERE name = ? AND version = ?");
    if (!select.ok()) return Error("reading a bot");
    select.Bind(1, name).Bind(2, version);
    if (select.Step() != SQLITE_ROW) return Error("reading a bot");
    return bot_ids_[key] = select.Int(0);
  }

  // kFailedPrecondition, for good, once the file at path_ is no longer the
  // one this connection has open; the first time, after a copy is made.
  absl::Status CheckFileLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!lost_.ok()) return lost_;
    int moved = 0;
    // SQLite compares the inode it opened with the one at its path now (a
    // stat); a database in memory answers SQLITE_NOTFOUND.
    if (sqlite3_file_control(db_, "main", SQLITE_FCNTL_HAS_MOVED, &moved) != SQLITE_OK ||
        moved == 0) {
      return absl::OkStatus();
    }
    struct stat now;
    const bool deleted = ::stat(path_.c_str(), &now) != 0 && errno == ENOENT;
    const std::string rescued = RescueLocked();
    // This connection's -wal and -shm, still beside the path, would be read
    // as those of whatever file is put there: they go (it keeps them open).
    for (const auto& [file, id] : own_wal_files_) {
      struct stat info;
      if (::stat(file.c_str(), &info) == 0 && info.st_dev == id.first && info.st_ino == id.second) {
        ::unlink(file.c_str());
      }
    }
    lost_ = absl::FailedPreconditionError(absl::StrCat(
        "the database ", path_, deleted ? " was deleted" : " was replaced by another file",
        " while in use, so nothing more is written to it (it would be lost with the ",
        deleted ? "deleted" : "replaced", " file); ", rescued,
        "; put the database you mean to keep back at ", path_, " and start again"));
    return lost_;
  }

  // Copies the database as this connection sees it to a new file beside
  // path_; says where, or why it could not.
  std::string RescueLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::string copy = absl::StrCat(path_, ".rescued");
    absl::Status made = CreatePrivateFile(copy);
    if (made.code() == absl::StatusCode::kAlreadyExists) {
      copy = absl::StrCat(path_, ".rescued-", absl::ToUnixSeconds(absl::Now()));
      made = CreatePrivateFile(copy);
    }
    if (!made.ok()) {
      return absl::StrCat("no copy of what it held could be made (", made.message(), ")");
    }
    sqlite3* to = nullptr;
    int rc = sqlite3_open_v2(copy.c_str(), &to, SQLITE_OPEN_READWRITE, nullptr);
    if (rc == SQLITE_OK) {
      sqlite3_backup* backup = sqlite3_backup_init(to, "main", db_, "main");
      rc = backup == nullptr ? sqlite3_errcode(to) : sqlite3_backup_step(backup, -1);
      if (backup != nullptr) sqlite3_backup_finish(backup);
    }
    const std::string error = rc == SQLITE_DONE ? "" : sqlite3_errstr(rc);
    sqlite3_close_v2(to);
    if (!error.empty()) {
      std::remove(copy.c_str());
      return absl::StrCat("no copy of what it held could be made (", error, ")");
    }
    return absl::StrCat("everything it committed is copied to ", copy);
  }

  absl::Status Exec(const char* sql) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    // A rollback may take back bots inserted since the cache learnt them.
    if (absl::StartsWith(sql, "ROLLBACK")) bot_ids_.clear();
    char* message = nullptr;
    if (const int code = sqlite3_exec(db_, sql, nullptr, nullptr, &message); code != SQLITE_OK) {
      absl::Status status(
          CodeFor(code), absl::StrCat(path_, ": ", message != nullptr ? message : "unknown error"));
      sqlite3_free(message);
      return status;
    }
    return absl::OkStatus();
  }

  absl::Status Error(const std::string& what) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return absl::Status(CodeFor(sqlite3_errcode(db_)),
                        absl::StrCat(path_, ": ", what, ": ", sqlite3_errmsg(db_)));
  }

  absl::Mutex mu_;
  sqlite3* const db_;
  const std::string path_;
  StatementCache statements_ ABSL_GUARDED_BY(mu_){db_};
  // (name, version) -> bots.id, as stored in this connection's view.
  absl::flat_hash_map<std::pair<std::string, std::string>, std::int64_t> bot_ids_
      ABSL_GUARDED_BY(mu_);
  const bool read_only_;
  // Set once the file at path_ is found deleted or replaced.
  absl::Status lost_ ABSL_GUARDED_BY(mu_);
  // The -wal and -shm files this connection has open: path -> (st_dev, st_ino).
  std::map<std::string, std::pair<dev_t, ino_t>> own_wal_files_ ABSL_GUARDED_BY(mu_);
};

// One text answer of `sql` on `db`, or nullopt with the error in *error.
std::optional<std::string> QueryText(sqlite3* db, const char* sql, std::string* error) {
  sqlite3_stmt* stmt = nullptr;
  std::optional<std::string> answer;
  int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW) {
    const unsigned char* text = sqlite3_column_text(stmt, 0);
    answer = text != nullptr ? reinterpret_cast<const char*>(text) : "";
  } else if (rc == SQLITE_DONE) {
    answer = "";
  } else {
    *error = sqlite3_errmsg(db);
  }
  sqlite3_finalize(stmt);
  return answer;
}

// A SQLite URI for the file at `path` with `query`.
std::string FileUri(const std::string& path, absl::string_view query) {
  std::string uri = "file:";
  for (const char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      absl::StrAppend(&uri, "%", absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
    } else {
      uri.push_back(c);
    }
  }
  return absl::StrCat(uri, "?", query);
}

// Whose database the file at `path` is and its schema version, without a
// single write: OK for a Hoard database this build can open, or an empty
// one; otherwise an error that says what is wrong.
absl::Status InspectExisting(const std::string& path, std::int64_t* version) {
  {
    char magic[16] = {};
    std::ifstream in(path, std::ios::binary);
    in.read(magic, sizeof magic);
    if (in.gcount() != sizeof magic || std::memcmp(magic, "SQLite format 3", 16) != 0) {
      return absl::DataLossError(absl::StrCat(
          path, " is not a Hoard database (not even a SQLite file); Hoard leaves it untouched"));
    }
  }
  // A database in WAL mode that a process has open keeps its latest commits
  // (its marks and schema version among them) in the -wal file beside it
  // until they are copied back: then it is read as that process sees it, as
  // a reader in WAL mode may. Otherwise it is read as an immutable file:
  // nothing is locked, created or written.
  std::error_code no_wal;
  const std::uintmax_t wal = std::filesystem::file_size(path + "-wal", no_wal);
  const bool live_wal = !no_wal && wal > 0;
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(FileUri(path, live_wal ? "mode=ro" : "immutable=1").c_str(), &db,
                                 SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
  struct Closer {
    sqlite3* db;
    ~Closer() { sqlite3_close_v2(db); }
  } closer{db};
  sqlite3_busy_timeout(db, 5000);
  std::string error = rc == SQLITE_OK ? "" : (db != nullptr ? sqlite3_errmsg(db) : "no memory");
  std::optional<std::string> id_text, version_text;
  if (rc == SQLITE_OK) id_text = QueryText(db, "PRAGMA application_id", &error);
  if (id_text.has_value()) version_text = QueryText(db, "PRAGMA user_version", &error);
  std::int64_t id = 0;
  if (!version_text.has_value() || !absl::SimpleAtoi(*id_text, &id) ||
      !absl::SimpleAtoi(*version_text, version)) {
    return absl::DataLossError(absl::StrCat(path, " cannot be read as a database (", error,
                                            "); Hoard leaves it untouched"));
  }
  if (id == 0) {
    // Unmarked: empty, a Hoard database from before the mark, or another
    // program's.
    const std::optional<std::string> tables = QueryText(
        db, "SELECT group_concat(name, ', ') FROM sqlite_master WHERE type = 'table'", &error);
    if (!tables.has_value()) {
      return absl::DataLossError(absl::StrCat(path, " cannot be read as a database (", error,
                                              "); Hoard leaves it untouched"));
    }
    *version = 0;
    if (!tables->empty()) {
      if (!absl::StrContains(absl::StrCat(", ", *tables, ", "), ", schema_migrations, ")) {
        return absl::FailedPreconditionError(
            absl::StrCat(path,
                         " is not a Hoard database: it holds another program's tables; "
                         "Hoard leaves it untouched"));
      }
      const std::optional<std::string> unmarked =
          QueryText(db, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations", &error);
      if (!unmarked.has_value() || !absl::SimpleAtoi(*unmarked, version)) {
        return absl::DataLossError(
            absl::StrCat(path, ": its schema version cannot be read (", error, ")"));
      }
    }
  } else if (id != kHoardApplicationId) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, " is not a Hoard database (it is marked as another program's, application id ", id,
        "); Hoard leaves it untouched"));
  }
  const std::int64_t known = static_cast<std::int64_t>(MigrationCount());
  if (*version > known || *version < 0) {
    return absl::FailedPreconditionError(absl::StrCat(path, " has schema version ", *version,
                                                      ", newer than this build's ", known,
                                                      ": use a newer hoard"));
  }
  return absl::OkStatus();
}

// SQLite's quick check on `db`, before anything is written to it.
absl::Status QuickCheck(sqlite3* db, const std::string& path) {
  std::string error;
  const std::optional<std::string> check = QueryText(db, "PRAGMA quick_check", &error);
  if (check.has_value() && *check == "ok") return absl::OkStatus();
  return absl::DataLossError(absl::StrCat(
      path, " fails SQLite's integrity check (", check.has_value() ? check->substr(0, 200) : error,
      "): Hoard leaves it untouched; restore it from a backup (hoard backup)"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<MatchStore>> OpenSqliteStore(const std::string& path,
                                                            StoreAccess access) {
  const bool read_only = access == StoreAccess::kReadOnly;
  const bool in_memory = path == ":memory:";
  std::error_code ignored;
  const bool exists = !in_memory && std::filesystem::exists(path, ignored);
  if (read_only && !in_memory && !exists) {
    return absl::NotFoundError(absl::StrCat("no database ", path));
  }
  const std::int64_t known = static_cast<std::int64_t>(MigrationCount());
  if (exists && std::filesystem::file_size(path, ignored) > 0) {
    std::int64_t version = 0;
    RETURN_IF_ERROR(InspectExisting(path, &version));
    if (read_only && version != known) {
      return absl::FailedPreconditionError(absl::StrCat(
          path, " has schema version ", version, ", older than this build's ", known,
          ": open it once with hoard serve or hoard tournament to bring it up to date"));
    }
  }
  // Made private before SQLite opens it: the -wal and -shm files SQLite
  // makes take the database's mode.
  std::vector<std::string> notices;
  if (!read_only && !in_memory) {
    if (exists) {
      notices = TightenModes(path);
    } else {
      RETURN_IF_ERROR(MakePrivateDirectories(path));
      if (absl::Status made = CreatePrivateFile(path);
          !made.ok() && made.code() != absl::StatusCode::kAlreadyExists) {
        return made;
      }
    }
  }
  sqlite3* db = nullptr;
  const int flags =
      (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
      SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string reason = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    return absl::UnavailableError(absl::StrCat("cannot open ", path, ": ", reason));
  }
  sqlite3_busy_timeout(db, 5000);
  if (!read_only && sqlite3_db_readonly(db, "main") == 1) {
    sqlite3_close_v2(db);
    return absl::FailedPreconditionError(
        absl::StrCat(path,
                     " is read-only: Hoard stores every result in it, so it must be writable "
                     "(check its permissions)"));
  }
  if (absl::Status check = QuickCheck(db, path); !check.ok()) {
    sqlite3_close_v2(db);
    return check;
  }
  auto store = std::make_unique<SqliteStore>(db, path, read_only, std::move(notices));
  if (!read_only) {
    RETURN_IF_ERROR(store->Migrate());
    store->RememberWalFiles();
  }
  return std::unique_ptr<MatchStore>(std::move(store));
}

namespace {

// Copies `source` into a new file `partial` and checks the copy.
absl::Status CopyAndCheck(const std::string& source, const std::string& partial,
                          const std::string& target) {
  // Closes both connections however the copy ends.
  struct Connections {
    sqlite3* from = nullptr;
    sqlite3* to = nullptr;
    ~Connections() {
      sqlite3_close_v2(from);
      sqlite3_close_v2(to);
    }
  } db;
  if (sqlite3_open_v2(source.c_str(), &db.from, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    return absl::UnavailableError(
        absl::StrCat("cannot open ", source, ": ", sqlite3_errmsg(db.from)));
  }
  if (sqlite3_open_v2(partial.c_str(), &db.to, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                      nullptr) != SQLITE_OK) {
    return absl::UnavailableError(
        absl::StrCat("cannot create ", target, ": ", sqlite3_errmsg(db.to)));
  }
  sqlite3_busy_timeout(db.from, 5000);
  sqlite3_backup* backup = sqlite3_backup_init(db.to, "main", db.from, "main");
  if (backup == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cannot back up ", source, ": ", sqlite3_errmsg(db.to)));
  }
  // 256 pages a step; a writer in between restarts the copy, which is fine.
  int step = SQLITE_OK;
  while ((step = sqlite3_backup_step(backup, 256)) == SQLITE_OK || step == SQLITE_BUSY ||
         step == SQLITE_LOCKED) {
    if (step != SQLITE_OK) sqlite3_sleep(10);
  }
  sqlite3_backup_finish(backup);
  if (step != SQLITE_DONE) {
    return absl::UnavailableError(
        absl::StrCat("backing up ", source, " failed: ", sqlite3_errstr(step)));
  }
  sqlite3_stmt* check = nullptr;
  std::string verdict = "no answer";
  if (sqlite3_prepare_v2(db.to, "PRAGMA integrity_check", -1, &check, nullptr) == SQLITE_OK &&
      sqlite3_step(check) == SQLITE_ROW) {
    verdict = reinterpret_cast<const char*>(sqlite3_column_text(check, 0));
  }
  sqlite3_finalize(check);
  if (verdict != "ok") {
    return absl::DataLossError(absl::StrCat("the copy ", target, " fails its check: ", verdict));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status BackupSqlite(const std::string& source, const std::string& target) {
  if (std::filesystem::exists(target)) {
    return absl::AlreadyExistsError(absl::StrCat(target, " exists; back up to a new file"));
  }
  if (!std::filesystem::exists(source)) {
    return absl::NotFoundError(absl::StrCat("no database at ", source));
  }
  // The copy is made under a temporary name and takes `target`'s only once
  // it is whole and checked: a failed backup leaves nothing behind.
  const std::string partial = absl::StrCat(target, ".partial-", getpid());
  // As private as the database: it holds the same seeds and key hashes.
  absl::Status copied = CreatePrivateFile(partial);
  if (copied.ok()) copied = CopyAndCheck(source, partial, target);
  std::error_code ignored;
  if (copied.ok()) {
    std::filesystem::rename(partial, target, ignored);
    if (ignored)
      copied = absl::UnavailableError(
          absl::StrCat("cannot name the copy ", target, ": ", ignored.message()));
  }
  if (!copied.ok()) std::filesystem::remove(partial, ignored);
  return copied;
}

}  // namespace hoard::db
