// hoard games: the games this build knows, from the game registry.

#include <iostream>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bots/bot.h"
#include "engine/registry.h"
#include "service/cli/commands.h"

namespace hoard::cli {
namespace {

// The table of games in README.md, which tests/cli_test.sh keeps equal to it.
void PrintMarkdown() {
  std::cout << "| id | game | players |\n|---|---|---|\n";
  for (const engine::Game* game : engine::AllGames()) {
    const engine::GameInfo& info = game->info();
    std::cout << absl::StrFormat("| `%s` | %s | %d–%d |\n", info.id, info.name, info.min_players,
                                 info.max_players);
  }
}

void PrintGames() {
  for (const engine::Game* game : engine::AllGames()) {
    const engine::GameInfo& info = game->info();
    std::cout << absl::StrFormat(
        "%s — %s\n  players %d-%d, ruleset %s, bots: %s\n", info.id, info.name, info.min_players,
        info.max_players, info.ruleset_version, absl::StrJoin(bots::BuiltinBotNames(*game), ", "));
    for (const engine::GameOption& option : info.options) {
      std::cout << absl::StrFormat("  option %s (default %s): %s\n", option.name,
                                   option.default_value, option.description);
    }
  }
}

}  // namespace

int RunGames(const std::vector<std::string>& args) {
  if (args.empty()) {
    PrintGames();
    return kExitOk;
  }
  if (args.size() == 1 && args[0] == "--markdown") {
    PrintMarkdown();
    return kExitOk;
  }
  if (args[0] == "--help") {
    std::cout << "Usage: hoard games [--markdown]\n"
                 "Lists the games with their player counts, built-in bots and options;\n"
                 "--markdown prints the table of games README.md shows.\n";
    return kExitOk;
  }
  return Fail(kExitUsage, "games takes only --markdown, got '" + args[0] + "'");
}

}  // namespace hoard::cli
