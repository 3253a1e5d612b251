// hoard: the command-line program (build/hoard).

#include <cstdio>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"

namespace {

constexpr char kUsage[] =
    "Hoard: bot tournaments on dragon-and-treasure card games.\n"
    "\n"
    "usage: hoard <command> [flags]\n"
    "\n"
    "commands:\n"
    "  play           play one match between built-in bots and print it\n"
    "  replay verify  re-simulate a match record and check that it matches\n"
    "  replay html    write a record's replay as one web page that works offline\n"
    "  games          list the games, their player counts and options\n"
    "  serve          serve the arena over gRPC for bots in any language\n"
    "  health         ask a server whether it is serving (for health checks)\n"
    "  backup         copy a database safely while it is in use\n"
    "  bot            connect a built-in strategy to a server as a bot\n"
    "  bots           add, list and revoke a server's bot accounts (admin)\n"
    "  match          create, show and list matches on a server\n"
    "  tournament     run (or resume) a tournament and print its leaderboard\n"
    "  leaderboard    ratings of the bots of a game or tournament\n"
    "  ratings        rate bots from a file of match results (elo, ml, openskill)\n"
    "  export         write a tournament's results (CSV) and records (JSON lines)\n"
    "  check-bot      check that a bot keeps the protocol (any language)\n"
    "  stats          how a game plays: many matches between built-in bots, summed up\n"
    "  bench arena    measure the arena server under load\n"
    "\n"
    "Run 'hoard <command> --help' for a command's flags.\n";

}  // namespace

int main(int argc, char** argv) {
  // Abseil's lock-order checks are a debugging aid; the tests keep them.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? hoard::cli::kExitUsage : hoard::cli::kExitOk;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  if (command == "play") return hoard::cli::RunPlay(args);
  if (command == "replay") return hoard::cli::RunReplay(args);
  if (command == "games") return hoard::cli::RunGames(args);
  if (command == "serve") return hoard::cli::RunServe(args);
  if (command == "bot") return hoard::cli::RunBot(args);
  if (command == "bots") return hoard::cli::RunBots(args);
  if (command == "bench") return hoard::cli::RunBench(args);
  if (command == "match") return hoard::cli::RunMatch(args);
  if (command == "tournament") return hoard::cli::RunTournament(args);
  if (command == "leaderboard") return hoard::cli::RunLeaderboard(args);
  if (command == "ratings") return hoard::cli::RunRatings(args);
  if (command == "health") return hoard::cli::RunHealth(args);
  if (command == "backup") return hoard::cli::RunBackup(args);
  if (command == "check-bot") return hoard::cli::RunCheckBot(args);
  if (command == "stats") return hoard::cli::RunStats(args);
  if (command == "export") return hoard::cli::RunExport(args);
  const std::string likely =
      hoard::cli::DidYouMean(command, {"play", "replay", "games", "serve", "health", "backup",
                                       "bot", "bots", "match", "tournament", "leaderboard",
                                       "ratings", "check-bot", "stats", "export", "bench", "help"});
  if (!likely.empty()) {
    return hoard::cli::Fail(
        hoard::cli::kExitUsage,
        "unknown command '" + command + "' (did you mean '" + likely + "'? see 'hoard help')");
  }
  return hoard::cli::Fail(hoard::cli::kExitUsage,
                          "unknown command '" + command +
                              "' (commands: play, replay, games, serve, health, backup, bot, "
                              "bots, match, tournament, leaderboard, ratings, check-bot, stats, "
                              "export, bench; "
                              "see 'hoard help')");
}
