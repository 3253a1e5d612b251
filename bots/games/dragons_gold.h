#ifndef HOARD_BOTS_GAMES_DRAGONS_GOLD_H_
#define HOARD_BOTS_GAMES_DRAGONS_GOLD_H_

// The built-in dragons_gold bots' game knowledge: a heuristic player and the
// sampler the search bot deals its hidden cards with.

#include <cstdint>
#include <memory>

#include "bots/bot.h"
#include "bots/sampler.h"

namespace hoard::bots::dragons_gold {

std::unique_ptr<Bot> MakeHeuristicBot(std::uint64_t seed);
std::unique_ptr<Sampler> MakeSampler();

}  // namespace hoard::bots::dragons_gold

#endif  // HOARD_BOTS_GAMES_DRAGONS_GOLD_H_
