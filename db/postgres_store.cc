// The PostgreSQL store: its connection over libpq (the statements and
// transactions are shared with the SQLite store, in db/sql_store.cc), for
// several Hoard servers sharing one database, and how addresses and
// passwords are handled. The only code that includes libpq-fe.h.
//
// One connection per store, used under the store's mutex, as the SQLite
// store uses its one. Statements are prepared once per connection and
// exchanged in binary. A connection that breaks (a restarted database, a
// network fault) fails the call that saw it with kUnavailable and is made
// again by the next call.

#include <libpq-fe.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <utility>

#include "absl/base/internal/endian.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "db/migrations.h"
#include "db/sql_store.h"
#include "db/store.h"
#include "engine/status_macros.h"

namespace hoard::db {
namespace {

// The types the store binds and reads (PostgreSQL's catalog/pg_type.h).
constexpr Oid kBoolOid = 16;
constexpr Oid kByteaOid = 17;
constexpr Oid kInt8Oid = 20;
constexpr Oid kInt2Oid = 21;
constexpr Oid kInt4Oid = 23;
constexpr Oid kTextOid = 25;
constexpr Oid kFloat8Oid = 701;

// Taken by every process that migrates the database ("HORD"), so that
// servers started together run each migration once.
constexpr std::int64_t kMigrationLock = 0x484f5244;

// How a failed statement is reported, from its SQLSTATE: kUnavailable for
// what may pass (a lost connection, a database shutting down or out of room,
// a deadlock or serialization failure: the store's writer retries those),
// kFailedPrecondition for what this server may not do, kDataLoss for a
// damaged database, kInternal for a statement the database refuses.
absl::StatusCode CodeFor(absl::string_view state) {
  if (state == "42501" || state == "25006") return absl::StatusCode::kFailedPrecondition;
  if (absl::StartsWith(state, "XX00")) return absl::StatusCode::kDataLoss;
  if (absl::StartsWith(state, "42") || absl::StartsWith(state, "22")) {
    return absl::StatusCode::kInternal;
  }
  return absl::StatusCode::kUnavailable;
}

// A statement's answer in binary, freed when it goes.
class Result {
 public:
  explicit Result(PGresult* result) : result_(result) {}
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  ~Result() { PQclear(result_); }

  PGresult* get() const { return result_; }
  ExecStatusType status() const { return PQresultStatus(result_); }

 private:
  PGresult* const result_;
};

// One row of a binary answer.
class PostgresRow final : public SqlRow {
 public:
  PostgresRow(const PGresult* result, int row) : result_(result), row_(row) {}

  std::int64_t Int(int column) const override {
    if (PQgetisnull(result_, row_, column)) return 0;
    const char* v = PQgetvalue(result_, row_, column);
    switch (PQftype(result_, column)) {
      case kInt8Oid:
        return static_cast<std::int64_t>(absl::big_endian::Load64(v));
      case kInt4Oid:
        return static_cast<std::int32_t>(absl::big_endian::Load32(v));
      case kInt2Oid:
        return static_cast<std::int16_t>(absl::big_endian::Load16(v));
      case kBoolOid:
        return v[0] != 0;
      default:
        return 0;
    }
  }
  double Double(int column) const override {
    if (PQgetisnull(result_, row_, column) || PQftype(result_, column) != kFloat8Oid) return 0;
    const std::uint64_t bits = absl::big_endian::Load64(PQgetvalue(result_, row_, column));
    double value = 0;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }
  // A text or bytea column's bytes.
  absl::string_view Bytes(int column) const override {
    return absl::string_view(PQgetvalue(result_, row_, column), PQgetlength(result_, row_, column));
  }

 private:
  const PGresult* const result_;
  const int row_;
};

void IgnoreNotice(void*, const char*) {}

// How the database is named in messages: its address without the password.
std::string DisplayName(const PQconninfoOption* options) {
  std::string user, host, port, dbname;
  for (const PQconninfoOption* o = options; o != nullptr && o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    const absl::string_view key = o->keyword;
    if (key == "user") user = o->val;
    if (key == "host") host = o->val;
    if (key == "port") port = o->val;
    if (key == "dbname") dbname = o->val;
  }
  return absl::StrCat("postgresql://", user, user.empty() ? "" : "@",
                      absl::StrContains(host, '/') ? "" : host, port.empty() ? "" : ":", port, "/",
                      dbname, absl::StrContains(host, '/') ? absl::StrCat("?host=", host) : "");
}

// PostgreSQL's side of the statements the store shares (db/sql_store.h).
const SqlDialect& PostgresDialect() {
  static const SqlDialect* const dialect = new SqlDialect{
      .begin_write = "BEGIN",
      .now_ms = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT",
      .greatest = "GREATEST",
      .stored_order = "stored_order",
      // How many matches are in scope: matches are never deleted, so it
      // grows with each one stored, whichever server stored it and in
      // whatever order their transactions commit (a sequence drawn at insert
      // would not: one drawn earlier may commit later, below the highest
      // already seen).
      .scope_version = "COUNT(*)",
      // By the names' bytes, as SQLite orders them, whatever the collation.
      .byte_order = "\"C\"",
      .database = SqlDatabase::kPostgresql,
  };
  return *dialect;
}

class PostgresConnection final : public SqlConnection {
 public:
  PostgresConnection(PGconn* conn, std::string name, bool read_only)
      : conn_(conn), name_(std::move(name)), read_only_(read_only) {
    PQsetNoticeProcessor(conn_, IgnoreNotice, nullptr);
  }
  ~PostgresConnection() override { PQfinish(conn_); }

  using SqlConnection::Run;

  const SqlDialect& dialect() const override { return PostgresDialect(); }
  const std::string& name() const override { return name_; }

  // Brings the schema up to date (or, read-only, checks that it is).
  absl::Status Prepare() {
    ASSIGN_OR_RETURN(std::optional<std::int64_t> standby,
                     QueryInt("SELECT pg_is_in_recovery()", SqlParams(), "checking"));
    if (!read_only_ && standby.value_or(0) != 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          name_, " is a read-only standby: Hoard stores every result, so give it the primary"));
    }
    if (!read_only_)
      RETURN_IF_ERROR(
          Exec("BEGIN; SELECT pg_advisory_xact_lock(" + std::to_string(kMigrationLock) + ")"));
    absl::Status migrated = Migrate();
    if (read_only_) {
      if (!migrated.ok()) return migrated;
      return Exec("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY");
    }
    if (migrated.ok()) migrated = Exec("COMMIT");
    if (!migrated.ok()) Exec("ROLLBACK").IgnoreError();
    return migrated;
  }

  // Runs SQL without parameters (one or several statements).
  absl::Status Exec(const std::string& sql) override {
    // A transaction ends on the connection it began on: one that was lost
    // took its transaction with it.
    if (!absl::StartsWith(sql, "ROLLBACK") && !absl::StartsWith(sql, "COMMIT")) {
      RETURN_IF_ERROR(Connect());
    }
    const Result result(PQexec(conn_, sql.c_str()));
    if (result.status() == PGRES_COMMAND_OK || result.status() == PGRES_TUPLES_OK) {
      return absl::OkStatus();
    }
    return ErrorOf(result.get(), "");
  }

  // Runs one statement, prepared on first use, with binary parameters and
  // answers.
  absl::StatusOr<std::int64_t> Run(const std::string& sql, const SqlParams& params,
                                   absl::string_view what,
                                   absl::FunctionRef<absl::Status(const SqlRow&)> on_row) override {
    RETURN_IF_ERROR(Connect());
    const std::size_t count = params.values().size();
    std::vector<const char*> values(count);
    std::vector<int> lengths(count);
    std::vector<int> formats(count, 1);
    std::vector<Oid> types(count);
    std::vector<std::array<char, 8>> numbers(count);
    for (std::size_t i = 0; i < count; ++i) {
      const SqlParams::Value& value = params.values()[i];
      switch (value.kind) {
        case SqlParams::Kind::kNullInt:
          types[i] = kInt8Oid;
          break;
        case SqlParams::Kind::kInt:
          absl::big_endian::Store64(numbers[i].data(), static_cast<std::uint64_t>(value.number));
          values[i] = numbers[i].data();
          lengths[i] = 8;
          types[i] = kInt8Oid;
          break;
        case SqlParams::Kind::kDouble: {
          std::uint64_t bits = 0;
          std::memcpy(&bits, &value.real, sizeof bits);
          absl::big_endian::Store64(numbers[i].data(), bits);
          values[i] = numbers[i].data();
          lengths[i] = 8;
          types[i] = kFloat8Oid;
          break;
        }
        case SqlParams::Kind::kText:
        case SqlParams::Kind::kBytes:
          values[i] = value.bytes.data();
          lengths[i] = static_cast<int>(value.bytes.size());
          types[i] = value.kind == SqlParams::Kind::kText ? kTextOid : kByteaOid;
          break;
      }
    }
    auto it = prepared_.find(sql);
    if (it == prepared_.end()) {
      std::string name = absl::StrCat("s", prepared_.size());
      const Result made(
          PQprepare(conn_, name.c_str(), sql.c_str(), static_cast<int>(count), types.data()));
      if (made.status() != PGRES_COMMAND_OK) return ErrorOf(made.get(), what);
      it = prepared_.emplace(sql, std::move(name)).first;
    }
    const Result result(PQexecPrepared(conn_, it->second.c_str(), static_cast<int>(count),
                                       values.data(), lengths.data(), formats.data(),
                                       /*resultFormat=*/1));
    if (result.status() != PGRES_COMMAND_OK && result.status() != PGRES_TUPLES_OK) {
      return ErrorOf(result.get(), what);
    }
    for (int row = 0; row < PQntuples(result.get()); ++row) {
      RETURN_IF_ERROR(on_row(PostgresRow(result.get(), row)));
    }
    // A query's count is of the rows it read, not of rows changed.
    std::int64_t changed = 0;
    if (absl::StartsWith(PQcmdStatus(result.get()), "SELECT") ||
        !absl::SimpleAtoi(PQcmdTuples(result.get()), &changed)) {
      return 0;
    }
    return changed;
  }

 private:
  // Brings the schema up to date (read-only: checks that it is), inside the
  // transaction Prepare opened.
  absl::Status Migrate() {
    std::int64_t tables = 0;
    bool hoard = false;
    RETURN_IF_ERROR(Run("SELECT (SELECT COUNT(*) FROM pg_catalog.pg_tables "
                        "WHERE schemaname = current_schema()), "
                        "to_regclass('schema_migrations') IS NOT NULL",
                        SqlParams(), "reading the schema",
                        [&](const SqlRow& row) {
                          tables = row.Int(0);
                          hoard = row.Int(1) != 0;
                          return absl::OkStatus();
                        })
                        .status());
    if (tables > 0 && !hoard) {
      return absl::FailedPreconditionError(
          absl::StrCat(name_,
                       " is not a Hoard database: it holds another program's tables; "
                       "Hoard leaves it untouched (give it a database of its own)"));
    }
    const std::int64_t known = static_cast<std::int64_t>(MigrationCount());
    std::int64_t version = 0;
    if (hoard) {
      ASSIGN_OR_RETURN(version, RecordedSchemaVersion(*this));
    }
    RETURN_IF_ERROR(CheckSchemaIsKnown(name_, version));
    if (read_only_) {
      if (version == 0) return absl::NotFoundError(absl::StrCat("no Hoard database at ", name_));
      if (version != known) {
        return absl::FailedPreconditionError(absl::StrCat(
            name_, " has schema version ", version, ", older than this build's ", known,
            ": start hoard serve or hoard tournament on it once to bring it up to date"));
      }
      return absl::OkStatus();
    }
    RETURN_IF_ERROR(
        Exec("CREATE TABLE IF NOT EXISTS schema_migrations ("
             "version BIGINT PRIMARY KEY, applied_at_ms BIGINT NOT NULL)"));
    for (std::int64_t next = version + 1; next <= known; ++next) {
      RETURN_IF_ERROR(ApplyMigration(*this, next));
    }
    return absl::OkStatus();
  }

  // A lost connection is made again before the next statement; what was
  // prepared on it is prepared again.
  absl::Status Connect() {
    if (PQstatus(conn_) == CONNECTION_OK) return absl::OkStatus();
    PQreset(conn_);
    prepared_.clear();
    if (PQstatus(conn_) != CONNECTION_OK) {
      return absl::UnavailableError(absl::StrCat(
          "cannot reach ", name_, ": ", absl::StripTrailingAsciiWhitespace(PQerrorMessage(conn_))));
    }
    if (read_only_) return Exec("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY");
    return absl::OkStatus();
  }

  absl::Status ErrorOf(const PGresult* result, absl::string_view what) {
    const char* state = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
    const char* message = result != nullptr ? PQresultErrorMessage(result) : PQerrorMessage(conn_);
    return absl::Status(state != nullptr ? CodeFor(state) : absl::StatusCode::kUnavailable,
                        absl::StrCat(name_, ": ", what, what.empty() ? "" : ": ",
                                     absl::StripTrailingAsciiWhitespace(message)));
  }

  PGconn* const conn_;
  const std::string name_;
  const bool read_only_;
  // SQL -> the name it is prepared under on this connection.
  absl::flat_hash_map<std::string, std::string> prepared_;
};

// The password in the file $HOARD_DB_PASSWORD_FILE names (its first line),
// or nullopt when the variable is not set.
absl::StatusOr<std::optional<std::string>> PasswordFromFile() {
  const char* path = std::getenv("HOARD_DB_PASSWORD_FILE");
  if (path == nullptr || *path == '\0') return std::optional<std::string>();
  std::ifstream file(path);
  std::string password;
  if (!file || !std::getline(file, password) || password.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("HOARD_DB_PASSWORD_FILE: cannot read a password from ", path,
                     " (a file whose first line is the database password)"));
  }
  if (!password.empty() && password.back() == '\r') password.pop_back();
  return std::optional<std::string>(std::move(password));
}

}  // namespace

bool IsPostgresUrl(absl::string_view target) {
  return absl::StartsWith(target, "postgresql://") || absl::StartsWith(target, "postgres://");
}

absl::StatusOr<std::string> PostgresDisplayName(const std::string& url) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
  if (options == nullptr) {
    std::string reason = error != nullptr ? error : "out of memory";
    PQfreemem(error);
    return absl::InvalidArgumentError(
        absl::StrCat("not a PostgreSQL address (postgresql://[user@]host[:port]/database): ",
                     absl::StripTrailingAsciiWhitespace(reason)));
  }
  std::string name = DisplayName(options);
  PQconninfoFree(options);
  return name;
}

absl::Status CheckNoPasswordInAddress(const std::string& target) {
  if (!IsPostgresUrl(target)) return absl::OkStatus();
  PQconninfoOption* options = PQconninfoParse(target.c_str(), nullptr);
  if (options == nullptr) return absl::OkStatus();  // no address: opening says why
  bool has_password = false;
  for (const PQconninfoOption* option = options; option->keyword != nullptr; ++option) {
    if (std::strcmp(option->keyword, "password") == 0 && option->val != nullptr) {
      has_password = true;
    }
  }
  PQconninfoFree(options);
  if (!has_password) return absl::OkStatus();
  const absl::StatusOr<std::string> name = PostgresDisplayName(target);
  return absl::InvalidArgumentError(absl::StrCat(
      "the database address holds a password, which any user of this machine can read in "
      "its process list: give ",
      name.ok() ? *name : "the address without it",
      " and the password in a file named by HOARD_DB_PASSWORD_FILE (or in PGPASSWORD, "
      "or ~/.pgpass)"));
}

absl::StatusOr<std::unique_ptr<MatchStore>> OpenPostgresStore(const std::string& url,
                                                              StoreAccess access) {
  ASSIGN_OR_RETURN(const std::string name, PostgresDisplayName(url));
  RETURN_IF_ERROR(CheckNoPasswordInAddress(url));
  ASSIGN_OR_RETURN(const std::optional<std::string> password, PasswordFromFile());
  // The address, and the password of the file if there is one.
  const char* keywords[] = {"dbname", password ? "password" : nullptr, nullptr};
  const char* values[] = {url.c_str(), password ? password->c_str() : nullptr, nullptr};
  PGconn* conn = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn == nullptr) return absl::UnavailableError("cannot connect: out of memory");
  if (PQstatus(conn) != CONNECTION_OK) {
    absl::Status status = absl::UnavailableError(
        absl::StrCat("cannot connect to ", name, ": ",
                     absl::StripTrailingAsciiWhitespace(PQerrorMessage(conn))));
    PQfinish(conn);
    return status;
  }
  const bool read_only = access == StoreAccess::kReadOnly;
  auto connection = std::make_unique<PostgresConnection>(conn, name, read_only);
  RETURN_IF_ERROR(connection->Prepare());
  return MakeSqlStore(std::move(connection), read_only, {});
}

}  // namespace hoard::db
