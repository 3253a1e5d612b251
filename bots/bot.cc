#include "bots/bot.h"

#include <cstdint>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "bots/mcts.h"
#include "engine/check.h"
#include "engine/registry.h"

namespace hoard::bots {
namespace {

// The options that an "mcts", "mcts-N" or "mcts-Nms" name asks for.
std::optional<MctsOptions> ParseMcts(absl::string_view name) {
  if (name == "mcts") return MctsOptions{.iterations = kDefaultMctsIterations};
  if (!absl::ConsumePrefix(&name, "mcts-")) return std::nullopt;
  const bool ms = absl::ConsumeSuffix(&name, "ms");
  int n = 0;
  if (name.empty() || name[0] == '+' || name[0] == '-' || !absl::SimpleAtoi(name, &n) || n < 1 ||
      n > (ms ? 600000 : 1000000)) {
    return std::nullopt;
  }
  return ms ? MctsOptions{.iterations = 0, .time_ms = n} : MctsOptions{.iterations = n};
}

}  // namespace

engine::Action RandomBot::Choose(const engine::View&, std::span<const engine::Action> legal) {
  HOARD_CHECK(!legal.empty(), "a bot was asked to choose from nothing");
  return legal[rng_.Uniform(legal.size())];
}

engine::Action FirstBot::Choose(const engine::View&, std::span<const engine::Action> legal) {
  HOARD_CHECK(!legal.empty(), "a bot was asked to choose from nothing");
  return legal[0];
}

std::vector<std::string> BuiltinBotNames(const engine::Game& game) {
  std::vector<std::string> names = {"first", "random"};
  if (engine::HasHeuristic(game)) names.push_back("heuristic");
  if (engine::DealFor(game) != nullptr) names.push_back("mcts");
  return names;
}

absl::StatusOr<std::unique_ptr<Bot>> MakeBot(absl::string_view name, const engine::Game& game,
                                             std::uint64_t seed) {
  if (name == "random") return std::make_unique<RandomBot>(seed);
  if (name == "first") return std::make_unique<FirstBot>();
  if (name == "heuristic") {
    if (std::unique_ptr<Bot> bot = engine::MakeHeuristic(game, seed); bot != nullptr) {
      return bot;
    }
  }
  if (std::optional<MctsOptions> options = ParseMcts(name); options.has_value()) {
    if (const engine::Sampler* deal = engine::DealFor(game); deal != nullptr) {
      // The heuristic plays the search's rollouts, from its own seed.
      return std::make_unique<MctsBot>(*deal, *options, seed,
                                       engine::MakeHeuristic(game, seed ^ 0x9e3779b97f4a7c15ULL));
    }
  }
  return absl::NotFoundError(
      absl::StrCat("unknown bot '", name, "' for ", game.info().id,
                   " (built-in bots: ", absl::StrJoin(BuiltinBotNames(game), ", "),
                   absl::StrContains(absl::StrJoin(BuiltinBotNames(game), ","), "mcts")
                       ? "; mcts-N searches N iterations a decision, mcts-Nms N milliseconds)"
                       : ")"));
}

}  // namespace hoard::bots
