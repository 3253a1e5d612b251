#ifndef HOARD_DB_STORE_WRITER_H_
#define HOARD_DB_STORE_WRITER_H_

// The store's writer: finished matches are handed to it and stored on its
// own thread, so that nothing that plays a match ever waits on the database.
//
// - A result that meets an error that may pass (kUnavailable: a lock another
//   process holds, a full disk) is retried with growing pauses until it is
//   stored; other errors are retried a few times. The results waiting are
//   counted in bytes: past `max_queued_bytes` the writer says it is behind
//   (CheckRoom), and its owner starts no new match until it catches up.
//   Add itself always takes a result: none is ever dropped for room.
// - A result that cannot be stored — a lasting error, or still waiting when
//   the writer is closed — is appended to the spill file (a file beside the
//   database), which Open stores first at the next start. Every result ends
//   in exactly one report: stored, kept in the spill file, or, when even the
//   spill file cannot be written, lost (with why). The spill file is made
//   mode 0600: it holds what the database would.
// - A store whose database was deleted or replaced under it
//   (MatchRecordStore::CheckFile, asked before each batch and every second) takes
//   nothing more: from then on every result is spilled at once, without
//   attempts, and CheckRoom refuses new matches (kUnavailable, with the
//   store's message). Stopping and starting again, with the database put
//   back, stores the spilled results as after any other failure.
// - Match ids: the writer hands out sequences from blocks it reserves in the
//   store (MatchRecordStore::ReserveSequences), reserving the next block on its
//   thread while half of the current one is left.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "db/store.h"
#include "hoard/v1/arena.pb.h"
#include "hoard/v1/record.pb.h"

namespace hoard::db {

// What became of a result.
struct ResultOutcome {
  enum class Kind {
    kStored,   // committed to the store
    kSpilled,  // not stored (`error` says why); kept in the spill file
    kLost,     // not stored and the spill file could not take it either
  };
  Kind kind = Kind::kStored;
  absl::Status error;
  std::string spill_path;
};

struct StoreWriterOptions {
  // Bytes of results waiting past which CheckRoom refuses new matches.
  std::size_t max_queued_bytes = 64 << 20;
  // Pauses between attempts: from `first_retry`, doubling, at most `max_retry`.
  absl::Duration first_retry = absl::Milliseconds(50);
  absl::Duration max_retry = absl::Seconds(2);
  // Attempts at a result whose error is not kUnavailable before it is spilled.
  int attempts_for_lasting_errors = 5;
  // Match sequences reserved at a time.
  int id_block = 1000;
  // Where results that cannot be stored are kept; empty: nowhere (they are
  // reported lost).
  std::string spill_path;
  // Called once, on the writer's thread, with the store's error when it
  // finds its database deleted or replaced.
  std::function<void(const absl::Status&)> on_store_lost;
};

class StoreWriter {
 public:
  // Called on the writer's thread once per result added, with its id.
  using OnOutcome = std::function<void(const std::string& match_id, const ResultOutcome&)>;

  // Stores the results left in the spill file by an earlier run (then
  // removes it), reserves the first block of match ids and starts the
  // thread. Fails if the block cannot be reserved or the spill file cannot
  // be read back (it is left in place; the message says what to do).
  static absl::StatusOr<std::unique_ptr<StoreWriter>> Open(MatchRecordStore* store,
                                                           StoreWriterOptions options,
                                                           OnOutcome on_outcome);
  // Close()s first.
  ~StoreWriter();

  StoreWriter(const StoreWriter&) = delete;
  StoreWriter& operator=(const StoreWriter&) = delete;

  // A sequence for a new match: kResourceExhausted when the reserved ones
  // are used up and the store has not given more (the message says why).
  absl::StatusOr<std::int64_t> NextSequence();
  // kResourceExhausted, naming the store and its last error, while the
  // results waiting exceed max_queued_bytes; kUnavailable, for good, once
  // the store's database was found deleted or replaced.
  absl::Status CheckRoom() const;
  // Queues a finished match for storing. After Close the result is spilled
  // at once (and reported on the calling thread).
  void Add(FinishedResult result);

  // Stores what is queued, waiting at most `timeout` (retrying as usual);
  // what is still waiting then is spilled. No result is taken after. Returns
  // how many results were not stored.
  int Close(absl::Duration timeout);

  struct Counts {
    int waiting = 0;
    std::size_t waiting_bytes = 0;
    std::int64_t stored = 0;
    std::int64_t not_stored = 0;
    // Results from the spill file stored by Open.
    int recovered = 0;
  };
  Counts counts() const;

 private:
  StoreWriter(MatchRecordStore* store, StoreWriterOptions options, OnOutcome on_outcome);
  void Run();
  // Tries to store `batch` (in one transaction) until it is stored, its
  // attempts are used up (then each result on its own) or the writer is
  // closing past its deadline; returns the last status of each result.
  std::vector<absl::Status> StoreBatchWithRetries(const std::vector<FinishedResult>& batch);
  // Reserves the next block of ids if half of the current one is used.
  void ReserveIfLow();
  // The store's verdict on its database (MatchRecordStore::CheckFile), kept once
  // it fails; the first failure is reported to on_store_lost.
  absl::Status CheckStore();
  // Reports `result` as not stored, keeping it in the spill file if it can.
  void GiveUp(const FinishedResult& result, const absl::Status& why);
  // Whether the thread should stop waiting between attempts: closing and
  // past the deadline.
  bool PastDeadline() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Whether less than half a block of ids is left and no next block is held.
  bool IdsLow() const ABSL_SHARED_LOCKS_REQUIRED(mu_);

  MatchRecordStore* const store_;
  const StoreWriterOptions options_;
  const OnOutcome on_outcome_;

  mutable absl::Mutex mu_;
  std::deque<FinishedResult> queue_ ABSL_GUARDED_BY(mu_);
  std::size_t queued_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  // The results the thread is storing, counted as waiting until done.
  std::size_t in_hand_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  int in_hand_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Status last_error_ ABSL_GUARDED_BY(mu_);
  // Set once the store's database is found deleted or replaced.
  absl::Status lost_ ABSL_GUARDED_BY(mu_);
  // Reserved sequences: [next_id_, end_id_).
  std::int64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
  std::int64_t end_id_ ABSL_GUARDED_BY(mu_) = 0;
  // The first of the next block, once reserved; 0: none yet.
  std::int64_t next_block_ ABSL_GUARDED_BY(mu_) = 0;
  // A failed reservation is tried again after a pause that grows.
  absl::Time next_reserve_attempt_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  absl::Duration reserve_pause_ ABSL_GUARDED_BY(mu_) = options_.first_retry;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time deadline_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::int64_t stored_ ABSL_GUARDED_BY(mu_) = 0;
  std::int64_t not_stored_ ABSL_GUARDED_BY(mu_) = 0;
  int recovered_ = 0;  // set by Open
  std::thread thread_;
};

// The spill file of the SQLite database at `db_path` ("<db_path>.unstored");
// empty for a database in memory or a PostgreSQL one (a server on one keeps
// its spill file in its state directory: several servers share the
// database, never a spill file).
std::string SpillPathFor(const std::string& db_path);

}  // namespace hoard::db

#endif  // HOARD_DB_STORE_WRITER_H_
