// The Frost Dragon's Treasure heuristic: count the hand, boast what it will
// most likely win, then win challenges while short of the marker and shed
// them once there.
//
// Boasting pays the boast when you make it and costs a space for each
// challenge short, so a boast is worth most at about the median of the
// wins; the bot works out the distribution of its wins from a chance for
// each card, and picks the boast whose expected landing spot is best, the
// map included (the bridge and the gap throw you back, the orc and the
// catapult launch you, the Leprechaun swaps you with the leader).
//
// In a challenge each card is scored by what it is likely to bring now —
// the chance it wins, times what winning is worth (two spaces while short
// of the marker, a point of threat past it, ruin at ten threat, three
// spaces per Treasure joker in it), less what the others gain when they
// take it — minus what the card would be worth kept for later.

#include "engine/games/frost_dragon/frost_dragon_heuristic.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "engine/games/frost_dragon/frost_dragon.h"
#include "engine/rng.h"

namespace hoard::engine::frost_dragon {
namespace {

namespace fd = engine::frost_dragon;
using fd::Adventurer;
using fd::CardKind;
using fd::CardSet;
using fd::FrostDragonView;
using fd::Move;

int Count(CardSet cards) { return std::popcount(cards); }

// What the bot knows of the cards at a decision.
struct Table {
  const FrostDragonView* view = nullptr;
  engine::Seat me = 0;
  int n = 0;
  int trump = fd::kNoKingdom;
  CardSet hand = 0;
  CardSet unseen = 0;  // in another hand or out of play
  int unseen_count = 0;

  int UnseenOf(CardSet cards) const { return Count(unseen & cards); }
  int UnseenAllies() const { return UnseenOf(((CardSet{1} << 4) - 1) << fd::kFirstAlly); }
  int UnseenDragons() const { return UnseenOf(((CardSet{1} << 4) - 1) << fd::kFirstDragon); }
  // The share of the unseen cards seat `s` holds.
  double Share(engine::Seat s) const {
    if (unseen_count == 0) return 0;
    return static_cast<double>(view->players[s].hand_size) / unseen_count;
  }
};

Table Read(const FrostDragonView& v) {
  Table t;
  t.view = &v;
  t.me = v.observer;
  t.n = static_cast<int>(v.players.size());
  t.trump = v.trump;
  t.hand = v.players[t.me].hand.value_or(0);
  t.unseen = v.rules.Deck() & ~v.removed & ~v.played & ~t.hand;
  t.unseen_count = Count(t.unseen);
  return t;
}

// Unseen cards of `kingdom` ranked above `rank`.
CardSet Above(int kingdom, int rank) {
  return fd::KingdomCards(kingdom) & ~((CardSet{1} << (fd::KingdomCard(kingdom, rank) + 1)) - 1);
}

// The chance a card wins a challenge that moves its player, some time this
// quest: what the boast counts on and what keeping a card is worth.
double Power(const Table& t, int card) {
  switch (fd::KindOf(card)) {
    case CardKind::kAlly:
      return 0.75;  // the ace of trump whenever it follows
    case CardKind::kTreasure:
    case CardKind::kDragon:
      return 0;  // a dragon wins but moves nobody
    case CardKind::kKingdom:
      break;
  }
  const int kingdom = fd::KingdomOf(card);
  const int higher = t.UnseenOf(Above(kingdom, fd::RankOf(card)));
  if (kingdom == t.trump) return std::max(0.2, 1.0 - 0.13 * higher);
  return std::max(0.0, 0.85 - 0.3 * higher) * (t.n == 2 ? 0.9 : 0.8);
}

// What one more won challenge is worth to seat `s`, in spaces: a space and
// a space less short while short (more with a jump ready), a point of
// threat once past the marker, and ten spaces lost at ten threat.
double WinWorth(const Adventurer& a) {
  if (a.boast < 0) return 1;
  if (!a.reached_marker) {
    const int step = a.jump_to >= 0 ? std::min(a.jump_to, a.marker) - a.space : 1;
    return 1 + std::max(1, step);
  }
  return a.threat + 1 >= fd::kThreatLimit ? -fd::kThreatSetback : -0.3;
}

// ---- Boasting --------------------------------------------------------------

// Where seat `a` ends the quest with `wins` moving wins after boasting
// `boast`, in spaces, with a little for a launch or a swap to come.
double Landing(const Table& t, const Adventurer& start, int boast, int wins) {
  int space = start.space, threat = start.threat, jump = start.jump_to;
  const int marker = start.space + boast;
  bool reached = boast == 0;
  for (int i = 0; i < wins; ++i) {
    if (reached) {
      if (++threat >= fd::kThreatLimit) {
        threat -= fd::kThreatLimit;
        space = std::max(fd::kStartSpace, space - fd::kThreatSetback);
        jump = -1;
      }
      continue;
    }
    space = jump >= 0 ? jump : space + 1;
    jump = -1;
    reached = space >= marker;
  }
  if (!reached) space = std::max(fd::kStartSpace, space - (marker - space));
  double worth = space + 0.1 * threat;
  const int at = fd::kActionAt[space];
  if (at >= 0) {
    const fd::ActionSpace& action = fd::kActionSpaces[at];
    if (fd::ActsOn(action, boast, reached)) {
      switch (action.effect) {
        case fd::Effect::kFall:
          worth += action.to - space;
          break;
        case fd::Effect::kLaunch: {
          // A launch for the next quest only is more often lost unspent.
          const bool expires = action.jump_next_quest_only && !t.view->rules.catapult_until_used;
          worth += action.to - space + (expires ? 0.35 : 0.5) * (action.jump_to - action.to - 1);
          break;
        }
        case fd::Effect::kSwap: {
          int leader = space;
          for (engine::Seat s = 0; s < t.n; ++s) {
            if (s != t.me) leader = std::max(leader, t.view->players[s].adventurer.space);
          }
          worth += 0.7 * (leader - space);
          break;
        }
      }
    }
  }
  if (space >= fd::kFinishSpace) worth += 3;  // the treasure reached ends the match
  return worth;
}

Move ChooseBoast(const Table& t, std::span<const engine::Action> legal) {
  // The distribution of wins, each card winning on its own chance.
  std::vector<double> wins(1, 1.0);
  for (CardSet cards = t.hand; cards != 0; cards &= cards - 1) {
    const double p = Power(t, std::countr_zero(cards));
    wins.push_back(0);
    for (std::size_t k = wins.size() - 1; k > 0; --k) wins[k] = wins[k] * (1 - p) + wins[k - 1] * p;
    wins[0] *= 1 - p;
  }
  const Adventurer& me = t.view->players[t.me].adventurer;
  std::optional<Move> best;
  double best_worth = 0;
  for (engine::Action action : legal) {
    const std::optional<Move> move = Move::Decode(action);
    if (!move || move->kind != Move::Kind::kBoast) continue;
    double worth = 0;
    for (std::size_t k = 0; k < wins.size(); ++k) {
      worth += wins[k] * Landing(t, me, move->boast, static_cast<int>(k));
    }
    if (!best || worth > best_worth + 1e-9) {
      best = move;
      best_worth = worth;
    }
  }
  return best ? *best : *Move::Decode(legal[0]);
}

// ---- Challenges ------------------------------------------------------------

// The seat winning `cards` so far (the rules' order: the last dragon, the
// highest trump, the highest of the lead kingdom, later copies beating
// earlier), or -1.
engine::Seat Leading(std::span<const fd::PlayedCard> cards, int trump, int lead) {
  for (int i = static_cast<int>(cards.size()) - 1; i >= 0; --i) {
    if (fd::KindOf(cards[i].card) == CardKind::kDragon) return cards[i].seat;
  }
  engine::Seat winner = -1;
  int best = -1;
  for (const fd::PlayedCard& played : cards) {
    if (played.as == fd::kNoCard) continue;
    const int kingdom = fd::KingdomOf(played.as);
    const int strength = kingdom == trump  ? 100 + fd::RankOf(played.as)
                         : kingdom == lead ? fd::RankOf(played.as)
                                           : -1;
    if (strength >= 0 && strength >= best) {
      best = strength;
      winner = played.seat;
    }
  }
  return winner;
}

// The chance that seat `s`, still to play, beats `top` (the winning card so
// far, lead kingdom `lead`), holding its share of the unseen cards.
double BeatChance(const Table& t, engine::Seat s, const fd::PlayedCard& top, int lead) {
  const double keep = 1 - t.Share(s);
  const double dragons = t.UnseenDragons();
  if (fd::KindOf(top.card) == CardKind::kDragon) return 1 - std::pow(keep, dragons);
  const int kingdom = fd::KingdomOf(top.as);
  const double jokers = 0.7 * t.UnseenAllies() + 0.95 * dragons;
  // Holding none of the lead kingdom frees a seat to trump; before any card
  // sets the lead kingdom, every seat is free.
  const double void_lead =
      lead == fd::kNoKingdom ? 1.0 : std::pow(keep, t.UnseenOf(fd::KingdomCards(lead)));
  double none = std::pow(keep, jokers);
  if (kingdom == t.trump) {
    const int higher = t.UnseenOf(Above(kingdom, fd::RankOf(top.as)));
    const double holds = 1 - std::pow(keep, higher);
    none *= 1 - (lead == t.trump ? holds : void_lead * holds);
  } else {
    none *= std::pow(keep, t.UnseenOf(Above(kingdom, fd::RankOf(top.as))));
    if (t.trump != fd::kNoKingdom) {
      none *= 1 - void_lead * (1 - std::pow(keep, t.UnseenOf(fd::KingdomCards(t.trump))));
    }
  }
  return 1 - none;
}

double ScorePlay(const Table& t, const Move& move) {
  const FrostDragonView& v = *t.view;
  const fd::Challenge& c = v.challenge;
  std::array<fd::PlayedCard, fd::kMaxPlayers> cards = c.cards;
  const CardKind kind = fd::KindOf(move.card);
  const int as = kind == CardKind::kKingdom ? move.card
                 : kind == CardKind::kAlly  ? move.as
                                            : fd::kNoCard;
  cards[c.size] = {t.me, move.card, as};
  const int size = c.size + 1;
  std::span<const fd::PlayedCard> played(cards.data(), size);
  const int lead = fd::LeadKingdom(v.rules, played, size == t.n);
  const engine::Seat winner = Leading(played, t.trump, lead);
  int treasures = 0;
  for (const fd::PlayedCard& p : played) treasures += fd::KindOf(p.card) == CardKind::kTreasure;

  double mine = 0;  // the chance this card takes the challenge
  if (winner == t.me) {
    mine = 1;
    const fd::PlayedCard& top = cards[size - 1];
    for (int i = size; i < t.n; ++i) {
      const engine::Seat s = (t.me + i - c.size) % t.n;
      mine *= 1 - BeatChance(t, s, top, lead);
    }
  }
  const Adventurer& me = v.players[t.me].adventurer;
  const double won =
      (kind == CardKind::kDragon ? 0 : WinWorth(me)) + fd::kTreasureBonus * treasures;
  // What another seat's win costs me: its gain, shared among my rivals.
  double theirs = 0;
  if (winner >= 0 && winner != t.me) {
    const bool dragon = std::any_of(played.begin(), played.end(), [](const fd::PlayedCard& p) {
      return fd::KindOf(p.card) == CardKind::kDragon;
    });
    theirs = (dragon ? 0 : WinWorth(v.players[winner].adventurer));
  } else {
    for (engine::Seat s = 0; s < t.n; ++s) {
      if (s != t.me) theirs += WinWorth(v.players[s].adventurer) / (t.n - 1);
    }
  }
  theirs = (theirs + fd::kTreasureBonus * treasures) / (t.n - 1);

  // Strong cards are worth keeping while short of the marker, and a burden
  // once past it; a Treasure joker costs three spaces to a rival whenever it
  // goes, and a dragon is best kept for a challenge worth taking.
  const double later = !me.reached_marker ? 1.0 : me.threat + 3 >= fd::kThreatLimit ? -0.8 : -0.3;
  double keep = Power(t, move.card) * later;
  if (kind == CardKind::kTreasure) keep = -fd::kTreasureBonus / (t.n - 1.0);
  if (kind == CardKind::kDragon) keep = 1.0;
  return mine * won - (1 - mine) * theirs - keep;
}

class FrostDragonHeuristic final : public Bot {
 public:
  explicit FrostDragonHeuristic(std::uint64_t seed) : rng_(seed) {}

  engine::Action Choose(const engine::View& view, std::span<const engine::Action> legal) override {
    const auto* v = dynamic_cast<const FrostDragonView*>(&view);
    if (v == nullptr || v->observer < 0 || v->observer >= static_cast<int>(v->players.size())) {
      return legal[0];
    }
    const std::optional<Move> first = Move::Decode(legal[0]);
    if (!first) return legal[0];
    const Table t = Read(*v);
    switch (first->kind) {
      case Move::Kind::kChooseTrump:
        // Named before the deal: no kingdom is better than another.
        return legal[rng_.Uniform(legal.size())];
      case Move::Kind::kBoast:
        return ChooseBoast(t, legal).Encode();
      case Move::Kind::kPlay:
        break;
    }
    engine::Action best = legal[0];
    double best_score = 0;
    int ties = 0;
    for (engine::Action action : legal) {
      const std::optional<Move> move = Move::Decode(action);
      if (!move || move->kind != Move::Kind::kPlay) continue;
      const double score = ScorePlay(t, *move);
      if (ties == 0 || score > best_score + 1e-9) {
        best = action;
        best_score = score;
        ties = 1;
      } else if (score > best_score - 1e-9 && rng_.Uniform(++ties) == 0) {
        best = action;  // an even draw among equals
      }
    }
    return best;
  }

 private:
  engine::Rng rng_;
};

}  // namespace

std::unique_ptr<Bot> MakeHeuristicBot(std::uint64_t seed) {
  return std::make_unique<FrostDragonHeuristic>(seed);
}

}  // namespace hoard::engine::frost_dragon
