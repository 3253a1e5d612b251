#include "bots/games/frost_dragon.h"

namespace hoard::bots::frost_dragon {

std::unique_ptr<Sampler> MakeSampler() { return nullptr; }

}  // namespace hoard::bots::frost_dragon
