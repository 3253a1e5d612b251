#ifndef HOARD_ENGINE_GAMES_DRAGONS_GOLD_DRAGONS_GOLD_HEURISTIC_H_
#define HOARD_ENGINE_GAMES_DRAGONS_GOLD_DRAGONS_GOLD_HEURISTIC_H_

// The game's rule-of-thumb bot: the built-in bot "heuristic", and the one
// that plays the search bot's rollouts. It decides from its seat's view.

#include <cstdint>
#include <memory>

#include "engine/bot.h"

namespace hoard::engine::dragons_gold {

// Values tokens by what they add to its own estimated score (majorities
// weighed against what the others may hold), slays what it can take alone,
// and builds its own proposals when it is to propose. Ties go to `seed`.
std::unique_ptr<Bot> MakeHeuristicBot(std::uint64_t seed);

// Deals the tokens and objects a seat has not seen among the bag, the
// object deck and the other screens and hands, the pile from the dragons
// not face up (the view does not say which were slain), and draws each
// sealed vote given among accept and reject.

}  // namespace hoard::engine::dragons_gold

#endif  // HOARD_ENGINE_GAMES_DRAGONS_GOLD_DRAGONS_GOLD_HEURISTIC_H_
