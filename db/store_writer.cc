#include "db/store_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/delimited_message_util.h"

namespace hoard::db {
namespace {

// The most results stored in one transaction, and their bytes.
constexpr int kMaxBatch = 256;
constexpr std::size_t kMaxBatchBytes = 4 << 20;
// How often an idle writer asks the store whether its database is still there.
constexpr absl::Duration kFileCheckEvery = absl::Seconds(1);

std::size_t BytesOf(const FinishedResult& result) {
  return result.match.ByteSizeLong() + result.record.ByteSizeLong();
}

// The sequence in a match id "m<sequence>"; 0 for any other id.
std::int64_t SequenceOf(const std::string& match_id) {
  std::int64_t sequence = 0;
  if (match_id.size() < 2 || match_id[0] != 'm' ||
      !absl::SimpleAtoi(absl::string_view(match_id).substr(1), &sequence)) {
    return 0;
  }
  return sequence;
}

// The spill file holds, per result, its summary and its record, each a
// varint-length-prefixed hoard.v1 message.
absl::Status AppendToSpill(const std::string& path, const FinishedResult& result) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream out(&bytes);
    if (!google::protobuf::util::SerializeDelimitedToZeroCopyStream(result.match, &out) ||
        !google::protobuf::util::SerializeDelimitedToZeroCopyStream(result.record, &out)) {
      return absl::InternalError("cannot encode the result");
    }
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  std::FILE* file = fd < 0 ? nullptr : ::fdopen(fd, "ab");
  if (file == nullptr) {
    const int error = errno;
    if (fd >= 0) ::close(fd);
    return absl::UnavailableError(absl::StrCat("cannot open ", path, ": ", std::strerror(error)));
  }
  std::fseek(file, 0, SEEK_END);
  const long before = std::ftell(file);
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size() &&
                       std::fflush(file) == 0 && ::fsync(fileno(file)) == 0;
  const int error = errno;
  // A partly written entry would leave the file unreadable: cut it off. If
  // even that fails, the next start refuses the file and says so.
  if (!written && before >= 0) static_cast<void>(::ftruncate(fileno(file), before));
  std::fclose(file);
  if (!written) {
    return absl::UnavailableError(absl::StrCat("cannot write ", path, ": ", std::strerror(error)));
  }
  return absl::OkStatus();
}

// The results in the spill file at `path` (none if there is no file).
absl::StatusOr<std::vector<FinishedResult>> ReadSpill(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::vector<FinishedResult>{};
  std::stringstream text;
  text << file.rdbuf();
  const std::string bytes = text.str();
  google::protobuf::io::ArrayInputStream in(bytes.data(), static_cast<int>(bytes.size()));
  std::vector<FinishedResult> results;
  while (in.ByteCount() < static_cast<std::int64_t>(bytes.size())) {
    FinishedResult result;
    bool clean_eof = false;
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&result.match, &in, &clean_eof) ||
        !google::protobuf::util::ParseDelimitedFromZeroCopyStream(&result.record, &in,
                                                                  &clean_eof)) {
      return absl::DataLossError(absl::StrCat(
          path, " holds results an earlier run could not store, but cannot be read after ",
          results.size(),
          " of them; move it aside to start (the results it holds are not "
          "in the database)"));
    }
    result.sequence = SequenceOf(result.match.match_id());
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace

std::string SpillPathFor(const std::string& db_path) {
  if (db_path.empty() || db_path == ":memory:" || IsPostgresUrl(db_path)) return "";
  return db_path + ".unstored";
}

StoreWriter::StoreWriter(MatchRecordStore* store, StoreWriterOptions options, OnOutcome on_outcome)
    : store_(store), options_(std::move(options)), on_outcome_(std::move(on_outcome)) {}

absl::StatusOr<std::unique_ptr<StoreWriter>> StoreWriter::Open(MatchRecordStore* store,
                                                               StoreWriterOptions options,
                                                               OnOutcome on_outcome) {
  std::unique_ptr<StoreWriter> writer(
      new StoreWriter(store, std::move(options), std::move(on_outcome)));
  const std::string& spill = writer->options_.spill_path;
  if (!spill.empty()) {
    absl::StatusOr<std::vector<FinishedResult>> left = ReadSpill(spill);
    if (!left.ok()) return left.status();
    for (const FinishedResult& result : *left) {
      const absl::Status saved = store->SaveFinished(result.sequence, result.match, result.record);
      if (!saved.ok() && saved.code() != absl::StatusCode::kAlreadyExists) {
        return absl::Status(saved.code(), absl::StrCat("cannot store the results kept in ", spill,
                                                       ": ", saved.message()));
      }
    }
    writer->recovered_ = static_cast<int>(left->size());
    if (!left->empty() && std::remove(spill.c_str()) != 0) {
      return absl::UnavailableError(absl::StrCat("stored the results kept in ", spill,
                                                 " but cannot remove it: ", std::strerror(errno)));
    }
  }
  const int block = std::max(1, writer->options_.id_block);
  absl::StatusOr<std::int64_t> first = store->ReserveSequences(block);
  if (!first.ok()) return first.status();
  {
    absl::MutexLock lock(&writer->mu_);
    writer->next_id_ = *first;
    writer->end_id_ = *first + block;
  }
  writer->thread_ = std::thread([w = writer.get()] { w->Run(); });
  return writer;
}

StoreWriter::~StoreWriter() { Close(absl::ZeroDuration()); }

absl::StatusOr<std::int64_t> StoreWriter::NextSequence() {
  absl::MutexLock lock(&mu_);
  if (next_id_ == end_id_ && next_block_ != 0) {
    next_id_ = next_block_;
    end_id_ = next_block_ + std::max(1, options_.id_block);
    next_block_ = 0;
  }
  if (next_id_ < end_id_) return next_id_++;
  return absl::ResourceExhaustedError(
      absl::StrCat("no match ids are left: the store has not reserved more",
                   last_error_.ok() ? "" : absl::StrCat(" (", last_error_.message(), ")")));
}

absl::Status StoreWriter::CheckRoom() const {
  absl::MutexLock lock(&mu_);
  if (!lost_.ok()) {
    return absl::UnavailableError(
        absl::StrCat(lost_.message(), "; no new match starts until then",
                     options_.spill_path.empty()
                         ? ""
                         : absl::StrCat(" (results finished meanwhile are kept in ",
                                        options_.spill_path, " and stored at the next start)")));
  }
  const std::size_t waiting = queued_bytes_ + in_hand_bytes_;
  if (waiting <= options_.max_queued_bytes) return absl::OkStatus();
  const std::size_t matches = queue_.size() + in_hand_;
  return absl::ResourceExhaustedError(
      absl::StrCat("the match store is behind: ", matches, " finished match",
                   matches == 1 ? "" : "es", " (", waiting, " bytes) wait to be written",
                   last_error_.ok() ? "" : absl::StrCat(" (", last_error_.message(), ")"),
                   "; no new match starts until they are"));
}

void StoreWriter::Add(FinishedResult result) {
  // On the caller's thread: the writer's one thread only writes.
  store_->Encode(result);
  {
    absl::MutexLock lock(&mu_);
    if (!closed_) {
      queued_bytes_ += BytesOf(result);
      queue_.push_back(std::move(result));
      return;
    }
  }
  // The thread is gone: kept for the next start, reported on this thread.
  GiveUp(result, absl::UnavailableError("the server stopped before the store took it"));
}

int StoreWriter::Close(absl::Duration timeout) {
  {
    absl::MutexLock lock(&mu_);
    if (!closing_) {
      closing_ = true;
      deadline_ = absl::Now() + timeout;
    }
  }
  if (thread_.joinable()) thread_.join();
  absl::MutexLock lock(&mu_);
  return static_cast<int>(not_stored_);
}

StoreWriter::Counts StoreWriter::counts() const {
  absl::MutexLock lock(&mu_);
  return {.waiting = static_cast<int>(queue_.size()) + in_hand_,
          .waiting_bytes = queued_bytes_ + in_hand_bytes_,
          .stored = stored_,
          .not_stored = not_stored_,
          .recovered = recovered_};
}

bool StoreWriter::PastDeadline() const { return closing_ && absl::Now() >= deadline_; }

bool StoreWriter::IdsLow() const {
  return next_block_ == 0 && end_id_ - next_id_ < std::max(1, options_.id_block / 2);
}

void StoreWriter::Run() {
  while (true) {
    std::vector<FinishedResult> batch;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
        return !queue_.empty() || closing_ || (IdsLow() && absl::Now() >= next_reserve_attempt_);
      };
      // Idle, it still looks at the store's database now and then.
      const absl::Time check_by = absl::Now() + kFileCheckEvery;
      while (!ready() && absl::Now() < check_by) {
        mu_.AwaitWithDeadline(absl::Condition(&ready),
                              IdsLow() ? std::min(check_by, next_reserve_attempt_) : check_by);
      }
      // Past the close's deadline the rest is spilled without more attempts.
      if (queue_.empty() || PastDeadline()) {
        if (closing_) break;
      }
      // What waits goes in one transaction (up to a bound): a store that
      // fell behind catches up at many times the pace of one per commit.
      std::size_t bytes = 0;
      while (!queue_.empty() && !PastDeadline() && static_cast<int>(batch.size()) < kMaxBatch &&
             bytes < kMaxBatchBytes) {
        bytes += BytesOf(queue_.front());
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      queued_bytes_ -= bytes;
      in_hand_bytes_ = bytes;
      in_hand_ = static_cast<int>(batch.size());
    }
    ReserveIfLow();
    // A store whose database is gone takes nothing: what comes is spilled.
    const absl::Status store = CheckStore();
    if (batch.empty()) continue;
    const std::vector<absl::Status> saved =
        store.ok() ? StoreBatchWithRetries(batch) : std::vector<absl::Status>(batch.size(), store);
    {
      absl::MutexLock lock(&mu_);
      in_hand_ = 0;
      in_hand_bytes_ = 0;
      for (const absl::Status& status : saved) {
        if (status.ok()) ++stored_;
      }
      if (saved.front().ok()) last_error_ = absl::OkStatus();
    }
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (saved[i].ok()) {
        on_outcome_(batch[i].match.match_id(), {.kind = ResultOutcome::Kind::kStored});
      } else {
        GiveUp(batch[i], saved[i]);
      }
    }
  }
  // Closing: whatever the deadline left waiting is kept for the next start.
  std::deque<FinishedResult> left;
  {
    absl::MutexLock lock(&mu_);
    left.swap(queue_);
    queued_bytes_ = 0;
    closed_ = true;
  }
  for (const FinishedResult& result : left) {
    GiveUp(result, absl::UnavailableError("the server stopped before the store took it"));
  }
}

std::vector<absl::Status> StoreWriter::StoreBatchWithRetries(
    const std::vector<FinishedResult>& batch) {
  std::vector<const FinishedResult*> results;
  for (const FinishedResult& result : batch) results.push_back(&result);
  absl::Duration pause = options_.first_retry;
  for (int attempt = 1;; ++attempt) {
    std::vector<absl::Status> saved = store_->SaveFinishedBatch(results);
    // Already there: an earlier attempt committed (or a spill file was
    // stored twice).
    bool failed = false;
    for (absl::Status& status : saved) {
      if (status.code() == absl::StatusCode::kAlreadyExists) status = absl::OkStatus();
      failed = failed || !status.ok();
    }
    if (!failed) return saved;
    // Gone for good: no attempt can help.
    if (!CheckStore().ok()) return saved;
    const absl::Status error = saved.front();
    bool split = false;
    {
      absl::MutexLock lock(&mu_);
      last_error_ = error;
      if (error.code() != absl::StatusCode::kUnavailable &&
          attempt >= options_.attempts_for_lasting_errors) {
        if (batch.size() == 1) return saved;
        split = true;
      } else if (PastDeadline()) {
        return saved;
      } else {
        const absl::Time wake = std::min(absl::Now() + pause, deadline_);
        // Close() shortens the wait to its deadline.
        const absl::Time set_deadline = deadline_;
        auto moved = [this, set_deadline]()
                         ABSL_SHARED_LOCKS_REQUIRED(mu_) { return deadline_ != set_deadline; };
        mu_.AwaitWithDeadline(absl::Condition(&moved), wake);
      }
    }
    if (split) {
      // One bad result must not keep the others out: each on its own.
      for (std::size_t i = 0; i < batch.size(); ++i) {
        saved[i] = StoreBatchWithRetries({batch[i]}).front();
      }
      return saved;
    }
    pause = std::min(pause * 2, options_.max_retry);
  }
}

void StoreWriter::ReserveIfLow() {
  {
    absl::MutexLock lock(&mu_);
    if (!IdsLow() || absl::Now() < next_reserve_attempt_ || closing_) return;
  }
  const int block = std::max(1, options_.id_block);
  absl::StatusOr<std::int64_t> first = store_->ReserveSequences(block);
  absl::MutexLock lock(&mu_);
  if (first.ok()) {
    if (next_id_ == end_id_) {
      next_id_ = *first;
      end_id_ = *first + block;
    } else {
      next_block_ = *first;
    }
    reserve_pause_ = options_.first_retry;
  } else {
    last_error_ = first.status();
    next_reserve_attempt_ = absl::Now() + reserve_pause_;
    reserve_pause_ = std::min(reserve_pause_ * 2, options_.max_retry);
  }
}

absl::Status StoreWriter::CheckStore() {
  {
    absl::MutexLock lock(&mu_);
    if (!lost_.ok()) return lost_;
  }
  absl::Status checked = store_->CheckFile();
  if (checked.ok()) return checked;
  {
    absl::MutexLock lock(&mu_);
    lost_ = checked;
    last_error_ = checked;
  }
  if (options_.on_store_lost) options_.on_store_lost(checked);
  return checked;
}

void StoreWriter::GiveUp(const FinishedResult& result, const absl::Status& why) {
  ResultOutcome outcome{.kind = ResultOutcome::Kind::kLost, .error = why};
  if (!options_.spill_path.empty()) {
    const absl::Status kept = AppendToSpill(options_.spill_path, result);
    if (kept.ok()) {
      outcome.kind = ResultOutcome::Kind::kSpilled;
      outcome.spill_path = options_.spill_path;
    } else {
      outcome.error =
          absl::Status(why.code(), absl::StrCat(why.message(), "; and ", kept.message()));
    }
  }
  {
    absl::MutexLock lock(&mu_);
    ++not_stored_;
  }
  on_outcome_(result.match.match_id(), outcome);
}

}  // namespace hoard::db
