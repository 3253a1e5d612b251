#include "service/timer.h"

#include <algorithm>

#include "absl/time/time.h"

namespace hoard::service {

TimerQueue::TimerQueue() {
  {
    absl::MutexLock lock(&mu_);
    last_beat_ = SteadyClock::now();
  }
  thread_ = std::thread([this] { Run(); });
}

TimerQueue::~TimerQueue() { Stop(); }

void TimerQueue::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    wake_.Signal();
  }
  if (thread_.joinable()) thread_.join();
}

TimerQueue::Id TimerQueue::Schedule(SteadyClock::time_point when, std::function<void()> callback) {
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

SteadyClock::duration TimerQueue::StalledBetween(SteadyClock::time_point from,
                                                 SteadyClock::time_point to) const {
  SteadyClock::duration stalled{0};
  auto add = [&](SteadyClock::time_point a, SteadyClock::time_point b) {
    a = std::max(a, from);
    b = std::min(b, to);
    if (b > a) stalled += b - a;
  };
  absl::MutexLock lock(&mu_);
  for (const Stall& stall : stalls_) add(stall.from, stall.to);
  // One under way that the timer thread has not yet woken to see.
  const SteadyClock::time_point now = SteadyClock::now();
  if (now - last_beat_ > kStall) add(last_beat_, now);
  return stalled;
}

void TimerQueue::OnStall(std::function<void(SteadyClock::duration)> callback) {
  absl::MutexLock lock(&mu_);
  on_stall_ = std::move(callback);
}

SteadyClock::duration TimerQueue::Beat(SteadyClock::time_point now) {
  SteadyClock::duration stalled{0};
  if (now - last_beat_ > kStall) {
    stalls_.push_back({last_beat_, now});
    if (stalls_.size() > kKeptStalls) stalls_.pop_front();
    stalled = now - last_beat_;
  }
  last_beat_ = now;
  return stalled;
}

void TimerQueue::Run() {
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    const SteadyClock::time_point now = SteadyClock::now();
    if (const SteadyClock::duration stalled = Beat(now);
        stalled > SteadyClock::duration::zero() && on_stall_) {
      std::function<void(SteadyClock::duration)> report = on_stall_;
      mu_.Unlock();
      report(stalled);
      mu_.Lock();
      continue;
    }
    if (timers_.empty()) {
      wake_.WaitWithTimeout(&mu_, absl::FromChrono(kBeat));
      continue;
    }
    auto first = timers_.begin();
    const SteadyClock::time_point when = first->first.first;
    if (when > now) {
      // Wake at the end of the deadline's tick, so that callbacks due close
      // together run in one wake-up, and a first timer cancelled before its
      // deadline costs at most one wake-up per tick; and at least every
      // beat. Schedule() and Stop() signal when they need the thread sooner.
      const auto tick = std::chrono::duration_cast<SteadyClock::duration>(kTick);
      const SteadyClock::time_point wake =
          SteadyClock::time_point((when.time_since_epoch() / tick + 1) * tick);
      wake_.WaitWithTimeout(&mu_,
                            absl::FromChrono(std::min<SteadyClock::duration>(wake - now, kBeat)));
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
