#ifndef HOARD_SERVICE_TIMER_H_
#define HOARD_SERVICE_TIMER_H_

// One thread that runs callbacks at their deadlines (decision time-outs),
// each at most one tick (kTick) after it. It also notices when the whole
// server stopped running for a while (SIGSTOP, a paused virtual machine,
// heavy swapping): it wakes at least every kBeat, and a wake-up more than
// kStall later than asked is a stall, which deadlines are extended by
// (StalledBetween), so that no bot pays for the server's own stop.

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <thread>
#include <utility>

#include "absl/synchronization/mutex.h"

namespace hoard::service {

using SteadyClock = std::chrono::steady_clock;

class TimerQueue {
 public:
  using Id = std::uint64_t;
  static constexpr std::chrono::milliseconds kTick{2};
  static constexpr std::chrono::milliseconds kBeat{50};
  static constexpr std::chrono::milliseconds kStall{250};

  TimerQueue();
  // Stop()s.
  ~TimerQueue();

  // Runs no further callbacks; waits for a running one to return.
  // Schedule and Cancel stay safe to call (nothing will run).
  void Stop();

  // Runs `callback` on the timer thread at `when`, or up to a tick after.
  // Callbacks must not call Schedule or Cancel while holding locks the
  // callback itself takes.
  Id Schedule(SteadyClock::time_point when, std::function<void()> callback);

  // Drops a callback that has not started; a no-op for one that has.
  void Cancel(Id id);

  // How much of [from, to] the server spent stalled: the stalls seen (the
  // last kKeptStalls of them), and the one under way if the timer thread
  // has not run for more than kStall. A deadline in that span is due that
  // much later.
  SteadyClock::duration StalledBetween(SteadyClock::time_point from,
                                       SteadyClock::time_point to) const;
  // Called on the timer thread with each stall's length as it is seen.
  void OnStall(std::function<void(SteadyClock::duration)> callback);

 private:
  static constexpr int kKeptStalls = 64;
  struct Stall {
    SteadyClock::time_point from, to;
  };

  void Run();
  // Notes the thread running at `now`, and a stall if it was away too long
  // (returned, 0 if none).
  SteadyClock::duration Beat(SteadyClock::time_point now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::map<std::pair<SteadyClock::time_point, Id>, std::function<void()>> timers_
      ABSL_GUARDED_BY(mu_);
  std::map<Id, SteadyClock::time_point> when_ ABSL_GUARDED_BY(mu_);
  Id next_id_ ABSL_GUARDED_BY(mu_) = 1;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  SteadyClock::time_point last_beat_ ABSL_GUARDED_BY(mu_);
  std::deque<Stall> stalls_ ABSL_GUARDED_BY(mu_);
  std::function<void(SteadyClock::duration)> on_stall_ ABSL_GUARDED_BY(mu_);
  absl::CondVar wake_;
  std::thread thread_;
};

}  // namespace hoard::service

#endif  // HOARD_SERVICE_TIMER_H_
