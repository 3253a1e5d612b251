// Hedonia: everything the game brings, registered once.

#include "engine/games/hedonia/hedonia.h"
#include "engine/games/hedonia/hedonia_heuristic.h"
#include "engine/games/hedonia/hedonia_proto.h"
#include "engine/games/hedonia/hedonia_stats.h"
#include "engine/registry.h"

namespace hoard::engine::hedonia {
namespace {

const GameRegistrar kRegistrar({
    .game = MakeGame(),
    .deal = MakeSampler(),
    .codec = MakeCodec(),
    .heuristic = &MakeHeuristicBot,
    .statistics = MakeStatistics(),
});

}  // namespace
}  // namespace hoard::engine::hedonia
