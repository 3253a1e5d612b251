#ifndef HOARD_ENGINE_REGISTRY_H_
#define HOARD_ENGINE_REGISTRY_H_

// The games Hoard knows, by id.
//
// Each game registers itself from its own .cc:
//   namespace { const hoard::engine::GameRegistrar kRegistrar(
//       std::make_unique<MyGame>()); }
// The game targets are OBJECT libraries, so every registrar is linked in.

#include <memory>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game.h"

namespace hoard::engine {

// The game with this id, or kNotFound naming the ids that exist.
absl::StatusOr<const Game*> FindGame(absl::string_view id);

// Every registered game, ordered by id.
std::vector<const Game*> AllGames();

class GameRegistrar {
 public:
  // REQUIRES: no game with the same id is registered yet.
  explicit GameRegistrar(std::unique_ptr<Game> game);
};

}  // namespace hoard::engine

#endif  // HOARD_ENGINE_REGISTRY_H_
