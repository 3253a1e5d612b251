#include "bots/games/frost_dragon.h"

namespace hoard::bots::frost_dragon {

std::unique_ptr<Bot> MakeHeuristicBot(std::uint64_t) { return nullptr; }

}  // namespace hoard::bots::frost_dragon
