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

// What the shell runs for `command`: "exec <command>" for a simple command
// (after any leading VAR=value words), so the bot itself replaces the shell
// and dies with the runner; the command as it is when it has ; & | ( ) `
// quotes or backslashes, whose children then outlive a runner killed with
// SIGKILL.
std::string ShellCommand(const std::string& command);

class LaunchedBot {
 public:
  // Runs ShellCommand(command) through /bin/sh -c with the
  // runner's environment plus
  // `env`; stdout and stderr go to `log_path` (appended; /dev/null if
  // empty), in `working_directory` (empty: the runner's). kInternal if the
  // process cannot be started.
  static absl::StatusOr<std::unique_ptr<LaunchedBot>> Start(
      const std::string& command, const std::map<std::string, std::string>& env,
      const std::string& log_path, const std::string& working_directory = "");
  ~LaunchedBot();  // Stop()

  // A description of how the process ended, or nullopt while it runs.
  std::optional<std::string> Exited();
  // SIGTERM to the process group, then SIGKILL after `grace_ms`.
  void Stop(int grace_ms = 2000);

  const std::string& log_path() const { return log_path_; }
  // The last `lines` lines the bot wrote to its log since it started (from
  // its last 4 KiB of output), or empty without a log.
  std::string LastLines(int lines) const;

 private:
  LaunchedBot(pid_t pid, std::string log_path, off_t log_start)
      : pid_(pid), log_path_(std::move(log_path)), log_start_(log_start) {}

  pid_t pid_;
  const std::string log_path_;
  // Where its output starts in the log (which is appended to).
  const off_t log_start_;
  std::optional<std::string> exit_;
};

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_LAUNCHER_H_
