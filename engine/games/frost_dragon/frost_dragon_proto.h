#ifndef HOARD_ENGINE_GAMES_FROST_DRAGON_FROST_DRAGON_PROTO_H_
#define HOARD_ENGINE_GAMES_FROST_DRAGON_FROST_DRAGON_PROTO_H_

// Conversions between Frost Dragon's Treasure's engine types and its wire
// messages (proto/hoard/v1/frost_dragon.proto). MakeCodec() is its GameCodec.

#include <memory>

#include "absl/status/statusor.h"
#include "engine/codec.h"
#include "engine/games/frost_dragon/frost_dragon.h"
#include "hoard/v1/frost_dragon.pb.h"

namespace hoard::engine::frost_dragon {

void ToProto(const FrostDragonView& view, hoard::v1::FrostDragonView* out);
// Leaves `out` empty when `action` is no Frost Dragon's Treasure code.
void ToProto(Action action, hoard::v1::FrostDragonAction* out);
// The action a typed action names, or kInvalidArgument naming the missing
// or bad field. Whether it is legal now is left to State::Apply.
absl::StatusOr<Action> FromProto(const hoard::v1::FrostDragonAction& action);

// The game's codec (engine/codec.h), for its registration (register.cc).
std::unique_ptr<GameCodec> MakeCodec();

}  // namespace hoard::engine::frost_dragon

#endif  // HOARD_ENGINE_GAMES_FROST_DRAGON_FROST_DRAGON_PROTO_H_
