// The village heuristic: looks one action ahead and judges the table it
// leaves by a projected final score, its own against the others'.
//
// The projection counts every bribe card at its type's value now, and every
// card in hand at what it will likely be worth at the end: a treasure of a
// type the seat has bribed merges into that bribe, so it scores; any other
// treasure and every wild costs, unless there is time left to bribe it. How
// much time is left is read from the deck. Other hands are unseen, so an
// opponent's hand counts as its size times the mix of cards the seat has
// not seen. Because the projection prices every token move for everyone,
// the bot bribes what is rising for itself, curses what the others hold and
// stops carrying cards it cannot place as the deck runs down.

#include "engine/games/village/village_heuristic.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "engine/games/village/village.h"
#include "engine/rng.h"

namespace hoard::engine::village {
namespace {

using engine::Action;
using engine::Seat;
using engine::village::Bribes;
using engine::village::Counts;
using engine::village::kCardsPerTreasureType;
using engine::village::kFavorSpaces;
using engine::village::kNumCardKinds;
using engine::village::kNumStalls;
using engine::village::kNumTreasureTypes;
using engine::village::kWild;
using engine::village::kWildPenalty;
using engine::village::Move;
using engine::village::VillageView;

using Favor = std::array<int, kFavorSpaces>;
using Values = std::array<int, kNumTreasureTypes>;
// A hand as the bot counts it: exact for its own, expected for the others.
using Hand = std::array<double, kNumCardKinds>;

// Cards a turn takes from the deck on average (a draw takes one, a bribe's
// refill a few, a purchase none): turns the deck into turns left.
constexpr double kDeckCardsPerTurn = 2.0;
// Early in the match an unbribed treasure in hand is worth this share of its
// value (it may still start a bribe); at the end it costs its full value.
constexpr double kEarlyLooseTreasure = 0.3;
// Early a wild is worth this share of the seat's best bribed value.
constexpr double kEarlyWild = 0.8;
// Turns left over which a card in hand goes from its early worth to its
// final one.
constexpr double kLateTurns = 0.5;
constexpr double kRunDownTurns = 4.0;
// How much more ending the match is worth when the seat leads (or less when
// it trails), in points.
constexpr double kEndBonus = 3.0;

// Mirrors VillageState::MoveToken: the tokens passed shift towards `from`.
void MoveToken(Favor& favor, int treasure, int spaces) {
  int from = 0;
  while (favor[from] != treasure) ++from;
  const int to = std::clamp(from + spaces, 0, kFavorSpaces - 1);
  const int step = to > from ? 1 : -1;
  for (int space = from; space != to; space += step) {
    favor[space] = favor[space + step];
  }
  favor[to] = treasure;
}

class Judge {
 public:
  Judge(const VillageView& view, Seat me) : view_(view), me_(me) {
    const int n = static_cast<int>(view.hand_sizes.size());
    // What the seat has not seen, as the mix of a hidden card.
    Counts seen{};
    auto add = [&seen](const Counts& c) {
      for (int k = 0; k < kNumCardKinds; ++k) seen[k] += c[k];
    };
    for (const Counts& stall : view.market) add(stall);
    add(view.discard);
    for (Seat s = 0; s < n; ++s) {
      if (view.hands[s]) add(*view.hands[s]);
      for (int t = 0; t < kNumTreasureTypes; ++t) {
        seen[t] += view.bribes[s][t].treasures;
        seen[kWild] += view.bribes[s][t].wilds;
      }
    }
    double unseen_total = 0;
    for (int k = 0; k < kNumCardKinds; ++k) {
      const int all = k == kWild ? view.rules.wilds : kCardsPerTreasureType;
      mix_[k] = std::max(0, all - seen[k]);
      unseen_total += mix_[k];
    }
    for (double& m : mix_) m = unseen_total > 0 ? m / unseen_total : 0;

    for (Seat s = 0; s < n; ++s) {
      Hand hand{};
      if (view.hands[s]) {
        for (int k = 0; k < kNumCardKinds; ++k) hand[k] = (*view.hands[s])[k];
      } else {
        for (int k = 0; k < kNumCardKinds; ++k) hand[k] = view.hand_sizes[s] * mix_[k];
      }
      hands_.push_back(hand);
    }
    const double turns_left = view.deck_size / (kDeckCardsPerTurn * n);
    time_ = std::clamp((turns_left - kLateTurns) / kRunDownTurns, 0.0, 1.0);
  }

  const Hand& mix() const { return mix_; }
  const Hand& my_hand() const { return hands_[me_]; }

  // The seat's lead after the action that leaves `favor`, its own `bribes`
  // and `hand`; `ends` when that action ends the match.
  double Utility(const Favor& favor, const Bribes& bribes, const Hand& hand, bool ends) const {
    Values values{};
    for (int space = 0; space < kFavorSpaces; ++space) {
      values[favor[space]] = view_.rules.favor_values[space];
    }
    const double time = ends ? 0.0 : time_;
    const double mine = Projected(values, bribes, hand, time);
    double best = -1e9, sum = 0;
    int others = 0;
    for (Seat s = 0; s < static_cast<int>(hands_.size()); ++s) {
      if (s == me_) continue;
      const double theirs = Projected(values, view_.bribes[s], hands_[s], time);
      best = std::max(best, theirs);
      sum += theirs;
      ++others;
    }
    // Beating the leader matters as much as beating the field.
    double lead = mine - 0.5 * (sum / others) - 0.5 * best;
    if (ends) lead += mine > best ? kEndBonus : -kEndBonus;
    return lead;
  }

 private:
  // A seat's score if the match ended with `time` (1 early, 0 at the end)
  // left to place the cards in its hand.
  static double Projected(const Values& values, const Bribes& bribes, const Hand& hand,
                          double time) {
    double score = 0;
    int best_bribed = 0;
    double mean_value = 0;
    // What a loose treasure is worth per point of its value.
    const double loose = -1.0 + time * (1.0 + kEarlyLooseTreasure);
    for (int t = 0; t < kNumTreasureTypes; ++t) {
      const bool bribed = bribes[t].treasures > 0;
      score += values[t] * bribes[t].size();
      score += hand[t] * values[t] * (bribed ? 1.0 : loose);
      if (bribed) best_bribed = std::max(best_bribed, values[t]);
      mean_value += values[t];
    }
    mean_value /= kNumTreasureTypes;
    // A wild needs a bribe to join; with none yet, it waits for an average one.
    const double early_wild = kEarlyWild * (best_bribed > 0 ? best_bribed : mean_value);
    score += hand[kWild] * (-kWildPenalty + time * (early_wild + kWildPenalty));
    return score;
  }

  const VillageView& view_;
  Seat me_;
  Hand mix_{};
  std::vector<Hand> hands_;
  double time_ = 1.0;
};

// How good `move` is for the seat of `judge`, judged one action ahead.
double Score(const VillageView& view, const Judge& judge, const Move& move) {
  const Seat me = view.observer;
  Favor favor = view.favor;
  Bribes bribes = view.bribes[me];
  Hand hand = judge.my_hand();
  switch (move.kind) {
    case Move::Kind::kDraw: {
      if (view.deck_size == 0) return judge.Utility(favor, bribes, hand, true);
      double expected = 0;
      for (int k = 0; k < kNumCardKinds; ++k) {
        if (judge.mix()[k] == 0) continue;
        hand[k] += 1;
        expected += judge.mix()[k] * judge.Utility(favor, bribes, hand, false);
        hand[k] -= 1;
      }
      return expected;
    }
    case Move::Kind::kBribe: {
      const int t = move.treasure;
      if (t < 0 || t >= kNumTreasureTypes) return -1e18;
      hand[t] -= move.cards[t];
      hand[kWild] -= move.cards[kWild];
      bribes[t].treasures += move.cards[t];
      bribes[t].wilds += move.cards[kWild];
      MoveToken(favor, t, move.cards[t] + move.cards[kWild]);
      // With the deck empty the refill cannot find its card: the match ends.
      return judge.Utility(favor, bribes, hand, view.deck_size == 0);
    }
    case Move::Kind::kBuy: {
      if (move.stall < 0 || move.stall >= kNumStalls) return -1e18;
      int paid = 0;
      for (int k = 0; k < kNumCardKinds; ++k) {
        hand[k] += view.market[move.stall][k] - move.cards[k];
        paid += move.cards[k];
      }
      if (paid > 0 && move.treasure < kNumTreasureTypes) {
        MoveToken(favor, move.treasure, -paid);
      }
      return judge.Utility(favor, bribes, hand, false);
    }
  }
  return -1e18;
}

class HeuristicBot final : public Bot {
 public:
  explicit HeuristicBot(std::uint64_t seed) : rng_(seed) {}

  Action Choose(const engine::View& view, std::span<const Action> legal) override {
    const auto* v = dynamic_cast<const VillageView*>(&view);
    const int n = v == nullptr ? 0 : static_cast<int>(v->hand_sizes.size());
    if (v == nullptr || v->observer < 0 || v->observer >= n || !v->hands[v->observer] ||
        static_cast<int>(v->hands.size()) != n || static_cast<int>(v->bribes.size()) != n) {
      return legal[0];
    }
    const Judge judge(*v, v->observer);
    constexpr double kTie = 1e-9;
    double best = -1e300;
    best_.clear();
    for (Action action : legal) {
      const std::optional<Move> move = Move::Decode(action);
      if (!move) continue;
      const double score = Score(*v, judge, *move);
      if (score > best + kTie) {
        best = score;
        best_.clear();
      }
      if (score >= best - kTie) best_.push_back(action);
    }
    if (best_.empty()) return legal[0];
    return best_[rng_.Uniform(best_.size())];
  }

 private:
  engine::Rng rng_;
  std::vector<Action> best_;  // scratch: the actions tied for best
};

}  // namespace

std::unique_ptr<Bot> MakeHeuristicBot(std::uint64_t seed) {
  return std::make_unique<HeuristicBot>(seed);
}

}  // namespace hoard::engine::village
