#ifndef HOARD_SERVICE_METRICS_H_
#define HOARD_SERVICE_METRICS_H_

// The server's metrics, for `/metrics` in the Prometheus text format
// (docs/web.md, "Metrics"). Counters and histograms are updated where
// things happen (matches, decisions, the store's writer) without a lock;
// gauges (matches running, bots connected, tournaments) are read when the
// metrics are rendered.

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace hoard::service {

// A histogram of durations with fixed bounds, in seconds.
class Histogram {
 public:
  static constexpr std::array<double, 14> kBounds = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5};

  void Observe(absl::Duration d);
  // Its lines: NAME_bucket{LABELS,le="..."} (cumulative), NAME_sum, NAME_count.
  std::string Render(const std::string& name, const std::string& labels) const;

 private:
  std::array<std::atomic<std::int64_t>, kBounds.size() + 1> buckets_{};  // last: +Inf
  std::atomic<std::int64_t> sum_ns_{0};
};

// A game's counters.
struct GameMetrics {
  std::atomic<std::int64_t> started{0};
  std::atomic<std::int64_t> finished{0};  // ended with a result
  std::atomic<std::int64_t> aborted{0};
  // Actions played: chosen by bots over the network, by built-in bots, or
  // by default (a time-out, a forfeited seat).
  std::atomic<std::int64_t> bot_decisions{0};
  std::atomic<std::int64_t> builtin_decisions{0};
  std::atomic<std::int64_t> default_decisions{0};
  std::atomic<std::int64_t> timeouts{0};
  std::atomic<std::int64_t> refused{0};  // answers refused (illegal, malformed)
  // From a request's sending to its accepted answer, bots over the network.
  Histogram decision_seconds;
};

// What is read when the metrics are rendered.
struct MetricsGauges {
  int bots_connected = 0;
  struct TournamentProgress {
    std::int64_t id = 0;
    std::string game;
    std::string status;  // RUNNING, FINISHED, ...
    int scheduled = 0;
    int finished = 0;
    int failed = 0;
    int running = 0;
    // A ladder's: its name (empty for other formats), its entrants and
    // those present, and its final evaluation's confidence once frozen.
    std::string ladder;
    int entrants = 0;
    int present = 0;
    bool frozen = false;
    double confidence = 0;
  };
  std::vector<TournamentProgress> tournaments;
};

class Metrics {
 public:
  // The counters of game `id`, made on first use; the reference stays valid
  // as long as the Metrics.
  GameMetrics& Game(const std::string& id);
  // A commit of the store's writer: how long it took, how many matches.
  void ObserveStoreWrite(absl::Duration took, int matches);

  // The Prometheus text exposition format (version 0.0.4).
  std::string Render(const MetricsGauges& gauges) const;

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<GameMetrics>> games_ ABSL_GUARDED_BY(mu_);
  Histogram store_write_seconds_;
  std::atomic<std::int64_t> store_matches_{0};
};

}  // namespace hoard::service

#endif  // HOARD_SERVICE_METRICS_H_
