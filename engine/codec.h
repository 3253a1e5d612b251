#ifndef HOARD_ENGINE_CODEC_H_
#define HOARD_ENGINE_CODEC_H_

// A game's mapping to its wire messages (proto/hoard/v1/<game>.proto).
//
// The rules never see protobuf: each game's codec sits beside it in a
// separate target (engine/games/<id>/<id>_proto.cc) and is registered with
// the game (engine/registry.h; FindCodec finds it there).

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/game.h"

namespace hoard::v1 {
class Action;
class View;
}  // namespace hoard::v1

namespace hoard::engine {

class GameCodec {
 public:
  virtual ~GameCodec() = default;
  // Fills the game's branch of `out` from a view of this game.
  virtual void ViewToProto(const View& view, hoard::v1::View* out) const = 0;
  virtual void ActionToProto(Action action, hoard::v1::Action* out) const = 0;
  // The engine action a typed action names. kInvalidArgument when it is of
  // another game, or a field is missing or out of range (the message names
  // it). The action may still be illegal: State::Apply decides that.
  virtual absl::StatusOr<Action> ActionFromProto(const hoard::v1::Action& action) const = 0;
  // The same, for a typed action answering a decision in `state`: a game
  // whose action codes depend on the position (a Dragon's Gold division
  // names tokens of the treasure under negotiation) checks the action
  // against it here. By default, as ActionFromProto.
  virtual absl::StatusOr<Action> ActionFromProtoIn(const hoard::v1::Action& action,
                                                   const State& state) const {
    (void)state;
    return ActionFromProto(action);
  }
};

// OK when `action` is of game `id` (its oneof branch named `id` is set);
// otherwise kInvalidArgument saying which branch to set, or which game the
// action is for. The first step of every ActionFromProto.
absl::Status CheckActionGame(const hoard::v1::Action& action, absl::string_view id);

}  // namespace hoard::engine

#endif  // HOARD_ENGINE_CODEC_H_
