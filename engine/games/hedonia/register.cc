// Hedonia: everything the game brings, registered once.

#include "engine/games/hedonia/hedonia.h"
#include "engine/games/hedonia/hedonia_heuristic.h"
#include "engine/games/hedonia/hedonia_proto.h"
#include "engine/registry.h"

namespace hoard::engine::hedonia {
namespace {

const GameRegistrar kRegistrar({
    .game = MakeGame(),
    .deal = MakeSampler(),
    .codec = MakeCodec(),
    .heuristic = &MakeHeuristicBot,
});

}  // namespace
}  // namespace hoard::engine::hedonia
