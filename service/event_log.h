#ifndef HOARD_SERVICE_EVENT_LOG_H_
#define HOARD_SERVICE_EVENT_LOG_H_

// The server's operational log: one line per event (a match started or
// ended, a bot registered or disconnected, the server starting or
// stopping), with the match id and other fields, as text for people or as
// JSON lines for log collectors:
//
//   2026-11-23T08:40:00.123Z match_finished match=m3 game=village actions=55
//   {"ts":"2026-11-23T08:40:00.123Z","event":"match_finished","match":"m3",...}
//
// Lines never carry hidden information: no hand, no deal, no seed of a
// match that has not finished.

#include <functional>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace hoard::service {

using LogFields = std::vector<std::pair<std::string, std::string>>;
// Where the arena reports its events.
using EventSink = std::function<void(absl::string_view event, const LogFields& fields)>;

enum class LogFormat { kText, kJson };

// "text" or "json"; kInvalidArgument otherwise.
absl::StatusOr<LogFormat> ParseLogFormat(absl::string_view name);

// One line, without its newline. Text: values with spaces, quotes or '='
// are quoted; JSON: every value is a string, escaped.
std::string FormatEvent(LogFormat format, absl::Time time, absl::string_view event,
                        const LogFields& fields);

// Writes formatted events to a stream, a whole line at a time (thread-safe).
class EventLog {
 public:
  EventLog(LogFormat format, std::ostream* out) : format_(format), out_(out) {}
  void Write(absl::string_view event, const LogFields& fields);
  // A sink that writes here; the log must outlive it.
  EventSink Sink() {
    return [this](absl::string_view event, const LogFields& fields) { Write(event, fields); };
  }

 private:
  const LogFormat format_;
  absl::Mutex mu_;
  std::ostream* const out_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hoard::service

#endif  // HOARD_SERVICE_EVENT_LOG_H_
