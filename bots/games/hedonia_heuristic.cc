#include "bots/games/hedonia.h"

namespace hoard::bots::hedonia {

std::unique_ptr<Bot> MakeHeuristicBot(std::uint64_t) { return nullptr; }

}  // namespace hoard::bots::hedonia
