#ifndef HOARD_BOTS_GAMES_HEDONIA_H_
#define HOARD_BOTS_GAMES_HEDONIA_H_

// The built-in hedonia bots' game knowledge: a heuristic player and the
// sampler the search bot deals its hidden cards with.

#include <cstdint>
#include <memory>

#include "bots/bot.h"
#include "bots/sampler.h"

namespace hoard::bots::hedonia {

std::unique_ptr<Bot> MakeHeuristicBot(std::uint64_t seed);
std::unique_ptr<Sampler> MakeSampler();

}  // namespace hoard::bots::hedonia

#endif  // HOARD_BOTS_GAMES_HEDONIA_H_
