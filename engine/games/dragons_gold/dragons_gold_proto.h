#ifndef HOARD_ENGINE_GAMES_DRAGONS_GOLD_DRAGONS_GOLD_PROTO_H_
#define HOARD_ENGINE_GAMES_DRAGONS_GOLD_DRAGONS_GOLD_PROTO_H_

// Conversions between Dragon's Gold's engine types and its wire messages
// (proto/hoard/v1/dragons_gold.proto). MakeCodec() is its GameCodec.
//
// A proposal's code names, for each token of the treasure, the contributor
// who gets it, but not the token's kind (see Move::assignment): only the
// negotiation under way tells which tokens they are. So ToProto writes a
// proposal in the wire's `assignment` form, and FromProto reads a proposal's
// `shares` by their place in the list, as one per contributor in seat
// order; the overload given the negotiation checks the shares against it.

#include <memory>

#include "absl/status/statusor.h"
#include "engine/codec.h"
#include "engine/games/dragons_gold/dragons_gold.h"
#include "hoard/v1/dragons_gold.pb.h"

namespace hoard::engine::dragons_gold {

void ToProto(const DragonsGoldView& view, hoard::v1::DragonsGoldView* out);
// Leaves `out` empty when `action` is no Dragon's Gold code.
void ToProto(Action action, hoard::v1::DragonsGoldAction* out);

// The action a typed action names, or kInvalidArgument naming the missing
// or bad field. A proposal's shares must list every contributor once, in
// seat order: a list whose seats do not increase is refused, but which
// seats took part, and what the treasure holds, is left to State::Apply
// (which reads the shares by their place in the list).
absl::StatusOr<Action> FromProto(const hoard::v1::DragonsGoldAction& action);

// As above, with a proposal checked against `negotiation` (a view's or the
// state's): its shares may come in any order and leave out contributors who
// get nothing, but each must name a contributor, once, and together they
// must hold exactly the treasure; an assignment must fit the treasure and
// the contributors. kInvalidArgument when no negotiation is under way.
absl::StatusOr<Action> FromProto(const hoard::v1::DragonsGoldAction& action,
                                 const Negotiation& negotiation);

// The game's codec (engine/codec.h), for its registration (register.cc).
std::unique_ptr<GameCodec> MakeCodec();

}  // namespace hoard::engine::dragons_gold

#endif  // HOARD_ENGINE_GAMES_DRAGONS_GOLD_DRAGONS_GOLD_PROTO_H_
