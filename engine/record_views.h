#ifndef HOARD_ENGINE_RECORD_VIEWS_H_
#define HOARD_ENGINE_RECORD_VIEWS_H_

// A finished match step by step as one seat (or a spectator) saw it,
// replayed from its record: the replay viewer's and `hoard replay html`'s
// data. A record shows every hidden card, so this is given only where the
// record may be.

#include "absl/status/statusor.h"
#include "engine/game.h"
#include "engine/record.h"
#include "hoard/v1/arena.pb.h"

namespace hoard::engine {

// Step 0 is the deal; step i follows the record's i-th action. Each step
// holds what `observer` (a seat, or kSpectator) saw then, in the game's
// wire messages. kInvalidArgument for an observer that is no seat of the
// match; kFailedPrecondition for a record of another ruleset version;
// kNotFound for an unknown game; kDataLoss for a record that does not
// replay (an action its state refuses).
absl::StatusOr<hoard::v1::ReplayMatchResponse> ReplayViews(const MatchRecord& record,
                                                           Seat observer);

}  // namespace hoard::engine

#endif  // HOARD_ENGINE_RECORD_VIEWS_H_
