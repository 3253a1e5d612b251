#ifndef HOARD_BOTS_GAMES_DRAGONS_GOLD_H_
#define HOARD_BOTS_GAMES_DRAGONS_GOLD_H_

// The built-in dragons_gold bots' game knowledge: a heuristic player and the
// sampler the search bot deals its hidden cards with.

#include <cstdint>
#include <memory>

#include "bots/bot.h"
#include "bots/sampler.h"

namespace hoard::bots::dragons_gold {

// Values tokens by what they add to its own estimated score (majorities
// weighed against what the others may hold), slays what it can take alone,
// and builds its own proposals when it is to propose. Ties go to `seed`.
std::unique_ptr<Bot> MakeHeuristicBot(std::uint64_t seed);

// Deals the tokens and objects a seat has not seen among the bag, the
// object deck and the other screens and hands, the pile from the dragons
// not face up (the view does not say which were slain), and draws each
// sealed vote given among accept and reject.
std::unique_ptr<Sampler> MakeSampler();

}  // namespace hoard::bots::dragons_gold

#endif  // HOARD_BOTS_GAMES_DRAGONS_GOLD_H_
