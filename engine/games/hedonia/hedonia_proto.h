#ifndef HOARD_ENGINE_GAMES_HEDONIA_HEDONIA_PROTO_H_
#define HOARD_ENGINE_GAMES_HEDONIA_HEDONIA_PROTO_H_

// Conversions between Hedonia's engine types and its wire messages
// (proto/hoard/v1/hedonia.proto). MakeCodec() is its GameCodec.

#include <memory>

#include "absl/status/statusor.h"
#include "engine/codec.h"
#include "engine/games/hedonia/hedonia.h"
#include "hoard/v1/hedonia.pb.h"

namespace hoard::engine::hedonia {

void ToProto(const HedoniaView& view, hoard::v1::HedoniaView* out);
// Leaves `out` empty when `action` is no Hedonia code.
void ToProto(Action action, hoard::v1::HedoniaAction* out);
// The action a typed action names, or kInvalidArgument naming the missing
// or bad field. Whether it is legal now is left to State::Apply.
absl::StatusOr<Action> FromProto(const hoard::v1::HedoniaAction& action);

// The game's codec (engine/codec.h), for its registration (register.cc).
std::unique_ptr<GameCodec> MakeCodec();

}  // namespace hoard::engine::hedonia

#endif  // HOARD_ENGINE_GAMES_HEDONIA_HEDONIA_PROTO_H_
