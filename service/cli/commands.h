#ifndef HOARD_SERVICE_CLI_COMMANDS_H_
#define HOARD_SERVICE_CLI_COMMANDS_H_

// The subcommands of the `hoard` program. Each takes the arguments after its
// name, prints to stdout (errors: one line on stderr) and returns the exit
// status: 0 success, 1 failure, 2 bad usage.

#include <string>
#include <vector>

namespace hoard::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// A subcommand: the arguments after its name -> the exit status.
using RunFunction = int (*)(const std::vector<std::string>& args);

int RunPlay(const std::vector<std::string>& args);
int RunReplay(const std::vector<std::string>& args);
int RunGames(const std::vector<std::string>& args);
int RunServe(const std::vector<std::string>& args);
int RunBot(const std::vector<std::string>& args);
int RunBots(const std::vector<std::string>& args);
int RunBench(const std::vector<std::string>& args);
int RunMatch(const std::vector<std::string>& args);
int RunTournament(const std::vector<std::string>& args);
int RunLadder(const std::vector<std::string>& args);
int RunLeaderboard(const std::vector<std::string>& args);
int RunRatings(const std::vector<std::string>& args);
int RunHealth(const std::vector<std::string>& args);
int RunBackup(const std::vector<std::string>& args);
int RunCheckBot(const std::vector<std::string>& args);
int RunStats(const std::vector<std::string>& args);
int RunExport(const std::vector<std::string>& args);

// "1 match", "2 matches": a count and its noun, singular for one.
inline std::string Counted(long long count, const std::string& one, const std::string& many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

// Prints "hoard: <message>" on stderr and returns `exit_code`.
int Fail(int exit_code, const std::string& message);

}  // namespace hoard::cli

#endif  // HOARD_SERVICE_CLI_COMMANDS_H_
