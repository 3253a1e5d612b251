#ifndef HOARD_ENGINE_REGISTRY_H_
#define HOARD_ENGINE_REGISTRY_H_

// The games Hoard knows, by id, and everything each brings.
//
// A game lives in one folder, engine/games/<id>/, and registers itself once,
// from its register.cc, with every part it has:
//   namespace { const hoard::engine::GameRegistrar kRegistrar({
//       .game = MakeGame(), .deal = MakeSampler(), .codec = MakeCodec(),
//       .heuristic = &MakeHeuristicBot}); }
// hoard_add_game() in engine/CMakeLists.txt links every registration in, so
// one line of engine/games/CMakeLists.txt adds a game (docs/engine.md,
// "Adding a game").

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/bot.h"
#include "engine/codec.h"
#include "engine/game.h"
#include "engine/match_stats.h"
#include "engine/sampler.h"

namespace hoard::engine {

// One game's parts.
struct GameParts {
  // The rules. Required.
  std::unique_ptr<Game> game;
  // Its one deal: a whole match from a seat's view (engine/sampler.h). The
  // conformance suite checks the game's views with it and the search bot
  // looks ahead with it. Required.
  std::unique_ptr<Sampler> deal;
  // Its wire messages (engine/codec.h). A game without one is not offered
  // over gRPC (it can still be played by built-in bots, as in tests).
  std::unique_ptr<GameCodec> codec;
  // Its rule-of-thumb bot, seeded; the built-in bot "heuristic", and the
  // search bot's rollouts. Optional.
  std::unique_ptr<Bot> (*heuristic)(std::uint64_t seed) = nullptr;
  // What `hoard stats` counts in its matches besides what every game has
  // (engine/match_stats.h). Optional.
  MatchStatistics statistics;
};

// The game with this id, or kNotFound naming the ids that exist.
absl::StatusOr<const Game*> FindGame(absl::string_view id);

// Every registered game, ordered by id.
std::vector<const Game*> AllGames();

// The deal of a registered game (never null for a registered game); nullptr
// for a game that is not registered.
const Sampler* DealFor(const Game& game);

// The codec of game `id`, or kNotFound when the game is unknown or has none.
absl::StatusOr<const GameCodec*> FindCodec(absl::string_view id);

// Whether `game` is registered with a heuristic bot.
bool HasHeuristic(const Game& game);

// A new heuristic bot of `game`, or nullptr when it has none.
std::unique_ptr<Bot> MakeHeuristic(const Game& game, std::uint64_t seed);

// The statistics `game` registered (no counter when it has none).
const MatchStatistics& StatisticsFor(const Game& game);

class GameRegistrar {
 public:
  // REQUIRES: parts.game and parts.deal are set, and no game with the same
  // id is registered yet.
  explicit GameRegistrar(GameParts parts);
};

}  // namespace hoard::engine

#endif  // HOARD_ENGINE_REGISTRY_H_
