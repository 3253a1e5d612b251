// hoard games: the games this build knows, from the game registry.

#include <iostream>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bots/bot.h"
#include "engine/registry.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"

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
  bool markdown = false;
  CommandLine command("games",
                      "usage: hoard games [--markdown]\n\n"
                      "Lists the games with their player counts, built-in bots and options;\n"
                      "--markdown prints the table of games README.md shows.");
  command.app().add_flag("--markdown", markdown, "print the table of games README.md shows");
  if (std::optional<int> exit = command.ParseOrExit(args)) return *exit;
  if (markdown) {
    PrintMarkdown();
  } else {
    PrintGames();
  }
  return kExitOk;
}

}  // namespace hoard::cli
