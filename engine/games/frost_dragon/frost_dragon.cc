#include "engine/games/frost_dragon/frost_dragon.h"

#include <algorithm>
#include <bit>
#include <span>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/check.h"
#include "engine/state_packer.h"
#include "engine/status_macros.h"

namespace hoard::engine::frost_dragon {
namespace {

int Count(CardSet cards) { return std::popcount(cards); }
int Lowest(CardSet cards) { return std::countr_zero(cards); }

absl::Status Illegal(absl::string_view why) { return absl::InvalidArgumentError(why); }

// Puts `value` into bits [shift, shift + width) of `code`.
void Put(std::uint64_t& code, int shift, int width, std::uint64_t value) {
  code |= (value & ((std::uint64_t{1} << width) - 1)) << shift;
}
int Get(std::uint64_t code, int shift, int width) {
  return static_cast<int>((code >> shift) & ((std::uint64_t{1} << width) - 1));
}

// The jokers of one kind the rules put in the deck: the first `count` ids
// from `first`.
CardSet JokersOf(int first, int count) { return ((CardSet{1} << count) - 1) << first; }

// What a seat may play now: the cards, and the cards an ally may count as.
struct Playable {
  CardSet cards = 0;
  CardSet ally_as = 0;
};

// Lowers a standing to one number: further first, then more threat, and the
// Frost Dragon's victims below every survivor. Threat stays below 10, so
// the key is 10 × space + threat.
static_assert(kThreatLimit <= 10, "threat must fit in the standing key's last digit");
int StandingKey(const Adventurer& a, bool eaten) {
  return 10 * a.space + a.threat - (eaten ? 10 * kEatenPenalty : 0);
}

absl::string_view RankName(int rank) {
  static constexpr std::array<absl::string_view, kNumRanks> kNames = {
      "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"};
  return kNames[rank - kLowestRank];
}

absl::string_view PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kChooseTrump:
      return "trump";
    case Phase::kBoast:
      return "boasting";
    case Phase::kPlay:
      return "challenges";
    case Phase::kOver:
      return "over";
  }
  return "";
}

absl::string_view EndName(EndReason end) {
  switch (end) {
    case EndReason::kNotOver:
      return "";
    case EndReason::kTreasureReached:
      return "an adventurer reached the treasure";
    case EndReason::kQuestCap:
      return "the quest cap was reached";
    case EndReason::kDeckExhausted:
      return "too few cards were left to deal";
  }
  return "";
}

std::string CardsText(CardSet cards) {
  std::string out;
  for (; cards != 0; cards &= cards - 1) {
    if (!out.empty()) out += ' ';
    out += CardShort(Lowest(cards));
  }
  return out.empty() ? "-" : out;
}

std::string PlayedText(const PlayedCard& played) {
  if (KindOf(played.card) == CardKind::kAlly) {
    return absl::StrCat(CardShort(played.card), "=", CardShort(played.as));
  }
  return CardShort(played.card);
}

std::string ChallengeText(const Challenge& challenge) {
  std::vector<std::string> cards;
  for (int i = 0; i < challenge.size; ++i) {
    cards.push_back(absl::StrCat(challenge.cards[i].seat, ":", PlayedText(challenge.cards[i])));
  }
  return absl::StrCat("led by seat ", challenge.leader, " [", absl::StrJoin(cards, " "), "]");
}

std::string WinnerText(Seat winner) {
  return winner < 0 ? "nobody" : absl::StrCat("seat ", winner);
}

// A match the deck ended stopped as its next quest would have begun: the
// view's quest is that quest, which was never dealt, boasted or played.
std::string DeckRanOutText(const FrostDragonView& view) {
  return absl::StrCat("the deck ran out before quest ", view.quest, " could begin (",
                      view.cards_in_match, view.cards_in_match == 1 ? " card" : " cards",
                      " left for ", view.players.size(), " adventurers)");
}

}  // namespace

absl::string_view KingdomName(int kingdom) {
  static constexpr std::array<absl::string_view, kNumKingdoms> kNames = {"Mountain", "Forest",
                                                                         "River", "Glacier"};
  return kNames[kingdom];
}

std::string CardName(int card) {
  switch (KindOf(card)) {
    case CardKind::kKingdom:
      return absl::StrCat(RankName(RankOf(card)), " of ", KingdomName(KingdomOf(card)));
    case CardKind::kAlly: {
      static constexpr std::array<absl::string_view, kMaxJokersOfAKind> kAllies = {
          "Leprechaun", "Rogue", "Fairy", "Imp"};
      return std::string(kAllies[card - kFirstAlly]);
    }
    case CardKind::kTreasure:
      return "Treasure joker";
    case CardKind::kDragon:
      return "Dragon joker";
  }
  return "";
}

std::string CardShort(int card) {
  switch (KindOf(card)) {
    case CardKind::kKingdom:
      return absl::StrCat(RankName(RankOf(card)), KingdomName(KingdomOf(card)).substr(0, 1));
    case CardKind::kAlly: {
      static constexpr std::array<absl::string_view, kMaxJokersOfAKind> kAllies = {"Lep", "Rog",
                                                                                   "Fai", "Imp"};
      return std::string(kAllies[card - kFirstAlly]);
    }
    case CardKind::kTreasure:
      return "Tre";
    case CardKind::kDragon:
      return "Dra";
  }
  return "";
}

absl::string_view ActionSpaceName(ActionSpaceKind kind) {
  switch (kind) {
    case ActionSpaceKind::kSleepingOrc:
      return "Sleeping Orc";
    case ActionSpaceKind::kSlipperyBridge:
      return "Slippery Bridge";
    case ActionSpaceKind::kLeprechaunsTreasure:
      return "Leprechaun's Treasure";
    case ActionSpaceKind::kCatapult:
      return "Catapult";
    case ActionSpaceKind::kMindTheGap:
      return "Mind the Gap";
  }
  return "";
}

CardSet Rules::Deck() const {
  return kAllKingdomCards | JokersOf(kFirstAlly, ally_jokers) |
         JokersOf(kFirstTreasure, treasure_jokers) | JokersOf(kFirstDragon, dragon_jokers);
}

int LeadKingdom(const Rules& rules, std::span<const PlayedCard> cards, bool complete) {
  for (const PlayedCard& played : cards) {
    const CardKind kind = KindOf(played.card);
    if (kind == CardKind::kKingdom || (kind == CardKind::kAlly && rules.ally_sets_lead)) {
      return KingdomOf(played.as);
    }
  }
  if (complete) {
    for (const PlayedCard& played : cards) {
      if (KindOf(played.card) == CardKind::kAlly) return KingdomOf(played.as);
    }
  }
  return kNoKingdom;
}

int HandSize(int num_players, int cards) {
  return std::min(kHandSizeChart[num_players], cards / num_players);
}

// ---------------------------------------------------------------- Moves

Move Move::ChooseTrump(int kingdom) { return {.kind = Kind::kChooseTrump, .kingdom = kingdom}; }
Move Move::Boast(int boast) { return {.kind = Kind::kBoast, .boast = boast}; }
Move Move::Play(int card, int as) {
  return {.kind = Kind::kPlay, .card = card, .as = KindOf(card) == CardKind::kAlly ? as : 0};
}

Action Move::Encode() const {
  std::uint64_t code = 0;
  Put(code, 0, 2, static_cast<std::uint64_t>(kind));
  switch (kind) {
    case Kind::kChooseTrump:
      Put(code, 2, 2, kingdom);
      break;
    case Kind::kBoast:
      Put(code, 2, 6, boast);
      break;
    case Kind::kPlay:
      Put(code, 2, 6, card);
      Put(code, 8, 6, as);
      break;
  }
  return Action(code);
}

std::optional<Move> Move::Decode(Action action) {
  const std::uint64_t code = action.code();
  const int kind = Get(code, 0, 2);
  Move move;
  std::uint64_t used = 0;
  switch (kind) {
    case static_cast<int>(Kind::kChooseTrump):
      move = ChooseTrump(Get(code, 2, 2));
      used = 0xf;
      break;
    case static_cast<int>(Kind::kBoast):
      move = Boast(Get(code, 2, 6));
      used = 0xff;
      break;
    case static_cast<int>(Kind::kPlay):
      move = Play(Get(code, 2, 6), Get(code, 8, 6));
      if (KindOf(move.card) == CardKind::kAlly) {
        if (move.as >= kNumKingdomCards) return std::nullopt;
        used = 0x3fff;
      } else {
        used = 0xff;
      }
      break;
    default:
      return std::nullopt;
  }
  if ((code & ~used) != 0) return std::nullopt;  // one code per move
  return move;
}

// ---------------------------------------------------------------- State

FrostDragonState::FrostDragonState(const Rules& rules, Position position,
                                   std::vector<Challenge> challenges)
    : rules_(rules), position_(std::move(position)), challenges_(std::move(challenges)) {}

int FrostDragonState::num_players() const { return position_.num_players; }

bool FrostDragonState::IsOver() const { return position_.phase == Phase::kOver; }

Seats FrostDragonState::SeatsToAct() const {
  if (IsOver()) return {};
  return {position_.to_act};
}

namespace {

Playable PlayableCards(const Position& p, Seat seat) {
  const CardSet hand = p.hands[seat];
  const Challenge& c = p.challenge;
  if (c.size == 0) {
    const CardSet trump = p.trump == kNoKingdom ? 0 : KingdomCards(p.trump);
    if (!p.trump_led && (hand & kAllKingdomCards & ~trump) != 0) {
      // Not yet: trump may not be led (by a trump card or an ally named as
      // one) while the leader holds another kingdom.
      return {hand & ~trump, kAllKingdomCards & ~trump};
    }
    return {hand, kAllKingdomCards};
  }
  if (c.lead_kingdom != kNoKingdom) {
    const CardSet follow = hand & KingdomCards(c.lead_kingdom);
    if (follow != 0) return {follow | (hand & kJokers), kAllKingdomCards};
  }
  return {hand, kAllKingdomCards};
}

}  // namespace

void FrostDragonState::LegalActions(Seat seat, std::vector<Action>* out) const {
  out->clear();
  const Position& p = position_;
  if (IsOver() || seat != p.to_act) return;
  switch (p.phase) {
    case Phase::kChooseTrump:
      for (int k = 0; k < kNumKingdoms; ++k) out->push_back(Move::ChooseTrump(k).Encode());
      break;
    case Phase::kBoast: {
      const int most = std::min(p.hand_size, kLastSpace - p.adventurers[seat].space);
      for (int b = 0; b <= most; ++b) out->push_back(Move::Boast(b).Encode());
      break;
    }
    case Phase::kPlay: {
      const Playable playable = PlayableCards(p, seat);
      for (CardSet cards = playable.cards; cards != 0; cards &= cards - 1) {
        const int card = Lowest(cards);
        if (KindOf(card) != CardKind::kAlly) {
          out->push_back(Move::Play(card).Encode());
          continue;
        }
        for (CardSet as = playable.ally_as; as != 0; as &= as - 1) {
          out->push_back(Move::Play(card, Lowest(as)).Encode());
        }
      }
      break;
    }
    case Phase::kOver:
      break;
  }
}

absl::Status FrostDragonState::CheckPlay(Seat seat, const Move& move) const {
  const Position& p = position_;
  if ((p.hands[seat] & Bit(move.card)) == 0) {
    return Illegal(absl::StrCat("you do not hold the ", CardName(move.card)));
  }
  const Playable playable = PlayableCards(p, seat);
  const Challenge& c = p.challenge;
  if ((playable.cards & Bit(move.card)) == 0) {
    if (c.size == 0) {
      return Illegal(absl::StrCat("trump (", KingdomName(p.trump),
                                  ") may not be led until a challenge has been led in trump, "
                                  "while you hold another kingdom"));
    }
    return Illegal(absl::StrCat("follow the lead kingdom (", KingdomName(c.lead_kingdom),
                                "): you hold a card of it (a joker may always be played)"));
  }
  if (KindOf(move.card) == CardKind::kAlly && (playable.ally_as & Bit(move.as)) == 0) {
    return Illegal(absl::StrCat("the ", CardName(move.card), " may not be led as the ",
                                CardName(move.as), ": trump may not be led yet"));
  }
  return absl::OkStatus();
}

absl::Status FrostDragonState::Apply(Seat seat, Action action) {
  Position& p = position_;
  if (IsOver()) return absl::FailedPreconditionError("the match is over");
  if (seat != p.to_act) {
    return absl::FailedPreconditionError(absl::StrCat("seat ", seat, " is not to act now"));
  }
  const std::optional<Move> decoded = Move::Decode(action);
  if (!decoded) return Illegal("that code is no Frost Dragon's Treasure action");
  const Move& move = *decoded;
  const int n = num_players();
  switch (p.phase) {
    case Phase::kChooseTrump:
      if (move.kind != Move::Kind::kChooseTrump) {
        return Illegal("the Fate must name the trump kingdom now");
      }
      movements_.clear();
      p.trump = move.kingdom;
      Deal();
      return absl::OkStatus();
    case Phase::kBoast: {
      if (move.kind != Move::Kind::kBoast) return Illegal("it is time to boast");
      Adventurer& a = p.adventurers[seat];
      if (move.boast > p.hand_size) {
        return Illegal(absl::StrCat("a boast of ", move.boast, " is more than the ", p.hand_size,
                                    " challenges of this quest"));
      }
      if (a.space + move.boast > kLastSpace) {
        return Illegal(absl::StrCat("a boast of ", move.boast,
                                    " would put your marker past the last treasure space (",
                                    kLastSpace, ")"));
      }
      movements_.clear();
      a.boast = move.boast;
      a.marker = a.space + move.boast;
      a.reached_marker = move.boast == 0;
      p.to_act = (seat + 1) % n;
      if (p.to_act == (p.fate + 1) % n) {
        // Every marker is placed: the highest boaster leads, the first of
        // them in boasting order on a tie.
        Seat leader = p.to_act;
        for (int i = 1; i < n; ++i) {
          const Seat s = (p.fate + 1 + i) % n;
          if (p.adventurers[s].boast > p.adventurers[leader].boast) leader = s;
        }
        p.phase = Phase::kPlay;
        p.challenge = Challenge{.leader = leader};
        p.to_act = leader;
      }
      return absl::OkStatus();
    }
    case Phase::kPlay:
      if (move.kind != Move::Kind::kPlay) return Illegal("it is time to play a card");
      RETURN_IF_ERROR(CheckPlay(seat, move));
      movements_.clear();
      Play(seat, move);
      return absl::OkStatus();
    case Phase::kOver:
      break;
  }
  return absl::FailedPreconditionError("the match is over");
}

void FrostDragonState::Play(Seat seat, const Move& move) {
  Position& p = position_;
  p.hands[seat] &= ~Bit(move.card);
  p.played |= Bit(move.card);
  const CardKind kind = KindOf(move.card);
  const int as = kind == CardKind::kKingdom ? move.card
                 : kind == CardKind::kAlly  ? move.as
                                            : kNoCard;
  Challenge& c = p.challenge;
  c.cards[c.size++] = {seat, move.card, as};
  c.lead_kingdom = LeadKingdom(rules_, std::span(c.cards.data(), c.size), c.size == num_players());
  if (c.lead_kingdom != kNoKingdom && c.lead_kingdom == p.trump) p.trump_led = true;
  if (c.size < num_players()) {
    p.to_act = (seat + 1) % num_players();
    return;
  }
  FinishChallenge();
}

Seat FrostDragonState::ChallengeWinner() const {
  const Position& p = position_;
  const Challenge& c = p.challenge;
  for (int i = c.size - 1; i >= 0; --i) {  // the later of two dragons
    if (KindOf(c.cards[i].card) == CardKind::kDragon) return c.cards[i].seat;
  }
  Seat winner = -1;
  int best = -1;  // 100 + rank for trump, rank for the lead kingdom
  for (int i = 0; i < c.size; ++i) {
    const PlayedCard& played = c.cards[i];
    if (played.as == kNoCard) continue;  // a Treasure joker cannot win
    const int kingdom = KingdomOf(played.as);
    const int strength = kingdom == p.trump          ? 100 + RankOf(played.as)
                         : kingdom == c.lead_kingdom ? RankOf(played.as)
                                                     : -1;
    if (strength >= 0 && strength >= best) {  // a later copy beats an earlier
      best = strength;
      winner = played.seat;
    }
  }
  return winner;
}

void FrostDragonState::FinishChallenge() {
  Position& p = position_;
  Challenge& c = p.challenge;
  const Seat winner = ChallengeWinner();
  c.winner = winner;
  int treasures = 0;
  bool dragon = false;
  for (int i = 0; i < c.size; ++i) {
    treasures += KindOf(c.cards[i].card) == CardKind::kTreasure;
    dragon |= KindOf(c.cards[i].card) == CardKind::kDragon;
  }
  if (winner >= 0) {
    Adventurer& a = p.adventurers[winner];
    ++a.won;
    a.treasures += treasures;
    if (dragon) {
      // The dragon's player stays where they are; every other card of the
      // challenge leaves the match, and the dragons go back to the deck.
      for (int i = 0; i < c.size; ++i) {
        if (KindOf(c.cards[i].card) != CardKind::kDragon) p.removed |= Bit(c.cards[i].card);
      }
    } else {
      Win(winner);
    }
  }
  // A challenge of Treasure jokers alone has no winner: its leader leads again.
  const Seat leader = winner >= 0 ? winner : c.leader;
  p.last_challenge = c;
  challenges_.push_back(c);
  p.challenge = Challenge{.leader = leader};
  if (p.hands[leader] == 0) {
    ResolveBoasts();
    return;
  }
  p.to_act = leader;
}

void FrostDragonState::MoveTo(Seat seat, int space, MoveCause cause, int action_space,
                              bool together_with_next) {
  Adventurer& a = position_.adventurers[seat];
  if (space == a.space) return;
  movements_.push_back({.seat = seat,
                        .from = a.space,
                        .to = space,
                        .cause = cause,
                        .action_space = action_space,
                        .together_with_next = together_with_next});
  a.space = space;
  a.jump_to = -1;
  if (space >= kFinishSpace) position_.final_quest = true;
}

void FrostDragonState::Win(Seat seat) {
  Adventurer& a = position_.adventurers[seat];
  if (a.reached_marker) {
    if (++a.threat >= kThreatLimit) {
      a.threat -= kThreatLimit;
      MoveTo(seat, std::max(kStartSpace, a.space - kThreatSetback), MoveCause::kThreat);
    }
    return;
  }
  if (a.jump_to >= 0) {
    int launcher = -1;
    for (int i = 0; i < kNumActionSpaces; ++i) {
      if (kActionSpaces[i].jump_to == a.jump_to) launcher = i;
    }
    MoveTo(seat, a.jump_to, MoveCause::kJump, launcher);
  } else {
    MoveTo(seat, a.space + 1, MoveCause::kChallenge);
  }
  if (a.space >= a.marker) a.reached_marker = true;
}

void FrostDragonState::ResolveBoasts() {
  Position& p = position_;
  const int n = num_players();
  std::array<int, kMaxPlayers> swaps;  // the swap space each acts on, or -1
  swaps.fill(-1);
  for (Seat s = 0; s < n; ++s) {
    Adventurer& a = p.adventurers[s];
    // A launch given for the next quest only ends with it: this quest's
    // challenges are over (one given in this resolution comes below).
    if (a.jump_to >= 0 && !rules_.catapult_until_used) {
      for (const ActionSpace& action : kActionSpaces) {
        if (action.jump_next_quest_only && action.jump_to == a.jump_to) a.jump_to = -1;
      }
    }
    if (!a.reached_marker) {
      MoveTo(s, std::max(kStartSpace, a.space - (a.marker - a.space)), MoveCause::kShortfall);
    }
    if (a.treasures > 0) {
      MoveTo(s, std::min(kLastSpace, a.space + kTreasureBonus * a.treasures), MoveCause::kTreasure);
    }
    const int index = kActionAt[a.space];
    if (index < 0) continue;
    const ActionSpace& action = kActionSpaces[index];
    if (!ActsOn(action, a.boast, a.reached_marker)) continue;
    switch (action.effect) {
      case Effect::kFall:
        MoveTo(s, action.to, MoveCause::kActionSpace, index);
        break;
      case Effect::kLaunch:
        MoveTo(s, action.to, MoveCause::kActionSpace, index);
        a.jump_to = action.jump_to;
        break;
      case Effect::kSwap:
        swaps[s] = index;
        break;
    }
  }
  // Leprechaun's Treasure waits for everyone else, then each in boasting
  // order swaps with whoever leads at that moment: the furthest, then the
  // most threatening, then the first clockwise from the swapper.
  for (int i = 0; i < n; ++i) {
    const Seat s = (p.fate + 1 + i) % n;
    if (swaps[s] < 0) continue;
    Seat leader = -1;
    for (int j = 1; j < n; ++j) {
      const Seat other = (s + j) % n;
      const Adventurer& o = p.adventurers[other];
      if (leader < 0 || o.space > p.adventurers[leader].space ||
          (o.space == p.adventurers[leader].space && o.threat > p.adventurers[leader].threat)) {
        leader = other;
      }
    }
    const int mine = p.adventurers[s].space;
    const int theirs = p.adventurers[leader].space;
    if (theirs > mine) {
      MoveTo(s, theirs, MoveCause::kActionSpace, swaps[s], /*together_with_next=*/true);
      MoveTo(leader, mine, MoveCause::kActionSpace, swaps[s]);
    }
  }
  for (Seat s = 0; s < n; ++s) {
    if (p.adventurers[s].space >= kFinishSpace) {
      p.phase = Phase::kOver;
      p.end = EndReason::kTreasureReached;
      return;
    }
  }
  if (p.quest >= rules_.max_quests) {
    p.phase = Phase::kOver;
    p.end = EndReason::kQuestCap;
    return;
  }
  ++p.quest;
  p.fate = (p.fate + 1) % n;
  StartQuest();
}

void FrostDragonState::StartQuest() {
  Position& p = position_;
  const int n = num_players();
  for (Seat s = 0; s < n; ++s) {
    Adventurer& a = p.adventurers[s];
    a.boast = a.marker = -1;
    a.reached_marker = false;
    a.won = a.treasures = 0;
    p.hands[s] = 0;
  }
  p.out_of_play = p.played = 0;
  challenges_.clear();
  p.trump_led = false;
  p.final_quest = false;
  p.challenge = Challenge{};
  p.hand_size = HandSize(n, Count(rules_.Deck() & ~p.removed));
  if (p.hand_size == 0) {
    p.phase = Phase::kOver;
    p.end = EndReason::kDeckExhausted;
    return;
  }
  if (rules_.trump_every_quest || p.trump == kNoKingdom) {
    p.trump = kNoKingdom;
    p.phase = Phase::kChooseTrump;
    p.to_act = p.fate;
    return;
  }
  Deal();
}

void FrostDragonState::Deal() {
  Position& p = position_;
  const int n = num_players();
  std::array<int, kNumCardIds> deck;
  int size = 0;
  for (CardSet cards = rules_.Deck() & ~p.removed; cards != 0; cards &= cards - 1) {
    deck[size++] = Lowest(cards);
  }
  p.rng.Shuffle(std::span<int>(deck.data(), size));
  // One at a time from the Fate's left.
  const int dealt = p.hand_size * n;
  for (int i = 0; i < dealt; ++i) p.hands[(p.fate + 1 + i) % n] |= Bit(deck[i]);
  for (int i = dealt; i < size; ++i) p.out_of_play |= Bit(deck[i]);
  p.phase = Phase::kBoast;
  p.to_act = (p.fate + 1) % n;
}

bool FrostDragonState::Eaten(Seat seat) const {
  if (!IsOver()) return false;
  const Position& p = position_;
  // The tie-break of last resort: when the lead is shared on space and
  // threat in the lair (beyond the finish), the Frost Dragon eats everyone
  // in its lair, and the survivors are ranked without them.
  int best = -1, sharing = 0;
  for (Seat s = 0; s < num_players(); ++s) {
    const int key = StandingKey(p.adventurers[s], false);
    if (key > best) {
      best = key;
      sharing = 1;
    } else if (key == best) {
      ++sharing;
    }
  }
  const bool dragon_appears = sharing >= 2 && best / 10 > kFinishSpace;
  return dragon_appears && p.adventurers[seat].space > kFinishSpace;
}

std::array<double, kMaxPlayers> FrostDragonState::AllScores() const {
  std::array<double, kMaxPlayers> scores{};
  for (Seat s = 0; s < num_players(); ++s) {
    scores[s] = StandingKey(position_.adventurers[s], Eaten(s)) / 10.0;
  }
  return scores;
}

std::vector<double> FrostDragonState::Scores() const {
  HOARD_CHECK(IsOver(), "scores are final only once the match is over");
  const std::array<double, kMaxPlayers> scores = AllScores();
  return std::vector<double>(scores.begin(), scores.begin() + num_players());
}

std::vector<int> FrostDragonState::Ranks() const {
  HOARD_CHECK(IsOver(), "ranks are final only once the match is over");
  std::vector<int> keys;
  for (Seat s = 0; s < num_players(); ++s) {
    keys.push_back(StandingKey(position_.adventurers[s], Eaten(s)));
  }
  return RanksFromKeys(keys);
}

// ---------------------------------------------------------------- Views

std::unique_ptr<View> FrostDragonState::ViewFor(Seat observer) const {
  const Position& p = position_;
  auto view = std::make_unique<FrostDragonView>();
  view->observer = observer;
  view->rules = rules_;
  view->quest = p.quest;
  view->fate = p.fate;
  view->trump = p.trump;
  view->trump_led = p.trump_led;
  view->hand_size = p.hand_size;
  view->cards_in_match = Count(rules_.Deck() & ~p.removed);
  view->out_of_play = Count(p.out_of_play);
  view->removed = p.removed;
  view->played = p.played;
  view->phase = p.phase;
  view->to_act = p.to_act;
  view->challenge = p.challenge;
  view->last_challenge = p.last_challenge;
  view->challenges = challenges_;
  view->final_quest = p.final_quest;
  for (Seat s = 0; s < num_players(); ++s) {
    PlayerView player;
    player.adventurer = p.adventurers[s];
    player.hand_size = Count(p.hands[s]);
    if (s == observer) player.hand = p.hands[s];
    view->players.push_back(player);
  }
  view->end = p.end;
  if (IsOver()) view->scores = Scores();
  return view;
}

std::string FrostDragonView::ToString() const {
  const absl::string_view trump_name = trump == kNoKingdom ? "not named" : KingdomName(trump);
  std::string out =
      end == EndReason::kDeckExhausted
          ? absl::StrCat(DeckRanOutText(*this), ", trump ", trump_name, ", ", PhaseName(phase))
          : absl::StrCat("quest ", quest, ", Fate seat ", fate, ", trump ", trump_name,
                         trump_led ? " (led)" : "", ", ", hand_size, " cards each, ",
                         PhaseName(phase));
  if (phase != Phase::kOver) absl::StrAppend(&out, ", seat ", to_act, " to act");
  if (final_quest) absl::StrAppend(&out, ", the final quest");
  absl::StrAppend(&out, "\ncards in the match ", cards_in_match, ", out of play ", out_of_play,
                  ", removed ", CardsText(removed), "\n");
  absl::StrAppend(&out, "played this quest: ", CardsText(played), "\n");
  if (challenge.size > 0) absl::StrAppend(&out, "challenge ", ChallengeText(challenge), "\n");
  if (challenges.empty() && last_challenge.size > 0) {
    absl::StrAppend(&out, "last challenge ", ChallengeText(last_challenge), ", won by ",
                    WinnerText(last_challenge.winner), "\n");
  }
  for (std::size_t i = 0; i < challenges.size(); ++i) {
    absl::StrAppend(&out, "challenge ", i + 1, " of this quest ", ChallengeText(challenges[i]),
                    ", won by ", WinnerText(challenges[i].winner), "\n");
  }
  for (std::size_t s = 0; s < players.size(); ++s) {
    const Adventurer& a = players[s].adventurer;
    absl::StrAppend(&out, "seat ", s, ": space ", a.space, ", threat ", a.threat);
    if (a.boast >= 0) {
      absl::StrAppend(&out, ", boast ", a.boast, " (marker ", a.marker,
                      a.reached_marker ? ", reached" : "", ")");
    }
    absl::StrAppend(&out, ", won ", a.won);
    if (a.treasures > 0) absl::StrAppend(&out, ", treasures ", a.treasures);
    if (a.jump_to >= 0) absl::StrAppend(&out, ", next win jumps to ", a.jump_to);
    absl::StrAppend(&out, ", ", players[s].hand_size, " cards");
    if (players[s].hand) absl::StrAppend(&out, " (", CardsText(*players[s].hand), ")");
    out += '\n';
  }
  if (end != EndReason::kNotOver) absl::StrAppend(&out, "over: ", EndName(end), "\n");
  if (!scores.empty()) absl::StrAppend(&out, "scores ", absl::StrJoin(scores, ", "), "\n");
  return out;
}

std::string FrostDragonView::Summary() const {
  std::vector<std::string> spaces, threats, boasts;
  for (const PlayerView& player : players) {
    spaces.push_back(absl::StrCat(player.adventurer.space));
    threats.push_back(absl::StrCat(player.adventurer.threat));
    boasts.push_back(player.adventurer.boast < 0
                         ? "-"
                         : absl::StrCat(player.adventurer.won, "/", player.adventurer.boast));
  }
  std::string table;
  if (challenge.size > 0) {
    table = absl::StrCat(" | challenge ", ChallengeText(challenge));
  } else if (last_challenge.size > 0 && phase == Phase::kPlay) {
    table = absl::StrCat(" | last won by ", WinnerText(last_challenge.winner));
  }
  const std::string quest_text = end == EndReason::kDeckExhausted
                                     ? DeckRanOutText(*this)
                                     : absl::StrCat("quest ", quest, " ", PhaseName(phase));
  return absl::StrCat(quest_text, ", trump ", trump == kNoKingdom ? "-" : KingdomName(trump), table,
                      " | spaces ", absl::StrJoin(spaces, " "), " | threat ",
                      absl::StrJoin(threats, " "), " | won/boast ", absl::StrJoin(boasts, " "));
}

std::string FrostDragonState::ActionToString(Seat seat, Action action) const {
  (void)seat;
  const std::optional<Move> move = Move::Decode(action);
  if (!move) return "(not an action)";
  switch (move->kind) {
    case Move::Kind::kChooseTrump:
      return absl::StrCat("name ", KingdomName(move->kingdom), " trump");
    case Move::Kind::kBoast:
      return absl::StrCat("boast ", move->boast);
    case Move::Kind::kPlay:
      if (KindOf(move->card) == CardKind::kAlly) {
        return absl::StrCat("play the ", CardName(move->card), " as the ", CardName(move->as));
      }
      return absl::StrCat("play the ", CardName(move->card));
  }
  return "";
}

// Compact and complete: every field of the rules and the position,
// described once for the text and the fingerprint (the conformance suite
// compares states by the text).
template <typename Out>
void FrostDragonState::Describe(Out& out) const {
  const Position& p = position_;
  for (int v : {rules_.ally_jokers, rules_.treasure_jokers, rules_.dragon_jokers, rules_.max_quests,
                int{rules_.trump_every_quest}, int{rules_.ally_sets_lead},
                int{rules_.catapult_until_used}}) {
    out.Num(v);
  }
  out.Mark('|');
  for (int v : {p.num_players, p.quest, p.fate, p.trump, int{p.trump_led}, p.hand_size,
                static_cast<int>(p.phase), p.to_act, int{p.final_quest}, static_cast<int>(p.end)}) {
    out.Num(v);
  }
  out.Mask(p.out_of_play);
  out.Mask(p.removed);
  out.Mask(p.played);
  for (Seat s = 0; s < p.num_players; ++s) {
    const Adventurer& a = p.adventurers[s];
    out.Mark('|');
    out.Mask(p.hands[s]);
    for (int v : {a.space, a.threat, a.boast, a.marker, int{a.reached_marker}, a.won, a.treasures,
                  a.jump_to}) {
      out.Num(v);
    }
  }
  for (const Challenge* c : {&p.challenge, &p.last_challenge}) {
    out.Mark('|');
    for (int v : {c->leader, c->size, c->lead_kingdom, c->winner}) out.Num(v);
    for (int i = 0; i < c->size; ++i) {
      for (int v : {c->cards[i].seat, c->cards[i].card, c->cards[i].as}) out.Num(v);
    }
  }
  out.Mark('|');
  out.Wide(Rng(p.rng).Next());
}

std::string FrostDragonState::ToString() const {
  return TextOf([this](auto& out) { Describe(out); });
}

std::uint64_t FrostDragonState::Fingerprint() const {
  return FingerprintOf([this](auto& out) { Describe(out); });
}

std::vector<Zone> FrostDragonState::Zones() const {
  const Position& p = position_;
  auto zone = [](std::string name, CardSet cards) {
    Zone z{std::move(name), {}};
    for (; cards != 0; cards &= cards - 1) z.cards.push_back(CardShort(Lowest(cards)));
    return z;
  };
  CardSet undealt = rules_.Deck() & ~p.removed & ~p.out_of_play & ~p.played;
  for (Seat s = 0; s < num_players(); ++s) undealt &= ~p.hands[s];
  std::vector<Zone> zones;
  zones.push_back(zone("deck", undealt));
  for (Seat s = 0; s < num_players(); ++s) {
    zones.push_back(zone(absl::StrCat("seat ", s, " hand"), p.hands[s]));
  }
  zones.push_back(zone("out of play", p.out_of_play));
  zones.push_back(zone("removed", p.removed));
  return zones;
}

std::unique_ptr<State> FrostDragonState::Clone() const {
  return std::make_unique<FrostDragonState>(*this);
}

// ---------------------------------------------------------------- Setup

absl::StatusOr<Rules> RulesFromConfig(const GameInfo& info, const MatchConfig& config) {
  Rules rules;
  auto number = [&](const std::string& name, int low, int high, int* out) -> absl::Status {
    const std::string value = OptionValue(info, config, name);
    if (!absl::SimpleAtoi(value, out) || *out < low || *out > high) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " must be a number from ", low, " to ", high, ", not '", value, "'"));
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(number("ally_jokers", 0, kMaxJokersOfAKind, &rules.ally_jokers));
  RETURN_IF_ERROR(number("treasure_jokers", 0, kMaxJokersOfAKind, &rules.treasure_jokers));
  RETURN_IF_ERROR(number("dragon_jokers", 0, kMaxJokersOfAKind, &rules.dragon_jokers));
  if (config.num_players >= kMinPlayers && config.num_players <= kMaxPlayers &&
      rules.dragon_jokers > kMaxDragonJokers[config.num_players]) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dragon_jokers may be at most ", kMaxDragonJokers[config.num_players], " with ",
        config.num_players, " players (each dragon removes the other players' cards), not ",
        rules.dragon_jokers));
  }
  RETURN_IF_ERROR(number("max_quests", kMinQuestsLimit, kMaxQuestsLimit, &rules.max_quests));
  RETURN_IF_ERROR(
      ReadTwoWayOption(info, config, "trump", "once", "every_quest", &rules.trump_every_quest));
  RETURN_IF_ERROR(ReadTwoWayOption(info, config, "lead_kingdom", "first_card", "first_card_or_ally",
                                   &rules.ally_sets_lead));
  RETURN_IF_ERROR(ReadTwoWayOption(info, config, "catapult", "next_quest", "until_used",
                                   &rules.catapult_until_used));
  return rules;
}

Position NewPosition(const Rules& rules, int num_players, Rng& rng) {
  Position p;
  p.num_players = num_players;
  // The spin of a card picks the first Fate.
  p.fate = static_cast<Seat>(rng.Uniform(num_players));
  p.hand_size = HandSize(num_players, Count(rules.Deck()));
  p.phase = Phase::kChooseTrump;
  p.to_act = p.fate;
  p.rng = Rng(rng.Fork());
  return p;
}

namespace {

class FrostDragonGame final : public Game {
 public:
  FrostDragonGame() {
    info_.id = "frost_dragon";
    info_.name = "Frost Dragon's Treasure";
    info_.min_players = kMinPlayers;
    info_.max_players = kMaxPlayers;
    info_.ruleset_version = "3";
    info_.options = {
        {"ally_jokers", "4",
         "ally jokers in the deck: Leprechaun, Rogue, Fairy, Imp, the first n (0 to 4)"},
        {"treasure_jokers", "2", "Treasure jokers in the deck (0 to 4)"},
        {"dragon_jokers", "1",
         "Dragon jokers in the deck: 0 to 4 with two players, 0 to 2 with three, 0 to 1 with "
         "four"},
        {"max_quests", "20", "quests before the match ends regardless (20 to 100)"},
        {"trump", "once",
         "once: the first Fate names trump for the whole match; every_quest: each Fate names it"},
        {"lead_kingdom", "first_card",
         "first_card: the first card played that is not a joker sets a challenge's lead kingdom; "
         "first_card_or_ally: an ally joker sets it too"},
        {"catapult", "next_quest",
         "next_quest: a Catapult's launch lasts the next quest only; until_used: it waits until "
         "used"},
    };
    // Each quest: the trump, a boast each, and every dealt card (at most
    // 54, with three players, of the 64 card ids).
    info_.max_actions = kMaxQuestsLimit * (1 + kMaxPlayers + kNumCardIds);
  }

  const GameInfo& info() const override { return info_; }

  absl::StatusOr<std::unique_ptr<State>> NewMatch(const MatchConfig& config) const override {
    RETURN_IF_ERROR(ValidateConfig(info_, config));
    ASSIGN_OR_RETURN(const Rules rules, RulesFromConfig(info_, config));
    Rng rng(config.seed);
    return std::make_unique<FrostDragonState>(rules, NewPosition(rules, config.num_players, rng));
  }

 private:
  GameInfo info_;
};

}  // namespace

std::unique_ptr<Game> MakeGame() { return std::make_unique<FrostDragonGame>(); }

}  // namespace hoard::engine::frost_dragon
