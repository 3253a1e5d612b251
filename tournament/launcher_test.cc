#include "tournament/launcher.h"

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace hoard::tournament {
namespace {

TEST(LauncherTest, SimpleCommandsReplaceTheShell) {
  EXPECT_EQ(ShellCommand("build/hoard bot --quiet"), "exec build/hoard bot --quiet");
  EXPECT_EQ(ShellCommand("  python3 bot.py"), "exec python3 bot.py");
  EXPECT_EQ(ShellCommand("DEBUG=1 LEVEL=2 python3 bot.py"), "DEBUG=1 LEVEL=2 exec python3 bot.py");
  EXPECT_EQ(ShellCommand(" DEBUG=1 python3 bot.py"), "DEBUG=1 exec python3 bot.py");
}

TEST(LauncherTest, CompoundCommandsRunUnderAShellThatEndsThemWithTheRunner) {
  constexpr char kTrap[] = "trap 'trap \"\" TERM; kill -TERM 0; sleep 2; kill -KILL 0' HUP\n";
  EXPECT_EQ(ShellCommand("echo hi; exit 3"), absl::StrCat(kTrap, "{ echo hi; exit 3\n} & wait $!"));
  EXPECT_EQ(ShellCommand("cd bots && ./bot"),
            absl::StrCat(kTrap, "{ cd bots && ./bot\n} & wait $!"));
  EXPECT_EQ(ShellCommand("NAME='a b' ./bot # mine"),
            absl::StrCat(kTrap, "{ NAME='a b' ./bot # mine\n} & wait $!"));
  EXPECT_EQ(ShellCommand("X=1"), "X=1");
}

TEST(LauncherTest, ABotGetsItsEnvironmentAndIsStopped) {
  const std::string log = ::testing::TempDir() + "/launcher_test.log";
  std::remove(log.c_str());
  absl::StatusOr<std::unique_ptr<LaunchedBot>> bot = LaunchedBot::Start(
      "sh -c 'echo \"$HOARD_BOT_NAME\"; sleep 60'", {{"HOARD_BOT_NAME", "x@1"}}, log);
  ASSERT_TRUE(bot.ok()) << bot.status();
  for (int i = 0; i < 200; ++i) {
    std::ifstream in(log);
    std::string line;
    if (std::getline(in, line) && line == "x@1") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::ifstream in(log);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, "x@1");
  EXPECT_FALSE((*bot)->Exited().has_value());
  (*bot)->Stop(/*grace_ms=*/2000);
  ASSERT_TRUE((*bot)->Exited().has_value());
  EXPECT_EQ(*(*bot)->Exited(), "was killed by signal 15");
}

TEST(LauncherTest, TheLastLinesOfADeadBotAreItsOwn) {
  const std::string log = ::testing::TempDir() + "/launcher_tail_test.log";
  std::ofstream(log) << "an earlier run's line\n";
  // 300 lines of 20 bytes: more than the 4 KiB looked at.
  absl::StatusOr<std::unique_ptr<LaunchedBot>> bot = LaunchedBot::Start(
      "i=0; while [ $i -lt 300 ]; do printf 'line %013d\\n' $i; i=$((i+1)); done; "
      "echo 'Traceback: boom' >&2; exit 3",
      {}, log);
  ASSERT_TRUE(bot.ok()) << bot.status();
  for (int i = 0; i < 500 && !(*bot)->Exited(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ((*bot)->Exited().value_or("running"), "exited with status 3");
  EXPECT_EQ((*bot)->LastLines(2), "line 0000000000299\nTraceback: boom");
  const std::string all = (*bot)->LastLines(1000);
  EXPECT_EQ(all.substr(0, 4), "line") << "a whole first line, not a cut one";
  EXPECT_EQ(all.find("earlier"), std::string::npos);

  absl::StatusOr<std::unique_ptr<LaunchedBot>> quiet = LaunchedBot::Start("true", {}, log);
  ASSERT_TRUE(quiet.ok()) << quiet.status();
  (*quiet)->Stop();
  EXPECT_EQ((*quiet)->LastLines(5), "") << "nothing of its own, though the log has lines";
}

// The whole log, once `done` says so of it (or after 5 s).
std::string AwaitLog(const std::string& path, const std::function<bool(const std::string&)>& done) {
  std::string text;
  for (int i = 0; i < 500; ++i) {
    std::ifstream in(path);
    std::stringstream all;
    all << in.rdbuf();
    text = all.str();
    if (done(text)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return text;
}

// The whole log, once it holds `wanted` (or after 5 s).
std::string AwaitLog(const std::string& path, const std::string& wanted) {
  return AwaitLog(path, [&](const std::string& text) { return absl::StrContains(text, wanted); });
}

// The whole log, once it holds `lines` lines (or after 5 s).
std::string AwaitLines(const std::string& path, int lines) {
  return AwaitLog(path, [&](const std::string& text) {
    return std::count(text.begin(), text.end(), '\n') >= lines;
  });
}

// Whether process `pid` is gone (or a zombie, waiting for init to reap it).
bool Gone(pid_t pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const std::size_t end = line.rfind(')');
  return end != std::string::npos && end + 2 < line.size() && line[end + 2] == 'Z';
}

// The process ids of a log's lines.
std::vector<pid_t> PidsIn(const std::string& text) {
  std::vector<pid_t> pids;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    pid_t pid = 0;
    if (absl::SimpleAtoi(line, &pid) && pid > 0) pids.push_back(pid);
  }
  return pids;
}

// Expects every process of `pids` to be gone within 5 s; kills those left.
void ExpectAllGone(const std::vector<pid_t>& pids, const std::string& after) {
  for (pid_t pid : pids) {
    bool gone = Gone(pid);
    for (int i = 0; i < 500 && !gone; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      gone = Gone(pid);
    }
    EXPECT_TRUE(gone) << "process " << pid << " of the bot outlived " << after;
    if (!gone) kill(pid, SIGKILL);
  }
}

TEST(LauncherTest, StopEndsTheGroupEvenWhenItIgnoresSigterm) {
  const std::string log = ::testing::TempDir() + "/launcher_stubborn_test.log";
  std::remove(log.c_str());
  // Both processes the bot starts ignore SIGTERM.
  absl::StatusOr<std::unique_ptr<LaunchedBot>> bot = LaunchedBot::Start(
      "trap '' TERM; sleep 1000 & echo \"$!\"; sleep 1000 & echo \"$!\"; wait", {}, log);
  ASSERT_TRUE(bot.ok()) << bot.status();
  const std::vector<pid_t> stubborn = PidsIn(AwaitLines(log, 2));
  ASSERT_EQ(stubborn.size(), 2u);
  for (pid_t pid : stubborn) EXPECT_FALSE(Gone(pid));
  (*bot)->Stop(/*grace_ms=*/300);
  EXPECT_TRUE((*bot)->Exited().has_value());
  ExpectAllGone(stubborn, "Stop()");
}

TEST(LauncherTest, ABotOutlivesTheThreadThatStartedIt) {
  absl::StatusOr<std::unique_ptr<LaunchedBot>> bot;
  std::thread([&] { bot = LaunchedBot::Start("sleep 60", {}, ""); }).join();
  ASSERT_TRUE(bot.ok()) << bot.status();
  // Time for a signal on the thread's end to arrive, were one sent.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ((*bot)->Exited().value_or("running"), "running");
  (*bot)->Stop();
}

TEST(LauncherTest, ACompoundCommandEndsWhenTheRunnerIsKilled) {
  const std::string log = ::testing::TempDir() + "/launcher_orphan_test.log";
  std::remove(log.c_str());
  // A runner that launches a bot and is then killed with SIGKILL. The bot
  // starts one process that stops on SIGTERM and one that ignores it.
  const pid_t runner = fork();
  ASSERT_GE(runner, 0);
  if (runner == 0) {
    absl::StatusOr<std::unique_ptr<LaunchedBot>> bot = LaunchedBot::Start(
        "(trap 'echo polite stopped; exit 0' TERM; sleep 1000 & wait) & echo \"$!\"; "
        "(trap '' TERM; exec sleep 1000) & echo \"$!\"; wait",
        {}, log);
    if (!bot.ok()) _exit(1);
    (*bot).release();  // the runner dies without stopping it
    pause();
    _exit(0);
  }
  const std::vector<pid_t> started = PidsIn(AwaitLines(log, 2));
  kill(runner, SIGKILL);
  waitpid(runner, nullptr, 0);
  ASSERT_EQ(started.size(), 2u);
  ExpectAllGone(started, "the runner's death");
  EXPECT_TRUE(absl::StrContains(AwaitLog(log, "polite stopped"), "polite stopped"))
      << "the process that stops on SIGTERM did not get it";
}

TEST(LauncherTest, StopGivesAChildItsGraceAfterTheBotHasExited) {
  const std::string log = ::testing::TempDir() + "/launcher_grace_test.log";
  std::remove(log.c_str());
  // The bot dies at SIGTERM; its child takes a moment to stop cleanly.
  absl::StatusOr<std::unique_ptr<LaunchedBot>> bot = LaunchedBot::Start(
      "(trap 'sleep 0.3; echo child stopped; exit 0' TERM; echo child ready; "
      "sleep 1000 & wait) & exec sleep 1000",
      {}, log);
  ASSERT_TRUE(bot.ok()) << bot.status();
  ASSERT_TRUE(absl::StrContains(AwaitLog(log, "child ready"), "child ready"));
  (*bot)->Stop(/*grace_ms=*/10000);
  EXPECT_EQ((*bot)->Exited().value_or("running"), "was killed by signal 15");
  EXPECT_TRUE(absl::StrContains(AwaitLog(log, "child stopped"), "child stopped"))
      << "the child was killed before it could stop";
}

}  // namespace
}  // namespace hoard::tournament
