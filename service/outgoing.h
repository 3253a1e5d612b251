#ifndef HOARD_SERVICE_OUTGOING_H_
#define HOARD_SERVICE_OUTGOING_H_

// A message on its way to a bot's stream. Decision requests are built on a
// protobuf arena of their own (a few allocations instead of hundreds, freed
// at once when the message is written); other messages live on the heap. A
// decision request carries its clock (service/decision_clock.h), started by
// whoever hands the message to the bot's transport.

#include <memory>
#include <utility>

#include "google/protobuf/arena.h"
#include "hoard/v1/arena.pb.h"
#include "service/decision_clock.h"

namespace hoard::service {

class OutgoingMessage {
 public:
  // An empty message on a fresh arena.
  static OutgoingMessage OnArena() {
    google::protobuf::ArenaOptions options;
    options.start_block_size = 4 << 10;
    options.max_block_size = 64 << 10;
    OutgoingMessage out;
    out.arena_ = std::make_unique<google::protobuf::Arena>(options);
    out.message_ =
        google::protobuf::Arena::CreateMessage<hoard::v1::ServerMessage>(out.arena_.get());
    return out;
  }

  // A message on the heap.
  OutgoingMessage(hoard::v1::ServerMessage message)  // NOLINT: implicit by design
      : owned_(std::make_unique<hoard::v1::ServerMessage>(std::move(message))),
        message_(owned_.get()) {}

  OutgoingMessage(OutgoingMessage&&) = default;
  OutgoingMessage& operator=(OutgoingMessage&&) = default;

  hoard::v1::ServerMessage* operator->() const { return message_; }
  hoard::v1::ServerMessage& operator*() const { return *message_; }
  const hoard::v1::ServerMessage* get() const { return message_; }

  // A decision request's clock, started by StartClock().
  void set_clock(std::shared_ptr<DecisionClock> clock) { clock_ = std::move(clock); }
  // The message is being handed to the transport: starts its clock (if it
  // has one and it has not started) and states the deadline in the request.
  void StartClock() {
    if (clock_ == nullptr) return;
    const SteadyClock::time_point deadline = clock_->Start(SteadyClock::now());
    if (message_->has_decision()) {
      message_->mutable_decision()->set_deadline_unix_ms(UnixMillis(deadline));
      message_->mutable_decision()->set_time_left_ms(MillisUntil(deadline));
    }
  }

 private:
  OutgoingMessage() = default;

  std::unique_ptr<google::protobuf::Arena> arena_;
  std::unique_ptr<hoard::v1::ServerMessage> owned_;
  hoard::v1::ServerMessage* message_ = nullptr;
  std::shared_ptr<DecisionClock> clock_;
};

}  // namespace hoard::service

#endif  // HOARD_SERVICE_OUTGOING_H_
