// Please Don't Burn My Village!: everything the game brings, registered once.

#include "engine/games/village/village.h"
#include "engine/games/village/village_heuristic.h"
#include "engine/games/village/village_proto.h"
#include "engine/registry.h"

namespace hoard::engine::village {
namespace {

const GameRegistrar kRegistrar({
    .game = MakeGame(),
    .deal = MakeSampler(),
    .codec = MakeCodec(),
    .heuristic = &MakeHeuristicBot,
    .statistics = MakeStatistics(),
});

}  // namespace
}  // namespace hoard::engine::village
