// The SQLite store: its connection (the statements themselves are shared
// with PostgreSQL's store, in db/sql_store.cc), opening and checking a file,
// keeping it private, and backups. The only code that includes sqlite3.h.

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "db/migrations.h"
#include "db/sql_store.h"
#include "db/store.h"
#include "engine/status_macros.h"

// The shared statements use RETURNING and upserts (SQLite 3.35).
static_assert(SQLITE_VERSION_NUMBER >= 3035000, "Hoard needs SQLite 3.35 or newer");

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

// SQLite's side of the statements the store shares (db/sql_store.h).
const SqlDialect& SqliteDialect() {
  static const SqlDialect* const dialect = new SqlDialect{
      .begin_write = "BEGIN IMMEDIATE",
      .now_ms = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)",
      .greatest = "MAX",
      .stored_order = "rowid",
      // The rowid grows with every insert: the newest match in scope.
      .scope_version = "COALESCE(MAX(rowid), 0)",
      .byte_order = "BINARY",
      .database = SqlDatabase::kSqlite,
  };
  return *dialect;
}

// The shared statements' parameters ($1, $2, …) in SQLite's spelling (?1,
// ?2, …: the same numbered parameters). No statement holds a $ before a
// digit otherwise (in a string, say).
std::string SqliteText(absl::string_view sql) {
  std::string text(sql);
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] == '$' && absl::ascii_isdigit(static_cast<unsigned char>(text[i + 1]))) {
      text[i] = '?';
    }
  }
  return text;
}

// Every statement the store runs, prepared once and kept.
class StatementCache {
 public:
  explicit StatementCache(sqlite3* db) : db_(db) {}
  ~StatementCache() { Clear(); }
  void Clear() {
    for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
    cache_.clear();
  }
  // The statement for `sql` (in the shared spelling), or null if it cannot
  // be prepared.
  sqlite3_stmt* Get(const std::string& sql) {
    auto it = cache_.find(sql);
    if (it != cache_.end()) return it->second;
    const std::string text = SqliteText(sql);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v3(db_, text.data(), static_cast<int>(text.size()),
                           SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) != SQLITE_OK) {
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

// The row a statement has stepped to.
class SqliteRow final : public SqlRow {
 public:
  explicit SqliteRow(sqlite3_stmt* stmt) : stmt_(stmt) {}
  std::int64_t Int(int column) const override { return sqlite3_column_int64(stmt_, column); }
  double Double(int column) const override { return sqlite3_column_double(stmt_, column); }
  absl::string_view Bytes(int column) const override {
    const void* data = sqlite3_column_blob(stmt_, column);
    const int size = sqlite3_column_bytes(stmt_, column);
    return data == nullptr ? absl::string_view()
                           : absl::string_view(static_cast<const char*>(data), size);
  }

 private:
  sqlite3_stmt* const stmt_;
};

// A connection to a SQLite file: its statements, and what it knows of the
// file it opened (whether it is still the one at its path).
class SqliteConnection final : public SqlConnection {
 public:
  SqliteConnection(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteConnection() override {
    statements_.Clear();
    sqlite3_close_v2(db_);
  }

  using SqlConnection::Run;

  const SqlDialect& dialect() const override { return SqliteDialect(); }
  const std::string& name() const override { return path_; }

  absl::Status Exec(const std::string& sql) override {
    char* message = nullptr;
    if (const int code = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
        code != SQLITE_OK) {
      absl::Status status(
          CodeFor(code), absl::StrCat(path_, ": ", message != nullptr ? message : "unknown error"));
      sqlite3_free(message);
      return status;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::int64_t> Run(const std::string& sql, const SqlParams& params,
                                   absl::string_view what,
                                   absl::FunctionRef<absl::Status(const SqlRow&)> on_row) override {
    sqlite3_stmt* const stmt = statements_.Get(sql);
    if (stmt == nullptr) return Error(what);
    // Reset, its bindings cleared, however the run ends.
    struct Reset {
      sqlite3_stmt* stmt;
      ~Reset() {
        sqlite3_reset(stmt);
        sqlite3_clear_bindings(stmt);
      }
    } reset{stmt};
    int index = 0;
    for (const SqlParams::Value& value : params.values()) {
      ++index;
      // The parameters outlive the run: nothing is copied.
      switch (value.kind) {
        case SqlParams::Kind::kNullInt:
          sqlite3_bind_null(stmt, index);
          break;
        case SqlParams::Kind::kInt:
          sqlite3_bind_int64(stmt, index, value.number);
          break;
        case SqlParams::Kind::kDouble:
          sqlite3_bind_double(stmt, index, value.real);
          break;
        case SqlParams::Kind::kText:
          sqlite3_bind_text(stmt, index, value.bytes.data(), static_cast<int>(value.bytes.size()),
                            SQLITE_STATIC);
          break;
        case SqlParams::Kind::kBytes:
          sqlite3_bind_blob(stmt, index, value.bytes.data(), static_cast<int>(value.bytes.size()),
                            SQLITE_STATIC);
          break;
      }
    }
    const SqliteRow row(stmt);
    int step = SQLITE_ROW;
    while ((step = sqlite3_step(stmt)) == SQLITE_ROW) RETURN_IF_ERROR(on_row(row));
    if (step != SQLITE_DONE) return Error(what);
    return sqlite3_stmt_readonly(stmt) ? 0 : sqlite3_changes64(db_);
  }

  // kFailedPrecondition, for good, once the file at path_ is no longer the
  // one this connection has open; the first time, after a copy is made.
  absl::Status CheckFile() override {
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
    const std::string rescued = Rescue();
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

  // Brings the schema up to date, each migration in a transaction of its
  // own, and marks the file as Hoard's.
  absl::Status Migrate() {
    if (absl::Status s =
            Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
        !s.ok()) {
      return absl::DataLossError(absl::StrCat(path_, " is not a Hoard database: ", s.message()));
    }
    RETURN_IF_ERROR(
        Exec("CREATE TABLE IF NOT EXISTS schema_migrations ("
             "version INTEGER PRIMARY KEY, applied_at_ms INTEGER NOT NULL)"));
    ASSIGN_OR_RETURN(const std::int64_t version, RecordedSchemaVersion(*this));
    RETURN_IF_ERROR(CheckSchemaIsKnown(path_, version));
    const std::int64_t known = static_cast<std::int64_t>(MigrationCount());
    for (std::int64_t next = version + 1; next <= known; ++next) {
      absl::Status s = Exec("BEGIN");
      if (s.ok()) s = ApplyMigration(*this, next);
      if (s.ok()) s = Exec(Marks(next));
      if (s.ok()) s = Exec("COMMIT");
      if (!s.ok()) {
        Exec("ROLLBACK").IgnoreError();
        return s;
      }
    }
    // A database from before the marks were kept gets them; every start
    // proves the file takes a write before any match depends on it.
    if (absl::Status s = Exec(absl::StrCat("BEGIN IMMEDIATE; ", Marks(known), "; COMMIT;"));
        !s.ok()) {
      Exec("ROLLBACK").IgnoreError();
      return absl::FailedPreconditionError(
          absl::StrCat(path_, " cannot be written (", s.message(),
                       "): check the file's and its directory's permissions and free space"));
    }
    // A new database went through every migration, and the tables later
    // ones replace left free pages behind: it starts without them.
    if (version == 0 && known > 0) RETURN_IF_ERROR(Exec("VACUUM"));
    return absl::OkStatus();
  }

  // Notes which -wal and -shm files beside the path are this connection's:
  // once it has written, they stay the same files until it closes.
  void RememberWalFiles() {
    for (const std::string& file : {path_ + "-wal", path_ + "-shm"}) {
      struct stat info;
      if (::stat(file.c_str(), &info) == 0) own_wal_files_[file] = {info.st_dev, info.st_ino};
    }
  }

 private:
  // The file's marks for schema `version`: Hoard's application id and the
  // version as its user_version.
  static std::string Marks(std::int64_t version) {
    return absl::StrCat("PRAGMA application_id = ", kHoardApplicationId,
                        "; PRAGMA user_version = ", version);
  }

  // Copies the database as this connection sees it to a new file beside
  // path_; says where, or why it could not.
  std::string Rescue() {
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

  absl::Status Error(absl::string_view what) {
    return absl::Status(CodeFor(sqlite3_errcode(db_)),
                        absl::StrCat(path_, ": ", what, ": ", sqlite3_errmsg(db_)));
  }

  sqlite3* const db_;
  const std::string path_;
  StatementCache statements_{db_};
  // Set once the file at path_ is found deleted or replaced.
  absl::Status lost_;
  // The -wal and -shm files this connection has open: path -> (st_dev, st_ino).
  std::map<std::string, std::pair<dev_t, ino_t>> own_wal_files_;
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
  auto connection = std::make_unique<SqliteConnection>(db, path);
  if (!read_only) {
    RETURN_IF_ERROR(connection->Migrate());
    connection->RememberWalFiles();
  }
  return MakeSqlStore(std::move(connection), read_only, std::move(notices));
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
