#include "bots/games/dragons_gold.h"

namespace hoard::bots::dragons_gold {

std::unique_ptr<Bot> MakeHeuristicBot(std::uint64_t) { return nullptr; }

}  // namespace hoard::bots::dragons_gold
