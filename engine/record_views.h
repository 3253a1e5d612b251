#ifndef HOARD_ENGINE_RECORD_VIEWS_H_
#define HOARD_ENGINE_RECORD_VIEWS_H_

// A finished match step by step as one seat (or a spectator) saw it,
// replayed from its record: the replay viewer's and `hoard replay html`'s
// data. A record shows every hidden card, so this is given only where the
// record may be.

#include "absl/status/statusor.h"
#include "engine/game.h"
#include "engine/record.h"
#include "google/protobuf/struct.pb.h"
#include "hoard/v1/arena.pb.h"

namespace hoard::engine {

// How each step carries what the observer saw.
enum class ReplayForm {
  kViews,    // ReplayStep.view: the whole view, in the game's wire messages
  kChanges,  // ReplayStep.change: what changed since the step before
};

// Step 0 is the deal; step i follows the record's i-th action. Each step
// holds what `observer` (a seat, or kSpectator) saw then, in `form`, and
// what the table was told of the action (engine/play_by_play.h): a sealed
// answer is told as "answered (sealed)" until its decision is complete,
// and the step that completes it reveals them all. kInvalidArgument for an
// observer that is no seat of the match; kFailedPrecondition for a record
// of another ruleset version; kNotFound for an unknown game; kDataLoss for
// a record that does not replay (an action its state refuses).
absl::StatusOr<hoard::v1::ReplayMatchResponse> ReplayViews(const MatchRecord& record, Seat observer,
                                                           ReplayForm form = ReplayForm::kViews);

// A view in protobuf's JSON mapping as the web face prints it (proto field
// names, every field), held as a JSON value.
google::protobuf::Value ViewJson(const hoard::v1::View& view);

// The change that turns `before` into `after` (both JSON values of views;
// an empty object before the first), in the form ReplayStep.change
// describes; unset (no kind) when they are equal. ApplyViewChange(before,
// ViewChange(before, after)) equals `after`.
google::protobuf::Value ViewChange(const google::protobuf::Value& before,
                                   const google::protobuf::Value& after);

// `before` with `change` applied; an unset change leaves it as it is. The
// web app's replay viewer applies changes the same way (replayViews in
// service/web/app/app.js).
google::protobuf::Value ApplyViewChange(const google::protobuf::Value& before,
                                        const google::protobuf::Value& change);

}  // namespace hoard::engine

#endif  // HOARD_ENGINE_RECORD_VIEWS_H_
