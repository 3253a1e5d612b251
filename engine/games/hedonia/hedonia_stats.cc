#include "engine/games/hedonia/hedonia_stats.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/check.h"
#include "engine/games/hedonia/hedonia.h"

namespace hoard::engine::hedonia {
namespace {

// The cards in one place, each tagged with the kind that brought it there,
// by kind; the last to arrive is at the back.
using Brought = std::array<std::vector<std::int8_t>, kNumAssetKinds>;

class HedoniaCounter final : public MatchCounter {
 public:
  void OnAction(const State& before, Seat /*seat*/, Action /*action*/,
                const State& after) override {
    const auto& then = dynamic_cast<const HedoniaState&>(before);
    const auto& now = dynamic_cast<const HedoniaState&>(after);
    if (now.reveals().size() == then.reveals().size()) return;
    Record(now.rules(), now.num_players(), now.reveals().back());
  }

  void OnEnd(const State& final_state, MatchCounts* counts) override {
    const auto& state = dynamic_cast<const HedoniaState&>(final_state);
    const int n = state.num_players();
    const Reckoning r = state.Reckon();
    std::array<double, kNumAssetKinds> points{};
    for (const PowerEvent& event : r.events) {
      if (event.card >= 0) {
        if (event.from != kKingsTreasury) Take(event.from, event.card);
        if (event.to >= 0) {
          treasuries_[event.to][event.card].push_back(static_cast<std::int8_t>(event.power));
        }
        ++counts_[absl::StrCat("power acted: ", AssetName(event.power))];
      } else {
        // The cards that scored share their points, each for its bringer.
        const std::vector<std::int8_t>& cards = treasuries_[event.seat][event.power];
        HOARD_CHECK(!cards.empty(), "only cards in a treasury score");
        for (std::int8_t bringer : cards)
          points[bringer] += static_cast<double>(event.points) / cards.size();
      }
    }
    for (Seat s = 0; s < n; ++s) {
      for (int kind = 0; kind < kNumAssetKinds; ++kind) {
        HOARD_CHECK(static_cast<int>(treasuries_[s][kind].size()) == r.treasuries[s][kind],
                    "the counter follows every card into its treasury");
        for (std::int8_t bringer : treasuries_[s][kind]) points[bringer] += kAssetValues[kind];
      }
    }
    for (int kind = 0; kind < kNumAssetKinds; ++kind) {
      counts_[absl::StrCat("points: ", AssetName(kind))] += points[kind];
      // Every kind's claims are listed, so every ratio has its numbers.
      counts_[absl::StrCat("claims: ", AssetName(kind))] += 0;
    }
    // First places the tie-break decided: the best score held by several.
    int best = r.score_halves[0], at_best = 0;
    for (Seat s = 0; s < n; ++s) best = std::max(best, r.score_halves[s]);
    for (Seat s = 0; s < n; ++s) at_best += r.score_halves[s] == best;
    if (at_best > 1) {
      int firsts = 0;
      for (int rank : state.Ranks()) firsts += rank == 1;
      ++counts_[firsts == 1 ? "first place: equal scores, tie broken"
                            : "first place: equal scores, shared"];
    }
    for (const auto& [name, count] : counts_) (*counts)[name] += count;
  }

 private:
  // One round's reveal: where each card went, then the snatches.
  void Record(const Rules& rules, int n, const PastReveal& reveal) {
    ++counts_["rounds: played"];
    if (reveal.direction != kClockwise) ++counts_["rounds: counterclockwise"];
    std::array<Seat, kMaxPlayers> owner{};
    for (int gap = 0; gap < n; ++gap) {
      owner[gap] = -1;
      const int card = reveal.cards[gap];
      if (card < 0) continue;
      const Seat right_of_gap = SeatAt(gap, 1, kClockwise, n);
      const bool from_left = reveal.claims[gap] == Side::kLeft;
      const bool from_right = reveal.claims[right_of_gap] == Side::kRight;
      const std::string name(AssetName(card));
      if (card == kMisdirection) ++counts_["Misdirections: offered"];
      if (from_left && from_right) {
        ++counts_["shared: " + name];
      } else if (from_left || from_right) {
        owner[gap] = from_left ? gap : right_of_gap;
        treasuries_[owner[gap]][card].push_back(static_cast<std::int8_t>(card));
        ++counts_["claims: " + name];
        if (card == kMisdirection) ++counts_["Misdirections: played"];
      } else {
        ++counts_["to the King: " + name];
      }
    }
    // The snatches, in the order the cards were offered.
    const int offer_direction = OfferDirection(rules.offers, reveal.direction);
    for (int i = 0; i < n; ++i) {
      const int gap = OfferGap(SeatAt(reveal.active, i, reveal.direction, n), offer_direction, n);
      const int snatched = reveal.snatched[gap];
      if (snatched < 0) continue;
      const Seat victim = owner[gap] == gap ? SeatAt(gap, 1, kClockwise, n) : gap;
      Take(victim, snatched);
      treasuries_[owner[gap]][snatched].push_back(kRedSnatcher);
      ++counts_["power acted: Red Snatcher"];
    }
  }

  // Takes the card of `kind` that arrived last from seat `s`'s treasury.
  void Take(Seat s, int kind) {
    HOARD_CHECK(!treasuries_[s][kind].empty(), "a power takes only a card that is there");
    treasuries_[s][kind].pop_back();
  }

  std::array<Brought, kMaxPlayers> treasuries_{};
  MatchCounts counts_;
};

}  // namespace

MatchStatistics MakeStatistics() {
  MatchStatistics statistics;
  statistics.make_counter = [] { return std::unique_ptr<MatchCounter>(new HedoniaCounter()); };
  for (int kind = 0; kind < kNumAssetKinds; ++kind) {
    const std::string name(AssetName(kind));
    statistics.ratios.push_back({.name = "points per claimed card: " + name,
                                 .numerator = "points: " + name,
                                 .denominator = "claims: " + name});
  }
  return statistics;
}

}  // namespace hoard::engine::hedonia
