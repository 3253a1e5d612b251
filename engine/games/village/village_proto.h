#ifndef HOARD_ENGINE_GAMES_VILLAGE_VILLAGE_PROTO_H_
#define HOARD_ENGINE_GAMES_VILLAGE_VILLAGE_PROTO_H_

// Conversions between village's engine types and its wire messages
// (proto/hoard/v1/village.proto). MakeCodec() is its GameCodec.

#include <memory>

#include "absl/status/statusor.h"
#include "engine/codec.h"
#include "engine/games/village/village.h"
#include "hoard/v1/village.pb.h"

namespace hoard::engine::village {

void ToProto(const VillageView& view, hoard::v1::VillageView* out);
void ToProto(Action action, hoard::v1::VillageAction* out);
// kInvalidArgument naming the missing or bad field.
absl::StatusOr<Action> FromProto(const hoard::v1::VillageAction& action);

// The game's codec (engine/codec.h), for its registration (register.cc).
std::unique_ptr<GameCodec> MakeCodec();

}  // namespace hoard::engine::village

#endif  // HOARD_ENGINE_GAMES_VILLAGE_VILLAGE_PROTO_H_
