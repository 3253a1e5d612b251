// Frost Dragon's Treasure: everything the game brings, registered once.

#include "engine/games/frost_dragon/frost_dragon.h"
#include "engine/games/frost_dragon/frost_dragon_heuristic.h"
#include "engine/games/frost_dragon/frost_dragon_proto.h"
#include "engine/games/frost_dragon/frost_dragon_stats.h"
#include "engine/registry.h"

namespace hoard::engine::frost_dragon {
namespace {

const GameRegistrar kRegistrar({
    .game = MakeGame(),
    .deal = MakeSampler(),
    .codec = MakeCodec(),
    .heuristic = &MakeHeuristicBot,
    .statistics = MakeStatistics(),
});

}  // namespace
}  // namespace hoard::engine::frost_dragon
