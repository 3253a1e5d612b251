#include "bots/games/village.h"

namespace hoard::bots::village {

std::unique_ptr<Bot> MakeHeuristicBot(std::uint64_t) { return nullptr; }

}  // namespace hoard::bots::village
