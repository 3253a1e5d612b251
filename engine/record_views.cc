#include "engine/record_views.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "engine/codec.h"
#include "engine/registry.h"
#include "engine/status_macros.h"

namespace hoard::engine {

absl::StatusOr<hoard::v1::ReplayMatchResponse> ReplayViews(const MatchRecord& record,
                                                           Seat observer) {
  ASSIGN_OR_RETURN(const Game* game, FindGame(record.game));
  ASSIGN_OR_RETURN(const GameCodec* codec, FindCodec(record.game));
  if (record.ruleset_version != game->info().ruleset_version) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the record was played under ", record.game, " ruleset version ", record.ruleset_version,
        ", but this build has version ", game->info().ruleset_version));
  }
  const int seats = static_cast<int>(record.seats.size());
  if (observer != kSpectator && (observer < 0 || observer >= seats)) {
    return absl::InvalidArgumentError(
        absl::StrCat("seat ", observer, " is no seat of this ", seats, "-player match"));
  }
  absl::StatusOr<std::unique_ptr<State>> started =
      game->NewMatch({.num_players = seats, .seed = record.seed, .options = record.options});
  if (!started.ok()) {
    return absl::DataLossError(
        absl::StrCat("the record's match cannot be started: ", started.status().message()));
  }
  std::unique_ptr<State> state = *std::move(started);
  hoard::v1::ReplayMatchResponse replay;
  replay.set_game(record.game);
  replay.set_observer(observer);
  for (const std::string& seat : record.seats) replay.add_seats(seat);
  for (double score : record.scores) replay.add_scores(score);
  for (int rank : record.ranks) replay.add_ranks(rank);
  auto add_step = [&](int step, Seat seat, const std::string& text) {
    hoard::v1::ReplayStep* out = replay.add_steps();
    out->set_step(step);
    out->set_seat(seat);
    out->set_text(text);
    codec->ViewToProto(*state->ViewFor(observer), out->mutable_view());
  };
  add_step(0, kSpectator, "");
  for (std::size_t i = 0; i < record.actions.size(); ++i) {
    const RecordedAction& action = record.actions[i];
    if (absl::Status applied = state->Apply(action.seat, action.action); !applied.ok()) {
      return absl::DataLossError(
          absl::StrCat("the record's action ", i + 1, " does not replay: ", applied.message()));
    }
    add_step(static_cast<int>(i + 1), action.seat, action.text);
  }
  return replay;
}

}  // namespace hoard::engine
