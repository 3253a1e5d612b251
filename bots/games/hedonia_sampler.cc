#include "bots/games/hedonia.h"

namespace hoard::bots::hedonia {

std::unique_ptr<Sampler> MakeSampler() { return nullptr; }

}  // namespace hoard::bots::hedonia
