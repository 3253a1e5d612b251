#ifndef HOARD_DB_STORE_H_
#define HOARD_DB_STORE_H_

// The store: finished matches with their seats and records, the bots that
// played them, tournaments and rating snapshots, so that results survive a
// restart and a stopped tournament can resume. The rest of Hoard sees only
// these interfaces (MatchStore and its roles, below). Two databases serve them, SQLite
// (db/sqlite_store.cc), the embedded default, and PostgreSQL (db/postgres_store.cc), for
// several servers sharing one database, through one implementation (db/sql_store.h): the
// same statements, transactions and numbered migrations (db/migrations.cc).
//
// Errors: kUnavailable when the database cannot be opened or written for a
// reason that may pass (a lock another process holds, a full disk, an I/O
// error, a lost connection; the message names the database and its reason),
// kDataLoss for a
// file that is not a Hoard database, is damaged or holds a row that cannot be
// read back, kFailedPrecondition for a file this process may not write.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "hoard/v1/arena.pb.h"
#include "hoard/v1/record.pb.h"
#include "hoard/v1/tournament.pb.h"

namespace hoard::db {

struct StoredMatch {
  // The server's creation order of the match (its id is "m<sequence>").
  std::int64_t sequence = 0;
  hoard::v1::Match match;
};

struct MatchFilter {
  std::string game;  // empty: any
  std::string bot;   // a registered bot holding a seat; empty: any
  // Only this tournament's matches; 0: any.
  std::int64_t tournament_id = 0;
  // A bot by its leaderboard name (name or name@version); empty: any.
  std::string rated_bot;
  // Only matches that ended so (finished or aborted); unspecified: any.
  hoard::v1::MatchStatus status = hoard::v1::MATCH_STATUS_UNSPECIFIED;
};

// A match's place in a tournament.
struct TournamentSlot {
  std::int64_t tournament_id = 0;
  int schedule_index = 0;
  // The statistical unit (a duplicate block); matches of one block are
  // resampled together for rating intervals.
  std::int64_t block = 0;
};

// What a store writes of a finished match besides its columns and seats,
// made ahead of its transaction (MatchRecordStore::Encode): the summary
// and the record as the store keeps them. Not `made`: made as it is stored.
struct EncodedResult {
  bool made = false;
  std::string summary;
  std::string record;
};

// A finished match to store: its sequence (0: the store numbers it), its
// summary, its record and, for a tournament's match, its slot.
struct FinishedResult {
  std::int64_t sequence = 0;
  hoard::v1::Match match;
  hoard::v1::MatchRecord record;
  std::optional<TournamentSlot> slot;
  // Made by Encode, on the thread that hands the result on.
  EncodedResult encoded;
};

struct StoredTournament {
  std::int64_t id = 0;
  hoard::v1::TournamentSpec spec;
  std::string spec_hash;
  hoard::v1::TournamentStatus status = hoard::v1::TOURNAMENT_STATUS_UNSPECIFIED;
  std::string error;
  int scheduled = 0;
  std::int64_t created_unix_ms = 0;
  std::int64_t updated_unix_ms = 0;
  // The salt of the commitment to spec.seed (engine/seed_commitment.h);
  // empty for a tournament stored before commitments.
  std::string seed_salt;
};

// One seat of a finished match, as ratings see it.
struct RatedSeat {
  std::string bot;  // leaderboard name: name or name@version
  int rank = 0;     // 1 = first; ties share
  double score = 0;
  // Where the seat lost time (hoard.v1.SeatInfo).
  int timeouts = 0;
  bool forfeited = false;
  int disconnects = 0;
  // A built-in bot ("builtin:" seat), not a bot account ("bot:"): the two
  // may share a name and are never one leaderboard row.
  bool builtin = false;
};

struct RatedMatch {
  std::int64_t sequence = 0;
  std::int64_t tournament_id = 0;  // 0: none
  std::int64_t block = 0;          // with tournament_id, the statistical unit
  // The match's place in its tournament's schedule (0 outside a
  // tournament): the order it was scheduled in, whatever order it ended in.
  std::int64_t schedule_index = 0;
  std::vector<RatedSeat> seats;  // seats held by bots (open seats left out)
};

// A bot's account: what lets it register. The key is kept only as a salted
// hash (service/auth.h).
struct BotAccount {
  std::string name;  // name or name@version
  std::string key_hash;
  // Made by a tournament for a bot it launches (it is given a fresh key at
  // each launch), rather than by an admin or an open registration.
  bool launched = false;
};

// Which matches a rating snapshot covers.
struct RatingScope {
  std::string game;
  std::int64_t tournament_id = 0;  // 0: every match of the game
};

// The store is one object with five roles, each a small interface below;
// MatchStore combines them. A caller that needs one role may take only it
// (a MatchStore converts to each). Who uses which:
// - MatchRecordStore: the results writer (db/store_writer.h) and the tournament
//   runner store matches, the writer reserving their ids; the arena (service/arena.h),
//   the tournament manager and hoard export read them back.
// - TournamentStore: the tournament runner and manager (tournament/runner.h,
//   tournament/manager.h), the seed seal (tournament/secrets.h), hoard
//   tournament and hoard export.
// - BotAccountStore: the server's bot accounts (service/auth.h).
// - SlotLeaseStore: the tournament runner, when servers share a database.
// - RatingStore: leaderboards (tournament/leaderboard.h), the runner's
//   formats that read results, hoard export.
// Every method may be called from any thread: each store serializes its
// calls on one connection.

// Finished matches: their summaries, seats and records, and their ids.
class MatchRecordStore {
 public:
  virtual ~MatchRecordStore() = default;

  // Called after each commit that stored finished matches (SaveFinished,
  // SaveFinishedBatch): how long its transaction took, and how many it
  // stored. Set before the store is shared between threads.
  void SetCommitObserver(std::function<void(absl::Duration took, int stored)> observer) {
    commit_observer_ = std::move(observer);
  }

  // Whether the database this store opened is still the one its address
  // names. SQLite: kFailedPrecondition, for good, once the file at its path
  // was deleted, or replaced by another (moved over, copied over), while
  // open: every write is refused from then on with the same error, since
  // what it wrote would go into a file nobody can open again. The first time
  // it finds so, it copies the database as this process still sees it (every
  // commit it made) to a new file beside it, mode 0600, and the message names
  // the copy; and it removes its own -wal and -shm from beside the path,
  // which SQLite would read with whatever file is put there. Each write
  // checks first (one stat). PostgreSQL: always OK.
  // Takes the store's lock: it may wait for a write under way.
  virtual absl::Status CheckFile() { return absl::OkStatus(); }

  // Stores a finished match with its seats (and the bots that held them)
  // and its record, in one transaction: all of it or none. A match with
  // status ABORTED is stored without its record (`record` is ignored).
  // kAlreadyExists if the id, or the tournament slot, is stored;
  // kFailedPrecondition if another match holds `sequence`. Sequence 0 takes
  // the next free one (as ReserveSequences(1) does) and, if the match has no
  // id, names it "m<sequence>". A seat's bot is its player's name
  // (engine::PlayerId), split into name and version at '@'; "open" seats
  // have none.
  virtual absl::Status SaveFinished(std::int64_t sequence, const hoard::v1::Match& match,
                                    const hoard::v1::MatchRecord& record,
                                    const TournamentSlot* slot = nullptr) = 0;

  // Stores several finished matches in one transaction, far faster than one
  // each. Returns a status per result: OK, or kAlreadyExists for one whose
  // id or tournament slot is stored (the others are stored all the same).
  // On any other error none is stored and every status is it.
  virtual std::vector<absl::Status> SaveFinishedBatch(
      const std::vector<const FinishedResult*>& results) = 0;
  // Makes, on the calling thread and without the store's lock, what
  // storing `result` takes besides the database (EncodedResult), so that
  // the one thread that writes (a results writer) does less of the work.
  // Call once its match, record and slot are final; any thread. A store
  // that makes nothing ahead leaves it as it is.
  virtual void Encode(FinishedResult& /*result*/) const {}

  // The stored match with this id, or nullopt.
  virtual absl::StatusOr<std::optional<StoredMatch>> Get(const std::string& id) = 0;
  // The record of the stored match with this id, or nullopt (none is kept
  // for an aborted match).
  virtual absl::StatusOr<std::optional<hoard::v1::MatchRecord>> GetRecord(
      const std::string& id) = 0;

  // Stored matches with sequence > `after`, in order, at most `limit`.
  virtual absl::StatusOr<std::vector<StoredMatch>> List(std::int64_t after, int limit,
                                                        const MatchFilter& filter) = 0;
  // Stored matches with sequence < `before` (0: any), newest first, at most
  // `limit`.
  virtual absl::StatusOr<std::vector<StoredMatch>> ListNewest(std::int64_t before, int limit,
                                                              const MatchFilter& filter) = 0;

  // The highest sequence stored (0 when empty).
  virtual absl::StatusOr<std::int64_t> LastSequence() = 0;
  // Reserves `count` match sequences for the caller and returns the first:
  // above every sequence stored and every one reserved before, by this or
  // any process sharing the database, even one that crashed since. Ids
  // made from them ("m<sequence>") are never handed out twice.
  virtual absl::StatusOr<std::int64_t> ReserveSequences(int count) = 0;

 protected:
  // Reports a commit that began at `started` and stored `stored` matches.
  void ObserveCommit(absl::Time started, int stored) const {
    if (commit_observer_ && stored > 0) commit_observer_(absl::Now() - started, stored);
  }

 private:
  std::function<void(absl::Duration, int)> commit_observer_;
};

// Tournaments: their specs and status, and which of their slots are stored.
class TournamentStore {
 public:
  virtual ~TournamentStore() = default;

  // Stores a new tournament (status RUNNING), with the salt of its seed
  // commitment, and returns its id.
  virtual absl::StatusOr<std::int64_t> CreateTournament(const hoard::v1::TournamentSpec& spec,
                                                        const std::string& spec_hash, int scheduled,
                                                        const std::string& seed_salt) = 0;
  // The tournament with this id, or nullopt.
  virtual absl::StatusOr<std::optional<StoredTournament>> GetTournament(std::int64_t id) = 0;
  // The newest tournament with this spec hash, or nullopt.
  virtual absl::StatusOr<std::optional<StoredTournament>> FindTournament(
      const std::string& spec_hash) = 0;
  // Every tournament, newest first.
  virtual absl::StatusOr<std::vector<StoredTournament>> ListTournaments() = 0;
  // Sets the tournament's status and error; kNotFound if there is no such
  // tournament.
  virtual absl::Status SetTournamentStatus(std::int64_t id, hoard::v1::TournamentStatus status,
                                           const std::string& error) = 0;
  // Replaces the tournament's stored spec, keeping its identity (spec hash)
  // — a ladder's final evaluation is set on it; kNotFound if there is no
  // such tournament.
  virtual absl::Status SetTournamentSpec(std::int64_t id,
                                         const hoard::v1::TournamentSpec& spec) = 0;
  // The schedule indexes of the tournament's stored matches, ascending.
  virtual absl::StatusOr<std::vector<int>> StoredSlots(std::int64_t tournament_id) = 0;
};

// The accounts bots register with.
class BotAccountStore {
 public:
  virtual ~BotAccountStore() = default;

  // Stores the account, replacing one of the same name (its key hash and
  // kind; the creation time stays).
  virtual absl::Status PutBotAccount(const BotAccount& account) = 0;
  // Deletes the account of `name`, if there is one.
  virtual absl::Status DeleteBotAccount(const std::string& name) = 0;
  // Every account, by name (ordered by its bytes).
  virtual absl::StatusOr<std::vector<BotAccount>> BotAccounts() = 0;
};

// Sharing tournaments between servers on one database: a server leases a
// slot before it plays it.
class SlotLeaseStore {
 public:
  virtual ~SlotLeaseStore() = default;

  // Leases slot `schedule_index` of tournament `tournament_id` (-1: the
  // whole tournament, for a format one server runs at a time) to `holder`
  // for `ttl`, by the database's clock. True if `holder` now holds it: it
  // was free, its lease had run out, or it was `holder`'s already. False if
  // the slot is stored, or another holder's lease still runs.
  virtual absl::StatusOr<bool> ClaimSlot(std::int64_t tournament_id, int schedule_index,
                                         const std::string& holder, absl::Duration ttl) = 0;
  // Every lease of `holder` runs for `ttl` from now; those of slots stored
  // since they were taken end.
  virtual absl::Status RenewLeases(const std::string& holder, absl::Duration ttl) = 0;
  // Ends `holder`'s leases in the tournament.
  virtual absl::Status ReleaseLeases(std::int64_t tournament_id, const std::string& holder) = 0;
};

// What ratings are computed from, and the snapshots that save computing
// them again.
class RatingStore {
 public:
  virtual ~RatingStore() = default;

  // The finished matches in scope, in the order they were stored (which
  // varies with concurrency; callers that replay them sort them by
  // tournament and schedule_index).
  virtual absl::StatusOr<std::vector<RatedMatch>> RatedMatches(const RatingScope& scope) = 0;
  // A number that grows whenever a match in scope is stored (0: none).
  virtual absl::StatusOr<std::int64_t> ScopeVersion(const RatingScope& scope) = 0;
  // Keeps a snapshot of the ratings of `scope` computed at `version` (and
  // drops older ones of the scope). A store opened read-only keeps none and
  // returns OK.
  virtual absl::Status SaveRatingSnapshot(const RatingScope& scope, std::int64_t version,
                                          const hoard::v1::RatingSnapshot& snapshot) = 0;
  // The newest snapshot of `scope` and the version it was computed at.
  virtual absl::StatusOr<std::optional<std::pair<std::int64_t, hoard::v1::RatingSnapshot>>>
  LatestRatingSnapshot(const RatingScope& scope) = 0;
};

// The whole store: every role, and what opening its database found.
class MatchStore : public MatchRecordStore,
                   public TournamentStore,
                   public BotAccountStore,
                   public SlotLeaseStore,
                   public RatingStore {
 public:
  ~MatchStore() override = default;

  // What opening the database did that its operator should know (such as a
  // file's permissions tightened), one sentence each.
  const std::vector<std::string>& notices() const { return notices_; }

 protected:
  std::vector<std::string> notices_;
};

enum class StoreAccess { kReadWrite, kReadOnly };

// Opens the SQLite database at `path` (":memory:" for one that lives in
// memory). A file that exists is first inspected without a single write: it
// must be a Hoard database (marked with Hoard's application id, or one from
// before the mark), of a schema version this build knows, and pass SQLite's
// quick check; otherwise kFailedPrecondition or kDataLoss says what is wrong
// and the file is left exactly as it was. The inspection reads through
// SQLite, so a database a running server holds (its latest commits still in
// the -wal file beside it) is seen as that server sees it.
//
// kReadWrite creates the file if needed, switches it to WAL, brings its
// schema up to date with the numbered migrations, and proves it takes a
// write (a read-only file is refused). The file holds sealed seeds and bot
// key hashes, so it is private to its owner: a new one is made mode 0600
// (its -wal and -shm take the same mode from it), in directories made 0700
// when they are missing (a directory that exists keeps its mode); a Hoard
// database (and its -wal, -shm) that others may read is tightened to 0600,
// which notices() reports. kReadOnly opens an up-to-date database read-only
// (kNotFound if there is none) and never writes: rating snapshots, a cache,
// are not kept. It needs no write access but what WAL mode asks of a reader
// while a writer has the database open (the -shm file).
absl::StatusOr<std::unique_ptr<MatchStore>> OpenSqliteStore(
    const std::string& path, StoreAccess access = StoreAccess::kReadWrite);

// Whether `target` names a PostgreSQL database (postgresql://… or
// postgres://…) rather than a SQLite file.
bool IsPostgresUrl(absl::string_view target);

// How a PostgreSQL address is shown in messages and logs: user, host, port
// and database, never the password. kInvalidArgument if it is no address.
absl::StatusOr<std::string> PostgresDisplayName(const std::string& url);

// kInvalidArgument, saying where a password goes instead, for a PostgreSQL
// address that holds one (postgresql://user:PASSWORD@… or ?password=…):
// a command line shows in `ps` to every user of the machine. OK for anything
// else, a SQLite path included.
absl::Status CheckNoPasswordInAddress(const std::string& target);

// Connects to the PostgreSQL database at `url` (libpq's URI form,
// postgresql://[user@][host][:port]/database[?param=value…]). It
// must be empty or a Hoard database of a schema version this build knows;
// a database holding other tables is refused (kFailedPrecondition) and left
// as it was. kReadWrite brings the schema up to date with the numbered
// migrations (servers starting together take turns); kReadOnly checks that
// it is up to date (kNotFound if it holds no Hoard database) and then only
// reads. kUnavailable if the database cannot be reached. The address never
// holds the password (kInvalidArgument, as CheckNoPasswordInAddress): it
// comes from the file $HOARD_DB_PASSWORD_FILE names (its first line;
// kFailedPrecondition if it cannot be read), which keeps it off command
// lines and out of the environment, or as libpq finds it ($PGPASSWORD,
// ~/.pgpass).
absl::StatusOr<std::unique_ptr<MatchStore>> OpenPostgresStore(
    const std::string& url, StoreAccess access = StoreAccess::kReadWrite);

// Opens `target`: a PostgreSQL address as OpenPostgresStore does, anything
// else as a SQLite file.
absl::StatusOr<std::unique_ptr<MatchStore>> OpenStore(const std::string& target,
                                                      StoreAccess access = StoreAccess::kReadWrite);

// How `target` is named to users: a SQLite path as it is, a PostgreSQL
// address without its password.
std::string StoreDisplayName(const std::string& target);

// Copies the database at `source` to a new file `target` with SQLite's online
// backup: a consistent snapshot, taken while a server may keep writing to
// `source` (in steps, so the writer is never held up for long). Then checks
// the copy (PRAGMA integrity_check). The copy is made mode 0600, as private
// as the database. kAlreadyExists if `target` exists,
// kNotFound if `source` does not, kDataLoss if the copy fails its check.
absl::Status BackupSqlite(const std::string& source, const std::string& target);

}  // namespace hoard::db

#endif  // HOARD_DB_STORE_H_
