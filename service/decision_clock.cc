#include "service/decision_clock.h"

#include <algorithm>

namespace hoard::service {

std::int64_t UnixMillis(SteadyClock::time_point when) {
  const auto from_now = when - SteadyClock::now();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             (std::chrono::system_clock::now() + from_now).time_since_epoch())
      .count();
}

int MillisUntil(SteadyClock::time_point when) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(when - SteadyClock::now());
  return static_cast<int>(std::max<std::int64_t>(0, left.count()));
}

}  // namespace hoard::service
