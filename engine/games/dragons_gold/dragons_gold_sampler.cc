#include <algorithm>
#include <array>
#include <memory>
#include <numeric>
#include <span>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "engine/games/dragons_gold/dragons_gold.h"
#include "engine/status_macros.h"

namespace hoard::engine::dragons_gold {
namespace {

using engine::Rng;
using engine::Seat;
using engine::View;
namespace dg = engine::dragons_gold;

constexpr int kBagTotal = std::accumulate(dg::kBagContents.begin(), dg::kBagContents.end(), 0);
constexpr int kObjectTotal = std::accumulate(dg::kObjectDeck.begin(), dg::kObjectDeck.end(), 0);

absl::Status Bad(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("not a view of a Dragon's Gold match: ", what));
}

// Tokens or objects alike (TokenCounts and ObjectCounts are one type).
int Total(const dg::TokenCounts& counts) {
  int total = 0;
  for (int c : counts) total += c;
  return total;
}

bool ValidSeat(Seat s, int n) { return s >= 0 && s < n; }

bool ValidKind(int kind) { return kind >= 0 && kind < dg::kNumTokenKinds; }
bool ValidCounts(const dg::TokenCounts& counts) {
  return std::all_of(counts.begin(), counts.end(), [](int c) { return c >= 0; });
}

// Every seat, kind and count of the public record lies in range.
absl::Status CheckRecord(const dg::DragonsGoldView& v) {
  const int n = static_cast<int>(v.players.size());
  auto kind_or_hidden = [](int kind) { return kind == dg::kHiddenToken || ValidKind(kind); };
  for (const dg::RecordEntry& entry : v.record) {
    if (const auto* slaying = std::get_if<dg::Slaying>(&entry)) {
      bool ok = slaying->card >= 0 && slaying->card < dg::kNumDragons && slaying->slot >= 0 &&
                slaying->slot < dg::kFaceUpDragons && ValidSeat(slaying->slayer, n) &&
                ValidCounts(slaying->treasure) && ValidCounts(slaying->drawn) &&
                static_cast<int>(slaying->outcome) >= 0 &&
                slaying->outcome <= dg::Slaying::Outcome::kLost;
      for (const dg::Attacker& a : slaying->attackers) {
        ok = ok && ValidSeat(a.seat, n) && a.adventurer >= 0 && a.adventurer < dg::kNumAdventurers;
      }
      for (const dg::Share& share : slaying->shares) {
        ok = ok && ValidSeat(share.seat, n) && ValidCounts(share.tokens);
      }
      if (!ok) return Bad("a slaying in the record");
    } else if (const auto* swap = std::get_if<dg::MarketSwap>(&entry)) {
      if (!ValidSeat(swap->from, n) || !ValidSeat(swap->to, n) || !ValidCounts(swap->give) ||
          !ValidCounts(swap->get)) {
        return Bad("a market swap in the record");
      }
    } else if (const auto* theft = std::get_if<dg::Theft>(&entry)) {
      if (!ValidSeat(theft->thief_owner, n) || !ValidSeat(theft->victim, n) ||
          static_cast<int>(theft->how) < 0 || theft->how > dg::TheftKind::kInvisibleHand ||
          (theft->named != -1 && !ValidKind(theft->named)) || !kind_or_hidden(theft->token)) {
        return Bad("a theft in the record");
      }
    } else if (const auto* map = std::get_if<dg::TreasureMapDraw>(&entry)) {
      if (!ValidSeat(map->seat, n) || !kind_or_hidden(map->token)) {
        return Bad("a Treasure Map draw in the record");
      }
    } else if (!ValidCounts(std::get<dg::LeftOnTable>(entry).tokens)) {
      return Bad("treasure left on the table in the record");
    }
  }
  return absl::OkStatus();
}

// The objects a match of `rules` plays with.
dg::ObjectCounts FullObjectDeck(const dg::Rules& rules) {
  dg::ObjectCounts deck{};
  if (!rules.magic_objects) return deck;
  deck = dg::kObjectDeck;
  if (!rules.invisible_hand) deck[dg::kInvisibleHand] = 0;
  return deck;
}

// Everything in `view` that indexes by seat, slot, kind or card lies in
// range, so that a state built from it can be played without crashing.
absl::Status CheckShape(const dg::DragonsGoldView& v) {
  const int n = static_cast<int>(v.players.size());
  if (n < 3 || n > 6) return Bad(absl::StrCat(n, " players"));
  if (!ValidSeat(v.observer, n)) return Bad(absl::StrCat("observer ", v.observer));
  const bool over = v.phase == dg::Phase::kOver;
  if (static_cast<int>(v.phase) < 0 ||
      static_cast<int>(v.phase) > static_cast<int>(dg::Phase::kOver)) {
    return Bad("an unknown phase");
  }
  if (!ValidSeat(v.current, n)) return Bad(absl::StrCat("current seat ", v.current));
  for (Seat s = 0; s < n; ++s) {
    const dg::PlayerView& p = v.players[s];
    if (p.token_count < 0 || p.object_count < 0) return Bad("a negative count");
    const bool shown = s == v.observer || over;
    if (p.tokens.has_value() != shown || p.objects.has_value() != shown) {
      return Bad(absl::StrCat("seat ", s, "'s screen shown or hidden wrongly"));
    }
    if (shown) {
      for (int c : *p.tokens) {
        if (c < 0) return Bad("a negative token count");
      }
      for (int c : *p.objects) {
        if (c < 0) return Bad("a negative object count");
      }
      if (Total(*p.tokens) != p.token_count || Total(*p.objects) != p.object_count) {
        return Bad(absl::StrCat("seat ", s, "'s counts disagree with its screen"));
      }
    }
    for (dg::AdventurerState a : p.adventurers) {
      if (static_cast<int>(a) < 0 || static_cast<int>(a) > 2) return Bad("an adventurer's state");
    }
  }
  for (const dg::FaceUpDragon& d : v.dragons) {
    if (d.card < -1 || d.card >= dg::kNumDragons || d.weakening < 0) return Bad("a dragon card");
    for (int c : d.tokens) {
      if (c < 0) return Bad("a negative treasure");
    }
    if (Total(d.tokens) > dg::kMaxTokensOnDragon) return Bad("too much treasure on a dragon");
    for (const dg::Attacker& a : d.attackers) {
      if (!ValidSeat(a.seat, n) || a.adventurer < 0 || a.adventurer >= dg::kNumAdventurers) {
        return Bad("an attacker");
      }
    }
  }
  const dg::Negotiation& t = v.negotiation;
  for (Seat s : t.contributors) {
    if (!ValidSeat(s, n)) return Bad("a contributor");
  }
  for (int c : t.tokens) {
    if (c < 0) return Bad("a negative treasure under negotiation");
  }
  if (!t.votes.empty() && static_cast<int>(t.votes.size()) != n) return Bad("the votes");
  for (int vote : t.votes) {
    if (vote != 0 && vote != 1) return Bad("a vote shown");
  }
  for (int vote : t.last_votes) {
    if (vote < 0 || vote > 2) return Bad("a past vote");
  }
  const bool negotiating = v.phase == dg::Phase::kPropose || v.phase == dg::Phase::kVote;
  if (negotiating) {
    if (t.contributors.size() < 2 || t.slot < 0 || t.slot >= dg::kFaceUpDragons ||
        v.dragons[t.slot].card < 0 || static_cast<int>(t.votes.size()) != n ||
        !ValidSeat(t.proposer, n) ||
        std::find(t.contributors.begin(), t.contributors.end(), t.proposer) ==
            t.contributors.end()) {
      return Bad("the negotiation");
    }
    if (Total(t.tokens) > dg::kMaxTokensOnDragon) return Bad("too much treasure to divide");
    if (v.phase == dg::Phase::kVote && t.proposal.size() != t.contributors.size()) {
      return Bad("the proposal under vote");
    }
  }
  if (!t.shares.empty() && t.shares.size() != t.contributors.size()) return Bad("the shares");
  for (const dg::TokenCounts& share : t.shares) {
    for (int c : share) {
      if (c < 0) return Bad("a negative share");
    }
  }
  for (const dg::Steal& s : v.steals) {
    if (!ValidSeat(s.thief_owner, n) || !ValidSeat(s.victim, n)) return Bad("a steal");
  }
  const bool stealing = v.phase == dg::Phase::kThiefChoice || v.phase == dg::Phase::kDecoy;
  if (stealing && (v.steals.empty() || t.slot < 0 || t.slot >= dg::kFaceUpDragons)) {
    return Bad("a steal without a slaying");
  }
  if (stealing && v.rules.thieves_steal_from_share) {
    // A thief robs a share: the victim's must hold a token.
    const auto it = std::find(t.contributors.begin(), t.contributors.end(), v.steals[0].victim);
    const std::size_t index = it - t.contributors.begin();
    if (index >= t.shares.size() || Total(t.shares[index]) == 0) {
      return Bad("a steal from an empty share");
    }
  }
  const bool market = v.phase == dg::Phase::kMarketOffer || v.phase == dg::Phase::kMarketReply;
  if (!v.market_offers_left.empty() && static_cast<int>(v.market_offers_left.size()) != n) {
    return Bad("the market's offers");
  }
  if (market) {
    if (static_cast<int>(v.market_offers_left.size()) != n || !ValidSeat(v.market_offerer, n)) {
      return Bad("the market");
    }
    if (v.phase == dg::Phase::kMarketReply &&
        (!ValidSeat(v.offer.from, n) || !ValidSeat(v.offer.to, n) || !ValidCounts(v.offer.give) ||
         !ValidCounts(v.offer.get))) {
      return Bad("the market offer");
    }
  }
  if (v.pile_size < 0 || v.bag_size < 0 || v.object_deck_size < 0) return Bad("a negative size");
  for (int c : v.removed) {
    if (c < 0) return Bad("a negative count of removed tokens");
  }
  for (int c : v.object_discard) {
    if (c < 0) return Bad("a negative discard");
  }
  return CheckRecord(v);
}

// The steps of a deal, in the order they draw from the generator.

// Dragons: the pile holds cards not face up. Which ones were slain the view
// does not say, so the pile is drawn from all the others.
absl::Status DealDragons(const dg::DragonsGoldView& v, Rng& rng, dg::Position& p) {
  std::array<bool, dg::kNumDragons> face_up{};
  for (const dg::FaceUpDragon& d : v.dragons) {
    if (d.card < 0) continue;
    if (face_up[d.card]) return Bad(absl::StrCat("dragon ", d.card, " lies face up twice"));
    face_up[d.card] = true;
  }
  std::array<int, dg::kNumDragons> dragons;
  int unseen_dragons = 0;
  for (int card = 0; card < dg::kNumDragons; ++card) {
    if (!face_up[card]) dragons[unseen_dragons++] = card;
  }
  const int drawn = dg::kNumDragons - dg::kFaceUpDragons - v.pile_size;
  if (v.pile_size > unseen_dragons || drawn < 0) {
    return Bad(absl::StrCat("a pile of ", v.pile_size, " dragons"));
  }
  rng.Shuffle(std::span<int>(dragons.data(), unseen_dragons));
  p.pile.assign(dragons.begin(), dragons.begin() + v.pile_size);
  // Only PlaceDragon counts draws, and it draws from a pile of 14.
  p.drawn_from_pile = drawn;
  p.market_done = !v.market_ahead;
  p.dragons = v.dragons;
  return absl::OkStatus();
}

// Tokens: the bag's contents less every token shown anywhere, dealt to the
// bag and the screens the observer cannot look behind. What the record
// proves to lie behind a screen (KnownTokens) is dealt there; only the rest
// is drawn at random. The deal ignores what the record tells beyond that
// lower bound: after a theft of unknown kind (an Invisible Hand's, or a
// thief's under thief_steals=screen) it may give a screen a kind it
// cannot hold (a red behind a screen known to have held only a silver and a
// gold, one of which was stolen), and a choosing thief who found none of the
// named kind does not keep that kind from the victim's screen.
absl::Status DealTokens(const dg::DragonsGoldView& v, Rng& rng, dg::Position& p) {
  const int n = static_cast<int>(v.players.size());
  dg::TokenCounts unseen = dg::kBagContents;
  auto take = [&](const dg::TokenCounts& shown) {
    for (int k = 0; k < dg::kNumTokenKinds; ++k) unseen[k] -= shown[k];
  };
  for (const dg::FaceUpDragon& d : v.dragons) take(d.tokens);
  take(v.removed);
  take(v.negotiation.tokens);
  int hidden_tokens = v.bag_size;
  // Shown screens are wholly known; the others, in part.
  std::vector<dg::TokenCounts> known(n);
  for (Seat s = 0; s < n; ++s) {
    known[s] = dg::KnownTokens(v, s);
    // What is left of a seat's share of this division is behind its screen.
    for (std::size_t i = 0; i < v.negotiation.shares.size(); ++i) {
      if (i >= v.negotiation.contributors.size() || v.negotiation.contributors[i] != s) continue;
      for (int k = 0; k < dg::kNumTokenKinds; ++k) {
        known[s][k] = std::max(known[s][k], v.negotiation.shares[i][k]);
      }
    }
    take(known[s]);
    if (!v.players[s].tokens) {
      hidden_tokens += v.players[s].token_count - Total(known[s]);
      if (Total(known[s]) > v.players[s].token_count) {
        return Bad(absl::StrCat("seat ", s, " holds fewer tokens than its record proves"));
      }
    }
  }
  for (int k = 0; k < dg::kNumTokenKinds; ++k) {
    if (unseen[k] < 0) return Bad(absl::StrCat("more ", dg::TokenNamePlural(k), " than exist"));
  }
  if (Total(unseen) != hidden_tokens || hidden_tokens < 0) {
    return Bad(
        absl::StrCat(Total(unseen), " tokens unseen, but ", hidden_tokens, " places for them"));
  }
  std::array<int, kBagTotal> pool;
  int size = 0;
  for (int k = 0; k < dg::kNumTokenKinds; ++k) {
    for (int i = 0; i < unseen[k]; ++i) pool[size++] = k;
  }
  rng.Shuffle(std::span<int>(pool.data(), size));
  const int* next = pool.data();
  p.bag.assign(next, next + v.bag_size);
  next += v.bag_size;
  p.holdings.resize(n);
  p.adventurers.resize(n);
  for (Seat s = 0; s < n; ++s) {
    const dg::PlayerView& player = v.players[s];
    p.adventurers[s] = player.adventurers;
    p.holdings[s] = known[s];
    if (player.tokens) continue;
    for (int i = Total(known[s]); i < player.token_count; ++i) ++p.holdings[s][*next++];
  }
  return absl::OkStatus();
}

// Objects: the deck and the hands of others, alike.
absl::Status DealObjects(const dg::DragonsGoldView& v, Rng& rng, dg::Position& p) {
  const int n = static_cast<int>(v.players.size());
  p.objects.resize(n);
  dg::ObjectCounts objects = FullObjectDeck(v.rules);
  int hidden_objects = v.object_deck_size;
  for (int k = 0; k < dg::kNumObjectKinds; ++k) objects[k] -= v.object_discard[k];
  for (Seat s = 0; s < n; ++s) {
    if (v.players[s].objects) {
      for (int k = 0; k < dg::kNumObjectKinds; ++k) objects[k] -= (*v.players[s].objects)[k];
    } else {
      hidden_objects += v.players[s].object_count;
    }
  }
  for (int k = 0; k < dg::kNumObjectKinds; ++k) {
    if (objects[k] < 0) return Bad(absl::StrCat("more ", dg::ObjectName(k), " cards than exist"));
  }
  if (Total(objects) != hidden_objects) {
    return Bad(
        absl::StrCat(Total(objects), " objects unseen, but ", hidden_objects, " places for them"));
  }
  std::array<int, kObjectTotal> cards;
  int size = 0;
  for (int k = 0; k < dg::kNumObjectKinds; ++k) {
    for (int i = 0; i < objects[k]; ++i) cards[size++] = k;
  }
  rng.Shuffle(std::span<int>(cards.data(), size));
  const int* card = cards.data();
  p.object_deck.assign(card, card + v.object_deck_size);
  card += v.object_deck_size;
  for (Seat s = 0; s < n; ++s) {
    if (v.players[s].objects) {
      p.objects[s] = *v.players[s].objects;
      continue;
    }
    p.objects[s] = {};
    for (int i = 0; i < v.players[s].object_count; ++i) ++p.objects[s][*card++];
  }
  p.object_discard = v.object_discard;
  p.removed = v.removed;
  return absl::OkStatus();
}

// The public rest of the position, and the sealed votes.
absl::Status CopyPublic(const dg::DragonsGoldView& v, Rng& rng, dg::Position& p) {
  p.phase = v.phase;
  p.current = v.current;
  p.turns = v.turns;
  p.negotiation = v.negotiation;
  // Sealed votes: each vote given is drawn among accept (1) and reject (2).
  for (int& vote : p.negotiation.votes) {
    if (vote != 0) vote = 1 + static_cast<int>(rng.Uniform(2));
  }
  p.steals = v.steals;
  p.market_offerer = v.market_offerer;
  p.market_offers_left = v.market_offers_left;
  p.offer = v.offer;
  // During the market the slain dragon's slot is the one left empty: a
  // slot stays empty only once the bag or the pile is, and then no market
  // opens.
  if (v.phase == dg::Phase::kMarketOffer || v.phase == dg::Phase::kMarketReply) {
    for (int slot = 0; slot < dg::kFaceUpDragons; ++slot) {
      if (v.dragons[slot].card < 0) p.market_refill_slot = slot;
    }
    if (p.market_refill_slot < 0 || p.pile.empty()) return Bad("a market with no dragon to place");
  }
  p.end = v.end;
  p.rng = Rng(rng.Next());
  return absl::OkStatus();
}

// Everything is shown once a match is over; the scores must follow from it.
absl::Status CheckScores(const dg::DragonsGoldView& v, const dg::DragonsGoldState& state) {
  if (v.phase != dg::Phase::kOver || v.scores.empty()) return absl::OkStatus();
  const int n = static_cast<int>(v.players.size());
  for (Seat s = 0; s < n; ++s) {
    if (static_cast<int>(v.scores.size()) != n || state.ScoreOf(s) != v.scores[s]) {
      return Bad("scores that the screens do not give");
    }
  }
  return absl::OkStatus();
}

class DragonsGoldSampler final : public Sampler {
 public:
  absl::StatusOr<Seat> Observer(const View& view) const override {
    const auto* v = dynamic_cast<const dg::DragonsGoldView*>(&view);
    if (v == nullptr) return absl::InvalidArgumentError("not a Dragon's Gold view");
    if (v->observer == engine::kSpectator) {
      return absl::InvalidArgumentError("a spectator's view has no seat to sample for");
    }
    if (!ValidSeat(v->observer, static_cast<int>(v->players.size()))) {
      return absl::InvalidArgumentError(absl::StrCat("observer ", v->observer, " has no seat"));
    }
    return v->observer;
  }

  absl::StatusOr<std::unique_ptr<engine::State>> Sample(const View& view, Rng& rng) const override {
    const auto* vp = dynamic_cast<const dg::DragonsGoldView*>(&view);
    if (vp == nullptr) return absl::InvalidArgumentError("not a Dragon's Gold view");
    const dg::DragonsGoldView& v = *vp;
    if (v.observer == engine::kSpectator) {
      return absl::InvalidArgumentError("a spectator's view has no seat to sample for");
    }
    RETURN_IF_ERROR(CheckShape(v));
    dg::Position p;
    RETURN_IF_ERROR(DealDragons(v, rng, p));
    RETURN_IF_ERROR(DealTokens(v, rng, p));
    RETURN_IF_ERROR(DealObjects(v, rng, p));
    RETURN_IF_ERROR(CopyPublic(v, rng, p));
    // The record as the observer sees it: kinds it did not see stay hidden.
    auto state = std::make_unique<dg::DragonsGoldState>(v.rules, std::move(p), v.record);
    RETURN_IF_ERROR(CheckScores(v, *state));
    return state;
  }
};

}  // namespace

std::unique_ptr<Sampler> MakeSampler() { return std::make_unique<DragonsGoldSampler>(); }

}  // namespace hoard::engine::dragons_gold
