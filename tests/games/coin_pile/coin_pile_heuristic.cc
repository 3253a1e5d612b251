#include "tests/games/coin_pile/coin_pile_heuristic.h"

#include "tests/games/coin_pile/coin_pile.h"

namespace hoard::engine::coin_pile {
namespace {

class CoinPileHeuristic final : public Bot {
 public:
  Action Choose(const View& view, std::span<const Action> legal) override {
    const auto* v = dynamic_cast<const CoinPileView*>(&view);
    if (v == nullptr) return legal[0];
    for (Action action : legal) {  // listed from the smallest coin up
      if (static_cast<int>(action.code()) > v->top) return action;
    }
    return legal[0];
  }
};

}  // namespace

std::unique_ptr<Bot> MakeHeuristicBot(std::uint64_t) {
  return std::make_unique<CoinPileHeuristic>();
}

}  // namespace hoard::engine::coin_pile
