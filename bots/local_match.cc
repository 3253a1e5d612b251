#include "bots/local_match.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/status_macros.h"

namespace hoard::bots {

absl::StatusOr<PlayedMatch> PlayLocalMatch(const engine::Game& game,
                                           const engine::MatchConfig& config,
                                           std::span<Bot* const> bots,
                                           std::vector<std::string> names,
                                           const std::function<void(const Step&)>& on_step) {
  if (static_cast<int>(bots.size()) != config.num_players || bots.size() != names.size()) {
    return absl::InvalidArgumentError(absl::StrCat(config.num_players, " players need ",
                                                   config.num_players, " bots, got ", bots.size()));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<engine::State> state, game.NewMatch(config));
  engine::MatchRecorder recorder(game.info(), config, names, *state);
  std::vector<engine::Action> legal;
  int number = 0;
  while (!state->IsOver()) {
    for (engine::Seat seat : state->SeatsToAct()) {
      state->LegalActions(seat, &legal);
      const engine::Action action = bots[seat]->ReadsView()
                                        ? bots[seat]->Choose(*state->ViewFor(seat), legal)
                                        : bots[seat]->Choose(engine::NoView(), legal);
      // Where the list holds only examples, the rules decide (Apply).
      const bool listed = std::find(legal.begin(), legal.end(), action) != legal.end();
      if (!listed && state->LegalActionsComplete(seat)) {
        return absl::InternalError(absl::StrCat(
            "bot '", names[seat], "' in seat ", seat,
            " chose an action outside its legal list: ", state->ActionToString(seat, action)));
      }
      std::string text = state->ActionToString(seat, action);
      if (absl::Status refused = state->Apply(seat, action); !refused.ok()) {
        return absl::InternalError(absl::StrCat("bot '", names[seat], "' in seat ", seat,
                                                " chose an illegal action: ", text, ": ",
                                                refused.message()));
      }
      recorder.Record(seat, action, text, *state);
      if (on_step) on_step(Step{++number, seat, std::move(text), state.get()});
    }
  }
  engine::MatchRecord record = recorder.Finish(*state);
  return PlayedMatch{std::move(record), std::move(state)};
}

}  // namespace hoard::bots
