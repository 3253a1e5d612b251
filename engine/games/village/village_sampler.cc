#include <array>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "engine/games/village/village.h"

namespace hoard::engine::village {
namespace {

using engine::Seat;
using engine::village::Counts;
using engine::village::kCardsPerTreasureType;
using engine::village::kMaxWilds;
using engine::village::kNumCardKinds;
using engine::village::kNumTreasureTypes;
using engine::village::kWild;
using engine::village::Position;
using engine::village::VillageState;
using engine::village::VillageView;

absl::StatusOr<const VillageView*> SeatView(const engine::View& view) {
  const auto* v = dynamic_cast<const VillageView*>(&view);
  if (v == nullptr) {
    return absl::InvalidArgumentError("not a village view");
  }
  if (v->observer == engine::kSpectator) {
    return absl::InvalidArgumentError("a spectator's view: only a seat's view can be sampled");
  }
  const int n = static_cast<int>(v->hand_sizes.size());
  if (v->observer < 0 || v->observer >= n) {
    return absl::InvalidArgumentError(
        absl::StrCat("observer ", v->observer, " is not one of the ", n, " seats"));
  }
  return v;
}

absl::Status AddSeen(const Counts& counts, absl::string_view where, Counts& seen) {
  for (int kind = 0; kind < kNumCardKinds; ++kind) {
    if (counts[kind] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(where, " holds a negative count of ",
                                                     engine::village::CardNamePlural(kind)));
    }
    seen[kind] += counts[kind];
  }
  return absl::OkStatus();
}

int Total(const Counts& counts) {
  int total = 0;
  for (int c : counts) total += c;
  return total;
}

// Checks everything about `v` that the copy into a Position relies on, and
// returns the cards the observer has not seen, by kind.
absl::StatusOr<Counts> Unseen(const VillageView& v) {
  const int n = static_cast<int>(v.hand_sizes.size());
  if (n < 2 || n > 5) {
    return absl::InvalidArgumentError(
        absl::StrCat("village is played by 2 to 5 seats, the view has ", n));
  }
  if (static_cast<int>(v.hands.size()) != n || static_cast<int>(v.bribes.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat("the view has ", n, " hand sizes but ",
                                                   v.hands.size(), " hands and ", v.bribes.size(),
                                                   " bribe rows"));
  }
  if (v.current < 0 || v.current >= n) {
    return absl::InvalidArgumentError(absl::StrCat("seat ", v.current, " to act is not a seat"));
  }
  if (v.rules.wilds < 0 || v.rules.wilds > kMaxWilds) {
    return absl::InvalidArgumentError(absl::StrCat("the rules name ", v.rules.wilds, " wilds"));
  }
  std::array<bool, kNumTreasureTypes> placed{};
  for (int t : v.favor) {
    if (t < 0 || t >= kNumTreasureTypes || placed[t]) {
      return absl::InvalidArgumentError("the favor row does not hold each treasure token once");
    }
    placed[t] = true;
  }
  if (v.deck_size < 0) {
    return absl::InvalidArgumentError(absl::StrCat("a deck of ", v.deck_size, " cards"));
  }

  Counts seen{};
  for (int stall = 0; stall < engine::village::kNumStalls; ++stall) {
    if (absl::Status s = AddSeen(v.market[stall], "a stall", seen); !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = AddSeen(v.discard, "the discard", seen); !s.ok()) {
    return s;
  }
  int hidden_hands = 0;
  const bool over = v.end != engine::village::EndReason::kNotOver;
  for (Seat seat = 0; seat < n; ++seat) {
    if (v.hand_sizes[seat] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("seat ", seat, "'s hand has ", v.hand_sizes[seat], " cards"));
    }
    const std::optional<Counts>& hand = v.hands[seat];
    if ((seat == v.observer || over) && !hand.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the view does not show seat ", seat, "'s hand, which it must"));
    }
    if (hand.has_value()) {
      if (absl::Status s = AddSeen(*hand, "a hand", seen); !s.ok()) return s;
      if (Total(*hand) != v.hand_sizes[seat]) {
        return absl::InvalidArgumentError(absl::StrCat("seat ", seat, "'s hand shows ",
                                                       Total(*hand), " cards but its size is ",
                                                       v.hand_sizes[seat]));
      }
    } else {
      hidden_hands += v.hand_sizes[seat];
    }
    for (int t = 0; t < kNumTreasureTypes; ++t) {
      const auto& bribe = v.bribes[seat][t];
      if (bribe.treasures < 0 || bribe.wilds < 0) {
        return absl::InvalidArgumentError(absl::StrCat("seat ", seat, " has a negative bribe of ",
                                                       engine::village::CardNamePlural(t)));
      }
      if (bribe.treasures == 0 && bribe.wilds > 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("seat ", seat, " has a bribe of ", engine::village::CardNamePlural(t),
                         " made of wilds alone, which no match allows"));
      }
      seen[t] += bribe.treasures;
      seen[kWild] += bribe.wilds;
    }
  }

  Counts unseen{};
  int total_unseen = 0;
  for (int kind = 0; kind < kNumCardKinds; ++kind) {
    const int all = kind == kWild ? v.rules.wilds : kCardsPerTreasureType;
    unseen[kind] = all - seen[kind];
    if (unseen[kind] < 0) {
      return absl::InvalidArgumentError(absl::StrCat("the view shows ", seen[kind], " ",
                                                     engine::village::CardNamePlural(kind),
                                                     " but the game has ", all));
    }
    total_unseen += unseen[kind];
  }
  if (total_unseen != v.deck_size + hidden_hands) {
    return absl::InvalidArgumentError(
        absl::StrCat("the view leaves ", total_unseen, " cards unseen but its deck and ",
                     "hidden hands hold ", v.deck_size + hidden_hands));
  }
  return unseen;
}

// Checks the cards `v` says the table knows in each hand: within the hand
// where it shows, within its size and the unseen cards where it is hidden.
// Returns the unseen cards less those known to be in hidden hands.
absl::StatusOr<Counts> UnseenAndUnknown(const VillageView& v, Counts unseen) {
  const int n = static_cast<int>(v.hand_sizes.size());
  if (static_cast<int>(v.known.size()) != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("the view has ", n, " seats but ", v.known.size(), " known hands"));
  }
  for (Seat seat = 0; seat < n; ++seat) {
    const Counts& known = v.known[seat];
    for (int kind = 0; kind < kNumCardKinds; ++kind) {
      const int most = v.hands[seat] ? (*v.hands[seat])[kind] : unseen[kind];
      if (known[kind] < 0 || known[kind] > most) {
        return absl::InvalidArgumentError(
            absl::StrCat("seat ", seat, " is known to hold ", known[kind], " ",
                         engine::village::CardNamePlural(kind), ", which no match shows"));
      }
      if (!v.hands[seat]) unseen[kind] -= known[kind];
    }
    if (!v.hands[seat] && Total(known) > v.hand_sizes[seat]) {
      return absl::InvalidArgumentError(absl::StrCat("seat ", seat, " is known to hold ",
                                                     Total(known), " cards but holds ",
                                                     v.hand_sizes[seat]));
    }
  }
  return unseen;
}

class VillageSampler final : public Sampler {
 public:
  absl::StatusOr<Seat> Observer(const engine::View& view) const override {
    absl::StatusOr<const VillageView*> v = SeatView(view);
    if (!v.ok()) return v.status();
    return (*v)->observer;
  }

  absl::StatusOr<std::unique_ptr<engine::State>> Sample(const engine::View& view,
                                                        engine::Rng& rng) const override {
    absl::StatusOr<const VillageView*> checked = SeatView(view);
    if (!checked.ok()) return checked.status();
    const VillageView& v = **checked;
    absl::StatusOr<Counts> unseen = Unseen(v);
    if (!unseen.ok()) return unseen.status();
    // The cards known to be in hidden hands are dealt there; the rest of the
    // unseen cards at random.
    unseen = UnseenAndUnknown(v, *unseen);
    if (!unseen.ok()) return unseen.status();

    const int n = static_cast<int>(v.hand_sizes.size());
    Position p;
    p.favor = v.favor;
    p.market = v.market;
    p.discard = v.discard;
    p.bribes = v.bribes;
    p.current = v.current;
    p.end = v.end;
    // The unseen cards go into the deck's vector, shuffled; the hidden hands
    // then take theirs from its top, leaving exactly deck_size behind.
    p.deck.reserve(Total(*unseen));
    for (int kind = 0; kind < kNumCardKinds; ++kind) {
      p.deck.insert(p.deck.end(), (*unseen)[kind], kind);
    }
    rng.Shuffle(std::span<int>(p.deck));
    p.hands.resize(n);
    for (Seat seat = 0; seat < n; ++seat) {
      if (v.hands[seat].has_value()) {
        p.hands[seat] = *v.hands[seat];
        continue;
      }
      Counts& hand = p.hands[seat];
      hand = v.known[seat];
      for (int i = Total(hand); i < v.hand_sizes[seat]; ++i) {
        ++hand[p.deck.back()];
        p.deck.pop_back();
      }
    }
    return std::make_unique<VillageState>(v.rules, std::move(p), v.known);
  }
};

}  // namespace

std::unique_ptr<Sampler> MakeSampler() { return std::make_unique<VillageSampler>(); }

}  // namespace hoard::engine::village
