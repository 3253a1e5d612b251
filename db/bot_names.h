#ifndef HOARD_DB_BOT_NAMES_H_
#define HOARD_DB_BOT_NAMES_H_

// How both stores split bot names into the bots table's two columns.

#include <optional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "engine/player_id.h"

namespace hoard::db {

// "name" or "name@version" as (name, version); version empty for none.
inline std::pair<std::string, std::string> SplitBotName(const std::string& bot) {
  const std::size_t at = bot.find('@');
  return {bot.substr(0, at), at == std::string::npos ? std::string() : bot.substr(at + 1)};
}

// A seat's bot, split into name and version; nullopt for a seat no bot
// held (an open one).
inline std::optional<std::pair<std::string, std::string>> SeatBot(const std::string& player) {
  absl::StatusOr<engine::PlayerId> id = engine::PlayerId::Parse(player);
  if (!id.ok()) return std::nullopt;
  return std::make_pair(std::string(id->base_name()), std::string(id->version()));
}

}  // namespace hoard::db

#endif  // HOARD_DB_BOT_NAMES_H_
