#include "engine/registry.h"

#include <map>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/check.h"

namespace hoard::engine {
namespace {

// Function-local so registrars in other translation units may run first.
std::map<std::string, GameParts, std::less<>>& Games() {
  static auto* games = new std::map<std::string, GameParts, std::less<>>;
  return *games;
}

const GameParts* PartsOf(absl::string_view id) {
  auto it = Games().find(id);
  return it == Games().end() ? nullptr : &it->second;
}

}  // namespace

absl::StatusOr<const Game*> FindGame(absl::string_view id) {
  if (const GameParts* parts = PartsOf(id); parts != nullptr) return parts->game.get();
  std::vector<std::string> known;
  for (const auto& [name, parts] : Games()) known.push_back(name);
  return absl::NotFoundError(
      absl::StrCat("unknown game '", id, "' (known: ", absl::StrJoin(known, ", "), ")"));
}

std::vector<const Game*> AllGames() {
  std::vector<const Game*> games;
  for (const auto& [id, parts] : Games()) games.push_back(parts.game.get());
  return games;
}

const Sampler* DealFor(const Game& game) {
  const GameParts* parts = PartsOf(game.info().id);
  return parts == nullptr ? nullptr : parts->deal.get();
}

absl::StatusOr<const GameCodec*> FindCodec(absl::string_view id) {
  const GameParts* parts = PartsOf(id);
  if (parts == nullptr || parts->codec == nullptr) {
    return absl::NotFoundError(absl::StrCat("no wire codec for game '", id, "'"));
  }
  return parts->codec.get();
}

bool HasHeuristic(const Game& game) {
  const GameParts* parts = PartsOf(game.info().id);
  return parts != nullptr && parts->heuristic != nullptr;
}

std::unique_ptr<Bot> MakeHeuristic(const Game& game, std::uint64_t seed) {
  const GameParts* parts = PartsOf(game.info().id);
  if (parts == nullptr || parts->heuristic == nullptr) return nullptr;
  return parts->heuristic(seed);
}

const MatchStatistics& StatisticsFor(const Game& game) {
  static const MatchStatistics* const kNone = new MatchStatistics;
  const GameParts* parts = PartsOf(game.info().id);
  return parts == nullptr ? *kNone : parts->statistics;
}

GameRegistrar::GameRegistrar(GameParts parts) {
  HOARD_CHECK(parts.game != nullptr, "a game is registered without its rules");
  HOARD_CHECK(parts.deal != nullptr, "a game is registered without its deal");
  std::string id = parts.game->info().id;
  const bool inserted = Games().emplace(std::move(id), std::move(parts)).second;
  HOARD_CHECK(inserted, "a game id is registered twice");
}

}  // namespace hoard::engine
