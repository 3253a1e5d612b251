#ifndef HOARD_SERVICE_WRITE_QUEUE_H_
#define HOARD_SERVICE_WRITE_QUEUE_H_

// The outgoing side of a server streaming reactor: messages are queued and
// written one at a time, and the call finishes once asked to and the queue
// is written out.

#include <cstddef>
#include <deque>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "grpcpp/impl/call_op_set.h"
#include "grpcpp/support/status.h"
#include "service/outgoing.h"

namespace hoard::service {

// Bytes waiting to be written to a slow reader before it is dropped, unless
// the server says otherwise (--max-queued-bytes).
inline constexpr std::size_t kDefaultMaxQueuedBytes = 8 << 20;

template <typename Message>
const Message* Pointer(const Message& message) {
  return &message;
}
inline const hoard::v1::ServerMessage* Pointer(const OutgoingMessage& message) {
  return message.get();
}

// Bytes a queued message takes on the wire.
template <typename Message>
std::size_t WireSize(const Message& message) {
  return Pointer(message)->ByteSizeLong();
}

// Writes queued messages one at a time, then finishes the call once asked
// to and every queued message is out. Shared by the streaming reactors: the
// reactor's WriteNext(Message&, grpc::WriteOptions) starts each write (for
// most, StartWrite; the Play stream also starts a request's clock there).
template <typename Reactor, typename Message>
class WriteQueue {
 public:
  WriteQueue(Reactor* reactor, std::size_t max_bytes) : reactor_(reactor), max_bytes_(max_bytes) {}

  // False if the message would take the queue past its bytes (the caller
  // should finish the call).
  bool Push(Message message) {
    const std::size_t size = WireSize(message);
    absl::MutexLock lock(&mu_);
    if (finishing_) return true;
    if (queued_bytes_ + size > max_bytes_ && !queue_.empty()) return false;
    queued_bytes_ += size;
    sizes_.push_back(size);
    queue_.push_back(std::move(message));
    if (!writing_) {
      writing_ = true;
      reactor_->WriteNext(queue_.front(), grpc::WriteOptions());
    }
    return true;
  }

  void OnWriteDone(bool ok) {
    absl::MutexLock lock(&mu_);
    queue_.pop_front();
    queued_bytes_ -= sizes_.front();
    sizes_.pop_front();
    if (ok && !queue_.empty() && !abandoned_) {
      // More is queued behind this one: gRPC may hold it to send with them
      // (fewer, fuller writes to the socket); the last one queued flushes.
      reactor_->WriteNext(queue_.front(), queue_.size() > 1 ? grpc::WriteOptions().set_buffer_hint()
                                                            : grpc::WriteOptions());
      return;
    }
    writing_ = false;
    if (!ok) abandoned_ = true;
    MaybeFinish();
  }

  // Finishes with `status` once the queue is written (at once if the client
  // is gone). Later calls are ignored.
  void Finish(grpc::Status status, bool abandon_queue) {
    absl::MutexLock lock(&mu_);
    if (finishing_) return;
    finishing_ = true;
    status_ = std::move(status);
    abandoned_ |= abandon_queue;
    MaybeFinish();
  }

 private:
  void MaybeFinish() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!finishing_ || finished_) return;
    if (writing_) return;
    if (!queue_.empty() && !abandoned_) {
      writing_ = true;
      reactor_->WriteNext(queue_.front(), grpc::WriteOptions());
      return;
    }
    finished_ = true;
    reactor_->Finish(status_);
  }

  Reactor* const reactor_;
  const std::size_t max_bytes_;
  absl::Mutex mu_;
  std::deque<Message> queue_ ABSL_GUARDED_BY(mu_);
  std::deque<std::size_t> sizes_ ABSL_GUARDED_BY(mu_);  // of each queued message
  std::size_t queued_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finishing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool abandoned_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hoard::service

#endif  // HOARD_SERVICE_WRITE_QUEUE_H_
