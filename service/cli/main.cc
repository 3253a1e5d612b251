// hoard: the command-line program (build/hoard).

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"

namespace {

using hoard::cli::RunFunction;

// Every command, once: its name, what runs it, and its lines in the usage
// (a command with subcommands shows each). The usage, the dispatch and the
// suggestions for a misspelt command all read this table.
struct Command {
  const char* name;
  RunFunction run;
  std::vector<std::pair<const char*, const char*>> usage;
};

const std::vector<Command>& Commands() {
  namespace cli = hoard::cli;
  static const auto* commands = new std::vector<Command>{
      {"play", cli::RunPlay, {{"play", "play one match between built-in bots and print it"}}},
      {"replay",
       cli::RunReplay,
       {{"replay verify", "re-simulate a match record and check that it matches"},
        {"replay html", "write a record's replay as one web page that works offline"}}},
      {"games", cli::RunGames, {{"games", "list the games, their player counts and options"}}},
      {"serve", cli::RunServe, {{"serve", "serve the arena over gRPC for bots in any language"}}},
      {"health",
       cli::RunHealth,
       {{"health", "ask a server whether it is serving (for health checks)"}}},
      {"backup", cli::RunBackup, {{"backup", "copy a database safely while it is in use"}}},
      {"bot", cli::RunBot, {{"bot", "connect a built-in strategy to a server as a bot"}}},
      {"bots", cli::RunBots, {{"bots", "add, list and revoke a server's bot accounts (admin)"}}},
      {"match", cli::RunMatch, {{"match", "create, show and list matches on a server"}}},
      {"tournament",
       cli::RunTournament,
       {{"tournament", "run (or resume) a tournament and print its leaderboard"}}},
      {"ladder",
       cli::RunLadder,
       {{"ladder", "create, show and close standing ladders that bots join and leave"}}},
      {"leaderboard",
       cli::RunLeaderboard,
       {{"leaderboard", "ratings of the bots of a game or tournament"}}},
      {"ratings",
       cli::RunRatings,
       {{"ratings", "rate bots from a file of match results (elo, ml, openskill)"}}},
      {"export",
       cli::RunExport,
       {{"export", "write a tournament's results (CSV) and records (JSON lines)"}}},
      {"check-bot",
       cli::RunCheckBot,
       {{"check-bot", "check that a bot keeps the protocol (any language)"}}},
      {"stats",
       cli::RunStats,
       {{"stats", "how a game plays: many matches between built-in bots, summed up"}}},
      {"bench", cli::RunBench, {{"bench arena", "measure the arena server under load"}}},
  };
  return *commands;
}

std::string Usage() {
  std::string text =
      "Hoard: bot tournaments on dragon-and-treasure card games.\n"
      "\n"
      "usage: hoard <command> [flags]\n"
      "\n"
      "commands:\n";
  for (const Command& command : Commands()) {
    for (const auto& [line, what] : command.usage) {
      text += absl::StrFormat("  %-14s %s\n", line, what);
    }
  }
  return text + "\nRun 'hoard <command> --help' for a command's flags.\n";
}

}  // namespace

int main(int argc, char** argv) {
  // Abseil's lock-order checks are a debugging aid; the tests keep them.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    std::fputs(Usage().c_str(), args.empty() ? stderr : stdout);
    return args.empty() ? hoard::cli::kExitUsage : hoard::cli::kExitOk;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  std::vector<std::string> names;
  for (const Command& known : Commands()) {
    if (command == known.name) return known.run(args);
    names.push_back(known.name);
  }
  std::vector<std::string> candidates = names;
  candidates.push_back("help");
  const std::string likely = hoard::cli::DidYouMean(command, candidates);
  if (!likely.empty()) {
    return hoard::cli::Fail(
        hoard::cli::kExitUsage,
        "unknown command '" + command + "' (did you mean '" + likely + "'? see 'hoard help')");
  }
  return hoard::cli::Fail(hoard::cli::kExitUsage, "unknown command '" + command +
                                                      "' (commands: " + absl::StrJoin(names, ", ") +
                                                      "; see 'hoard help')");
}
