// The store's statements and transactions, once for both databases.

#include "db/sql_store.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "db/migrations.h"
#include "db/stored_seats.pb.h"
#include "engine/player_id.h"
#include "engine/record.h"
#include "engine/record_json.h"
#include "engine/seed_commitment.h"
#include "engine/status_macros.h"

namespace hoard::db {

absl::StatusOr<std::int64_t> SqlConnection::Run(const std::string& sql, const SqlParams& params,
                                                absl::string_view what) {
  return Run(sql, params, what, [](const SqlRow&) { return absl::OkStatus(); });
}

absl::StatusOr<std::optional<std::int64_t>> SqlConnection::QueryInt(const std::string& sql,
                                                                    const SqlParams& params,
                                                                    absl::string_view what) {
  std::optional<std::int64_t> value;
  RETURN_IF_ERROR(Run(sql, params, what, [&](const SqlRow& row) {
                    if (!value.has_value()) value = row.Int(0);
                    return absl::OkStatus();
                  }).status());
  return value;
}

namespace {

std::int64_t NowMs() { return absl::ToUnixMillis(absl::Now()); }

// "name" or "name@version" as the bots table's two columns (name, version);
// version empty for none.
std::pair<std::string, std::string> SplitBotName(const std::string& bot) {
  const std::size_t at = bot.find('@');
  return {bot.substr(0, at), at == std::string::npos ? std::string() : bot.substr(at + 1)};
}

// A stored protobuf read back; kDataLoss, naming `what`, if it cannot be.
template <typename Message>
absl::Status Parse(absl::string_view bytes, Message& message, const std::string& name,
                   absl::string_view what) {
  if (message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::OkStatus();
  }
  return absl::DataLossError(absl::StrCat(name, ": ", what, " cannot be read back"));
}

// What a store keeps of a record: a format 2 record in its compact form
// (format 3), every other as it is (a compact one, a format 1 one, or
// none). Its seed's salt is kept in its match's row, and a commitment that
// seed and salt give again is left out; so are a compact record's format,
// game, ruleset version and seed when its match's row holds the same (a
// stored record with compact moves and no format is one of those).
// `derived_commitment`: the commitment of the match's seed and salt (empty
// without a salt).
std::string StoredRecord(hoard::v1::MatchRecord record, const hoard::v1::Match& match,
                         absl::string_view derived_commitment) {
  if (record.format() == absl::StrCat(engine::kRecordFormatPrefix, engine::kRecordFormatVersion)) {
    absl::StatusOr<engine::MatchRecord> compact = engine::RecordFromProto(record);
    if (compact.ok()) compact = engine::CompactRecord(*compact);
    if (compact.ok()) record = engine::RecordToProto(*compact);
  }
  if (record.has_seed_salt() && record.seed_salt() == match.seed_salt() &&
      record.seed() == match.seed() && record.seed_commitment() == derived_commitment) {
    record.clear_seed_commitment();
    record.clear_seed_salt();
  }
  if (record.has_compact() &&
      record.format() ==
          absl::StrCat(engine::kRecordFormatPrefix, engine::kCompactRecordFormatVersion) &&
      record.game() == match.game() && record.ruleset_version() == match.ruleset_version() &&
      record.seed() == match.seed()) {
    record.clear_format();
    record.clear_game();
    record.clear_ruleset_version();
    record.clear_seed();
  }
  return record.SerializeAsString();
}

// What StoredRecord leaves out of a record and its match's row holds.
struct RecordRow {
  std::string salt;
  std::string game;
  std::string ruleset_version;
  std::uint64_t seed = 0;
};

// A stored record as readers are given it: what its match's row keeps
// (`row`) and the commitment its salt gives put back, and a compact record
// expanded (its match replayed from its seed); kDataLoss when it no longer
// replays.
absl::Status ExpandStored(hoard::v1::MatchRecord& record, const RecordRow& row,
                          const std::string& name, absl::string_view what) {
  if (record.format().empty() && record.has_compact()) {
    record.set_format(
        absl::StrCat(engine::kRecordFormatPrefix, engine::kCompactRecordFormatVersion));
    record.set_game(row.game);
    record.set_ruleset_version(row.ruleset_version);
    record.set_seed(row.seed);
  }
  const std::string& salt = row.salt;
  if (!record.has_seed_salt() && !record.has_seed_commitment() && !salt.empty()) {
    record.set_seed_salt(salt);
    record.set_seed_commitment(engine::SeedCommitment(record.seed(), salt));
  }
  absl::StatusOr<hoard::v1::MatchRecord> expanded = engine::ExpandRecordProto(record);
  if (!expanded.ok()) {
    return absl::DataLossError(
        absl::StrCat(name, ": ", what, " cannot be read back: ", expanded.status().message()));
  }
  record = *std::move(expanded);
  return absl::OkStatus();
}

// The columns of `matches` a stored match is read from: its row's own
// columns, then the rest of its summary (MatchRest), then its packed seats
// (kSeatsColumn).
constexpr char kMatchColumns[] =
    "sequence, summary, id, game, ruleset_version, seed, status, actions, "
    "COALESCE(started_at_ms, 0), COALESCE(finished_at_ms, 0), seed_salt, unrated, "
    "COALESCE(tournament_id, 0), COALESCE(schedule_index, 0), seats";
constexpr int kSeatsColumn = 14;

// What a match's summary keeps beside its row's columns: the fields the
// columns hold are left out (its seats are packed in a column of their own:
// PackSeatsLocked), and so is a commitment its seed and salt give again.
// (Summaries stored before hold every field, seats included; read back, the
// columns give the same values.)
std::string MatchRest(const hoard::v1::Match& match, absl::string_view derived_commitment,
                      bool in_tournament) {
  // Built from what the columns do not hold, not copied whole and cleared:
  // a copy would take the seats along. store_test's
  // EveryFieldOfAMatchIsKept fails for a field of Match added and
  // forgotten here.
  hoard::v1::Match rest;
  if (match.has_time_control()) *rest.mutable_time_control() = match.time_control();
  *rest.mutable_options() = match.options();
  rest.set_sealed(match.sealed());
  if (match.seed_salt().empty() || match.seed_commitment() != derived_commitment) {
    rest.set_seed_commitment(match.seed_commitment());
  }
  // A match in a tournament (its slot's, or its own) has neither kept here;
  // a number without a tournament is.
  if (!in_tournament) rest.set_schedule_index(match.schedule_index());
  return rest.SerializeAsString();
}

// The summary and record `match` is stored with (in `slot`, if not null).
EncodedResult EncodeResult(const hoard::v1::Match& match, const hoard::v1::MatchRecord& record,
                           const TournamentSlot* slot) {
  const std::string derived_commitment =
      match.seed_salt().empty() ? "" : engine::SeedCommitment(match.seed(), match.seed_salt());
  EncodedResult encoded;
  encoded.made = true;
  encoded.summary = MatchRest(match, derived_commitment,
                              /*in_tournament=*/slot != nullptr || match.tournament_id() != 0);
  // An aborted match keeps no record: it never finished, and its deal may
  // be played again.
  if (match.status() != hoard::v1::MATCH_STATUS_ABORTED) {
    encoded.record = StoredRecord(record, match, derived_commitment);
  }
  return encoded;
}

// A seat's score as StoredSeat keeps it: whole numbers (up to 2^53, which a
// double holds exactly) as integers.
void PackScore(double score, hoard::db::StoredSeat& packed) {
  constexpr double kExact = 9007199254740992.0;  // 2^53
  if (score >= -kExact && score <= kExact &&
      score == static_cast<double>(static_cast<std::int64_t>(score))) {
    packed.set_whole_score(static_cast<std::int64_t>(score));
  } else {
    packed.set_score(score);
  }
}

// The id in `bots` of the bot that held a packed seat; 0 for none.
std::int64_t BotIdOf(const hoard::db::StoredSeat& packed) {
  return packed.bot_case() == hoard::db::StoredSeat::kBuiltinBot ? packed.builtin_bot()
                                                                 : packed.account_bot();
}

double UnpackedScore(const hoard::db::StoredSeat& packed) {
  return packed.whole_score() != 0 ? static_cast<double>(packed.whole_score()) : packed.score();
}

// A stored match read back from a row of kMatchColumns.
absl::Status ReadMatch(const SqlRow& row, StoredMatch& stored, const std::string& name) {
  stored.sequence = row.Int(0);
  hoard::v1::Match& match = stored.match;
  RETURN_IF_ERROR(Parse(row.Bytes(1), match, name, absl::StrCat("match ", row.Text(2))));
  match.set_match_id(row.Text(2));
  match.set_game(row.Text(3));
  match.set_ruleset_version(row.Text(4));
  match.set_seed(static_cast<std::uint64_t>(row.Int(5)));
  if (!hoard::v1::MatchStatus_IsValid(static_cast<int>(row.Int(6)))) {
    return absl::DataLossError(
        absl::StrCat(name, ": match ", row.Text(2), " has status ", row.Int(6), ", which is none"));
  }
  match.set_status(static_cast<hoard::v1::MatchStatus>(row.Int(6)));
  match.set_actions(static_cast<int>(row.Int(7)));
  // Rows stored before these columns were added hold them in the summary.
  if (row.Int(8) != 0) match.set_started_unix_ms(row.Int(8));
  if (row.Int(9) != 0) match.set_finished_unix_ms(row.Int(9));
  if (!row.Bytes(10).empty()) match.set_seed_salt(row.Text(10));
  if (row.Int(11) != 0) match.set_unrated(true);
  if (row.Int(12) != 0) {
    match.set_tournament_id(row.Int(12));
    match.set_schedule_index(static_cast<int>(row.Int(13)));
  }
  if (match.seed_commitment().empty() && !match.seed_salt().empty()) {
    match.set_seed_commitment(engine::SeedCommitment(match.seed(), match.seed_salt()));
  }
  return absl::OkStatus();
}

// Every statement whose text depends on the dialect, made once per store.
struct Statements {
  explicit Statements(const SqlDialect& d)
      : reserve(absl::StrCat("INSERT INTO counters (name, value) VALUES ('next_sequence', "
                             "(SELECT COALESCE(MAX(sequence), 0) + 1 FROM matches) + $1) "
                             "ON CONFLICT (name) DO UPDATE SET value = ",
                             d.greatest, "(counters.value, excluded.value - $1) + $1 ",
                             "RETURNING value - $1")),
        bot_accounts(absl::StrCat("SELECT name, key_hash, launched FROM bot_accounts ORDER BY name "
                                  "COLLATE ",
                                  d.byte_order)),
        claim_slot(absl::StrCat(
            "INSERT INTO slot_leases (tournament_id, schedule_index, holder, expires_at_ms) "
            "SELECT $1, $2, $3, ",
            d.now_ms,
            " + $4 WHERE NOT EXISTS (SELECT 1 FROM matches "
            "WHERE tournament_id = $1 AND schedule_index = $2) "
            "ON CONFLICT (tournament_id, schedule_index) DO UPDATE SET holder = excluded.holder, "
            "expires_at_ms = excluded.expires_at_ms WHERE slot_leases.holder = excluded.holder "
            "OR slot_leases.expires_at_ms < ",
            d.now_ms)),
        renew_leases(absl::StrCat("UPDATE slot_leases SET expires_at_ms = ", d.now_ms,
                                  " + $2 WHERE holder = $1")),
        rated_matches(absl::StrCat(
            "SELECT sequence, COALESCE(tournament_id, 0), COALESCE(block, 0), "
            "COALESCE(schedule_index, 0), seats, CASE WHEN seats IS NULL THEN summary END "
            "FROM matches WHERE game = $1 AND ($2 = 0 OR tournament_id = $2) AND status = ",
            static_cast<int>(hoard::v1::MATCH_STATUS_FINISHED), " AND unrated = 0 ORDER BY ",
            d.stored_order)),
        tournament_version(
            absl::StrCat("SELECT ", d.scope_version, " FROM matches WHERE tournament_id = $1")),
        game_version(absl::StrCat("SELECT ", d.scope_version, " FROM matches WHERE game = $1")) {}

  const std::string reserve;
  const std::string bot_accounts;
  const std::string claim_slot;
  const std::string renew_leases;
  const std::string rated_matches;
  const std::string tournament_version;
  const std::string game_version;
};

// The columns of a stored tournament, read by TournamentsLocked.
constexpr char kSelectTournaments[] =
    "SELECT id, spec, spec_hash, status, error, scheduled, created_at_ms, updated_at_ms, seed_salt "
    "FROM tournaments ";

class SqlStore final : public MatchStore {
 public:
  SqlStore(std::unique_ptr<SqlConnection> db, bool read_only, std::vector<std::string> notices)
      : db_(std::move(db)), name_(db_->name()), read_only_(read_only), sql_(db_->dialect()) {
    notices_ = std::move(notices);
  }

  absl::Status CheckFile() override {
    absl::MutexLock lock(&mu_);
    return db_->CheckFile();
  }

  absl::Status SaveFinished(std::int64_t sequence, const hoard::v1::Match& match,
                            const hoard::v1::MatchRecord& record,
                            const TournamentSlot* slot) override {
    return StoreInOneTransaction({{sequence, &match, &record, slot, nullptr}})[0];
  }

  std::vector<absl::Status> SaveFinishedBatch(
      const std::vector<const FinishedResult*>& results) override {
    std::vector<Pending> pending;
    pending.reserve(results.size());
    for (const FinishedResult* result : results) {
      pending.push_back({result->sequence, &result->match, &result->record,
                         result->slot ? &*result->slot : nullptr,
                         result->encoded.made ? &result->encoded : nullptr});
    }
    return StoreInOneTransaction(pending);
  }

  void Encode(FinishedResult& result) const override {
    result.encoded =
        EncodeResult(result.match, result.record, result.slot ? &*result.slot : nullptr);
  }

  absl::StatusOr<std::optional<StoredMatch>> Get(const std::string& id) override {
    absl::MutexLock lock(&mu_);
    std::vector<StoredMatch> found;
    RETURN_IF_ERROR(
        ReadMatchesLocked(absl::StrCat("SELECT ", kMatchColumns, " FROM matches WHERE id = $1"),
                          SqlParams().Text(id), "reading a match", found));
    if (found.empty()) return std::nullopt;
    return std::move(found.front());
  }

  absl::StatusOr<std::optional<hoard::v1::MatchRecord>> GetRecord(const std::string& id) override {
    std::optional<hoard::v1::MatchRecord> found;
    RecordRow kept;
    const std::string what = absl::StrCat("the record of ", id);
    {
      absl::MutexLock lock(&mu_);
      RETURN_IF_ERROR(db_->Run("SELECT record, seed_salt, game, ruleset_version, seed "
                               "FROM matches WHERE id = $1 AND record IS NOT NULL",
                               SqlParams().Text(id), "reading a record",
                               [&](const SqlRow& row) {
                                 kept = {.salt = row.Text(1),
                                         .game = row.Text(2),
                                         .ruleset_version = row.Text(3),
                                         .seed = static_cast<std::uint64_t>(row.Int(4))};
                                 return Parse(row.Bytes(0), found.emplace(), name_, what);
                               })
                          .status());
    }
    // Replayed without the store's lock: other calls go on meanwhile.
    if (found.has_value()) RETURN_IF_ERROR(ExpandStored(*found, kept, name_, what));
    return found;
  }

  absl::StatusOr<std::vector<StoredMatch>> List(std::int64_t after, int limit,
                                                const MatchFilter& filter) override {
    return ListFrom(after, /*newest_first=*/false, limit, filter);
  }

  absl::StatusOr<std::vector<StoredMatch>> ListNewest(std::int64_t before, int limit,
                                                      const MatchFilter& filter) override {
    return ListFrom(before, /*newest_first=*/true, limit, filter);
  }

  // Oldest first after `from`, or newest first before it (0: any).
  absl::StatusOr<std::vector<StoredMatch>> ListFrom(std::int64_t from, bool newest_first, int limit,
                                                    const MatchFilter& filter) {
    absl::MutexLock lock(&mu_);
    const auto [rated_name, rated_version] = SplitBotName(filter.rated_bot);
    const auto [bot_name, bot_version] = SplitBotName(filter.bot);
    // A seat of a registered bot (filter.bot) or of any bot by its name
    // (filter.rated_bot, built-in ones too), both found through bot_matches.
    std::vector<StoredMatch> matches;
    const std::string sql = absl::StrCat(
        "SELECT ", kMatchColumns, " FROM matches WHERE ",
        newest_first ? "($1 = 0 OR sequence < $1) " : "sequence > $1 ",
        "AND ($2 = '' OR game = $2) "
        "AND ($3 = '' OR sequence IN (SELECT bm.sequence FROM bot_matches bm JOIN bots b "
        "ON b.id = bm.bot_id WHERE b.name = $8 AND b.version = $9 AND bm.builtin = 0)) "
        "AND ($5 = 0 OR tournament_id = $5) "
        "AND ($6 = '' OR sequence IN (SELECT bm.sequence FROM bot_matches bm JOIN bots b "
        "ON b.id = bm.bot_id WHERE b.name = $6 AND b.version = $7)) "
        "AND ($10 = 0 OR status = $10) ORDER BY sequence",
        newest_first ? " DESC" : "", " LIMIT $4");
    RETURN_IF_ERROR(ReadMatchesLocked(sql,
                                      SqlParams()
                                          .Int(from)
                                          .Text(filter.game)
                                          .Text(filter.bot)
                                          .Int(limit)
                                          .Int(filter.tournament_id)
                                          .Text(rated_name)
                                          .Text(rated_version)
                                          .Text(bot_name)
                                          .Text(bot_version)
                                          .Int(filter.status),
                                      "listing matches", matches));
    return matches;
  }

  absl::StatusOr<std::int64_t> LastSequence() override {
    absl::MutexLock lock(&mu_);
    ASSIGN_OR_RETURN(std::optional<std::int64_t> last,
                     db_->QueryInt("SELECT COALESCE(MAX(sequence), 0) FROM matches", SqlParams(),
                                   "reading the last match"));
    return last.value_or(0);
  }

  absl::StatusOr<std::int64_t> ReserveSequences(int count) override {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(db_->CheckFile());
    RETURN_IF_ERROR(db_->Exec(db_->dialect().begin_write));
    absl::StatusOr<std::int64_t> first = ReserveLocked(count);
    if (!first.ok()) {
      RollbackLocked();
      return first.status();
    }
    if (absl::Status s = db_->Exec("COMMIT"); !s.ok()) {
      RollbackLocked();
      return s;
    }
    return first;
  }

  absl::StatusOr<std::int64_t> CreateTournament(const hoard::v1::TournamentSpec& spec,
                                                const std::string& spec_hash, int scheduled,
                                                const std::string& seed_salt) override {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(db_->CheckFile());
    const std::string bytes = spec.SerializeAsString();
    ASSIGN_OR_RETURN(
        std::optional<std::int64_t> id,
        db_->QueryInt(
            "INSERT INTO tournaments (name, game, spec, spec_hash, status, error, scheduled, "
            "created_at_ms, updated_at_ms, seed_salt) VALUES ($1, $2, $3, $4, $5, '', $6, $7, $7, "
            "$8) RETURNING id",
            SqlParams()
                .Text(spec.name())
                .Text(spec.game())
                .KeptBytes(bytes)
                .Text(spec_hash)
                .Text(hoard::v1::TournamentStatus_Name(hoard::v1::TOURNAMENT_STATUS_RUNNING))
                .Int(scheduled)
                .Int(NowMs())
                .Text(seed_salt),
            "storing a tournament"));
    if (!id.has_value()) {
      return absl::InternalError(absl::StrCat(name_, ": a stored tournament has no id"));
    }
    return *id;
  }

  absl::StatusOr<std::optional<StoredTournament>> GetTournament(std::int64_t id) override {
    absl::MutexLock lock(&mu_);
    return FirstOf(TournamentsLocked("WHERE id = $1", SqlParams().Int(id)));
  }

  absl::StatusOr<std::optional<StoredTournament>> FindTournament(
      const std::string& spec_hash) override {
    absl::MutexLock lock(&mu_);
    return FirstOf(TournamentsLocked("WHERE spec_hash = $1 ORDER BY id DESC LIMIT 1",
                                     SqlParams().Text(spec_hash)));
  }

  absl::StatusOr<std::vector<StoredTournament>> ListTournaments() override {
    absl::MutexLock lock(&mu_);
    return TournamentsLocked("ORDER BY id DESC", SqlParams());
  }

  absl::Status SetTournamentStatus(std::int64_t id, hoard::v1::TournamentStatus status,
                                   const std::string& error) override {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(db_->CheckFile());
    ASSIGN_OR_RETURN(const std::int64_t changed,
                     db_->Run("UPDATE tournaments SET status = $1, error = $2, updated_at_ms = $3 "
                              "WHERE id = $4",
                              SqlParams()
                                  .Text(hoard::v1::TournamentStatus_Name(status))
                                  .Text(error)
                                  .Int(NowMs())
                                  .Int(id),
                              "updating a tournament"));
    if (changed == 0) return absl::NotFoundError(absl::StrCat("no tournament ", id));
    return absl::OkStatus();
  }

  absl::Status SetTournamentSpec(std::int64_t id, const hoard::v1::TournamentSpec& spec) override {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(db_->CheckFile());
    const std::string bytes = spec.SerializeAsString();
    ASSIGN_OR_RETURN(const std::int64_t changed,
                     db_->Run("UPDATE tournaments SET spec = $1, updated_at_ms = $2 WHERE id = $3",
                              SqlParams().KeptBytes(bytes).Int(NowMs()).Int(id),
                              "updating a tournament's spec"));
    if (changed == 0) return absl::NotFoundError(absl::StrCat("no tournament ", id));
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<int>> StoredSlots(std::int64_t tournament_id) override {
    absl::MutexLock lock(&mu_);
    std::vector<int> slots;
    RETURN_IF_ERROR(db_->Run("SELECT schedule_index FROM matches WHERE tournament_id = $1 "
                             "ORDER BY schedule_index",
                             SqlParams().Int(tournament_id), "reading a tournament's matches",
                             [&](const SqlRow& row) {
                               slots.push_back(static_cast<int>(row.Int(0)));
                               return absl::OkStatus();
                             })
                        .status());
    return slots;
  }

  absl::Status PutBotAccount(const BotAccount& account) override {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(db_->CheckFile());
    return db_
        ->Run(
            "INSERT INTO bot_accounts (name, key_hash, launched, created_at_ms) "
            "VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO UPDATE SET key_hash = "
            "excluded.key_hash, launched = excluded.launched",
            SqlParams()
                .Text(account.name)
                .Text(account.key_hash)
                .Int(account.launched ? 1 : 0)
                .Int(NowMs()),
            "storing a bot account")
        .status();
  }

  absl::Status DeleteBotAccount(const std::string& name) override {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(db_->CheckFile());
    return db_
        ->Run("DELETE FROM bot_accounts WHERE name = $1", SqlParams().Text(name),
              "deleting a bot account")
        .status();
  }

  absl::StatusOr<std::vector<BotAccount>> BotAccounts() override {
    absl::MutexLock lock(&mu_);
    std::vector<BotAccount> accounts;
    RETURN_IF_ERROR(db_->Run(sql_.bot_accounts, SqlParams(), "reading bot accounts",
                             [&](const SqlRow& row) {
                               accounts.push_back({.name = row.Text(0),
                                                   .key_hash = row.Text(1),
                                                   .launched = row.Int(2) != 0});
                               return absl::OkStatus();
                             })
                        .status());
    return accounts;
  }

  absl::StatusOr<bool> ClaimSlot(std::int64_t tournament_id, int schedule_index,
                                 const std::string& holder, absl::Duration ttl) override {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(db_->CheckFile());
    // By the database's clock: the servers' clocks may disagree.
    ASSIGN_OR_RETURN(const std::int64_t changed, db_->Run(sql_.claim_slot,
                                                          SqlParams()
                                                              .Int(tournament_id)
                                                              .Int(schedule_index)
                                                              .Text(holder)
                                                              .Int(absl::ToInt64Milliseconds(ttl)),
                                                          "leasing a slot"));
    return changed > 0;
  }

  absl::Status RenewLeases(const std::string& holder, absl::Duration ttl) override {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(db_->CheckFile());
    // The leases of slots stored since go: renewals touch only the slots in play.
    RETURN_IF_ERROR(db_->Run("DELETE FROM slot_leases WHERE holder = $1 AND EXISTS (SELECT 1 "
                             "FROM matches m WHERE m.tournament_id = slot_leases.tournament_id "
                             "AND m.schedule_index = slot_leases.schedule_index)",
                             SqlParams().Text(holder), "renewing leases")
                        .status());
    return db_
        ->Run(sql_.renew_leases, SqlParams().Text(holder).Int(absl::ToInt64Milliseconds(ttl)),
              "renewing leases")
        .status();
  }

  absl::Status ReleaseLeases(std::int64_t tournament_id, const std::string& holder) override {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(db_->CheckFile());
    return db_
        ->Run("DELETE FROM slot_leases WHERE tournament_id = $1 AND holder = $2",
              SqlParams().Int(tournament_id).Text(holder), "ending leases")
        .status();
  }

  absl::StatusOr<std::vector<RatedMatch>> RatedMatches(const RatingScope& scope) override {
    absl::MutexLock lock(&mu_);
    std::vector<RatedMatch> matches;
    // Each match's packed seats, named once every row is read (naming a bot
    // the store has not met may take a query of its own).
    std::vector<hoard::db::StoredSeats> packed;
    RETURN_IF_ERROR(
        db_->Run(sql_.rated_matches, SqlParams().Text(scope.game).Int(scope.tournament_id),
                 "reading results",
                 [&](const SqlRow& row) {
                   RatedMatch& match = matches.emplace_back();
                   match.sequence = row.Int(0);
                   match.tournament_id = row.Int(1);
                   match.block = match.tournament_id != 0 ? row.Int(2) : match.sequence;
                   match.schedule_index = row.Int(3);
                   const std::string what = absl::StrCat("the seats of match ", match.sequence);
                   if (!row.Bytes(4).empty()) {
                     return Parse(row.Bytes(4), packed.emplace_back(), name_, what);
                   }
                   // Stored before seats were packed: its summary holds them.
                   packed.emplace_back();
                   hoard::v1::Match summary;
                   RETURN_IF_ERROR(Parse(row.Bytes(5), summary, name_, what));
                   for (const hoard::v1::SeatInfo& seat : summary.seats()) {
                     absl::StatusOr<engine::PlayerId> id = engine::PlayerId::Parse(seat.player());
                     if (!id.ok()) continue;
                     match.seats.push_back(RatedSeatOf(seat, id->name(), id->is_builtin()));
                   }
                   return absl::OkStatus();
                 })
            .status());
    for (std::size_t i = 0; i < matches.size(); ++i) {
      for (const hoard::db::StoredSeat& seat : packed[i].seats()) {
        if (BotIdOf(seat) == 0) continue;  // an open seat
        ASSIGN_OR_RETURN(const std::string* bot, BotNameLocked(BotIdOf(seat)));
        hoard::v1::SeatInfo info = seat.rest();
        info.set_score(UnpackedScore(seat));
        matches[i].seats.push_back(RatedSeatOf(info, *bot, seat.has_builtin_bot()));
      }
    }
    return matches;
  }

  absl::StatusOr<std::int64_t> ScopeVersion(const RatingScope& scope) override {
    absl::MutexLock lock(&mu_);
    ASSIGN_OR_RETURN(
        std::optional<std::int64_t> version,
        scope.tournament_id != 0
            ? db_->QueryInt(sql_.tournament_version, SqlParams().Int(scope.tournament_id),
                            "reading results")
            : db_->QueryInt(sql_.game_version, SqlParams().Text(scope.game), "reading results"));
    return version.value_or(0);
  }

  absl::Status SaveRatingSnapshot(const RatingScope& scope, std::int64_t version,
                                  const hoard::v1::RatingSnapshot& snapshot) override {
    // A snapshot only saves work next time; a read-only store computes anew.
    if (read_only_) return absl::OkStatus();
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(db_->CheckFile());
    const std::string bytes = snapshot.SerializeAsString();
    RETURN_IF_ERROR(db_->Run("INSERT INTO rating_snapshots (game, tournament_id, version, "
                             "computed_at_ms, snapshot) VALUES ($1, $2, $3, $4, $5) "
                             "ON CONFLICT (game, tournament_id, version) DO UPDATE SET "
                             "computed_at_ms = excluded.computed_at_ms, snapshot = "
                             "excluded.snapshot",
                             SqlParams()
                                 .Text(scope.game)
                                 .Int(scope.tournament_id)
                                 .Int(version)
                                 .Int(NowMs())
                                 .KeptBytes(bytes),
                             "storing ratings")
                        .status());
    // Only the newest snapshot of a scope is ever read.
    return db_
        ->Run(
            "DELETE FROM rating_snapshots WHERE game = $1 AND tournament_id = $2 "
            "AND version < $3",
            SqlParams().Text(scope.game).Int(scope.tournament_id).Int(version), "pruning ratings")
        .status();
  }

  absl::StatusOr<std::optional<std::pair<std::int64_t, hoard::v1::RatingSnapshot>>>
  LatestRatingSnapshot(const RatingScope& scope) override {
    absl::MutexLock lock(&mu_);
    std::optional<std::pair<std::int64_t, hoard::v1::RatingSnapshot>> latest;
    RETURN_IF_ERROR(
        db_->Run("SELECT version, snapshot FROM rating_snapshots WHERE game = $1 "
                 "AND tournament_id = $2 ORDER BY version DESC LIMIT 1",
                 SqlParams().Text(scope.game).Int(scope.tournament_id), "reading ratings",
                 [&](const SqlRow& row) {
                   latest.emplace().first = row.Int(0);
                   return Parse(row.Bytes(1), latest->second, name_, "a rating snapshot");
                 })
            .status());
    return latest;
  }

 private:
  static absl::StatusOr<std::optional<StoredTournament>> FirstOf(
      absl::StatusOr<std::vector<StoredTournament>> found) {
    if (!found.ok()) return found.status();
    if (found->empty()) return std::optional<StoredTournament>();
    return std::optional<StoredTournament>(std::move(found->front()));
  }

  // A finished match to store, as SaveFinished takes it.
  struct Pending {
    std::int64_t sequence;
    const hoard::v1::Match* match;
    const hoard::v1::MatchRecord* record;
    const TournamentSlot* slot;    // null: none
    const EncodedResult* encoded;  // null: encoded as it is stored
  };

  // Stores `pending` in one transaction: a status each, as
  // SaveFinishedBatch returns them.
  std::vector<absl::Status> StoreInOneTransaction(const std::vector<Pending>& pending)
      ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    std::vector<absl::Status> statuses(pending.size());
    auto all = [&](const absl::Status& error) {
      std::fill(statuses.begin(), statuses.end(), error);
      return statuses;
    };
    const absl::Time started = absl::Now();
    if (absl::Status s = db_->CheckFile(); !s.ok()) return all(s);
    if (absl::Status s = db_->Exec(db_->dialect().begin_write); !s.ok()) return all(s);
    // The matches without a number get theirs from the reserved numbers
    // too, so that no server is given them: all in one reservation.
    const int unnumbered = static_cast<int>(std::count_if(
        pending.begin(), pending.end(), [](const Pending& p) { return p.sequence == 0; }));
    std::int64_t next = 0;
    if (unnumbered > 0) {
      absl::StatusOr<std::int64_t> first = ReserveLocked(unnumbered);
      if (!first.ok()) {
        RollbackLocked();
        return all(first.status());
      }
      next = *first;
    }
    for (std::size_t i = 0; i < pending.size(); ++i) {
      // One already stored inserts nothing (ON CONFLICT DO NOTHING), so the
      // transaction goes on with the others.
      const Pending& one = pending[i];
      statuses[i] = InsertLocked(one.sequence != 0 ? one.sequence : next++, *one.match, *one.record,
                                 one.slot, one.encoded);
      if (!statuses[i].ok() && statuses[i].code() != absl::StatusCode::kAlreadyExists) {
        const absl::Status error = statuses[i];
        RollbackLocked();
        return all(error);
      }
    }
    if (absl::Status s = db_->Exec("COMMIT"); !s.ok()) {
      RollbackLocked();  // nothing of it stays
      return all(s);
    }
    ObserveCommit(started,
                  static_cast<int>(std::count_if(statuses.begin(), statuses.end(),
                                                 [](const absl::Status& s) { return s.ok(); })));
    return statuses;
  }

  void RollbackLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    // The rollback may take back bots inserted since the caches learnt them.
    bot_ids_.clear();
    bot_names_.clear();
    db_->Exec("ROLLBACK").IgnoreError();
  }

  // Tournaments selected by `where` (with `params`).
  absl::StatusOr<std::vector<StoredTournament>> TournamentsLocked(const char* where,
                                                                  const SqlParams& params)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::vector<StoredTournament> tournaments;
    RETURN_IF_ERROR(
        db_->Run(absl::StrCat(kSelectTournaments, where), params, "reading tournaments",
                 [&](const SqlRow& row) {
                   StoredTournament& t = tournaments.emplace_back();
                   t.id = row.Int(0);
                   RETURN_IF_ERROR(
                       Parse(row.Bytes(1), t.spec, name_, absl::StrCat("tournament ", t.id)));
                   t.spec_hash = row.Text(2);
                   const std::string status = row.Text(3);
                   if (!hoard::v1::TournamentStatus_Parse(status, &t.status)) {
                     return absl::DataLossError(absl::StrCat(
                         name_, ": tournament ", t.id, " has an unknown status '", status, "'"));
                   }
                   t.error = row.Text(4);
                   t.scheduled = static_cast<int>(row.Int(5));
                   t.created_unix_ms = row.Int(6);
                   t.updated_unix_ms = row.Int(7);
                   t.seed_salt = row.Text(8);
                   return absl::OkStatus();
                 })
            .status());
    return tournaments;
  }

  // Takes the counter's row (SQLite: the database's write lock) until the
  // transaction ends: servers that reserve at once take turns, and none is
  // given a number twice.
  absl::StatusOr<std::int64_t> ReserveLocked(int count) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    ASSIGN_OR_RETURN(std::optional<std::int64_t> first,
                     db_->QueryInt(sql_.reserve, SqlParams().Int(count), "reserving match ids"));
    if (!first.has_value()) {
      return absl::InternalError(absl::StrCat(name_, ": reserving match ids gave none"));
    }
    return *first;
  }

  static RatedSeat RatedSeatOf(const hoard::v1::SeatInfo& seat, std::string bot, bool builtin) {
    return {.bot = std::move(bot),
            .rank = seat.rank(),
            .score = seat.score(),
            .timeouts = seat.timeouts(),
            .forfeited = seat.forfeited(),
            .disconnects = seat.disconnects(),
            .builtin = builtin};
  }

  // The name ("name" or "name@version") of the bot `id` in `bots`; the
  // table is read again when the store has not met it yet (another server
  // may have added it). kDataLoss if there is none.
  absl::StatusOr<const std::string*> BotNameLocked(std::int64_t id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = bot_names_.find(id);
    if (it == bot_names_.end()) {
      // Read into a map of its own: the callback is not known to hold mu_.
      absl::flat_hash_map<std::int64_t, std::string> names;
      RETURN_IF_ERROR(db_->Run("SELECT id, name, version FROM bots", SqlParams(), "reading bots",
                               [&](const SqlRow& row) {
                                 names[row.Int(0)] =
                                     engine::JoinBotName(row.Bytes(1), row.Bytes(2));
                                 return absl::OkStatus();
                               })
                          .status());
      bot_names_.merge(names);
      it = bot_names_.find(id);
      if (it == bot_names_.end()) {
        return absl::DataLossError(
            absl::StrCat(name_, ": a seat names bot ", id, ", which is none"));
      }
    }
    return &it->second;
  }

  // The stored matches `sql` (its columns kMatchColumns) selects, in order,
  // appended to `matches` with their seats.
  absl::Status ReadMatchesLocked(const std::string& sql, const SqlParams& params,
                                 absl::string_view what, std::vector<StoredMatch>& matches)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    // Seats are named once every row is read: naming a bot the store has
    // not met takes a query of its own.
    std::vector<std::pair<std::size_t, hoard::db::StoredSeats>> packed;
    RETURN_IF_ERROR(db_->Run(sql, params, what,
                             [&](const SqlRow& row) {
                               RETURN_IF_ERROR(ReadMatch(row, matches.emplace_back(), name_));
                               // Empty: stored before seats were packed, its summary holds them.
                               if (row.Bytes(kSeatsColumn).empty()) return absl::OkStatus();
                               auto& [index, seats] = packed.emplace_back(matches.size() - 1,
                                                                          hoard::db::StoredSeats());
                               return Parse(row.Bytes(kSeatsColumn), seats, name_,
                                            absl::StrCat("the seats of match ", row.Text(2)));
                             })
                        .status());
    for (const auto& [index, seats] : packed) {
      hoard::v1::Match& match = matches[index].match;
      for (int i = 0; i < seats.seats_size(); ++i) {
        const hoard::db::StoredSeat& seat = seats.seats(i);
        hoard::v1::SeatInfo& info = *match.add_seats();
        info = seat.rest();
        info.set_seat(i);
        info.set_score(UnpackedScore(seat));
        if (!seat.player().empty()) {
          info.set_player(seat.player());
        } else if (BotIdOf(seat) != 0) {
          ASSIGN_OR_RETURN(const std::string* bot, BotNameLocked(BotIdOf(seat)));
          info.set_player(seat.has_builtin_bot() ? engine::PlayerId::Builtin(*bot).ToString()
                                                 : engine::PlayerId::Bot(*bot).ToString());
        }
      }
    }
    return absl::OkStatus();
  }

  // `match`'s seats as its row keeps them (StoredSeats), each bot by its id
  // in `bots` (added there if new), and the bots that held them, without
  // repeats, as bot_matches keeps them: (bot id, 1 for a built-in bot).
  absl::StatusOr<std::string> PackSeatsLocked(const hoard::v1::Match& match,
                                              std::vector<std::pair<std::int64_t, int>>& bots)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    hoard::db::StoredSeats packed;
    for (const hoard::v1::SeatInfo& seat : match.seats()) {
      hoard::db::StoredSeat& one = *packed.add_seats();
      *one.mutable_rest() = seat;
      one.mutable_rest()->clear_seat();
      one.mutable_rest()->clear_player();
      one.mutable_rest()->clear_score();
      PackScore(seat.score(), one);
      absl::StatusOr<engine::PlayerId> id = engine::PlayerId::Parse(seat.player());
      if (!id.ok()) {
        one.set_player(seat.player());
        continue;
      }
      ASSIGN_OR_RETURN(const std::int64_t bot_id,
                       BotIdLocked(std::string(id->base_name()), std::string(id->version())));
      if (id->is_builtin()) {
        one.set_builtin_bot(bot_id);
      } else {
        one.set_account_bot(bot_id);
      }
      // Read back as the kind's prefix and the bot's name and version
      // joined: a player text that would not be is kept as it is.
      if (engine::JoinBotName(id->base_name(), id->version()) != id->name()) {
        one.set_player(seat.player());
      }
      const std::pair<std::int64_t, int> held(bot_id, id->is_builtin() ? 1 : 0);
      if (std::find(bots.begin(), bots.end(), held) == bots.end()) bots.push_back(held);
    }
    return packed.SerializeAsString();
  }

  absl::Status InsertLocked(std::int64_t sequence, const hoard::v1::Match& match,
                            const hoard::v1::MatchRecord& record, const TournamentSlot* slot,
                            const EncodedResult* encoded) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const std::string id =
        match.match_id().empty() ? absl::StrCat("m", sequence) : match.match_id();
    EncodedResult made;
    if (encoded == nullptr) {
      made = EncodeResult(match, record, slot);
      encoded = &made;
    }
    const std::string& summary = encoded->summary;
    const std::string& record_bytes = encoded->record;
    std::vector<std::pair<std::int64_t, int>> bots;
    ASSIGN_OR_RETURN(const std::string seats, PackSeatsLocked(match, bots));
    const bool aborted = match.status() == hoard::v1::MATCH_STATUS_ABORTED;
    SqlParams params;
    params.Text(id)
        .Int(sequence)
        .Text(match.game())
        .Text(match.ruleset_version())
        .Int(static_cast<std::int64_t>(match.seed()))
        .Int(match.status())
        .Int(match.actions())
        .KeptBytes(summary);
    if (slot != nullptr) {
      params.Int(slot->tournament_id).Int(slot->schedule_index).Int(slot->block);
    } else {
      params.NullInt().NullInt().NullInt();
    }
    params.Int(match.started_unix_ms())
        .Int(match.finished_unix_ms())
        .Text(match.seed_salt())
        .Int(match.unrated() ? 1 : 0)
        .KeptBytes(seats);
    if (aborted) {
      params.NullInt();
    } else {
      params.KeptBytes(record_bytes);
    }
    // A match whose id, number or slot is taken inserts nothing and leaves
    // the transaction usable (a concurrent insert of the same is waited for).
    ASSIGN_OR_RETURN(
        const std::int64_t inserted,
        db_->Run("INSERT INTO matches (id, sequence, game, ruleset_version, seed, status, "
                 "actions, summary, tournament_id, schedule_index, block, started_at_ms, "
                 "finished_at_ms, seed_salt, unrated, seats, record) VALUES ($1, $2, $3, $4, $5, "
                 "$6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) ON CONFLICT DO NOTHING",
                 params, "storing a match"));
    if (inserted == 0) {
      if (slot != nullptr) {
        return absl::AlreadyExistsError(absl::StrCat("match ", id, " or slot ",
                                                     slot->schedule_index, " of tournament ",
                                                     slot->tournament_id, " is already stored"));
      }
      ASSIGN_OR_RETURN(std::optional<std::int64_t> same,
                       db_->QueryInt("SELECT 1 FROM matches WHERE id = $1", SqlParams().Text(id),
                                     "storing a match"));
      if (same.has_value()) {
        return absl::AlreadyExistsError(absl::StrCat("match ", id, " is already stored"));
      }
      // Not this match: another holds its number.
      return absl::FailedPreconditionError(absl::StrCat(
          "match ", id, " cannot be stored: its sequence ", sequence, " belongs to another match"));
    }
    if (bots.empty()) return absl::OkStatus();
    // The bots that held its seats, in one statement.
    SqlParams held;
    std::string sql = "INSERT INTO bot_matches (bot_id, builtin, sequence) VALUES ";
    for (std::size_t i = 0; i < bots.size(); ++i) {
      absl::StrAppend(&sql, i == 0 ? "" : ", ", "($", 3 * i + 1, ", $", 3 * i + 2, ", $", 3 * i + 3,
                      ")");
      held.Int(bots[i].first).Int(bots[i].second).Int(sequence);
    }
    return db_->Run(sql, held, "storing a match's bots").status();
  }

  absl::StatusOr<std::int64_t> BotIdLocked(const std::string& name, const std::string& version)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const std::pair<std::string, std::string> key(name, version);
    if (auto it = bot_ids_.find(key); it != bot_ids_.end()) return it->second;
    // Another server may add the same bot at once: the insert waits for it
    // and then does nothing, and the select that follows sees its row.
    RETURN_IF_ERROR(db_->Run("INSERT INTO bots (name, version) VALUES ($1, $2) "
                             "ON CONFLICT DO NOTHING",
                             SqlParams().Text(name).Text(version), "storing a bot")
                        .status());
    ASSIGN_OR_RETURN(std::optional<std::int64_t> id,
                     db_->QueryInt("SELECT id FROM bots WHERE name = $1 AND version = $2",
                                   SqlParams().Text(name).Text(version), "reading a bot"));
    if (!id.has_value()) return absl::InternalError(absl::StrCat(name_, ": a bot went missing"));
    bot_names_[*id] = engine::JoinBotName(name, version);
    return bot_ids_[key] = *id;
  }

  absl::Mutex mu_;
  const std::unique_ptr<SqlConnection> db_ ABSL_PT_GUARDED_BY(mu_);
  const std::string name_;
  const bool read_only_;
  const Statements sql_;
  // (name, version) -> bots.id, as stored in this connection's view.
  absl::flat_hash_map<std::pair<std::string, std::string>, std::int64_t> bot_ids_
      ABSL_GUARDED_BY(mu_);
  // bots.id -> "name" or "name@version", as BotNameLocked has read them.
  absl::flat_hash_map<std::int64_t, std::string> bot_names_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::StatusOr<std::int64_t> RecordedSchemaVersion(SqlConnection& db) {
  ASSIGN_OR_RETURN(std::optional<std::int64_t> version,
                   db.QueryInt("SELECT COALESCE(MAX(version), 0) FROM schema_migrations",
                               SqlParams(), "reading the schema version"));
  return version.value_or(0);
}

absl::Status CheckSchemaIsKnown(const std::string& name, std::int64_t version) {
  const std::int64_t known = static_cast<std::int64_t>(MigrationCount());
  if (version <= known) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(name, " has schema version ", version,
                                                    ", newer than this build's ", known,
                                                    ": use a newer hoard"));
}

absl::Status ApplyMigration(SqlConnection& db, std::int64_t next) {
  if (absl::Status s = db.Exec(MigrationSql(next, db.dialect().database)); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("migration ", next, ": ", s.message()));
  }
  return db
      .Run("INSERT INTO schema_migrations (version, applied_at_ms) VALUES ($1, $2)",
           SqlParams().Int(next).Int(NowMs()), "recording a migration")
      .status();
}

std::unique_ptr<MatchStore> MakeSqlStore(std::unique_ptr<SqlConnection> connection, bool read_only,
                                         std::vector<std::string> notices) {
  return std::make_unique<SqlStore>(std::move(connection), read_only, std::move(notices));
}

}  // namespace hoard::db
