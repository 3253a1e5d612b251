#include "service/worker_pool.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

namespace hoard::service {
namespace {

// The pool whose task runs on this thread, and the follow-up it posted.
thread_local const WorkerPool* running_pool = nullptr;
thread_local std::function<void()>* follow_up = nullptr;

}  // namespace

WorkerPool::WorkerPool(int threads) {
  for (int i = 0; i < std::max(1, threads); ++i) threads_.emplace_back([this] { Work(); });
}

WorkerPool::~WorkerPool() { Stop(); }

int WorkerPool::DefaultThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

void WorkerPool::Post(std::function<void()> task) {
  absl::MutexLock lock(&mu_);
  if (stopping_) return;
  if (running_pool == this && !*follow_up && queue_.empty()) {
    *follow_up = std::move(task);  // this thread runs it next
    return;
  }
  queue_.push_back(std::move(task));
}

void WorkerPool::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    queue_.clear();
  }
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

void WorkerPool::Work() {
  // Thinking is background work: the threads that serve bots and fire
  // deadlines come first when the cores are busy.
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 10);
  for (;;) {
    std::function<void()> task;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](WorkerPool* pool) ABSL_EXCLUSIVE_LOCKS_REQUIRED(pool->mu_) {
            return pool->stopping_ || !pool->queue_.empty();
          },
          this));
      if (stopping_) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    while (task) {
      std::function<void()> next;
      running_pool = this;
      follow_up = &next;
      task();
      running_pool = nullptr;
      follow_up = nullptr;
      task = std::move(next);
    }
  }
}

}  // namespace hoard::service
