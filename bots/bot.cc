#include "bots/bot.h"

#include "engine/check.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hoard::bots {

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

std::vector<std::string> BuiltinBotNames(const engine::Game&) {
  return {"first", "random"};
}

absl::StatusOr<std::unique_ptr<Bot>> MakeBot(absl::string_view name,
                                             const engine::Game& game,
                                             std::uint64_t seed) {
  if (name == "random") return std::make_unique<RandomBot>(seed);
  if (name == "first") return std::make_unique<FirstBot>();
  return absl::NotFoundError(
      absl::StrCat("unknown bot '", name, "' for ", game.info().id,
                   " (built-in bots: ",
                   absl::StrJoin(BuiltinBotNames(game), ", "), ")"));
}

}  // namespace hoard::bots
