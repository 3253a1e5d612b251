#include "tournament/launcher.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"

extern char** environ;

namespace hoard::tournament {
namespace {

std::string DescribeExit(int status) {
  if (WIFEXITED(status)) return absl::StrCat("exited with status ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return absl::StrCat("was killed by signal ", WTERMSIG(status));
  return "stopped";
}

// Whether a process of group `pgid` still runs. A zombie does not: it waits
// for its parent (init, for one the bot left behind) to reap it, and an
// init that reaps late, or never, must not hold a stop up.
bool GroupRuns(pid_t pgid) {
  if (kill(-pgid, 0) != 0) return errno != ESRCH;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return true;
  bool runs = false;
  while (!runs) {
    const dirent* entry = readdir(proc);
    if (entry == nullptr) break;
    if (!std::isdigit(static_cast<unsigned char>(entry->d_name[0]))) continue;
    std::ifstream stat(absl::StrCat("/proc/", entry->d_name, "/stat"));
    std::string line;
    if (!std::getline(stat, line)) continue;
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    const std::size_t comm_end = line.rfind(')');
    if (comm_end == std::string::npos) continue;
    std::vector<absl::string_view> fields =
        absl::StrSplit(absl::string_view(line).substr(comm_end + 1), ' ', absl::SkipEmpty());
    int pgrp = 0;
    runs = fields.size() > 2 && absl::SimpleAtoi(fields[2], &pgrp) && pgrp == pgid &&
           fields[0] != "Z" && fields[0] != "X";
  }
  closedir(proc);
  return runs;
}

// Whether `command` is more than one simple command (or has quotes, which
// ShellCommand does not parse).
bool IsCompound(const std::string& command) {
  return command.find_first_of(";&|()`'\"\\\n") != std::string::npos;
}

// Forks on a thread that lasts as long as the process. PR_SET_PDEATHSIG
// signals a child when the thread that forked it ends, not its process, and
// a runner's threads come and go (its supervisor restarts bots, and a
// shared tournament plays in several rounds, each with a supervisor of its
// own): a bot forked on one would be stopped with it.
class LastingForker {
 public:
  // Runs `fork_child` (which forks, and returns the child's pid or -1) on
  // the lasting thread; returns its result. Its references stay valid: the
  // caller waits.
  static pid_t Fork(const std::function<pid_t()>& fork_child) {
    LastingForker* forker = Get();
    absl::MutexLock turn(&forker->turn_);
    absl::MutexLock lock(&forker->mu_);
    forker->job_ = &fork_child;
    forker->forked_ = false;
    forker->mu_.Await(absl::Condition(&forker->forked_));
    forker->job_ = nullptr;
    return forker->pid_;
  }

 private:
  // This process's forker. A process forked from one that had a forker
  // (without exec) has a copy of it, but not its thread: it makes its own.
  static LastingForker* Get() {
    static absl::Mutex mu(absl::kConstInit);
    static LastingForker* forker = nullptr;  // guarded by mu
    absl::MutexLock lock(&mu);
    if (forker == nullptr || forker->process_ != getpid()) forker = new LastingForker();
    return forker;
  }

  LastingForker() {
    std::thread([this] {
      // No signal for this thread: a process that takes its stop signals on
      // a thread of its own blocks them everywhere else.
      sigset_t all;
      sigfillset(&all);
      pthread_sigmask(SIG_BLOCK, &all, nullptr);
      absl::MutexLock lock(&mu_);
      while (true) {
        mu_.Await(absl::Condition(this, &LastingForker::HasJob));
        pid_ = (*job_)();
        forked_ = true;
      }
    }).detach();
  }

  bool HasJob() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return job_ != nullptr && !forked_; }

  const pid_t process_ = getpid();
  absl::Mutex turn_;  // one fork at a time
  absl::Mutex mu_;
  const std::function<pid_t()>* job_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool forked_ ABSL_GUARDED_BY(mu_) = false;  // job_ ran
  pid_t pid_ ABSL_GUARDED_BY(mu_) = -1;
};

}  // namespace

std::string ShellCommand(const std::string& command) {
  // A simple command replaces the shell, so it is the process that dies
  // with the runner. A compound one runs in the background, so that its
  // shell, in `wait`, acts on SIGHUP at once (a trap waits for a
  // foreground command to end). The trap is not inherited by the command,
  // and SIGTERM from Stop() ends the shell like the rest of the group.
  if (IsCompound(command)) {
    return absl::StrCat("trap 'trap \"\" TERM; kill -TERM 0; sleep ", kStopGraceMs / 1000,
                        "; kill -KILL 0' HUP\n{ ", command, "\n} & wait $!");
  }
  // Leading VAR=value words stay before the exec, which passes them on.
  std::string prefix;
  std::size_t pos = command.find_first_not_of(" \t");
  while (pos != std::string::npos) {
    const std::size_t end = std::min(command.find_first_of(" \t", pos), command.size());
    const std::string word = command.substr(pos, end - pos);
    const std::size_t eq = word.find('=');
    const bool assignment =
        eq != std::string::npos && eq > 0 &&
        std::all_of(
            word.begin(), word.begin() + eq,
            [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }) &&
        !std::isdigit(static_cast<unsigned char>(word[0]));
    if (!assignment) {
      return absl::StrCat(prefix, "exec ", command.substr(pos));
    }
    absl::StrAppend(&prefix, word, " ");
    pos = command.find_first_not_of(" \t", end);
  }
  return command;  // nothing but assignments
}

absl::StatusOr<std::unique_ptr<LaunchedBot>> LaunchedBot::Start(
    const std::string& command, const std::map<std::string, std::string>& env,
    const std::string& log_path, const std::string& working_directory) {
  // Everything the child needs is prepared before fork: after it, only
  // async-signal-safe calls.
  std::vector<std::string> entries;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string key = entry.substr(0, entry.find('='));
    if (!env.contains(key)) entries.push_back(entry);
  }
  for (const auto& [key, value] : env) entries.push_back(absl::StrCat(key, "=", value));
  std::vector<char*> envp;
  for (std::string& entry : entries) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::string shell_command = ShellCommand(command);
  // The signal the shell, or the bot that replaced it, gets when the runner dies.
  const int death_signal = IsCompound(command) ? SIGHUP : SIGTERM;
  char sh[] = "/bin/sh";
  char dash_c[] = "-c";
  char* argv[] = {sh, dash_c, shell_command.data(), nullptr};
  const std::string log = log_path.empty() ? "/dev/null" : log_path;
  const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (out < 0) {
    return absl::InternalError(absl::StrCat("cannot open ", log, ": ", std::strerror(errno)));
  }
  const off_t log_start = lseek(out, 0, SEEK_END);
  const pid_t parent = getpid();
  int fork_error = 0;
  const pid_t pid = LastingForker::Fork([&]() -> pid_t {
    const pid_t child = fork();
    if (child != 0) {
      fork_error = errno;
      return child;
    }
    // The runner may block stop signals for a thread of its own to take
    // them; the bot starts with none blocked, as from a shell.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, death_signal);  // even a runner killed with SIGKILL
    if (getppid() != parent) _exit(127);
    dup2(out, STDOUT_FILENO);
    dup2(out, STDERR_FILENO);
    const int null_in = open("/dev/null", O_RDONLY);
    if (null_in >= 0) dup2(null_in, STDIN_FILENO);
    if (!working_directory.empty() && chdir(working_directory.c_str()) != 0) {
      static constexpr char kNoDirectory[] = "hoard: cannot enter the bot's working directory\n";
      (void)!write(STDERR_FILENO, kNoDirectory, sizeof(kNoDirectory) - 1);
      _exit(127);
    }
    execve(sh, argv, envp.data());
    _exit(127);
  });
  if (pid < 0) {
    close(out);
    return absl::InternalError(
        absl::StrCat("cannot start '", command, "': ", std::strerror(fork_error)));
  }
  close(out);
  setpgid(pid, pid);  // either side may win the race; both set the same group
  return std::unique_ptr<LaunchedBot>(
      new LaunchedBot(pid, log_path, std::max<off_t>(0, log_start)));
}

std::string LaunchedBot::LastLines(int lines) const {
  constexpr off_t kMostBytes = 4096;
  if (log_path_.empty()) return "";
  std::ifstream in(log_path_, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const off_t end = static_cast<off_t>(in.tellg());
  // One byte more than kept, to tell whether the first line read is whole.
  const off_t from = std::max(log_start_, end - kMostBytes - 1);
  if (end <= from) return "";
  std::string tail(static_cast<std::size_t>(end - from), '\0');
  in.seekg(from);
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  tail.resize(static_cast<std::size_t>(in.gcount()));
  absl::string_view whole = tail;
  if (from > log_start_) whole.remove_prefix(std::min(whole.size(), whole.find('\n') + 1));
  std::vector<absl::string_view> all =
      absl::StrSplit(whole, absl::ByAnyChar("\n\r"), absl::SkipWhitespace());
  const std::size_t kept = std::min(all.size(), static_cast<std::size_t>(std::max(0, lines)));
  return absl::StrJoin(all.end() - static_cast<std::ptrdiff_t>(kept), all.end(), "\n");
}

LaunchedBot::~LaunchedBot() { Stop(); }

std::optional<std::string> LaunchedBot::Exited() {
  if (exit_) return exit_;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) exit_ = DescribeExit(status);
  return exit_;
}

void LaunchedBot::Stop(int grace_ms) {
  // The group outlives its leader while children the leader left (or a
  // shell's commands) run, and its id is not reused while it has a member,
  // so signalling -pid_ reaches only this bot's processes. Once it is gone
  // the id may be reused: a second Stop() signals nothing.
  if (stopped_) return;
  stopped_ = true;
  kill(-pid_, SIGTERM);
  for (int waited = 0; waited < grace_ms; waited += 10) {
    // Done once the leader is reaped and nothing else of the group runs.
    if (Exited() && !GroupRuns(pid_)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(-pid_, SIGKILL);
  if (!exit_) {
    int status = 0;
    if (waitpid(pid_, &status, 0) == pid_) exit_ = DescribeExit(status);
  }
}

}  // namespace hoard::tournament
