#include "engine/registry.h"

#include <map>
#include <string>
#include <utility>

#include "engine/check.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hoard::engine {
namespace {

// Function-local so registrars in other translation units may run first.
std::map<std::string, std::unique_ptr<Game>>& Games() {
  static auto* games = new std::map<std::string, std::unique_ptr<Game>>;
  return *games;
}

}  // namespace

absl::StatusOr<const Game*> FindGame(absl::string_view id) {
  auto it = Games().find(std::string(id));
  if (it != Games().end()) return it->second.get();
  std::vector<std::string> known;
  for (const auto& [name, game] : Games()) known.push_back(name);
  return absl::NotFoundError(absl::StrCat("unknown game '", id, "' (known: ",
                                          absl::StrJoin(known, ", "), ")"));
}

std::vector<const Game*> AllGames() {
  std::vector<const Game*> games;
  for (const auto& [id, game] : Games()) games.push_back(game.get());
  return games;
}

GameRegistrar::GameRegistrar(std::unique_ptr<Game> game) {
  std::string id = game->info().id;
  const bool inserted = Games().emplace(id, std::move(game)).second;
  HOARD_CHECK(inserted, "a game id is registered twice");
}

}  // namespace hoard::engine
