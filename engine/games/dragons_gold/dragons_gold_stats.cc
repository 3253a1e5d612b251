#include "engine/games/dragons_gold/dragons_gold_stats.h"

#include <memory>
#include <numeric>
#include <optional>
#include <variant>

#include "engine/games/dragons_gold/dragons_gold.h"

namespace hoard::engine::dragons_gold {
namespace {

int Total(const TokenCounts& counts) { return std::accumulate(counts.begin(), counts.end(), 0); }

class Counter final : public MatchCounter {
 public:
  void OnAction(const State& before, Seat /*seat*/, Action action, const State& after) override {
    const auto& b = static_cast<const DragonsGoldState&>(before).position();
    const auto& a = static_cast<const DragonsGoldState&>(after).position();
    if (!drawing_ended_ && (a.bag.empty() || a.pile.empty())) {
      drawing_ended_ = a.bag.empty() && a.pile.empty() ? "drawing ended: bag and pile at once"
                       : a.bag.empty()                 ? "drawing ended: bag"
                                                       : "drawing ended: pile";
    }
    const std::optional<Move> move = Move::Decode(action);
    if (!move) return;
    if (b.phase == Phase::kMarketOffer) {
      if (move->kind == Move::Kind::kMarketOffer) ++offers_;
      if (move->kind == Move::Kind::kMarketPass) ++passes_;
    }
    if (b.phase == Phase::kMarketReply && move->kind == Move::Kind::kMarketAccept) {
      ++accepted_;
      traded_ += Total(b.offer.give) + Total(b.offer.get);
    }
  }

  void OnEnd(const State& final_state, MatchCounts* counts) override {
    const auto& state = static_cast<const DragonsGoldState&>(final_state);
    const Position& p = state.position();
    MatchCounts& c = *counts;
    c[drawing_ended_.value_or(p.end == EndReason::kTurnCap ? "drawing ended: never (turn cap)"
                                                           : "drawing ended: never (stalemate)")] +=
        1;
    switch (p.end) {
      case EndReason::kTableCleared:
        c["ended: table cleared"] += 1;
        break;
      case EndReason::kStalemate:
        c["ended: stalemate"] += 1;
        break;
      case EndReason::kTurnCap:
        c["ended: turn cap"] += 1;
        break;
      case EndReason::kNotOver:
        break;
    }
    c["stalemate: attackers called back"] += p.stalemate_retreats;
    c["dragons: left in the pile"] += static_cast<double>(p.pile.size());
    c["dragons: tokens left in the bag"] += static_cast<double>(p.bag.size());
    for (const RecordEntry& entry : state.record()) {
      if (const auto* slaying = std::get_if<Slaying>(&entry)) {
        c["dragons: slain"] += 1;
        c[slaying->shares.size() == 1 ? "dragons: slain alone" : "dragons: slain together"] += 1;
        if (slaying->outcome == Slaying::Outcome::kLost) c["dragons: treasure lost"] += 1;
      } else if (const auto* theft = std::get_if<Theft>(&entry)) {
        switch (theft->how) {
          case TheftKind::kRandom:
            c[theft->named >= 0 ? "steals: chosen, kind not there (random)" : "steals: random"] +=
                1;
            break;
          case TheftKind::kChosen:
            c["steals: chosen, kind there"] += 1;
            break;
          case TheftKind::kDecoyPurse:
            c["steals: Decoy Purse"] += 1;
            break;
          case TheftKind::kInvisibleHand:
            c["steals: Invisible Hand"] += 1;
            break;
        }
      }
    }
    c["market: offers made"] += offers_;
    c["market: offers accepted"] += accepted_;
    c["market: passes"] += passes_;
    c["market: tokens traded"] += traded_;
  }

 private:
  std::optional<const char*> drawing_ended_;
  int offers_ = 0;
  int accepted_ = 0;
  int passes_ = 0;
  int traded_ = 0;
};

}  // namespace

MatchStatistics MakeStatistics() {
  return {.make_counter = [] { return std::unique_ptr<MatchCounter>(std::make_unique<Counter>()); },
          .ratios = {{.name = "market: accepted per offer",
                      .numerator = "market: offers accepted",
                      .denominator = "market: offers made"}}};
}

}  // namespace hoard::engine::dragons_gold
