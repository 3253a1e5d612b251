#ifndef HOARD_SERVICE_TIMER_H_
#define HOARD_SERVICE_TIMER_H_

// One thread that runs callbacks at their deadlines (decision time-outs),
// each at most one tick (kTick) after it.

#include <chrono>
#include <cstdint>
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

 private:
  void Run();

  mutable absl::Mutex mu_;
  std::map<std::pair<SteadyClock::time_point, Id>, std::function<void()>>
      timers_ ABSL_GUARDED_BY(mu_);
  std::map<Id, SteadyClock::time_point> when_ ABSL_GUARDED_BY(mu_);
  Id next_id_ ABSL_GUARDED_BY(mu_) = 1;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  absl::CondVar wake_;
  std::thread thread_;
};

}  // namespace hoard::service

#endif  // HOARD_SERVICE_TIMER_H_
