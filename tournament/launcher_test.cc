#include "tournament/launcher.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "gtest/gtest.h"

namespace hoard::tournament {
namespace {

TEST(LauncherTest, SimpleCommandsReplaceTheShell) {
  EXPECT_EQ(ShellCommand("build/hoard bot --quiet"), "exec build/hoard bot --quiet");
  EXPECT_EQ(ShellCommand("  python3 bot.py"), "exec python3 bot.py");
  EXPECT_EQ(ShellCommand("DEBUG=1 LEVEL=2 python3 bot.py"), "DEBUG=1 LEVEL=2 exec python3 bot.py");
  EXPECT_EQ(ShellCommand(" DEBUG=1 python3 bot.py"), "DEBUG=1 exec python3 bot.py");
}

TEST(LauncherTest, CompoundCommandsRunUnderTheShell) {
  EXPECT_EQ(ShellCommand("echo hi; exit 3"), "echo hi; exit 3");
  EXPECT_EQ(ShellCommand("cd bots && ./bot"), "cd bots && ./bot");
  EXPECT_EQ(ShellCommand("NAME='a b' ./bot"), "NAME='a b' ./bot");
  EXPECT_EQ(ShellCommand("X=1"), "X=1");
}

TEST(LauncherTest, ABotGetsItsEnvironmentAndIsStopped) {
  const std::string log = ::testing::TempDir() + "/launcher_test.log";
  std::remove(log.c_str());
  absl::StatusOr<std::unique_ptr<LaunchedBot>> bot =
      LaunchedBot::Start("sh -c 'echo \"$HOARD_BOT_NAME\"; sleep 60'", {{"HOARD_BOT_NAME", "x@1"}},
                         log);
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

}  // namespace
}  // namespace hoard::tournament
