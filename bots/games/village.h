#ifndef HOARD_BOTS_GAMES_VILLAGE_H_
#define HOARD_BOTS_GAMES_VILLAGE_H_

// The built-in village bots' game knowledge: a heuristic player and the
// sampler the search bot deals its hidden cards with.

#include <cstdint>
#include <memory>

#include "bots/bot.h"
#include "bots/sampler.h"

namespace hoard::bots::village {

std::unique_ptr<Bot> MakeHeuristicBot(std::uint64_t seed);
std::unique_ptr<Sampler> MakeSampler();

}  // namespace hoard::bots::village

#endif  // HOARD_BOTS_GAMES_VILLAGE_H_
