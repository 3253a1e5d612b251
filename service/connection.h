#ifndef HOARD_SERVICE_CONNECTION_H_
#define HOARD_SERVICE_CONNECTION_H_

// The transport-free ends of the server's streams.
//
// A Connection is one bot's Play stream as the match host sees it: it can be
// sent messages (until the stream ends) and it holds seats. A Watcher is one
// WatchMatch stream. The gRPC layer implements the Outbox behind each; tests
// implement them in memory.

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "hoard/v1/arena.pb.h"
#include "service/outgoing.h"

namespace hoard::service {

// Where messages to one stream go. Send must not block: implementations
// queue. Called with match locks held, so it must not call back into the
// match host.
class Outbox {
 public:
  virtual ~Outbox() = default;
  virtual void Send(OutgoingMessage message) = 0;
  // Whether it calls StartClock() on each message as it hands it to the
  // transport; if not, Connection::Send does as the message is sent.
  virtual bool starts_clocks() const { return false; }
  // Ends the stream with `status` once what is queued is written.
  virtual void End(const absl::Status& status) { (void)status; }
};

class EventOutbox {
 public:
  virtual ~EventOutbox() = default;
  virtual void Send(const hoard::v1::MatchEvent& event) = 0;
  // No more events will come (the match is over).
  virtual void Close() = 0;
  // False once the spectator has gone: the match then forgets it.
  virtual bool open() const { return true; }
};

class Connection {
 public:
  // `address`: the client's (ClientAddress), for limits on wrong keys.
  explicit Connection(Outbox* outbox, std::string address = "")
      : outbox_(outbox), address_(std::move(address)) {}

  const std::string& address() const { return address_; }

  // Sends unless the stream has ended; a decision request's clock starts
  // when the outbox hands it over (at once, unless it starts clocks itself).
  // Returns false if the stream has ended.
  bool Send(OutgoingMessage message) {
    absl::MutexLock lock(&mu_);
    if (outbox_ == nullptr) return false;
    if (!outbox_->starts_clocks()) message.StartClock();
    outbox_->Send(std::move(message));
    return true;
  }

  // Ends the stream from the server's side (a revoked bot, no hello in
  // time); the transport then reports it closed.
  void End(const absl::Status& status) {
    absl::MutexLock lock(&mu_);
    if (outbox_ != nullptr) outbox_->End(status);
  }

  // The stream has ended: nothing more is sent.
  void Close() {
    absl::MutexLock lock(&mu_);
    outbox_ = nullptr;
  }

  bool open() const {
    absl::MutexLock lock(&mu_);
    return outbox_ != nullptr;
  }

  // The registered bot this stream speaks for; empty for a stream that only
  // joined seats by token. Set once, by the arena, before any seat is held.
  const std::string& bot() const { return bot_; }
  void set_bot(std::string name) { bot_ = std::move(name); }

  // Whether the stream has said a valid hello (it may then answer and join).
  bool identified() const { return identified_.load(std::memory_order_acquire); }
  void set_identified() { identified_.store(true, std::memory_order_release); }
  // Whether a hello has come, though its key may still be being checked:
  // the stream is not timed out for want of one.
  bool greeted() const { return greeted_.load(std::memory_order_acquire); }
  void set_greeted() { greeted_.store(true, std::memory_order_release); }

  // Whether decision requests carry each legal action's text. Set by the
  // arena from the hello, before any seat is held.
  bool describe_actions() const { return describe_actions_; }
  void set_describe_actions(bool describe) { describe_actions_ = describe; }
  // Whether accepted answers are confirmed (refusals always are).
  bool acknowledge_answers() const { return acknowledge_answers_; }
  void set_acknowledge_answers(bool acknowledge) { acknowledge_answers_ = acknowledge; }
  // How the stream hears the play of its matches (never UNSPECIFIED: the
  // arena sets STREAM for it). Set by the arena from the hello, before any
  // seat is held.
  hoard::v1::EventDelivery events() const { return events_; }
  void set_events(hoard::v1::EventDelivery events) {
    events_ =
        events == hoard::v1::EVENT_DELIVERY_UNSPECIFIED ? hoard::v1::EVENT_DELIVERY_STREAM : events;
  }

  // Messages the stream has received and the server has not yet handled
  // (they wait their turn, in order): when the oldest of them came, or
  // nullopt for none. A match does not time out a seat whose stream holds
  // one that came before the deadline: it may be the answer.
  void set_oldest_unhandled(std::optional<SteadyClock::time_point> received) {
    oldest_unhandled_.store(received ? received->time_since_epoch().count() : kNone,
                            std::memory_order_release);
  }
  bool HoldsUnhandledFrom(SteadyClock::time_point by) const {
    const SteadyClock::rep oldest = oldest_unhandled_.load(std::memory_order_acquire);
    return oldest != kNone && oldest <= by.time_since_epoch().count();
  }

 private:
  mutable absl::Mutex mu_;
  Outbox* outbox_ ABSL_GUARDED_BY(mu_);
  const std::string address_;
  std::string bot_;
  std::atomic<bool> identified_{false};
  std::atomic<bool> greeted_{false};
  bool describe_actions_ = false;
  bool acknowledge_answers_ = false;
  hoard::v1::EventDelivery events_ = hoard::v1::EVENT_DELIVERY_STREAM;
  static constexpr SteadyClock::rep kNone = INT64_MAX;
  std::atomic<SteadyClock::rep> oldest_unhandled_{kNone};
};

}  // namespace hoard::service

#endif  // HOARD_SERVICE_CONNECTION_H_
