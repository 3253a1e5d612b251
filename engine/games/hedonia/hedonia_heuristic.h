#ifndef HOARD_ENGINE_GAMES_HEDONIA_HEDONIA_HEURISTIC_H_
#define HOARD_ENGINE_GAMES_HEDONIA_HEDONIA_HEURISTIC_H_

// The game's rule-of-thumb bot: the built-in bot "heuristic", and the one
// that plays the search bot's rollouts. It decides from its seat's view.

#include <cstdint>
#include <memory>

#include "engine/bot.h"

namespace hoard::engine::hedonia {

std::unique_ptr<Bot> MakeHeuristicBot(std::uint64_t seed);

}  // namespace hoard::engine::hedonia

#endif  // HOARD_ENGINE_GAMES_HEDONIA_HEDONIA_HEURISTIC_H_
