// Hedonia's heuristic player. It prices every card for every seat — what the
// card would add to that seat's score at the end, given the treasuries as
// they stand — and guesses each neighbour's claim from the same prices. A
// claim is then worth what it brings the seat (all of a card, or half when
// the neighbour claims it too) less a share of what the card it leaves brings
// the neighbour on that side. An offer is worth the best claim it leaves the
// seat: a card the seat wants and its neighbour does not, or, when the card
// offered to the seat is the better one, a card the neighbour cares little
// for.

#include "engine/games/hedonia/hedonia_heuristic.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "engine/games/hedonia/hedonia.h"
#include "engine/rng.h"

namespace hoard::engine::hedonia {
namespace {

using engine::Action;
using engine::Seat;
using engine::hedonia::AssetCounts;
using engine::hedonia::ClaimAction;
using engine::hedonia::ClaimedSide;
using engine::hedonia::GapOn;
using engine::hedonia::HedoniaView;
using engine::hedonia::kAssetCounts;
using engine::hedonia::kAssetValues;
using engine::hedonia::kMaxPlayers;
using engine::hedonia::kNumAssetKinds;
using engine::hedonia::MostValuable;
using engine::hedonia::OfferDirection;
using engine::hedonia::OfferedAsset;
using engine::hedonia::OfferGap;
using engine::hedonia::SeatAt;
using engine::hedonia::Side;

namespace assets = engine::hedonia;

// What an opponent's point costs the seat, against a point of its own: the
// match is ranked, and each opponent is one of several to beat.
constexpr double kOpponentWeight = 0.5;
// The worth of a card not yet offered, to anyone (the average card adds
// about this much).
constexpr double kUnknownWorth = 2.0;
// How sharply a neighbour prefers the better of its two cards: the spread,
// in points, of the logistic guess at its claim. Wide, since neighbours
// price cards otherwise than this bot does (tried 0.7 to 10 against random,
// first and search players: 3 did well against all three).
constexpr double kClaimSpread = 3.0;

// The table as the bot reads it: the view, and the card in each gap (the
// bot writes its own candidate offers into it).
struct Reading {
  const HedoniaView& view;
  int n;
  std::array<int, kMaxPlayers> table;

  const AssetCounts& Treasury(Seat s) const { return view.players[s].treasury; }
  Seat Next(Seat s) const { return SeatAt(s, 1, view.direction, n); }
  Seat Previous(Seat s) const { return SeatAt(s, -1, view.direction, n); }
  // The other seat beside `gap` (gap g lies between seats g and g + 1).
  Seat Across(int gap, Seat s) const {
    return s == gap ? SeatAt(gap, 1, assets::kClockwise, n) : gap;
  }
  // The other gap beside seat `s`.
  int OtherGap(Seat s, int gap) const {
    const int left = GapOn(s, Side::kLeft, n);
    return gap == left ? GapOn(s, Side::kRight, n) : left;
  }
};

// The chance that a monster of `s` is slain at the end: high when a
// Deathslayer already lies in another treasury, some while more may come.
double SlainRisk(const Reading& r, Seat s) {
  int slayers = 0;
  for (Seat q = 0; q < r.n; ++q) {
    if (q != s) slayers += r.Treasury(q)[assets::kDeathslayer];
  }
  return slayers > 0 ? 0.8 : 0.2;
}

// What one more card of `kind` in seat `s`'s treasury adds to its score at
// the end, less a share of what it costs the others, as things stand.
// `nested` prices a card that a power brings in (no second power lookahead).
double Worth(const Reading& r, Seat s, int kind, bool nested = false) {
  const AssetCounts& mine = r.Treasury(s);
  const AssetCounts& next = r.Treasury(r.Next(s));
  const AssetCounts& previous = r.Treasury(r.Previous(s));
  if (nested && (kind == assets::kRoyalPoofin || kind == assets::kGrungle)) {
    return kAssetValues[kind];
  }
  switch (kind) {
    case assets::kSnorkelPig:  // one more in the pack, and a bonus for each
      return kAssetValues[kind] + 2 * assets::kPigPackBonus * mine[assets::kSnorkelPig];
    case assets::kBeardedHopper: {
      double worth = kAssetValues[kind];
      if (mine[assets::kBeardedHopper] == 0) {
        worth += (assets::kFedCarrotBonus - assets::kCarrotBonus) * mine[assets::kMagicCarrot];
      }
      // A carrot left to raid next door: its value, fed, and the loss to
      // its owner.
      const int raidable = next[assets::kMagicCarrot] - mine[assets::kBeardedHopper];
      if (raidable > 0) {
        worth += kAssetValues[assets::kMagicCarrot] + assets::kFedCarrotBonus + kOpponentWeight;
      }
      return worth;
    }
    case assets::kMagicCarrot: {
      // Unfed, a carrot may still be fed by a Hopper to come.
      double worth =
          kAssetValues[kind] +
          (mine[assets::kBeardedHopper] > 0 ? assets::kFedCarrotBonus : assets::kCarrotBonus + 0.5);
      if (previous[assets::kBeardedHopper] > 0) {
        worth -= 1.5;  // a neighbour's Hopper may raid it
      }
      return worth;
    }
    case assets::kDoomSnail: {
      const int victim = MostValuable(next);
      return kAssetValues[kind] +
             (victim >= 0 ? assets::kDoomFeast + kOpponentWeight * kAssetValues[victim] : 1.5) -
             SlainRisk(r, s);
    }
    case assets::kRoyalPoofin: {
      // The King's best card now, or whatever lands there by the end.
      const int fetched = MostValuable(r.view.king);
      return kAssetValues[kind] + (fetched >= 0 ? 0.5 * Worth(r, s, fetched, true) + 0.75 : 1.5);
    }
    case assets::kVeryRareEgg: {
      int eggs = 0;
      for (Seat q = 0; q < r.n; ++q) eggs += r.Treasury(q)[assets::kVeryRareEgg];
      const int own = mine[assets::kVeryRareEgg];
      // The new egg's rarity, less what every egg in a treasury loses.
      return 1 + assets::kEggRarityBonus * (kAssetCounts[assets::kVeryRareEgg] - eggs - 1 - own) +
             kOpponentWeight * assets::kEggRarityBonus * (eggs - own);
    }
    case assets::kGrungle: {
      const int grabbed = MostValuable(previous);
      const double grab =
          grabbed >= 0 ? Worth(r, s, grabbed, true) + kOpponentWeight * kAssetValues[grabbed] : 1;
      return kAssetValues[kind] + 0.7 * grab - SlainRisk(r, s);
    }
    case assets::kDeathslayer: {
      int monsters = 0, slayers = 0;
      for (Seat q = 0; q < r.n; ++q) {
        slayers += r.Treasury(q)[assets::kDeathslayer];
        if (q != s) {
          monsters += r.Treasury(q)[assets::kGrungle] + r.Treasury(q)[assets::kDoomSnail];
        }
      }
      return kAssetValues[kind] +
             (monsters > slayers ? assets::kSlayBonus + kOpponentWeight * 1.5 : 1);
    }
    case assets::kCursedSushi:
      // A feast alone; the one that makes kSushiCurseFrom curses them all.
      if (mine[assets::kCursedSushi] + 1 < assets::kSushiCurseFrom)
        return kAssetValues[kind] + assets::kSushiFeast;
      if (mine[assets::kCursedSushi] + 1 == assets::kSushiCurseFrom) {
        return kAssetValues[kind] - assets::kSushiCurse -
               (assets::kSushiFeast + assets::kSushiCurse) * mine[assets::kCursedSushi];
      }
      return kAssetValues[kind] - assets::kSushiCurse;
    case assets::kRedSnatcher:
      return 1.5;  // whom it robs depends on its gap: see WorthIn
    case assets::kMisdirection:
      return kAssetValues[kind];
    default:
      return 0;
  }
}

// What the card in `gap` is worth to seat `s` if it takes it alone.
double WorthIn(const Reading& r, Seat s, int gap) {
  const int card = r.table[gap];
  if (card < 0) return kUnknownWorth;
  if (card != assets::kRedSnatcher) return Worth(r, s, card);
  // It snatches the best card of the seat across the gap, at once.
  const int snatched = MostValuable(r.Treasury(r.Across(gap, s)));
  return 1 + (snatched >= 0 ? Worth(r, s, snatched, true) + kOpponentWeight * kAssetValues[snatched]
                            : 0);
}

double HalfValue(const Reading& r, int gap) {
  const int card = r.table[gap];
  return card < 0 ? kUnknownWorth / 2 : kAssetValues[card] / 2.0;
}

// The chance that seat `s` claims the card in `gap` rather than its other
// card, if it prices them as this bot does.
double ClaimChance(const Reading& r, Seat s, int gap) {
  const double edge = WorthIn(r, s, gap) - WorthIn(r, s, r.OtherGap(s, gap));
  return 1 / (1 + std::exp(-edge / kClaimSpread));
}

// What claiming the card in `gap` is worth to `me`, counting both cards:
// the one claimed is mine or (when its other neighbour claims it too)
// shared; the one left goes to its other neighbour if they claim it.
double ClaimWorth(const Reading& r, Seat me, int gap) {
  const int left_gap = r.OtherGap(me, gap);
  const Seat across = r.Across(gap, me);
  const Seat across_left = r.Across(left_gap, me);
  const double shared = ClaimChance(r, across, gap);
  const double lost = ClaimChance(r, across_left, left_gap);
  return shared * (1 - kOpponentWeight) * HalfValue(r, gap) + (1 - shared) * WorthIn(r, me, gap) -
         lost * kOpponentWeight * WorthIn(r, across_left, left_gap);
}

class HedoniaHeuristic final : public Bot {
 public:
  explicit HedoniaHeuristic(std::uint64_t seed) : rng_(seed) {}

  Action Choose(const engine::View& view, std::span<const Action> legal) override {
    const auto* v = dynamic_cast<const HedoniaView*>(&view);
    const int n = v == nullptr ? 0 : static_cast<int>(v->players.size());
    if (v == nullptr || v->observer < 0 || v->observer >= n ||
        static_cast<int>(v->table.size()) != n || n > kMaxPlayers) {
      return legal[0];
    }
    Reading r{*v, n, {}};
    for (int gap = 0; gap < n; ++gap) r.table[gap] = v->table[gap];
    const Seat me = v->observer;
    const int own_gap = OfferGap(me, OfferDirection(v->rules.offers, v->direction), n);

    std::vector<double> worth(legal.size());
    for (std::size_t i = 0; i < legal.size(); ++i) {
      if (const std::optional<Side> side = ClaimedSide(legal[i])) {
        worth[i] = ClaimWorth(r, me, GapOn(me, *side, n));
      } else if (const std::optional<int> kind = OfferedAsset(legal[i])) {
        // The offer is as good as the better claim it leaves.
        r.table[own_gap] = *kind;
        worth[i] = std::max(ClaimWorth(r, me, own_gap), ClaimWorth(r, me, r.OtherGap(me, own_gap)));
        r.table[own_gap] = v->table[own_gap];
      } else {
        worth[i] = -1e9;  // not a Hedonia action: never preferred
      }
    }
    // The best, with ties broken by the seeded generator.
    double best = worth[0];
    for (double w : worth) best = std::max(best, w);
    std::vector<std::size_t> tied;
    for (std::size_t i = 0; i < legal.size(); ++i) {
      if (worth[i] >= best - 1e-9) tied.push_back(i);
    }
    return legal[tied[tied.size() == 1 ? 0 : rng_.Uniform(tied.size())]];
  }

 private:
  engine::Rng rng_;
};

}  // namespace

std::unique_ptr<Bot> MakeHeuristicBot(std::uint64_t seed) {
  return std::make_unique<HedoniaHeuristic>(seed);
}

}  // namespace hoard::engine::hedonia
