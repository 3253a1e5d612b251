// Coin pile: everything the game brings, registered once. It has no wire
// codec, so it is played by built-in bots only.

#include "engine/registry.h"
#include "tests/games/coin_pile/coin_pile.h"
#include "tests/games/coin_pile/coin_pile_heuristic.h"

namespace hoard::engine::coin_pile {
namespace {

const GameRegistrar kRegistrar({
    .game = MakeGame(),
    .deal = MakeSampler(),
    .heuristic = &MakeHeuristicBot,
});

}  // namespace
}  // namespace hoard::engine::coin_pile
