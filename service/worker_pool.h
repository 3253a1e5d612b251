#ifndef HOARD_SERVICE_WORKER_POOL_H_
#define HOARD_SERVICE_WORKER_POOL_H_

// Where built-in bots think: a fixed set of threads running posted tasks in
// the order posted, away from the transport's threads, the timer's thread
// and every lock. A task that posts its own follow-up while nothing else
// waits runs it at once on the same thread, without a hop through the queue
// (an all-built-in match plays through without waiting on itself), and
// waits its turn otherwise (no match holds a thread while others queue).

#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace hoard::service {

class WorkerPool {
 public:
  // `threads` workers (at least one).
  explicit WorkerPool(int threads);
  ~WorkerPool();  // Stop()

  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs `task` on a worker. After Stop, does nothing.
  void Post(std::function<void()> task);
  // Drops the tasks not yet started, waits for those running, and joins the
  // threads. Safe to call more than once.
  void Stop();

  // A sensible size: the machine's cores.
  static int DefaultThreads();

 private:
  void Work();

  absl::Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace hoard::service

#endif  // HOARD_SERVICE_WORKER_POOL_H_
