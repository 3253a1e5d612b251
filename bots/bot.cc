#include "bots/bot.h"

#include <cstdint>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bots/games/dragons_gold.h"
#include "bots/games/frost_dragon.h"
#include "bots/games/hedonia.h"
#include "bots/games/village.h"
#include "bots/mcts.h"
#include "bots/sampler.h"
#include "engine/check.h"

namespace hoard::bots {
namespace {

// What a game brings to the built-in bots.
struct GameBots {
  std::unique_ptr<Bot> (*heuristic)(std::uint64_t seed);
  std::unique_ptr<Sampler> (*sampler)();
};

const absl::flat_hash_map<std::string, GameBots>& Registry() {
  static const auto* const kBots = new absl::flat_hash_map<std::string, GameBots>{
      {"dragons_gold", {&dragons_gold::MakeHeuristicBot, &dragons_gold::MakeSampler}},
      {"frost_dragon", {&frost_dragon::MakeHeuristicBot, &frost_dragon::MakeSampler}},
      {"hedonia", {&hedonia::MakeHeuristicBot, &hedonia::MakeSampler}},
      {"village", {&village::MakeHeuristicBot, &village::MakeSampler}},
  };
  return *kBots;
}

const GameBots* BotsFor(const engine::Game& game) {
  auto it = Registry().find(game.info().id);
  return it == Registry().end() ? nullptr : &it->second;
}

// The options that an "mcts", "mcts-N" or "mcts-Nms" name asks for.
std::optional<MctsOptions> ParseMcts(absl::string_view name) {
  if (name == "mcts") return MctsOptions{.iterations = kDefaultMctsIterations};
  if (!absl::ConsumePrefix(&name, "mcts-")) return std::nullopt;
  const bool ms = absl::ConsumeSuffix(&name, "ms");
  int n = 0;
  if (name.empty() || name[0] == '+' || name[0] == '-' || !absl::SimpleAtoi(name, &n) ||
      n < 1 || n > (ms ? 600000 : 1000000)) {
    return std::nullopt;
  }
  return ms ? MctsOptions{.iterations = 0, .time_ms = n} : MctsOptions{.iterations = n};
}

}  // namespace

engine::Action RandomBot::Choose(const engine::View&,
                                 std::span<const engine::Action> legal) {
  HOARD_CHECK(!legal.empty(), "a bot was asked to choose from nothing");
  return legal[rng_.Uniform(legal.size())];
}

engine::Action FirstBot::Choose(const engine::View&,
                                std::span<const engine::Action> legal) {
  HOARD_CHECK(!legal.empty(), "a bot was asked to choose from nothing");
  return legal[0];
}

const Sampler* SamplerFor(const engine::Game& game) {
  // Samplers are stateless: one per game, made on first use, shared.
  static const auto* const kSamplers = [] {
    auto* samplers = new absl::flat_hash_map<std::string, std::unique_ptr<Sampler>>;
    for (const auto& [id, bots] : Registry()) samplers->emplace(id, bots.sampler());
    return samplers;
  }();
  auto it = kSamplers->find(game.info().id);
  return it == kSamplers->end() ? nullptr : it->second.get();
}

std::vector<std::string> BuiltinBotNames(const engine::Game& game) {
  std::vector<std::string> names = {"first", "random"};
  if (const GameBots* bots = BotsFor(game); bots != nullptr) {
    if (bots->heuristic(0) != nullptr) names.push_back("heuristic");
    if (SamplerFor(game) != nullptr) names.push_back("mcts");
  }
  return names;
}

absl::StatusOr<std::unique_ptr<Bot>> MakeBot(absl::string_view name,
                                             const engine::Game& game,
                                             std::uint64_t seed) {
  if (name == "random") return std::make_unique<RandomBot>(seed);
  if (name == "first") return std::make_unique<FirstBot>();
  if (const GameBots* bots = BotsFor(game); bots != nullptr) {
    if (name == "heuristic") {
      if (std::unique_ptr<Bot> bot = bots->heuristic(seed); bot != nullptr) return bot;
    }
    if (std::optional<MctsOptions> options = ParseMcts(name); options.has_value()) {
      if (const Sampler* sampler = SamplerFor(game); sampler != nullptr) {
        // The heuristic plays the search's rollouts, from its own seed.
        return std::make_unique<MctsBot>(*sampler, *options, seed,
                                         bots->heuristic(seed ^ 0x9e3779b97f4a7c15ULL));
      }
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "unknown bot '", name, "' for ", game.info().id, " (built-in bots: ",
      absl::StrJoin(BuiltinBotNames(game), ", "),
      absl::StrContains(absl::StrJoin(BuiltinBotNames(game), ","), "mcts")
          ? "; mcts-N searches N iterations a decision, mcts-Nms N milliseconds)"
          : ")"));
}

}  // namespace hoard::bots
