#ifndef HOARD_TOURNAMENT_RESULTS_WRITER_H_
#define HOARD_TOURNAMENT_RESULTS_WRITER_H_

// A tournament's results writer (runner.h, "Storing"): the workers that
// play matches Add each finished one and go on; the writer's own thread
// stores what has gathered in one transaction (group commit: up to
// `per_commit` results, waiting at most `commit_wait` for more once one
// waits) and then hands the batch with a status per result to on_batch.
// At most two batches' worth of results wait: Add blocks while they do.
//
// Errors. While a batch is retried the tournament is paused: on_pause
// gets what it shows meanwhile, and "" once the batch is stored or given
// up. An error that may pass (kUnavailable: a lock, a full disk) is retried
// until the store takes the batch; other errors get a few attempts, and
// then each result of the batch is tried on its own, so one refused result
// keeps no other out. Once `cancelled` is set while the store keeps
// failing, the results waiting are given up (kUnavailable): their slots are
// played again when the tournament resumes.
//
// Thread safety: Add from any thread, until Close; Close from the thread
// that made the writer (it waits for every result added to be handed to
// on_batch). The hooks are called from the writer's thread, without its
// lock held; warn and report may also come from a caller of the runner's
// own.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "db/store.h"
#include "tournament/schedule.h"

namespace hoard::tournament {

// A played match on its way to the store.
struct PlayedSlot {
  ScheduledMatch slot;
  db::FinishedResult result;
  std::vector<db::RatedSeat> seats;  // by seat, as rated
};

class ResultsWriter {
 public:
  struct Options {
    int per_commit = 256;
    absl::Duration commit_wait = absl::Milliseconds(20);
  };
  // Every hook must be set.
  struct Hooks {
    // A stored batch and a status per result: OK, kAlreadyExists (stored
    // before, by another runner), or why it was not stored.
    std::function<void(const std::vector<PlayedSlot>&, const std::vector<absl::Status>&)> on_batch;
    // What the tournament shows while the store refuses its results; "".
    std::function<void(const std::string&)> on_pause;
    std::function<void(const std::string&)> warn;
    // Reports the tournament's progress now (after a pause begins).
    std::function<void()> report;
  };

  // Starts the writer's thread.
  ResultsWriter(db::MatchStore* store, std::int64_t tournament_id,
                const std::atomic<bool>& cancelled, Options options, Hooks hooks);
  // Closes it.
  ~ResultsWriter();
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;

  // Queues `played` (waiting while two batches' worth wait).
  void Add(PlayedSlot played);
  // No more results come: stores the ones waiting and ends the thread.
  void Close();

 private:
  // The thread: stores batches until closed and nothing waits.
  void Write();
  // Saves a batch as the header says; a status per result.
  std::vector<absl::Status> SaveWithRetries(const std::vector<const db::FinishedResult*>& batch);

  db::MatchStore* const store_;
  const std::int64_t id_;
  const std::atomic<bool>& cancelled_;
  const Options options_;
  const Hooks hooks_;
  // Whether the last attempt met an error that may pass.
  std::atomic<bool> store_failing_{false};
  absl::Mutex mu_;
  std::vector<PlayedSlot> queue_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  // Results stored, freed by the next Add (their records are large:
  // freeing them would slow the one writer).
  std::vector<PlayedSlot> spent_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_RESULTS_WRITER_H_
