#ifndef HOARD_TOURNAMENT_LAUNCHER_H_
#define HOARD_TOURNAMENT_LAUNCHER_H_

// Bots the runner starts itself: a shell command run in its own process
// group with extra environment variables, its output going to a log file.
// The process gets SIGTERM when the runner dies (even killed with SIGKILL:
// PR_SET_PDEATHSIG) and is stopped, with everything in its process group,
// when the LaunchedBot goes: SIGTERM to the group, SIGKILL to what is left
// of it after a grace period, and the process reaped.

#include <sys/types.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace hoard::tournament {

// How long Stop() waits, by default, between SIGTERM and SIGKILL: longer
// than the SDKs take to stop on SIGTERM (at most 1 s).
inline constexpr int kStopGraceMs = 2000;

// What the shell runs for `command`. A simple command becomes "exec
// <command>" (after any leading VAR=value words): the bot replaces the
// shell and gets SIGTERM itself when the runner dies. A compound command
// (with ; & | ( ) ` quotes, backslashes or newlines) runs in the background
// of a shell that waits for it, as a background job does (SIGINT and
// SIGQUIT ignored); when the runner dies, that shell gets SIGHUP and ends
// the process group as Stop() does: SIGTERM, then SIGKILL after
// kStopGraceMs. A command that exits passes its status on (128 + N for one
// killed by signal N).
std::string ShellCommand(const std::string& command);

class LaunchedBot {
 public:
  // Runs ShellCommand(command) through /bin/sh -c with the
  // runner's environment plus
  // `env`; stdout and stderr go to `log_path` (appended; /dev/null if
  // empty), in `working_directory` (empty: the runner's). kInternal if the
  // process cannot be started. Callable from any thread, even one that
  // ends before the bot: the bot is forked on a thread that lasts as long
  // as the process, since the signal on the runner's death
  // (PR_SET_PDEATHSIG) comes when the thread that forked it ends.
  static absl::StatusOr<std::unique_ptr<LaunchedBot>> Start(
      const std::string& command, const std::map<std::string, std::string>& env,
      const std::string& log_path, const std::string& working_directory = "");
  ~LaunchedBot();  // Stop()

  // A description of how the process ended, or nullopt while it runs.
  std::optional<std::string> Exited();
  // Ends the process and everything in its process group (children
  // included, even those that ignore SIGTERM), and reaps it: SIGTERM to the
  // group; once nothing of the group runs (zombies aside), or after
  // `grace_ms`, SIGKILL to what is left. Returns when the process has been
  // reaped; Exited() then says how it ended. Calls after the first do
  // nothing.
  void Stop(int grace_ms = kStopGraceMs);

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
  // Whether Stop() ran: the group is gone, and its id free for reuse.
  bool stopped_ = false;
};

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_LAUNCHER_H_
