#ifndef HOARD_DB_SQL_STORE_H_
#define HOARD_DB_SQL_STORE_H_

// What the SQLite and PostgreSQL stores share: every statement the store
// runs, written once, with the transactions around them and the reading of
// rows back into the store's structs (MakeSqlStore), over a connection each
// database's driver implements (SqlConnection: db/sqlite_store.cc,
// db/postgres_store.cc). The statements are written in the SQL both
// databases speak, their parameters as $1, $2, …; where the two differ the
// text comes from the connection's SqlDialect. For the drivers only: the
// rest of Hoard sees db/store.h.

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "db/migrations.h"
#include "db/store.h"

namespace hoard::db {

// The parameters of one statement: $1, $2, … in the order they are added.
// Numbers and texts are copied; bytes (KeptBytes) are not.
class SqlParams {
 public:
  enum class Kind { kNullInt, kInt, kDouble, kText, kBytes };
  struct Value {
    Kind kind = Kind::kNullInt;
    std::int64_t number = 0;
    double real = 0;
    absl::string_view bytes;  // kText, kBytes
  };

  SqlParams& Int(std::int64_t value) { return Add({.kind = Kind::kInt, .number = value}); }
  // An integer parameter that is NULL.
  SqlParams& NullInt() { return Add({.kind = Kind::kNullInt}); }
  SqlParams& Double(double value) { return Add({.kind = Kind::kDouble, .real = value}); }
  SqlParams& Text(absl::string_view text) {
    return Add({.kind = Kind::kText, .bytes = owned_.emplace_back(text)});
  }
  // A blob, bound without a copy: `bytes` must outlive the statement's run.
  SqlParams& KeptBytes(absl::string_view bytes) {
    return Add({.kind = Kind::kBytes, .bytes = bytes});
  }

  const std::vector<Value>& values() const { return values_; }

 private:
  SqlParams& Add(Value value) {
    values_.push_back(value);
    return *this;
  }
  std::deque<std::string> owned_;  // stable addresses as it grows
  std::vector<Value> values_;
};

// One row of a statement's answer, valid while the callback that is given
// it runs.
class SqlRow {
 public:
  // An integer (or boolean) column; 0 for NULL.
  virtual std::int64_t Int(int column) const = 0;
  // A floating-point column; 0 for NULL.
  virtual double Double(int column) const = 0;
  // A text or blob column's bytes; empty for NULL.
  virtual absl::string_view Bytes(int column) const = 0;
  std::string Text(int column) const { return std::string(Bytes(column)); }

 protected:
  ~SqlRow() = default;
};

// Where the two databases' SQL differs, as text the statements put in.
struct SqlDialect {
  // Begins a transaction that will write. SQLite takes the write lock at
  // once (BEGIN IMMEDIATE), so that a transaction never has to upgrade a
  // read lock another writer's commit has made stale.
  std::string begin_write;
  // The database's clock in milliseconds since 1970, an SQL expression:
  // what servers with clocks of their own compare (leases).
  std::string now_ms;
  // The function that gives the larger of two values (MAX, GREATEST).
  std::string greatest;
  // The column of `matches` that orders them as they were stored.
  std::string stored_order;
  // An aggregate over the matches in a rating scope that grows whenever one
  // is stored (ScopeVersion).
  std::string scope_version;
  // A collation that orders text by its bytes.
  std::string byte_order;
  // Which text of each migration (db/migrations.h) the database runs.
  SqlDatabase database;
};

// One connection to a database, used by one thread at a time (the store
// serializes its calls). Errors name the database: kUnavailable for what
// may pass, kDataLoss for a damaged database, kFailedPrecondition for what
// this process may not do (each driver says which of its errors are which).
class SqlConnection {
 public:
  virtual ~SqlConnection() = default;

  virtual const SqlDialect& dialect() const = 0;
  // How the database is named in messages (never with a password).
  virtual const std::string& name() const = 0;

  // Runs SQL without parameters: one statement or several.
  virtual absl::Status Exec(const std::string& sql) = 0;
  // Runs one statement with `params`, prepared on first use and kept, and
  // calls `on_row` with each row of its answer in order (the first error
  // it returns ends the run and is returned). Returns how many rows the
  // statement changed (INSERT, UPDATE, DELETE; 0 for a query). `what` says
  // what the statement was doing, for its errors.
  virtual absl::StatusOr<std::int64_t> Run(
      const std::string& sql, const SqlParams& params, absl::string_view what,
      absl::FunctionRef<absl::Status(const SqlRow&)> on_row) = 0;
  // As MatchRecordStore::CheckFile; asked before every write.
  virtual absl::Status CheckFile() { return absl::OkStatus(); }

  // Runs a statement whose answer is not read.
  absl::StatusOr<std::int64_t> Run(const std::string& sql, const SqlParams& params,
                                   absl::string_view what);
  // The first column of the first row of a statement's answer; nullopt if
  // it has none.
  absl::StatusOr<std::optional<std::int64_t>> QueryInt(const std::string& sql,
                                                       const SqlParams& params,
                                                       absl::string_view what);
};

// ---- Migrations (db/migrations.h), for the drivers' Open

// The highest version schema_migrations records (0: none).
absl::StatusOr<std::int64_t> RecordedSchemaVersion(SqlConnection& db);
// kFailedPrecondition if `version` is newer than this build's schema.
absl::Status CheckSchemaIsKnown(const std::string& name, std::int64_t version);
// Runs migration `next` (1-based) in the connection's dialect and records it
// in schema_migrations, inside the transaction the caller holds.
absl::Status ApplyMigration(SqlConnection& db, std::int64_t next);

// The store over `connection`, which has an up-to-date schema. A read-only
// store keeps no rating snapshots. `notices` are what opening it found
// (MatchStore::notices).
std::unique_ptr<MatchStore> MakeSqlStore(std::unique_ptr<SqlConnection> connection, bool read_only,
                                         std::vector<std::string> notices);

}  // namespace hoard::db

#endif  // HOARD_DB_SQL_STORE_H_
