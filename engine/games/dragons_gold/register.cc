// Dragon's Gold: everything the game brings, registered once.

#include "engine/games/dragons_gold/dragons_gold.h"
#include "engine/games/dragons_gold/dragons_gold_heuristic.h"
#include "engine/games/dragons_gold/dragons_gold_proto.h"
#include "engine/games/dragons_gold/dragons_gold_stats.h"
#include "engine/registry.h"

namespace hoard::engine::dragons_gold {
namespace {

const GameRegistrar kRegistrar({
    .game = MakeGame(),
    .deal = MakeSampler(),
    .codec = MakeCodec(),
    .heuristic = &MakeHeuristicBot,
    .statistics = MakeStatistics(),
});

}  // namespace
}  // namespace hoard::engine::dragons_gold
