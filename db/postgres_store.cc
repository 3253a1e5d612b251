// The PostgreSQL store: the same interface, schema and transactions as the
// SQLite one (db/sqlite_store.cc), over libpq, for several Hoard servers
// sharing one database. The only code that includes libpq-fe.h.
//
// One connection per store, used under the store's mutex, as the SQLite
// store uses its one. Statements are prepared once per connection and
// exchanged in binary. A connection that breaks (a restarted database, a
// network fault) fails the call that saw it with kUnavailable and is made
// again by the next call.

#include <libpq-fe.h>

#include <cstdlib>
#include <cstring>
#include <deque>
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
#include "absl/synchronization/mutex.h"
#include "db/bot_names.h"
#include "db/migrations.h"
#include "db/store.h"
#include "engine/player_id.h"
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

std::int64_t NowMs() { return absl::ToUnixMillis(absl::Now()); }
// The database's clock, for what servers with clocks of their own compare.
constexpr char kDatabaseNowMs[] = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT";

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

// A statement's parameters, sent in binary with their types.
class Params {
 public:
  Params& Int(std::int64_t value) {
    std::string& bytes = owned_.emplace_back(8, '\0');
    absl::big_endian::Store64(bytes.data(), static_cast<std::uint64_t>(value));
    return Add(bytes.data(), 8, kInt8Oid);
  }
  Params& Double(double value) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    std::string& bytes = owned_.emplace_back(8, '\0');
    absl::big_endian::Store64(bytes.data(), bits);
    return Add(bytes.data(), 8, kFloat8Oid);
  }
  Params& Text(absl::string_view text) {
    const std::string& copy = owned_.emplace_back(text);
    return Add(copy.data(), static_cast<int>(copy.size()), kTextOid);
  }
  // Bound without a copy: `bytes` must outlive the statement's run.
  Params& KeptBytes(const std::string& bytes) {
    return Add(bytes.data(), static_cast<int>(bytes.size()), kByteaOid);
  }
  Params& NullInt() { return Add(nullptr, 0, kInt8Oid); }

  int size() const { return static_cast<int>(values_.size()); }
  const Oid* types() const { return types_.data(); }
  const char* const* values() const { return values_.data(); }
  const int* lengths() const { return lengths_.data(); }
  const int* formats() const { return formats_.data(); }

 private:
  Params& Add(const char* value, int length, Oid type) {
    values_.push_back(value);
    lengths_.push_back(length);
    formats_.push_back(1);
    types_.push_back(type);
    return *this;
  }
  std::deque<std::string> owned_;  // stable addresses as it grows
  std::vector<const char*> values_;
  std::vector<int> lengths_;
  std::vector<int> formats_;
  std::vector<Oid> types_;
};

// A statement's answer in binary, freed when it goes.
class Rows {
 public:
  explicit Rows(PGresult* result) : result_(result) {}
  Rows(Rows&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}
  Rows& operator=(Rows&&) = delete;
  ~Rows() { PQclear(result_); }

  const PGresult* result() const { return result_; }
  int size() const { return PQntuples(result_); }
  // Rows a command changed (INSERT, UPDATE, DELETE).
  std::int64_t changed() const {
    std::int64_t n = 0;
    return absl::SimpleAtoi(PQcmdTuples(result_), &n) ? n : 0;
  }
  bool IsNull(int row, int column) const { return PQgetisnull(result_, row, column) != 0; }
  std::int64_t Int(int row, int column) const {
    if (IsNull(row, column)) return 0;
    const char* v = PQgetvalue(result_, row, column);
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
  double Double(int row, int column) const {
    if (IsNull(row, column) || PQftype(result_, column) != kFloat8Oid) return 0;
    const std::uint64_t bits = absl::big_endian::Load64(PQgetvalue(result_, row, column));
    double value = 0;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }
  // A text or bytea column's bytes.
  std::string Bytes(int row, int column) const {
    return std::string(PQgetvalue(result_, row, column), PQgetlength(result_, row, column));
  }

 private:
  PGresult* result_;
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

class PostgresStore final : public MatchStore {
 public:
  PostgresStore(PGconn* conn, std::string name, bool read_only)
      : conn_(conn), name_(std::move(name)), read_only_(read_only) {
    PQsetNoticeProcessor(conn_, IgnoreNotice, nullptr);
  }
  ~PostgresStore() override { PQfinish(conn_); }

  // Brings the schema up to date (or, read-only, checks that it is).
  absl::Status Prepare() {
    absl::MutexLock lock(&mu_);
    {
      ASSIGN_OR_RETURN(Rows standby, Run("SELECT pg_is_in_recovery()", Params(), "checking"));
      if (!read_only_ && standby.Int(0, 0) != 0) {
        return absl::FailedPreconditionError(absl::StrCat(
            name_, " is a read-only standby: Hoard stores every result, so give it the primary"));
      }
    }
    if (!read_only_)
      RETURN_IF_ERROR(
          Exec("BEGIN; SELECT pg_advisory_xact_lock(" + std::to_string(kMigrationLock) + ")"));
    absl::StatusOr<std::int64_t> version = MigrateLocked();
    if (read_only_) {
      if (!version.ok()) return version.status();
      return Exec("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY");
    }
    if (!version.ok()) {
      Exec("ROLLBACK").IgnoreError();
      return version.status();
    }
    if (absl::Status s = Exec("COMMIT"); !s.ok()) {
      Exec("ROLLBACK").IgnoreError();
      return s;
    }
    return absl::OkStatus();
  }

  absl::Status SaveFinished(std::int64_t sequence, const hoard::v1::Match& match,
                            const hoard::v1::MatchRecord& record,
                            const TournamentSlot* slot) override {
    FinishedResult result{.sequence = sequence, .match = match, .record = record};
    if (slot != nullptr) result.slot = *slot;
    return SaveFinishedBatch({&result})[0];
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
    if (absl::Status s = Exec("BEGIN"); !s.ok()) return all(s);
    for (std::size_t i = 0; i < results.size(); ++i) {
      const FinishedResult& result = *results[i];
      // One already stored inserts nothing (ON CONFLICT DO NOTHING), so the
      // transaction goes on with the others.
      statuses[i] = InsertLocked(result.sequence, result.match, result.record,
                                 result.slot ? &*result.slot : nullptr);
      if (!statuses[i].ok() && statuses[i].code() != absl::StatusCode::kAlreadyExists) {
        const absl::Status error = statuses[i];
        Exec("ROLLBACK").IgnoreError();
        return all(error);
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
    ASSIGN_OR_RETURN(Rows rows, Run("SELECT sequence, summary FROM matches WHERE id = $1",
                                    Params().Text(id), "reading a match"));
    if (rows.size() == 0) return std::optional<StoredMatch>();
    StoredMatch stored{.sequence = rows.Int(0, 0)};
    if (!stored.match.ParseFromString(rows.Bytes(0, 1))) {
      return absl::DataLossError(absl::StrCat(name_, ": match ", id, " cannot be read back"));
    }
    return std::optional<StoredMatch>(std::move(stored));
  }

  absl::StatusOr<std::optional<hoard::v1::MatchRecord>> GetRecord(const std::string& id) override {
    absl::MutexLock lock(&mu_);
    ASSIGN_OR_RETURN(Rows rows, Run("SELECT record FROM match_records WHERE match_id = $1",
                                    Params().Text(id), "reading a record"));
    if (rows.size() == 0) return std::optional<hoard::v1::MatchRecord>();
    hoard::v1::MatchRecord record;
    if (!record.ParseFromString(rows.Bytes(0, 0))) {
      return absl::DataLossError(
          absl::StrCat(name_, ": the record of ", id, " cannot be read back"));
    }
    return std::optional<hoard::v1::MatchRecord>(std::move(record));
  }

  absl::StatusOr<std::vector<StoredMatch>> List(std::int64_t after, int limit,
                                                const MatchFilter& filter) override {
    absl::MutexLock lock(&mu_);
    const auto [rated_name, rated_version] = SplitBotName(filter.rated_bot);
    const auto [bot_name, bot_version] = SplitBotName(filter.bot);
    ASSIGN_OR_RETURN(Rows rows,
                     Run("SELECT sequence, summary FROM matches WHERE sequence > $1 "
                         "AND ($2 = '' OR game = $2) "
                         "AND ($3 = '' OR id IN (SELECT s.match_id FROM seats s JOIN bots b "
                         "ON b.id = s.bot_id WHERE b.name = $8 AND b.version = $9 "
                         "AND s.player = 'bot:' || $3)) "
                         "AND ($5 = 0 OR tournament_id = $5) "
                         "AND ($6 = '' OR id IN (SELECT s.match_id FROM seats s JOIN bots b "
                         "ON b.id = s.bot_id WHERE b.name = $6 AND b.version = $7)) "
                         "ORDER BY sequence LIMIT $4",
                         Params()
                             .Int(after)
                             .Text(filter.game)
                             .Text(filter.bot)
                             .Int(limit)
                             .Int(filter.tournament_id)
                             .Text(rated_name)
                             .Text(rated_version)
                             .Text(bot_name)
                             .Text(bot_version),
                         "listing matches"));
    std::vector<StoredMatch> matches;
    matches.reserve(rows.size());
    for (int row = 0; row < rows.size(); ++row) {
      StoredMatch stored{.sequence = rows.Int(row, 0)};
      if (!stored.match.ParseFromString(rows.Bytes(row, 1))) {
        return absl::DataLossError(absl::StrCat(name_, ": a stored match cannot be read back"));
      }
      matches.push_back(std::move(stored));
    }
    return matches;
  }

  absl::StatusOr<std::int64_t> LastSequence() override {
    absl::MutexLock lock(&mu_);
    ASSIGN_OR_RETURN(Rows rows, Run("SELECT COALESCE(MAX(sequence), 0) FROM matches", Params(),
                                    "reading the last match"));
    return rows.Int(0, 0);
  }

  absl::StatusOr<std::int64_t> ReserveSequences(int count) override {
    absl::MutexLock lock(&mu_);
    return ReserveLocked(count);
  }

  absl::StatusOr<std::int64_t> CreateTournament(const hoard::v1::TournamentSpec& spec,
                                                const std::string& spec_hash, int scheduled,
                                                const std::string& seed_salt) override {
    absl::MutexLock lock(&mu_);
    const std::string bytes = spec.SerializeAsString();
    ASSIGN_OR_RETURN(
        Rows rows,
        Run("INSERT INTO tournaments (name, game, spec, spec_hash, status, error, scheduled, "
            "created_at_ms, updated_at_ms, seed_salt) VALUES ($1, $2, $3, $4, $5, '', $6, $7, $7, "
            "$8) RETURNING id",
            Params()
                .Text(spec.name())
                .Text(spec.game())
                .KeptBytes(bytes)
                .Text(spec_hash)
                .Text(hoard::v1::TournamentStatus_Name(hoard::v1::TOURNAMENT_STATUS_RUNNING))
                .Int(scheduled)
                .Int(NowMs())
                .Text(seed_salt),
            "storing a tournament"));
    return rows.Int(0, 0);
  }

  absl::StatusOr<std::optional<StoredTournament>> GetTournament(std::int64_t id) override {
    absl::MutexLock lock(&mu_);
    ASSIGN_OR_RETURN(std::vector<StoredTournament> found,
                     TournamentsLocked("WHERE id = $1", Params().Int(id)));
    if (found.empty()) return std::optional<StoredTournament>();
    return std::optional<StoredTournament>(std::move(found[0]));
  }

  absl::StatusOr<std::optional<StoredTournament>> FindTournament(
      const std::string& spec_hash) override {
    absl::MutexLock lock(&mu_);
    ASSIGN_OR_RETURN(std::vector<StoredTournament> found,
                     TournamentsLocked("WHERE spec_hash = $1 ORDER BY id DESC LIMIT 1",
                                       Params().Text(spec_hash)));
    if (found.empty()) return std::optional<StoredTournament>();
    return std::optional<StoredTournament>(std::move(found[0]));
  }

  absl::StatusOr<std::vector<StoredTournament>> ListTournaments() override {
    absl::MutexLock lock(&mu_);
    return TournamentsLocked("ORDER BY id DESC", Params());
  }

  absl::Status SetTournamentStatus(std::int64_t id, hoard::v1::TournamentStatus status,
                                   const std::string& error) override {
    absl::MutexLock lock(&mu_);
    ASSIGN_OR_RETURN(Rows rows,
                     Run("UPDATE tournaments SET status = $1, error = $2, updated_at_ms = $3 "
                         "WHERE id = $4",
                         Params()
                             .Text(hoard::v1::TournamentStatus_Name(status))
                             .Text(error)
                             .Int(NowMs())
                             .Int(id),
                         "updating a tournament"));
    if (rows.changed() == 0) return absl::NotFoundError(absl::StrCat("no tournament ", id));
    return absl::OkStatus();
  }

  absl::Status PutBotAccount(const BotAccount& account) override {
    absl::MutexLock lock(&mu_);
    return Run("INSERT INTO bot_accounts (name, key_hash, launched, created_at_ms) "
               "VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO UPDATE SET key_hash = "
               "excluded.key_hash, launched = excluded.launched",
               Params()
                   .Text(account.name)
                   .Text(account.key_hash)
                   .Int(account.launched ? 1 : 0)
                   .Int(NowMs()),
               "storing a bot account")
        .status();
  }

  absl::Status DeleteBotAccount(const std::string& name) override {
    absl::MutexLock lock(&mu_);
    return Run("DELETE FROM bot_accounts WHERE name = $1", Params().Text(name),
               "deleting a bot account")
        .status();
  }

  absl::StatusOr<std::vector<BotAccount>> BotAccounts() override {
    absl::MutexLock lock(&mu_);
    // By the names' bytes, as SQLite orders them, whatever the collation.
    ASSIGN_OR_RETURN(Rows rows, Run("SELECT name, key_hash, launched FROM bot_accounts "
                                    "ORDER BY name COLLATE \"C\"",
                                    Params(), "reading bot accounts"));
    std::vector<BotAccount> accounts;
    for (int row = 0; row < rows.size(); ++row) {
      accounts.push_back({.name = rows.Bytes(row, 0),
                          .key_hash = rows.Bytes(row, 1),
                          .launched = rows.Int(row, 2) != 0});
    }
    return accounts;
  }

  absl::StatusOr<std::vector<int>> StoredSlots(std::int64_t tournament_id) override {
    absl::MutexLock lock(&mu_);
    ASSIGN_OR_RETURN(Rows rows, Run("SELECT schedule_index FROM matches WHERE tournament_id = $1 "
                                    "ORDER BY schedule_index",
                                    Params().Int(tournament_id), "reading a tournament's matches"));
    std::vector<int> slots;
    slots.reserve(rows.size());
    for (int row = 0; row < rows.size(); ++row) slots.push_back(static_cast<int>(rows.Int(row, 0)));
    return slots;
  }

  absl::StatusOr<bool> ClaimSlot(std::int64_t tournament_id, int schedule_index,
                                 const std::string& holder, absl::Duration ttl) override {
    absl::MutexLock lock(&mu_);
    // By the database's clock: the servers' clocks may disagree.
    ASSIGN_OR_RETURN(
        Rows rows,
        Run(absl::StrCat(
                "INSERT INTO slot_leases (tournament_id, schedule_index, holder, expires_at_ms) "
                "SELECT $1, $2, $3, ",
                kDatabaseNowMs,
                " + $4 WHERE NOT EXISTS (SELECT 1 FROM "
                "matches WHERE tournament_id = $1 AND schedule_index = $2) "
                "ON CONFLICT (tournament_id, schedule_index) DO UPDATE SET holder = "
                "excluded.holder, expires_at_ms = excluded.expires_at_ms WHERE "
                "slot_leases.holder = excluded.holder OR slot_leases.expires_at_ms < ",
                kDatabaseNowMs),
            Params()
                .Int(tournament_id)
                .Int(schedule_index)
                .Text(holder)
                .Int(absl::ToInt64Milliseconds(ttl)),
            "leasing a slot"));
    return rows.changed() > 0;
  }

  absl::Status RenewLeases(const std::string& holder, absl::Duration ttl) override {
    absl::MutexLock lock(&mu_);
    // The leases of slots stored since go: renewals touch only the slots in play.
    RETURN_IF_ERROR(Run("DELETE FROM slot_leases l WHERE holder = $1 AND EXISTS (SELECT 1 FROM "
                        "matches m WHERE m.tournament_id = l.tournament_id AND "
                        "m.schedule_index = l.schedule_index)",
                        Params().Text(holder), "renewing leases")
                        .status());
    return Run(absl::StrCat("UPDATE slot_leases SET expires_at_ms = ", kDatabaseNowMs,
                            " + $2 WHERE holder = $1"),
               Params().Text(holder).Int(absl::ToInt64Milliseconds(ttl)), "renewing leases")
        .status();
  }

  absl::Status ReleaseLeases(std::int64_t tournament_id, const std::string& holder) override {
    absl::MutexLock lock(&mu_);
    return Run("DELETE FROM slot_leases WHERE tournament_id = $1 AND holder = $2",
               Params().Int(tournament_id).Text(holder), "ending leases")
        .status();
  }

  absl::StatusOr<std::vector<RatedMatch>> RatedMatches(const RatingScope& scope) override {
    absl::MutexLock lock(&mu_);
    ASSIGN_OR_RETURN(Rows rows,
                     Run("SELECT m.sequence, COALESCE(m.tournament_id, 0), COALESCE(m.block, 0), "
                         "s.rank, s.score, b.name, b.version, COALESCE(m.schedule_index, 0), "
                         "s.timeouts, s.forfeited, s.disconnects, "
                         "CASE WHEN s.player LIKE 'builtin:%' THEN 1 ELSE 0 END "
                         "FROM matches m "
                         "JOIN seats s ON s.match_id = m.id JOIN bots b ON b.id = s.bot_id "
                         "WHERE m.game = $1 AND ($2 = 0 OR m.tournament_id = $2) "
                         "AND m.status = 'MATCH_STATUS_FINISHED' ORDER BY m.stored_order, s.seat",
                         Params().Text(scope.game).Int(scope.tournament_id), "reading results"));
    std::vector<RatedMatch> matches;
    for (int row = 0; row < rows.size(); ++row) {
      const std::int64_t sequence = rows.Int(row, 0);
      if (matches.empty() || matches.back().sequence != sequence) {
        RatedMatch match;
        match.sequence = sequence;
        match.tournament_id = rows.Int(row, 1);
        match.block = match.tournament_id != 0 ? rows.Int(row, 2) : sequence;
        match.schedule_index = rows.Int(row, 7);
        matches.push_back(std::move(match));
      }
      matches.back().seats.push_back(
          {.bot = engine::JoinBotName(rows.Bytes(row, 5), rows.Bytes(row, 6)),
           .rank = static_cast<int>(rows.Int(row, 3)),
           .score = rows.Double(row, 4),
           .timeouts = static_cast<int>(rows.Int(row, 8)),
           .forfeited = rows.Int(row, 9) != 0,
           .disconnects = static_cast<int>(rows.Int(row, 10)),
           .builtin = rows.Int(row, 11) != 0});
    }
    return matches;
  }

  absl::StatusOr<std::int64_t> ScopeVersion(const RatingScope& scope) override {
    absl::MutexLock lock(&mu_);
    // How many matches are in scope: matches are never deleted, so it grows
    // with each one stored, whichever server stored it and in whatever order
    // their transactions commit (a sequence drawn at insert would not: one
    // drawn earlier may commit later, below the highest already seen).
    ASSIGN_OR_RETURN(Rows rows, scope.tournament_id != 0
                                    ? Run("SELECT COUNT(*) FROM matches WHERE tournament_id = $1",
                                          Params().Int(scope.tournament_id), "reading results")
                                    : Run("SELECT COUNT(*) FROM matches WHERE game = $1",
                                          Params().Text(scope.game), "reading results"));
    return rows.Int(0, 0);
  }

  absl::Status SaveRatingSnapshot(const RatingScope& scope, std::int64_t version,
                                  const hoard::v1::RatingSnapshot& snapshot) override {
    if (read_only_) return absl::OkStatus();
    absl::MutexLock lock(&mu_);
    const std::string bytes = snapshot.SerializeAsString();
    RETURN_IF_ERROR(Run("INSERT INTO rating_snapshots (game, tournament_id, version, "
                        "computed_at_ms, snapshot) VALUES ($1, $2, $3, $4, $5) "
                        "ON CONFLICT (game, tournament_id, version) DO UPDATE SET "
                        "computed_at_ms = excluded.computed_at_ms, snapshot = excluded.snapshot",
                        Params()
                            .Text(scope.game)
                            .Int(scope.tournament_id)
                            .Int(version)
                            .Int(NowMs())
                            .KeptBytes(bytes),
                        "storing ratings")
                        .status());
    return Run("DELETE FROM rating_snapshots WHERE game = $1 AND tournament_id = $2 "
               "AND version < $3",
               Params().Text(scope.game).Int(scope.tournament_id).Int(version), "pruning ratings")
        .status();
  }

  absl::StatusOr<std::optional<std::pair<std::int64_t, hoard::v1::RatingSnapshot>>>
  LatestRatingSnapshot(const RatingScope& scope) override {
    using Result = std::optional<std::pair<std::int64_t, hoard::v1::RatingSnapshot>>;
    absl::MutexLock lock(&mu_);
    ASSIGN_OR_RETURN(Rows rows,
                     Run("SELECT version, snapshot FROM rating_snapshots WHERE game = $1 "
                         "AND tournament_id = $2 ORDER BY version DESC LIMIT 1",
                         Params().Text(scope.game).Int(scope.tournament_id), "reading ratings"));
    if (rows.size() == 0) return Result();
    std::pair<std::int64_t, hoard::v1::RatingSnapshot> latest;
    latest.first = rows.Int(0, 0);
    if (!latest.second.ParseFromString(rows.Bytes(0, 1))) {
      return absl::DataLossError(absl::StrCat(name_, ": a rating snapshot cannot be read back"));
    }
    return Result(std::move(latest));
  }

 private:
  // The schema's version after bringing it up to date (read-only: after
  // checking that it is), inside the transaction Prepare opened.
  absl::StatusOr<std::int64_t> MigrateLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    ASSIGN_OR_RETURN(Rows found, Run("SELECT (SELECT COUNT(*) FROM pg_catalog.pg_tables "
                                     "WHERE schemaname = current_schema()), "
                                     "to_regclass('schema_migrations') IS NOT NULL",
                                     Params(), "reading the schema"));
    const bool hoard = found.Int(0, 1) != 0;
    if (found.Int(0, 0) > 0 && !hoard) {
      return absl::FailedPreconditionError(
          absl::StrCat(name_,
                       " is not a Hoard database: it holds another program's tables; "
                       "Hoard leaves it untouched (give it a database of its own)"));
    }
    const std::int64_t known = static_cast<std::int64_t>(MigrationCount());
    std::int64_t version = 0;
    if (hoard) {
      ASSIGN_OR_RETURN(Rows current, Run("SELECT COALESCE(MAX(version), 0) FROM schema_migrations",
                                         Params(), "reading the schema version"));
      version = current.Int(0, 0);
    }
    if (version > known) {
      return absl::FailedPreconditionError(absl::StrCat(name_, " has schema version ", version,
                                                        ", newer than this build's ", known,
                                                        ": use a newer hoard"));
    }
    if (read_only_) {
      if (version == 0) return absl::NotFoundError(absl::StrCat("no Hoard database at ", name_));
      if (version != known) {
        return absl::FailedPreconditionError(absl::StrCat(
            name_, " has schema version ", version, ", older than this build's ", known,
            ": start hoard serve or hoard tournament on it once to bring it up to date"));
      }
      return version;
    }
    RETURN_IF_ERROR(
        Exec("CREATE TABLE IF NOT EXISTS schema_migrations ("
             "version BIGINT PRIMARY KEY, applied_at_ms BIGINT NOT NULL)"));
    for (std::int64_t next = version + 1; next <= known; ++next) {
      if (absl::Status s = Exec(Migrations()[next - 1].postgresql); !s.ok()) {
        return absl::Status(s.code(), absl::StrCat("migration ", next, ": ", s.message()));
      }
      RETURN_IF_ERROR(Run("INSERT INTO schema_migrations (version, applied_at_ms) "
                          "VALUES ($1, $2)",
                          Params().Int(next).Int(NowMs()), "recording a migration")
                          .status());
    }
    return known;
  }

  // Tournaments selected by `where` (with `params`).
  absl::StatusOr<std::vector<StoredTournament>> TournamentsLocked(const char* where,
                                                                  const Params& params)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    ASSIGN_OR_RETURN(Rows rows,
                     Run(absl::StrCat("SELECT id, spec, spec_hash, status, error, scheduled, "
                                      "created_at_ms, updated_at_ms, seed_salt FROM tournaments ",
                                      where),
                         params, "reading tournaments"));
    std::vector<StoredTournament> tournaments;
    for (int row = 0; row < rows.size(); ++row) {
      StoredTournament t;
      t.id = rows.Int(row, 0);
      if (!t.spec.ParseFromString(rows.Bytes(row, 1))) {
        return absl::DataLossError(
            absl::StrCat(name_, ": tournament ", t.id, " cannot be read back"));
      }
      t.spec_hash = rows.Bytes(row, 2);
      const std::string status = rows.Bytes(row, 3);
      if (!hoard::v1::TournamentStatus_Parse(status, &t.status)) {
        return absl::DataLossError(
            absl::StrCat(name_, ": tournament ", t.id, " has an unknown status '", status, "'"));
      }
      t.error = rows.Bytes(row, 4);
      t.scheduled = static_cast<int>(rows.Int(row, 5));
      t.created_unix_ms = rows.Int(row, 6);
      t.updated_unix_ms = rows.Int(row, 7);
      t.seed_salt = rows.Bytes(row, 8);
      tournaments.push_back(std::move(t));
    }
    return tournaments;
  }

  // Takes the counter's row lock until the transaction ends: servers that
  // reserve at once take turns, and none is given a number twice.
  absl::StatusOr<std::int64_t> ReserveLocked(int count) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    ASSIGN_OR_RETURN(Rows rows, Run("INSERT INTO counters (name, value) VALUES ('next_sequence', "
                                    "(SELECT COALESCE(MAX(sequence), 0) + 1 FROM matches) + $1) "
                                    "ON CONFLICT (name) DO UPDATE SET "
                                    "value = GREATEST(counters.value, excluded.value - $1) + $1 "
                                    "RETURNING value - $1",
                                    Params().Int(count), "reserving match ids"));
    return rows.Int(0, 0);
  }

  absl::Status InsertLocked(std::int64_t sequence, hoard::v1::Match match,
                            const hoard::v1::MatchRecord& record, const TournamentSlot* slot)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (sequence == 0) {
      ASSIGN_OR_RETURN(sequence, ReserveLocked(1));
      if (match.match_id().empty()) match.set_match_id(absl::StrCat("m", sequence));
    }
    if (slot != nullptr) {
      match.set_tournament_id(slot->tournament_id);
      match.set_schedule_index(slot->schedule_index);
    }
    const std::string summary = match.SerializeAsString();
    Params params;
    params.Text(match.match_id())
        .Int(sequence)
        .Text(match.game())
        .Text(match.ruleset_version())
        .Int(static_cast<std::int64_t>(match.seed()))
        .Text(hoard::v1::MatchStatus_Name(match.status()))
        .Int(match.actions())
        .Int(NowMs())
        .KeptBytes(summary);
    if (slot != nullptr) {
      params.Int(slot->tournament_id).Int(slot->schedule_index).Int(slot->block);
    } else {
      params.NullInt().NullInt().NullInt();
    }
    params.Int(match.started_unix_ms()).Int(match.finished_unix_ms()).Text(match.seed_salt());
    // A match whose id, number or slot is taken inserts nothing and leaves
    // the transaction usable (a concurrent insert of the same is waited for).
    ASSIGN_OR_RETURN(
        Rows inserted,
        Run("INSERT INTO matches (id, sequence, game, ruleset_version, seed, status, actions, "
            "stored_at_ms, summary, tournament_id, schedule_index, block, started_at_ms, "
            "finished_at_ms, seed_salt) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, "
            "$13, $14, $15) ON CONFLICT DO NOTHING",
            params, "storing a match"));
    if (inserted.changed() == 0) {
      if (slot != nullptr) {
        return absl::AlreadyExistsError(absl::StrCat("match ", match.match_id(), " or slot ",
                                                     slot->schedule_index, " of tournament ",
                                                     slot->tournament_id, " is already stored"));
      }
      ASSIGN_OR_RETURN(Rows same, Run("SELECT 1 FROM matches WHERE id = $1",
                                      Params().Text(match.match_id()), "storing a match"));
      if (same.size() > 0) {
        return absl::AlreadyExistsError(
            absl::StrCat("match ", match.match_id(), " is already stored"));
      }
      return absl::FailedPreconditionError(absl::StrCat("match ", match.match_id(),
                                                        " cannot be stored: its sequence ",
                                                        sequence, " belongs to another match"));
    }
    if (match.seats_size() > 0) {
      // Every seat in one statement.
      Params seats;
      std::string sql =
          "INSERT INTO seats (match_id, seat, player, score, rank, timeouts, illegal_answers, "
          "forfeited, bot_id, disconnects) VALUES ";
      for (int i = 0; i < match.seats_size(); ++i) {
        const hoard::v1::SeatInfo& seat = match.seats(i);
        const int p = i * 10;
        absl::StrAppend(&sql, i == 0 ? "" : ", ", "($", p + 1, ", $", p + 2, ", $", p + 3, ", $",
                        p + 4, ", $", p + 5, ", $", p + 6, ", $", p + 7, ", $", p + 8, ", $", p + 9,
                        ", $", p + 10, ")");
        seats.Text(match.match_id())
            .Int(seat.seat())
            .Text(seat.player())
            .Double(seat.score())
            .Int(seat.rank())
            .Int(seat.timeouts())
            .Int(seat.illegal_answers())
            .Int(seat.forfeited() ? 1 : 0);
        if (auto bot = SeatBot(seat.player())) {
          ASSIGN_OR_RETURN(const std::int64_t bot_id, BotIdLocked(bot->first, bot->second));
          seats.Int(bot_id);
        } else {
          seats.NullInt();
        }
        seats.Int(seat.disconnects());
      }
      RETURN_IF_ERROR(Run(sql, seats, "storing a seat").status());
    }
    // An aborted match keeps no record: it never finished, and its deal may
    // be played again.
    if (match.status() == hoard::v1::MATCH_STATUS_ABORTED) return absl::OkStatus();
    const std::string bytes = record.SerializeAsString();
    return Run("INSERT INTO match_records (match_id, record) VALUES ($1, $2)",
               Params().Text(match.match_id()).KeptBytes(bytes), "storing a record")
        .status();
  }

  absl::StatusOr<std::int64_t> BotIdLocked(const std::string& name, const std::string& version)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const std::pair<std::string, std::string> key(name, version);
    if (auto it = bot_ids_.find(key); it != bot_ids_.end()) return it->second;
    // Another server may add the same bot at once: the insert waits for it
    // and then does nothing, and the select that follows sees its row.
    RETURN_IF_ERROR(Run("INSERT INTO bots (name, version) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                        Params().Text(name).Text(version), "storing a bot")
                        .status());
    ASSIGN_OR_RETURN(Rows rows, Run("SELECT id FROM bots WHERE name = $1 AND version = $2",
                                    Params().Text(name).Text(version), "reading a bot"));
    if (rows.size() == 0) return absl::InternalError(absl::StrCat(name_, ": a bot went missing"));
    return bot_ids_[key] = rows.Int(0, 0);
  }

  // A lost connection is made again before the next statement; what was
  // prepared on it is prepared again.
  absl::Status ConnectLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (PQstatus(conn_) == CONNECTION_OK) return absl::OkStatus();
    PQreset(conn_);
    prepared_.clear();
    bot_ids_.clear();
    if (PQstatus(conn_) != CONNECTION_OK) {
      return absl::UnavailableError(absl::StrCat(
          "cannot reach ", name_, ": ", absl::StripTrailingAsciiWhitespace(PQerrorMessage(conn_))));
    }
    if (read_only_) return Exec("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY");
    return absl::OkStatus();
  }

  absl::Status ErrorOf(const PGresult* result, absl::string_view what)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const char* state = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
    const char* message = result != nullptr ? PQresultErrorMessage(result) : PQerrorMessage(conn_);
    return absl::Status(state != nullptr ? CodeFor(state) : absl::StatusCode::kUnavailable,
                        absl::StrCat(name_, ": ", what, what.empty() ? "" : ": ",
                                     absl::StripTrailingAsciiWhitespace(message)));
  }

  // Runs SQL without parameters (one or several statements).
  absl::Status Exec(const std::string& sql) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    // A rollback may take back bots inserted since the cache learnt them.
    if (absl::StartsWith(sql, "ROLLBACK")) bot_ids_.clear();
    if (!absl::StartsWith(sql, "ROLLBACK") && !absl::StartsWith(sql, "COMMIT")) {
      RETURN_IF_ERROR(ConnectLocked());
    }
    PGresult* result = PQexec(conn_, sql.c_str());
    const ExecStatusType status = PQresultStatus(result);
    absl::Status outcome = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK
                               ? absl::OkStatus()
                               : ErrorOf(result, "");
    PQclear(result);
    return outcome;
  }

  // Runs one statement, prepared on first use, with binary parameters and
  // answers.
  absl::StatusOr<Rows> Run(const std::string& sql, const Params& params, absl::string_view what)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    RETURN_IF_ERROR(ConnectLocked());
    auto it = prepared_.find(sql);
    if (it == prepared_.end()) {
      std::string name = absl::StrCat("s", prepared_.size());
      Rows made(PQprepare(conn_, name.c_str(), sql.c_str(), params.size(), params.types()));
      if (PQresultStatus(made.result()) != PGRES_COMMAND_OK) return ErrorOf(made.result(), what);
      it = prepared_.emplace(sql, std::move(name)).first;
    }
    Rows rows(PQexecPrepared(conn_, it->second.c_str(), params.size(), params.values(),
                             params.lengths(), params.formats(), /*resultFormat=*/1));
    const ExecStatusType status = PQresultStatus(rows.result());
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      return ErrorOf(rows.result(), what);
    }
    return rows;
  }

  absl::Mutex mu_;
  PGconn* const conn_;
  const std::string name_;
  const bool read_only_;
  // SQL -> the name it is prepared under on this connection.
  absl::flat_hash_map<std::string, std::string> prepared_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::pair<std::string, std::string>, std::int64_t> bot_ids_
      ABSL_GUARDED_BY(mu_);
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
  auto store = std::make_unique<PostgresStore>(conn, name, access == StoreAccess::kReadOnly);
  RETURN_IF_ERROR(store->Prepare());
  return std::unique_ptr<MatchStore>(std::move(store));
}

}  // namespace hoard::db
