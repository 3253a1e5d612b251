#ifndef HOARD_BOTS_BOT_H_
#define HOARD_BOTS_BOT_H_

// Built-in bots: players that run inside Hoard without the network.
//
// A bot decides from exactly what its seat may see (engine/bot.h). Every game
// has "first" and "random"; a game's registration (engine/registry.h) brings
// its "heuristic" and the deal that the search bot "mcts" looks ahead with.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/bot.h"
#include "engine/game.h"

namespace hoard::bots {

// The player contract, under the name this layer has always used.
using engine::Bot;

// Picks uniformly among the legal actions, from its own seeded generator.
class RandomBot final : public Bot {
 public:
  explicit RandomBot(std::uint64_t seed) : rng_(seed) {}
  engine::Action Choose(const engine::View& view, std::span<const engine::Action> legal) override;
  bool ReadsView() const override { return false; }
  bool Instant() const override { return true; }

 private:
  engine::Rng rng_;
};

// Always plays the first legal action (a game's default action): a fixed
// baseline that any bot should beat.
class FirstBot final : public Bot {
 public:
  engine::Action Choose(const engine::View& view, std::span<const engine::Action> legal) override;
  bool ReadsView() const override { return false; }
  bool Instant() const override { return true; }
  bool PlaysDefault() const override { return true; }
};

// The built-in bots of `game`: "first", "random", and for a registered game
// "heuristic" (its own rules of thumb, engine/games/<id>/, where it has one)
// and "mcts" (the search bot of bots/mcts.h with its default budget).
std::vector<std::string> BuiltinBotNames(const engine::Game& game);

// The iterations "mcts" searches per decision.
inline constexpr int kDefaultMctsIterations = 1000;

// A built-in bot by name, seeded; kNotFound names the bots that exist.
// Besides BuiltinBotNames(game), "mcts-N" searches N iterations per decision
// (1 to 1000000; reproducible from the seed) and "mcts-Nms" N milliseconds
// (1 to 600000; not reproducible).
absl::StatusOr<std::unique_ptr<Bot>> MakeBot(absl::string_view name, const engine::Game& game,
                                             std::uint64_t seed);

}  // namespace hoard::bots

#endif  // HOARD_BOTS_BOT_H_
