// Hedonia's sampler. A seat sees every treasury, every shared card, the
// King's treasury, this round's offers and its own hand; it sees neither the
// other hands nor the deck, and nothing of the other seats' claims this
// round. So the unseen cards — the sixty less all of those — are shuffled
// into the deck and the other hands, each keeping the size the view shows.
// The past reveals are public and go into the dealt match as they are.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "engine/games/hedonia/hedonia.h"
#include "engine/status_macros.h"

namespace hoard::engine::hedonia {
namespace {

using engine::Seat;
using engine::hedonia::AssetCounts;
using engine::hedonia::EndRule;
using engine::hedonia::HedoniaState;
using engine::hedonia::HedoniaView;
using engine::hedonia::kAssetCounts;
using engine::hedonia::kClockwise;
using engine::hedonia::kCounterclockwise;
using engine::hedonia::kMaxPlayers;
using engine::hedonia::kMinPlayers;
using engine::hedonia::kNumAssetKinds;
using engine::hedonia::kNumAssets;
using engine::hedonia::OfferDirection;
using engine::hedonia::OfferGap;
using engine::hedonia::OfferRule;
using engine::hedonia::PastReveal;
using engine::hedonia::Phase;
using engine::hedonia::PlayerView;
using engine::hedonia::Position;
using engine::hedonia::SeatAt;
using engine::hedonia::Side;
using engine::hedonia::TieBreak;
using engine::hedonia::Total;

absl::Status Unreachable(absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("no Hedonia match shows this view: ", why));
}

absl::StatusOr<const HedoniaView*> SeatView(const engine::View& view) {
  const auto* v = dynamic_cast<const HedoniaView*>(&view);
  if (v == nullptr) return absl::InvalidArgumentError("not a Hedonia view");
  if (v->observer < 0 || v->observer >= static_cast<int>(v->players.size())) {
    return absl::InvalidArgumentError(
        "not a seat's view (a spectator's?): samples are dealt for a seat");
  }
  return v;
}

// Adds `counts` to `seen`; false if a count is negative.
bool AddSeen(const AssetCounts& counts, std::array<int, kNumAssetKinds>& seen) {
  for (int kind = 0; kind < kNumAssetKinds; ++kind) {
    if (counts[kind] < 0) return false;
    seen[kind] += counts[kind];
  }
  return true;
}

bool IsSide(Side side) {
  return side == Side::kNone || side == Side::kLeft || side == Side::kRight;
}

bool IsCardOrNone(int card) { return card >= -1 && card < kNumAssetKinds; }

// Copies every public field of `v` into a position and checks that a match
// could have reached it; the hidden places are left empty.
// The view's shape: seats, gaps, rules, phase and claims all in range.
absl::Status CheckShape(const HedoniaView& v) {
  const int n = static_cast<int>(v.players.size());
  if (n < kMinPlayers || n > kMaxPlayers) {
    return Unreachable(absl::StrCat(n, " players"));
  }
  if (static_cast<int>(v.table.size()) != n || static_cast<int>(v.shared.size()) != n ||
      static_cast<int>(v.last_table.size()) != n || static_cast<int>(v.last_claims.size()) != n) {
    return Unreachable("the gaps are not one per seat");
  }
  if (v.rules.end != EndRule::kHandsEmpty && v.rules.end != EndRule::kDeckEmpty) {
    return Unreachable("an unknown end rule");
  }
  if (v.rules.offers != OfferRule::kLeft && v.rules.offers != OfferRule::kOnward) {
    return Unreachable("an unknown offer rule");
  }
  if (v.rules.tie_break != TieBreak::kTreasury && v.rules.tie_break != TieBreak::kNone) {
    return Unreachable("an unknown tie-break");
  }
  if (v.direction != kClockwise && v.direction != kCounterclockwise) {
    return Unreachable("a direction of play that is neither way round");
  }
  if (v.active < 0 || v.active >= n) {
    return Unreachable(absl::StrCat("active seat ", v.active));
  }
  if (v.phase != Phase::kOffer && v.phase != Phase::kClaim && v.phase != Phase::kOver) {
    return Unreachable("an unknown phase");
  }
  if (v.round < 1) return Unreachable(absl::StrCat("round ", v.round));
  if (!IsSide(v.own_claim) || (v.own_claim != Side::kNone && v.phase != Phase::kClaim)) {
    return Unreachable("a claim outside the claims");
  }
  if (v.phase != Phase::kOver &&
      (!v.final_treasuries.empty() || !v.power_points.empty() || !v.scores.empty())) {
    return Unreachable("final scores before the end");
  }

  return absl::OkStatus();
}

// The past reveals: no more than the rounds revealed, each in range, the
// last one the last reveal the view shows.
absl::Status CheckReveals(const HedoniaView& v) {
  const int n = static_cast<int>(v.players.size());
  // A round is revealed before the next begins; the last one ends the match.
  const int revealed = v.phase == Phase::kOver ? v.round : v.round - 1;
  if (static_cast<int>(v.reveals.size()) > revealed) {
    return Unreachable(absl::StrCat(v.reveals.size(), " reveals by round ", v.round));
  }
  for (const PastReveal& reveal : v.reveals) {
    if (reveal.active < 0 || reveal.active >= n ||
        (reveal.direction != kClockwise && reveal.direction != kCounterclockwise)) {
      return Unreachable("a past round's active seat or direction");
    }
    for (int i = 0; i < n; ++i) {
      if (!IsCardOrNone(reveal.cards[i]) || !IsCardOrNone(reveal.snatched[i]) ||
          !IsSide(reveal.claims[i])) {
        return Unreachable("an unknown card or claim in a past reveal");
      }
    }
  }
  if (!v.reveals.empty()) {
    const PastReveal& last = v.reveals.back();
    for (int i = 0; i < n; ++i) {
      if (last.cards[i] != v.last_table[i] || last.claims[i] != v.last_claims[i]) {
        return Unreachable("the last past reveal is not the last reveal");
      }
    }
  }
  return absl::OkStatus();
}

// Every seat's hand (where shown), treasury, share and gaps.
absl::Status CopySeats(const HedoniaView& v, Position& p) {
  const int n = static_cast<int>(v.players.size());
  const bool over = v.phase == Phase::kOver;
  for (Seat s = 0; s < n; ++s) {
    const PlayerView& player = v.players[s];
    if (player.hand_size < 0 || player.hand_size > kNumAssets) {
      return Unreachable(absl::StrCat("seat ", s, " holds ", player.hand_size, " cards"));
    }
    if (player.hand.has_value() != (s == v.observer || over)) {
      return Unreachable(absl::StrCat("seat ", s, "'s hand is ", player.hand ? "shown" : "hidden"));
    }
    if (player.hand) {
      if (Total(*player.hand) != player.hand_size) {
        return Unreachable(absl::StrCat("seat ", s, "'s hand is not ", player.hand_size, " cards"));
      }
      p.hands[s] = *player.hand;
    }
    p.treasuries[s] = player.treasury;
    p.shared[s] = v.shared[s];
    if (!IsCardOrNone(v.table[s]) || !IsCardOrNone(v.last_table[s]) || !IsSide(v.last_claims[s])) {
      return Unreachable("an unknown card or claim in a gap");
    }
    p.table[s] = static_cast<std::int8_t>(v.table[s]);
    p.last_table[s] = static_cast<std::int8_t>(v.last_table[s]);
    p.last_claims[s] = v.last_claims[s];
  }
  p.claims[v.observer] = v.own_claim;
  return absl::OkStatus();
}

// Who has offered this round follows from the offerer; the offers lie in
// exactly their gaps, and they hold one card fewer than the rest.
absl::Status PlaceOffers(const HedoniaView& v, Position& p) {
  const int n = static_cast<int>(v.players.size());
  const bool over = v.phase == Phase::kOver;
  switch (v.phase) {
    case Phase::kOffer:
      if (v.offerer < 0 || v.offerer >= n) {
        return Unreachable(absl::StrCat("seat ", v.offerer, " offers"));
      }
      p.offers_made = ((v.offerer - v.active) * v.direction % n + n) % n;
      break;
    case Phase::kClaim:
      p.offers_made = n;
      break;
    case Phase::kOver:
      p.offers_made = 0;
      break;
  }
  if (v.phase != Phase::kOffer && v.offerer != -1) {
    return Unreachable(absl::StrCat("seat ", v.offerer,
                                    " offers outside "
                                    "the offers"));
  }
  std::array<bool, kMaxPlayers> offered{};
  const int offer_direction = OfferDirection(v.rules.offers, v.direction);
  for (int i = 0; i < p.offers_made; ++i) {
    const Seat s = SeatAt(v.active, i, v.direction, n);
    offered[s] = true;
    if (v.table[OfferGap(s, offer_direction, n)] < 0) {
      return Unreachable(absl::StrCat("seat ", s, "'s offer is missing"));
    }
  }
  int cards_on_table = 0;
  for (int gap = 0; gap < n; ++gap) cards_on_table += v.table[gap] >= 0;
  if (cards_on_table != p.offers_made) {
    return Unreachable("the offers on the table are not the offerers'");
  }
  if (!over) {
    const int in_hand = v.players[v.active].hand_size + (offered[v.active]);
    for (Seat s = 0; s < n; ++s) {
      if (v.players[s].hand_size + offered[s] != in_hand || in_hand < 1) {
        return Unreachable("the hands are not the same size");
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Position> PublicPosition(const HedoniaView& v) {
  RETURN_IF_ERROR(CheckShape(v));
  RETURN_IF_ERROR(CheckReveals(v));
  const int n = static_cast<int>(v.players.size());
  Position p;
  p.num_players = n;
  p.round = v.round;
  p.active = v.active;
  p.direction = v.direction;
  p.phase = v.phase;
  p.king = v.king;
  RETURN_IF_ERROR(CopySeats(v, p));
  RETURN_IF_ERROR(PlaceOffers(v, p));
  if (v.deck_size < 0 || v.deck_size % n != 0) {
    return Unreachable(absl::StrCat("a deck of ", v.deck_size, " cards"));
  }
  p.deck_size = v.deck_size;
  return p;
}

class HedoniaSampler final : public Sampler {
 public:
  absl::StatusOr<Seat> Observer(const engine::View& view) const override {
    ASSIGN_OR_RETURN(const HedoniaView* v, SeatView(view));
    return v->observer;
  }

  absl::StatusOr<std::unique_ptr<engine::State>> Sample(const engine::View& view,
                                                        engine::Rng& rng) const override {
    ASSIGN_OR_RETURN(const HedoniaView* v, SeatView(view));
    ASSIGN_OR_RETURN(Position p, PublicPosition(*v));
    const int n = p.num_players;
    const bool over = p.phase == Phase::kOver;

    // The unseen cards: the sixty less every card the view shows.
    std::array<int, kNumAssetKinds> seen{};
    bool counts_ok = AddSeen(p.king, seen);
    for (Seat s = 0; s < n; ++s) {
      counts_ok = counts_ok && AddSeen(p.hands[s], seen) && AddSeen(p.treasuries[s], seen) &&
                  AddSeen(p.shared[s], seen);
      if (p.table[s] >= 0) ++seen[p.table[s]];
    }
    if (!counts_ok) return Unreachable("a negative count of cards");
    std::array<std::int8_t, kNumAssets> pool;
    int unseen = 0;
    for (int kind = 0; kind < kNumAssetKinds; ++kind) {
      const int left = kAssetCounts[kind] - seen[kind];
      if (left < 0) {
        return Unreachable(absl::StrCat(seen[kind], " ", engine::hedonia::AssetNamePlural(kind),
                                        " on view; the game has ", kAssetCounts[kind]));
      }
      for (int i = 0; i < left; ++i) {
        pool[unseen++] = static_cast<std::int8_t>(kind);
      }
    }
    int hidden = p.deck_size;
    for (Seat s = 0; s < n; ++s) {
      if (s != v->observer && !over) hidden += v->players[s].hand_size;
    }
    if (hidden != unseen) {
      return Unreachable(
          absl::StrCat(unseen, " cards unseen but ", hidden, " in the deck and hidden hands"));
    }

    rng.Shuffle(std::span<std::int8_t>(pool.data(), unseen));
    int next = 0;
    for (int i = 0; i < p.deck_size; ++i) p.deck[i] = pool[next++];
    if (!over) {
      for (Seat s = 0; s < n; ++s) {
        if (s == v->observer) continue;
        for (int i = 0; i < v->players[s].hand_size; ++i) {
          ++p.hands[s][pool[next++]];
        }
      }
    }
    // The other seats' claims stay pending: the view cannot tell whether
    // they have claimed, a pending claim is always consistent with it (the
    // round is unrevealed), and it leaves the search to choose their claims
    // rather than fix them at random.
    std::unique_ptr<HedoniaState> sample = HedoniaState::FromPosition(v->rules, p, v->reveals);
    if (sample->Rounds() != v->rounds) {
      return Unreachable(absl::StrCat("a match of ", v->rounds, " rounds"));
    }
    // Only at the end does the view hold what follows from the rest (the
    // powers' results); a rare case, so checked in full.
    if (over && !sample->ViewFor(v->observer)->Equals(*v)) {
      return Unreachable("final scores that the treasuries do not give");
    }
    return sample;
  }
};

}  // namespace

std::unique_ptr<Sampler> MakeSampler() { return std::make_unique<HedoniaSampler>(); }

}  // namespace hoard::engine::hedonia
