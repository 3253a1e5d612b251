// Coin pile's deal: the coins a seat has not seen (not in its hand, not on
// the pile) dealt at random into the other hands and the stack, each keeping
// its size.

#include <memory>
#include <span>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tests/games/coin_pile/coin_pile.h"

namespace hoard::engine::coin_pile {
namespace {

class CoinPileDeal final : public Sampler {
 public:
  absl::StatusOr<Seat> Observer(const View& view) const override {
    const auto* v = dynamic_cast<const CoinPileView*>(&view);
    if (v == nullptr) return absl::InvalidArgumentError("not a coin pile view");
    const int n = static_cast<int>(v->hand_sizes.size());
    if (v->observer < 0 || v->observer >= n) {
      return absl::InvalidArgumentError(
          absl::StrCat("observer ", v->observer, " is not one of the ", n, " seats"));
    }
    return v->observer;
  }

  absl::StatusOr<std::unique_ptr<State>> Sample(const View& view, Rng& rng) const override {
    absl::StatusOr<Seat> observer = Observer(view);
    if (!observer.ok()) return observer.status();
    const auto& v = static_cast<const CoinPileView&>(view);
    const int n = static_cast<int>(v.hand_sizes.size());
    if (static_cast<int>(v.scores.size()) != n || v.current < 0 || v.current >= n ||
        v.stack_size < 0) {
      return absl::InvalidArgumentError("the view's seats do not add up");
    }
    std::vector<int> unseen;
    for (int value = 1; value <= kValues; ++value) {
      const int left = kCoinsPerValue - v.own[value - 1] - v.pile[value - 1];
      if (left < 0 || v.own[value - 1] < 0 || v.pile[value - 1] < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("the view shows more than ", kCoinsPerValue, " coins of ", value));
      }
      unseen.insert(unseen.end(), left, value);
    }
    int hidden = v.stack_size;
    for (Seat s = 0; s < n; ++s) {
      if (s != *observer) hidden += v.hand_sizes[s];
    }
    if (hidden != static_cast<int>(unseen.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("the view leaves ", unseen.size(), " coins unseen but hides ", hidden));
    }
    rng.Shuffle(std::span<int>(unseen));
    Position p;
    p.hands.resize(n);
    p.hands[*observer] = v.own;
    for (Seat s = 0; s < n; ++s) {
      if (s == *observer) continue;
      for (int i = 0; i < v.hand_sizes[s]; ++i) {
        ++p.hands[s][unseen.back() - 1];
        unseen.pop_back();
      }
    }
    p.stack = std::move(unseen);
    p.pile = v.pile;
    p.top = v.top;
    p.scores = v.scores;
    p.current = v.current;
    return std::make_unique<CoinPileState>(std::move(p));
  }
};

}  // namespace

std::unique_ptr<Sampler> MakeSampler() { return std::make_unique<CoinPileDeal>(); }

}  // namespace hoard::engine::coin_pile
