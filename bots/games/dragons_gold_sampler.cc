#include "bots/games/dragons_gold.h"

namespace hoard::bots::dragons_gold {

std::unique_ptr<Sampler> MakeSampler() { return nullptr; }

}  // namespace hoard::bots::dragons_gold
