#ifndef HOARD_TOURNAMENT_LAUNCHER_H_
#define HOARD_TOURNAMENT_LAUNCHER_H_

// Bots the runner starts itself: a shell command run in its own process
// group with extra environment variables, its output going to a log file.
// The process dies with the runner (even one killed with SIGKILL) and is
// stopped, with its children, when the LaunchedBot goes.

#include <sys/types.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace hoard::tournament {

class LaunchedBot {
 public:
  // Runs `/bin/sh -c "exec <command>"` (without the exec for a command with
  // ; & | ( ) or ` or that starts with VAR=value, whose children then
  // outlive a killed runner) with the
  // runner's environment plus
  // `env`; stdout and stderr go to `log_path` (appended; /dev/null if
  // empty). kInternal if the process cannot be started.
  static absl::StatusOr<std::unique_ptr<LaunchedBot>> Start(
      const std::string& command, const std::map<std::string, std::string>& env,
      const std::string& log_path);
  ~LaunchedBot();  // Stop()

  // A description of how the process ended, or nullopt while it runs.
  std::optional<std::string> Exited();
  // SIGTERM to the process group, then SIGKILL after `grace_ms`.
  void Stop(int grace_ms = 2000);

  const std::string& log_path() const { return log_path_; }

 private:
  LaunchedBot(pid_t pid, std::string log_path) : pid_(pid), log_path_(std::move(log_path)) {}

  pid_t pid_;
  const std::string log_path_;
  std::optional<std::string> exit_;
};

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_LAUNCHER_H_
