#include "engine/play_by_play.h"

#include <algorithm>
#include <utility>

namespace hoard::engine {

std::vector<ToldAction> PlayByPlay::Tell(const State& before, Seat seat, Action action,
                                         std::string text, bool by_default) {
  if (sealed_group_.empty()) {
    const Seats to_act = before.SeatsToAct();
    if (to_act.size() > 1) sealed_group_.assign(to_act.begin(), to_act.end());
  }
  ToldAction told{.step = ++steps_,
                  .seat = seat,
                  .action = action,
                  .text = std::move(text),
                  .by_default = by_default};
  auto in_group = std::find(sealed_group_.begin(), sealed_group_.end(), seat);
  if (in_group == sealed_group_.end()) return {std::move(told)};

  sealed_group_.erase(in_group);
  std::vector<ToldAction> now;
  now.push_back(
      {.step = told.step, .seat = seat, .text = kSealedAnswerText, .by_default = by_default});
  withheld_.push_back(std::move(told));
  if (sealed_group_.empty()) {
    for (ToldAction& revealed : withheld_) now.push_back(std::move(revealed));
    withheld_.clear();
  }
  return now;
}

}  // namespace hoard::engine
