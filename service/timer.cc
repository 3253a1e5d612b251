#include "service/timer.h"

#include "absl/time/time.h"

namespace hoard::service {

TimerQueue::TimerQueue() : thread_([this] { Run(); }) {}

TimerQueue::~TimerQueue() { Stop(); }

void TimerQueue::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    wake_.Signal();
  }
  if (thread_.joinable()) thread_.join();
}

TimerQueue::Id TimerQueue::Schedule(SteadyClock::time_point when,
                                    std::function<void()> callback) {
  absl::MutexLock lock(&mu_);
  const Id id = next_id_++;
  auto it = timers_.emplace(std::make_pair(when, id), std::move(callback)).first;
  when_.emplace(id, when);
  if (it == timers_.begin()) wake_.Signal();
  return id;
}

void TimerQueue::Cancel(Id id) {
  absl::MutexLock lock(&mu_);
  auto it = when_.find(id);
  if (it == when_.end()) return;
  timers_.erase({it->second, id});
  when_.erase(it);
}

void TimerQueue::Run() {
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    if (timers_.empty()) {
      wake_.Wait(&mu_);
      continue;
    }
    auto first = timers_.begin();
    const SteadyClock::time_point when = first->first.first;
    const SteadyClock::time_point now = SteadyClock::now();
    if (when > now) {
      // Wake at the end of the deadline's tick, so that callbacks due close
      // together run in one wake-up, and a first timer cancelled before its
      // deadline costs at most one wake-up per tick. Schedule() and Stop()
      // signal when they need the thread sooner.
      const auto tick = std::chrono::duration_cast<SteadyClock::duration>(kTick);
      const SteadyClock::time_point wake =
          SteadyClock::time_point((when.time_since_epoch() / tick + 1) * tick);
      wake_.WaitWithTimeout(&mu_, absl::FromChrono(wake - now));
      continue;
    }
    std::function<void()> callback = std::move(first->second);
    when_.erase(first->first.second);
    timers_.erase(first);
    mu_.Unlock();
    callback();
    mu_.Lock();
  }
}

}  // namespace hoard::service
