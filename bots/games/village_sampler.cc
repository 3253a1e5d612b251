#include "bots/games/village.h"

namespace hoard::bots::village {

std::unique_ptr<Sampler> MakeSampler() { return nullptr; }

}  // namespace hoard::bots::village
