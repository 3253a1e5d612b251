// hoard games: the games this build knows.

#include <iostream>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bots/bot.h"
#include "engine/registry.h"
#include "service/cli/commands.h"

namespace hoard::cli {

int RunGames(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] != "--help") {
    return Fail(kExitUsage, "games takes no arguments, got '" + args[0] + "'");
  }
  for (const engine::Game* game : engine::AllGames()) {
    const engine::GameInfo& info = game->info();
    std::cout << absl::StrFormat("%s — %s\n  players %d-%d, ruleset %s, bots: %s\n",
                                 info.id, info.name, info.min_players,
                                 info.max_players, info.ruleset_version,
                                 absl::StrJoin(bots::BuiltinBotNames(*game), ", "));
    for (const engine::GameOption& option : info.options) {
      std::cout << absl::StrFormat("  option %s (default %s): %s\n", option.name,
                                   option.default_value, option.description);
    }
  }
  return kExitOk;
}

}  // namespace hoard::cli
