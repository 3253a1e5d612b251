// What `hoard stats` counts in a village match (engine/match_stats.h).

#include <memory>

#include "absl/strings/str_cat.h"
#include "engine/games/village/village.h"
#include "engine/match_stats.h"

namespace hoard::engine::village {
namespace {

class VillageCounter final : public MatchCounter {
 public:
  void OnAction(const State& /*before*/, Seat /*seat*/, Action action,
                const State& /*after*/) override {
    const std::optional<Move> move = Move::Decode(action);
    if (!move.has_value()) return;
    switch (move->kind) {
      case Move::Kind::kDraw:
        ++counts_["actions: draw"];
        break;
      case Move::Kind::kBribe:
        ++counts_["actions: bribe"];
        counts_["cards bribed: treasures"] += move->cards[move->treasure];
        counts_["cards bribed: wilds"] += move->cards[kWild];
        break;
      case Move::Kind::kBuy:
        ++counts_[absl::StrCat("actions: buy from stall ", move->stall)];
        break;
    }
  }

  void OnEnd(const State& final_state, MatchCounts* counts) override {
    const auto& state = static_cast<const VillageState&>(final_state);
    *counts = std::move(counts_);
    (*counts)[absl::StrCat("ended: ", EndReasonText(state.position().end))] = 1;
    // The winner's points by the favor space their best bribe sits on.
    for (int treasure = 0; treasure < kNumTreasureTypes; ++treasure) {
      for (const Bribes& bribes : state.position().bribes) {
        if (bribes[treasure].size() > 0) {
          (*counts)[absl::StrCat("bribes standing: worth ", state.Value(treasure))] += 1;
        }
      }
    }
  }

 private:
  MatchCounts counts_;
};

}  // namespace

MatchStatistics MakeStatistics() {
  return MatchStatistics{
      .make_counter = [] { return std::unique_ptr<MatchCounter>(new VillageCounter); },
  };
}

}  // namespace hoard::engine::village
