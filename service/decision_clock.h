#ifndef HOARD_SERVICE_DECISION_CLOCK_H_
#define HOARD_SERVICE_DECISION_CLOCK_H_

// The clock of one decision request. It starts when the request is handed to
// the bot's transport (the Play stream starts writing it), not when the
// match asks: time a request waits in the server's own queue, behind other
// messages to the same stream, is the server's, not the bot's. A request
// that cannot be handed over (its seat has no stream, the stream ended)
// starts its clock at once, and one still unsent kMaxUnsent after it was
// asked starts its clock then, so that no match waits without bound on a
// stream that is not read.
//
// The match and the stream's writer share it; every method may be called
// from any thread.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>

#include "service/timer.h"

namespace hoard::service {

class DecisionClock {
 public:
  // How long a request may wait unsent before its clock starts anyway.
  static constexpr std::chrono::milliseconds kMaxUnsent{5000};

  explicit DecisionClock(std::chrono::milliseconds budget) : budget_(budget) {}

  // Starts the clock at `now` unless it has started; returns the deadline.
  SteadyClock::time_point Start(SteadyClock::time_point now) {
    SteadyClock::rep expected = kNotStarted;
    if (started_.compare_exchange_strong(expected, now.time_since_epoch().count(),
                                         std::memory_order_acq_rel)) {
      return now + budget_;
    }
    return SteadyClock::time_point(SteadyClock::duration(expected)) + budget_;
  }

  // When it started; nullopt while the request waits to be sent.
  std::optional<SteadyClock::time_point> started() const {
    const SteadyClock::rep ticks = started_.load(std::memory_order_acquire);
    if (ticks == kNotStarted) return std::nullopt;
    return SteadyClock::time_point(SteadyClock::duration(ticks));
  }
  std::optional<SteadyClock::time_point> deadline() const {
    const std::optional<SteadyClock::time_point> from = started();
    if (!from) return std::nullopt;
    return *from + budget_;
  }
  std::chrono::milliseconds budget() const { return budget_; }

 private:
  static constexpr SteadyClock::rep kNotStarted = INT64_MIN;

  const std::chrono::milliseconds budget_;
  std::atomic<SteadyClock::rep> started_{kNotStarted};
};

// `when` on the wall clock, in milliseconds since the Unix epoch.
std::int64_t UnixMillis(SteadyClock::time_point when);
// Whole milliseconds from now until `when`, 0 if it has passed.
int MillisUntil(SteadyClock::time_point when);

}  // namespace hoard::service

#endif  // HOARD_SERVICE_DECISION_CLOCK_H_
