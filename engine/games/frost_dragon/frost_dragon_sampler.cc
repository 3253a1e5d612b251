// The Frost Dragon's Treasure sampler: from a seat's view to a whole match.
//
// What a seat cannot see is the other hands, the quest's leftovers out of
// play and the order of the deals to come. The cards among them are exactly
// the cards still in the match that the seat has not seen: not removed by a
// dragon, not played this quest, not in its own hand. A sample deals those
// anew, each place keeping its size, and gives the deals to come a fresh
// generator.
//
// The view also tells where some cards are not. From every challenge of
// this quest (the completed ones the view records, and the one under way):
// a seat that played another kingdom's card to a challenge whose lead
// kingdom was already set holds no card of that lead kingdom, and a leader
// who led trump before any challenge had been led in trump holds no card of
// another kingdom. The sampler keeps such cards out of that seat's hand, so
// search does not imagine a seat following suit when it has shown it
// cannot. The completed challenges themselves are public and go into the
// dealt match as they are.

#include <algorithm>
#include <array>
#include <bit>
#include <memory>
#include <span>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "engine/games/frost_dragon/frost_dragon.h"

namespace hoard::engine::frost_dragon {
namespace {

using engine::frost_dragon::Adventurer;
using engine::frost_dragon::CardKind;
using engine::frost_dragon::CardSet;
using engine::frost_dragon::Challenge;
using engine::frost_dragon::EndReason;
using engine::frost_dragon::FrostDragonState;
using engine::frost_dragon::FrostDragonView;
using engine::frost_dragon::Phase;
using engine::frost_dragon::Position;
using engine::frost_dragon::Rules;

namespace fd = engine::frost_dragon;

int Count(CardSet cards) { return std::popcount(cards); }

absl::Status Bad(absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("not a Frost Dragon's Treasure seat's view: ", why));
}

absl::StatusOr<const FrostDragonView*> SeatView(const engine::View& view) {
  const auto* v = dynamic_cast<const FrostDragonView*>(&view);
  if (v == nullptr) return Bad("another game's view");
  if (v->observer == engine::kSpectator) return Bad("a spectator's view hides every hand");
  const int n = static_cast<int>(v->players.size());
  if (n < fd::kMinPlayers || n > fd::kMaxPlayers) {
    return Bad(absl::StrCat(n, " players (2 to 4 play)"));
  }
  if (v->observer < 0 || v->observer >= n) {
    return Bad(absl::StrCat("observer ", v->observer, " has no seat among ", n));
  }
  return v;
}

bool InRange(int value, int low, int high) { return value >= low && value <= high; }

absl::Status CheckChallenge(const Challenge& c, int n, int max_size, absl::string_view name) {
  if (!InRange(c.size, 0, max_size)) return Bad(absl::StrCat(name, " holds ", c.size, " cards"));
  if (!InRange(c.leader, 0, n - 1)) return Bad(absl::StrCat(name, " has no leader"));
  if (!InRange(c.lead_kingdom, fd::kNoKingdom, fd::kNumKingdoms - 1)) {
    return Bad(absl::StrCat(name, "'s lead kingdom is no kingdom"));
  }
  if (!InRange(c.winner, -1, n - 1)) return Bad(absl::StrCat(name, "'s winner has no seat"));
  for (int i = 0; i < c.size; ++i) {
    const fd::PlayedCard& played = c.cards[i];
    if (!InRange(played.seat, 0, n - 1) || !InRange(played.card, 0, fd::kNumCardIds - 1) ||
        !InRange(played.as, fd::kNoCard, fd::kNumKingdomCards - 1)) {
      return Bad(absl::StrCat(name, " shows a card that cannot be played"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckAdventurer(const Adventurer& a, engine::Seat seat) {
  if (!InRange(a.space, fd::kStartSpace, fd::kLastSpace) ||
      !InRange(a.threat, 0, fd::kThreatLimit - 1) || !InRange(a.boast, -1, fd::kNumCardIds) ||
      !InRange(a.marker, -1, fd::kLastSpace) || a.won < 0 || a.treasures < 0 ||
      !InRange(a.jump_to, -1, fd::kLastSpace)) {
    return Bad(absl::StrCat("seat ", seat, "'s adventurer is off the map"));
  }
  return absl::OkStatus();
}

// Kingdoms (as bits) that seats other than `observer` showed they hold no
// card of, in `c`, a challenge of this quest played under `rules`;
// `trump_led` says whether an earlier challenge of the quest was led in
// trump. A seat that played a card of another kingdom after the lead kingdom
// was set lacks the lead kingdom; a leader who led trump (a trump card, or
// an ally as one) before trump was led lacks every other kingdom.
void NoteVoids(const Rules& rules, const Challenge& c, int trump, bool trump_led,
               engine::Seat observer, std::array<unsigned, 4>& voids) {
  constexpr unsigned kEveryKingdom = (1u << fd::kNumKingdoms) - 1;
  if (c.size > 0 && !trump_led && trump != fd::kNoKingdom && c.cards[0].seat != observer &&
      c.cards[0].as != fd::kNoCard && fd::KingdomOf(c.cards[0].as) == trump) {
    voids[c.cards[0].seat] |= kEveryKingdom & ~(1u << trump);
  }
  for (int i = 0; i < c.size; ++i) {
    const fd::PlayedCard& played = c.cards[i];
    // The kingdom this card had to follow: set by the cards before it.
    const int lead = fd::LeadKingdom(rules, std::span(c.cards.data(), i), /*complete=*/false);
    if (lead != fd::kNoKingdom && played.seat != observer &&
        fd::KindOf(played.card) == CardKind::kKingdom && fd::KingdomOf(played.card) != lead) {
      voids[played.seat] |= 1u << lead;
    }
  }
}

class FrostDragonSampler final : public Sampler {
 public:
  absl::StatusOr<engine::Seat> Observer(const engine::View& view) const override {
    absl::StatusOr<const FrostDragonView*> v = SeatView(view);
    if (!v.ok()) return v.status();
    return (*v)->observer;
  }

  absl::StatusOr<std::unique_ptr<engine::State>> Sample(const engine::View& view,
                                                        engine::Rng& rng) const override {
    absl::StatusOr<const FrostDragonView*> checked = SeatView(view);
    if (!checked.ok()) return checked.status();
    const FrostDragonView& v = **checked;
    const int n = static_cast<int>(v.players.size());
    const engine::Seat me = v.observer;

    // What could not come from a match, before anything indexes by it.
    const Rules& rules = v.rules;
    if (!InRange(rules.ally_jokers, 0, fd::kMaxJokersOfAKind) ||
        !InRange(rules.treasure_jokers, 0, fd::kMaxJokersOfAKind) ||
        !InRange(rules.dragon_jokers, 0, fd::kMaxJokersOfAKind) ||
        !InRange(rules.max_quests, 1, fd::kMaxQuestsLimit)) {
      return Bad("rules no option allows");
    }
    if (!InRange(static_cast<int>(v.phase), 0, static_cast<int>(Phase::kOver)) ||
        !InRange(static_cast<int>(v.end), 0, static_cast<int>(EndReason::kDeckExhausted)) ||
        (v.phase == Phase::kOver) != (v.end != EndReason::kNotOver)) {
      return Bad("an unknown phase or end");
    }
    if (!InRange(v.fate, 0, n - 1) || !InRange(v.to_act, 0, n - 1)) {
      return Bad("the Fate or the seat to act has no seat");
    }
    if (!InRange(v.trump, fd::kNoKingdom, fd::kNumKingdoms - 1)) return Bad("trump is no kingdom");
    if (!InRange(v.quest, 1, rules.max_quests) || !InRange(v.hand_size, 0, fd::kMaxHandSize) ||
        v.out_of_play < 0) {
      return Bad("a quest, hand size or leftover count out of range");
    }
    const bool dealt = v.phase == Phase::kBoast || v.phase == Phase::kPlay;
    if (auto s =
            CheckChallenge(v.challenge, n, v.phase == Phase::kPlay ? n - 1 : 0, "the challenge");
        !s.ok()) {
      return s;
    }
    if (auto s = CheckChallenge(v.last_challenge, n, n, "the last challenge"); !s.ok()) return s;
    if (static_cast<int>(v.challenges.size()) > fd::kMaxHandSize) {
      return Bad(absl::StrCat(v.challenges.size(), " challenges in one quest"));
    }
    for (const Challenge& c : v.challenges) {
      if (auto s = CheckChallenge(c, n, n, "a challenge of this quest"); !s.ok()) return s;
      for (int i = 0; i < c.size; ++i) {
        if ((v.played & fd::Bit(c.cards[i].card)) == 0) {
          return Bad("a challenge of this quest shows a card not played this quest");
        }
      }
    }
    if (!v.challenges.empty() && v.challenges.back() != v.last_challenge) {
      return Bad("the last challenge of this quest is not the last challenge");
    }

    const CardSet deck = rules.Deck();
    if ((v.removed & ~deck) != 0 || (v.played & ~deck) != 0) {
      return Bad("a card removed or played that the deck does not hold");
    }
    if (v.cards_in_match != Count(deck & ~v.removed)) {
      return Bad(absl::StrCat(v.cards_in_match,
                              " cards in the match, but the deck less the removed holds ",
                              Count(deck & ~v.removed)));
    }
    const fd::PlayerView& mine = v.players[me];
    if (!mine.hand.has_value() || Count(*mine.hand) != mine.hand_size) {
      return Bad("the observer's hand is missing or not its size");
    }
    const CardSet unseen = deck & ~v.removed & ~v.played & ~*mine.hand;
    if ((*mine.hand & ~(deck & ~v.removed & ~v.played)) != 0) {
      return Bad("the observer holds a card removed, played or not in the deck");
    }
    int slots = v.out_of_play;
    for (engine::Seat s = 0; s < n; ++s) {
      const fd::PlayerView& player = v.players[s];
      if (s != me && player.hand.has_value()) return Bad(absl::StrCat("seat ", s, "'s hand shows"));
      if (!InRange(player.hand_size, 0, dealt ? v.hand_size : 0)) {
        return Bad(absl::StrCat("seat ", s, " holds ", player.hand_size, " cards"));
      }
      if (auto st = CheckAdventurer(player.adventurer, s); !st.ok()) return st;
      if (s != me) slots += player.hand_size;
    }
    // Once dealt, the hidden places hold exactly the unseen cards; before a
    // deal (or after the match) some of them lie undealt in the deck.
    if (dealt ? slots != Count(unseen) : slots > Count(unseen)) {
      return Bad(absl::StrCat("the hidden places hold ", slots, " cards, but ", Count(unseen),
                              " are unseen"));
    }

    Position p;
    p.num_players = n;
    p.quest = v.quest;
    p.fate = v.fate;
    p.trump = v.trump;
    p.trump_led = v.trump_led;
    p.hand_size = v.hand_size;
    p.removed = v.removed;
    p.played = v.played;
    p.phase = v.phase;
    p.to_act = v.to_act;
    p.challenge = v.challenge;
    p.last_challenge = v.last_challenge;
    p.final_quest = v.final_quest;
    p.end = v.end;
    for (engine::Seat s = 0; s < n; ++s) p.adventurers[s] = v.players[s].adventurer;
    p.hands[me] = *mine.hand;
    Deal(v, unseen, rng, p);
    p.rng = engine::Rng(rng.Next());

    auto sample = std::make_unique<FrostDragonState>(rules, std::move(p), v.challenges);
    if (sample->IsOver() && sample->Scores() != v.scores) return Bad("scores that do not follow");
    if (!sample->IsOver() && !v.scores.empty()) return Bad("scores before the end");
    return sample;
  }

 private:
  // Deals `unseen` into the other hands and the leftovers of `p`, each
  // keeping the size `v` shows, and keeps every card out of a hand that has
  // shown it lacks the card's kingdom.
  static void Deal(const FrostDragonView& v, CardSet unseen, engine::Rng& rng, Position& p) {
    const int n = p.num_players;
    const engine::Seat me = v.observer;
    std::array<unsigned, 4> voids{};
    if (v.phase == Phase::kPlay) {
      // The quest's challenges in order: the completed ones, then this one.
      bool trump_led = false;
      auto note = [&](const Challenge& c) {
        NoteVoids(v.rules, c, v.trump, trump_led, me, voids);
        trump_led = trump_led || (c.lead_kingdom != fd::kNoKingdom && c.lead_kingdom == v.trump);
      };
      for (const Challenge& c : v.challenges) note(c);
      note(v.challenge);
    }
    // Places 0..n-1 are the hands, n the leftovers, n+1 what stays undealt.
    std::array<int, fd::kMaxPlayers + 2> capacity{};
    for (engine::Seat s = 0; s < n; ++s) capacity[s] = s == me ? 0 : v.players[s].hand_size;
    capacity[n] = v.out_of_play;
    int slots = v.out_of_play;
    for (engine::Seat s = 0; s < n; ++s) slots += capacity[s];
    capacity[n + 1] = Count(unseen) - slots;

    std::array<int, fd::kNumCardIds> pool;
    int size = 0;
    for (CardSet cards = unseen; cards != 0; cards &= cards - 1)
      pool[size++] = std::countr_zero(cards);
    rng.Shuffle(std::span<int>(pool.data(), size));

    unsigned void_kingdoms = 0;
    for (engine::Seat s = 0; s < n; ++s) void_kingdoms |= voids[s];
    if (void_kingdoms != 0) {
      // The cards of a kingdom someone lacks go first, each to a place that
      // may hold it, chosen in proportion to the room left there. That can
      // run into a corner (all the room left is in hands lacking it): then
      // try again, and at worst deal without the inference.
      for (int attempt = 0; attempt < 8; ++attempt) {
        std::array<int, fd::kMaxPlayers + 2> room = capacity;
        std::array<CardSet, fd::kMaxPlayers + 2> places{};
        bool stuck = false;
        for (int i = 0; i < size && !stuck; ++i) {
          const int card = pool[i];
          if (fd::KindOf(card) != CardKind::kKingdom) continue;
          const unsigned kingdom = 1u << fd::KingdomOf(card);
          if ((void_kingdoms & kingdom) == 0) continue;
          auto allowed = [&](int place) { return place >= n || (voids[place] & kingdom) == 0; };
          int total = 0;
          for (int place = 0; place < n + 2; ++place) total += allowed(place) ? room[place] : 0;
          if (total == 0) {
            stuck = true;
            break;
          }
          int pick = static_cast<int>(rng.Uniform(total));
          int place = 0;
          for (;; ++place) {
            if (!allowed(place)) continue;
            if (pick < room[place]) break;
            pick -= room[place];
          }
          --room[place];
          places[place] |= fd::Bit(card);
        }
        if (stuck) continue;
        int place = 0;
        for (int i = 0; i < size; ++i) {
          const int card = pool[i];
          if (fd::KindOf(card) == CardKind::kKingdom &&
              (void_kingdoms & (1u << fd::KingdomOf(card))) != 0) {
            continue;
          }
          while (room[place] == 0) ++place;
          --room[place];
          places[place] |= fd::Bit(card);
        }
        for (engine::Seat s = 0; s < n; ++s) {
          if (s != me) p.hands[s] = places[s];
        }
        p.out_of_play = places[n];
        return;
      }
    }
    int next = 0;
    for (engine::Seat s = 0; s < n; ++s) {
      for (int i = 0; i < capacity[s]; ++i) p.hands[s] |= fd::Bit(pool[next++]);
    }
    for (int i = 0; i < capacity[n]; ++i) p.out_of_play |= fd::Bit(pool[next++]);
  }
};

}  // namespace

std::unique_ptr<Sampler> MakeSampler() { return std::make_unique<FrostDragonSampler>(); }

}  // namespace hoard::engine::frost_dragon
