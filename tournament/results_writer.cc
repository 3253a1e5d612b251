#include "tournament/results_writer.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"

namespace hoard::tournament {
namespace {

// Attempts at storing a match whose error is not one that may pass.
constexpr int kAttemptsForLastingErrors = 3;

}  // namespace

ResultsWriter::ResultsWriter(db::MatchStore* store, std::int64_t tournament_id,
                             const std::atomic<bool>& cancelled, Options options, Hooks hooks)
    : store_(store),
      id_(tournament_id),
      cancelled_(cancelled),
      options_(options),
      hooks_(std::move(hooks)) {
  thread_ = std::thread([this] { Write(); });
}

ResultsWriter::~ResultsWriter() { Close(); }

void ResultsWriter::Close() {
  {
    absl::MutexLock lock(&mu_);
    closed_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void ResultsWriter::Add(PlayedSlot played) {
  const std::size_t room = 2 * static_cast<std::size_t>(std::max(1, options_.per_commit));
  std::vector<PlayedSlot> spent;  // freed once the lock is released
  absl::MutexLock lock(&mu_);
  auto has_room = [this, room] {
    mu_.AssertHeld();
    return queue_.size() < room;
  };
  mu_.Await(absl::Condition(&has_room));
  queue_.push_back(std::move(played));
  spent.swap(spent_);
}

void ResultsWriter::Write() {
  const std::size_t per_commit = std::max(1, options_.per_commit);
  while (true) {
    std::vector<PlayedSlot> batch;
    {
      absl::MutexLock lock(&mu_);
      auto some = [this] {
        mu_.AssertHeld();
        return !queue_.empty() || closed_;
      };
      mu_.Await(absl::Condition(&some));
      if (queue_.empty()) return;  // closed, and nothing waits
      // Group commit: a moment for more results to join this transaction.
      auto full = [this, per_commit] {
        mu_.AssertHeld();
        return queue_.size() >= per_commit || closed_;
      };
      mu_.AwaitWithTimeout(absl::Condition(&full), options_.commit_wait);
      const std::size_t n = std::min(queue_.size(), per_commit);
      batch.assign(std::make_move_iterator(queue_.begin()),
                   std::make_move_iterator(queue_.begin() + n));
      queue_.erase(queue_.begin(), queue_.begin() + n);
    }
    std::vector<const db::FinishedResult*> results;
    for (const PlayedSlot& played : batch) results.push_back(&played.result);
    hooks_.on_batch(batch, SaveWithRetries(results));
    absl::MutexLock lock(&mu_);
    if (spent_.empty()) spent_.reserve(batch.size());
    std::move(batch.begin(), batch.end(), std::back_inserter(spent_));
  }
}

std::vector<absl::Status> ResultsWriter::SaveWithRetries(
    const std::vector<const db::FinishedResult*>& batch) {
  absl::Duration pause = absl::Milliseconds(50);
  bool paused = false;
  for (int attempt = 1;; ++attempt) {
    if (cancelled_ && store_failing_) {
      // Stopping with a store that keeps failing: each attempt could wait
      // for its busy timeout. The slots are played again on resumption.
      return std::vector<absl::Status>(
          batch.size(),
          absl::UnavailableError("the store was failing when the tournament stopped"));
    }
    std::vector<absl::Status> saved = store_->SaveFinishedBatch(batch);
    // A batch is stored whole, but for results stored before (kAlreadyExists),
    // or not at all: then every status is the error.
    absl::Status failure;
    for (const absl::Status& status : saved) {
      if (!status.ok() && status.code() != absl::StatusCode::kAlreadyExists) failure = status;
    }
    // Errors that may pass (a lock, a full disk) pause the tournament; it
    // goes on when the store takes the results. Others get a few attempts.
    const bool transient = failure.code() == absl::StatusCode::kUnavailable;
    store_failing_ = transient;
    if (failure.ok() || (!transient && attempt >= kAttemptsForLastingErrors) || cancelled_) {
      if (paused) hooks_.on_pause("");
      if (paused && failure.ok()) {
        hooks_.warn(absl::StrCat("tournament ", id_, " goes on: the store took its results"));
      }
      if (!failure.ok() && !transient && !cancelled_ && batch.size() > 1) {
        // A lasting error may be one result's own: the others are stored
        // without it.
        for (std::size_t i = 0; i < batch.size(); ++i) saved[i] = SaveWithRetries({batch[i]})[0];
      }
      return saved;
    }
    if (!paused) {
      paused = true;
      hooks_.on_pause(absl::StrCat("paused: cannot store results (retrying): ", failure.message()));
      hooks_.warn(
          absl::StrCat("tournament ", id_, " paused: cannot store match ",
                       batch[0]->slot ? batch[0]->slot->schedule_index : 0, " of the schedule",
                       batch.size() > 1 ? absl::StrCat(" and ", batch.size() - 1, " more") : "",
                       " (retrying): ", failure.message()));
      hooks_.report();
    }
    absl::SleepFor(pause);
    pause = std::min(pause * 2, absl::Seconds(2));
  }
}

}  // namespace hoard::tournament
