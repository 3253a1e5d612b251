#ifndef HOARD_ENGINE_GAMES_VILLAGE_VILLAGE_H_
#define HOARD_ENGINE_GAMES_VILLAGE_VILLAGE_H_

// Please Don't Burn My Village! (game id "village", 2–5 players).
//
// Six kinds of treasure (14 cards each) and a number of wild gold coins that
// depends on the player count make the deck. A row of six spaces, the
// Dragon's Favor, holds one token per treasure type; a type is worth the
// value of the space its token stands on (1, 1, 2, 2, 3, 4 from left to
// right by default). Below it the Black Market has four stalls costing 3, 2,
// 1 and 0 cards.
//
// On a turn a player does one of three things:
//  * Bribe: play cards of one treasure type plus any wilds, starting a new
//    bribe of that type (it needs at least one real treasure) or adding to
//    the one they already have (wilds alone may do that). The type's token
//    moves one space right per card, to the right end at most; the tokens it
//    passes shift one space left. Then the market is refilled: cards are
//    turned over into stalls 3, 2, 1, 0, 3, ... until one of the bribed type
//    or a wild has been placed.
//  * Buy: take every card of a non-empty stall, discarding exactly its cost
//    (at least one real treasure among them unless the stall is free), and
//    curse one of the discarded types: its token moves one space left per
//    card paid, and the tokens it passes shift right. Stall 0 is free and
//    curses nothing.
//  * Draw the top card of the deck.
// The match ends when a player must draw, or refill the market, and the deck
// is empty (by default; see EndRule). Treasures in hand then join the
// player's bribe of the same type, if any (see MergeRule). Each card in a
// bribe scores its type's value; each treasure left in hand costs its value
// and each wild left in hand costs 2. Ties go to the player with more bribe
// cards of the type on the rightmost space, then the next space to the left,
// and so on; players still tied share the rank (see TieBreak).
//
// docs/rules/village.md states these rules in full, with every gap in the
// rulebook and how Hoard fills it.

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "engine/game.h"
#include "engine/match_stats.h"
#include "engine/sampler.h"

namespace hoard::engine::village {

// Card kinds: the six treasure types, then the wild gold coin.
enum Card : int {
  kSword = 0,
  kScroll,
  kFeather,
  kPotion,
  kAxe,
  kCrown,
  kWild,
};
inline constexpr int kNumTreasureTypes = 6;
inline constexpr int kNumCardKinds = 7;
// "No treasure type": a draw, or a purchase from the free stall.
inline constexpr int kNoTreasure = 7;

inline constexpr int kFavorSpaces = 6;
inline constexpr int kNumStalls = 4;  // stall i costs i cards
inline constexpr int kCardsPerTreasureType = 14;
// Points each wild left in hand costs at the end.
inline constexpr int kWildPenalty = 2;
inline constexpr int kDefaultHandSize = 7;
inline constexpr int kMaxHandSize = 12;
inline constexpr int kMaxWilds = 40;
inline constexpr int kMaxFavorValue = 100;
// The seat that takes the first turn (the rulebook's "player who most
// recently put out a fire").
inline constexpr Seat kFirstSeat = 0;
// The stall the deal's market cards and every refill start at; they go on
// down to stall 0, then back to this one.
inline constexpr int kFirstRefillStall = kNumStalls - 1;
// Values of the Dragon's Favor spaces, left to right.
inline constexpr std::array<int, kFavorSpaces> kDefaultFavorValues = {1, 1, 2, 2, 3, 4};
// Wild cards in the deck for 2, 3, 4 and 5 players.
inline constexpr std::array<int, 4> kDefaultWilds = {11, 13, 18, 20};

absl::string_view CardName(int card);        // "sword", ..., "wild"
absl::string_view CardNamePlural(int card);  // "swords", ..., "wilds"

// How many cards of each kind, indexed by Card.
using Counts = std::array<int, kNumCardKinds>;

// When the match ends (the option `end`).
enum class EndRule {
  // When a player must take a card from an empty deck: a draw, or a refill
  // that runs out before a card of the bribed type or a wild is placed.
  // Taking the last card ends nothing (end=draw_fails, the default).
  kDrawFails = 0,
  // Also as soon as an action leaves the deck empty (end=deck_empty).
  kDeckEmpty = 1,
};

// What happens at the end to treasures in hand of a type the player has
// bribed (the option `merge`).
enum class MergeRule {
  // They join that bribe (merge=auto, the default).
  kAuto = 0,
  // They stay in hand and cost their value (merge=none).
  kNone = 1,
};

// How equal scores are ranked (the option `tie_break`).
enum class TieBreak {
  // More bribe cards (wilds included) under the rightmost token ranks
  // first, then under the next token to the left, and so on; players still
  // tied share the rank (tie_break=favor, the default).
  kFavor = 0,
  // Equal scores share the rank (tie_break=none).
  kNone = 1,
};

// The rules a match is played by (the configurable decisions).
struct Rules {
  std::array<int, kFavorSpaces> favor_values = kDefaultFavorValues;
  int wilds = kDefaultWilds[2];
  int hand_size = kDefaultHandSize;
  EndRule end = EndRule::kDrawFails;
  MergeRule merge = MergeRule::kAuto;
  TieBreak tie_break = TieBreak::kFavor;
  bool operator==(const Rules&) const = default;
};

// One player's bribe of one type. It exists once it holds a treasure.
struct Bribe {
  int treasures = 0;
  int wilds = 0;
  int size() const { return treasures + wilds; }
  bool operator==(const Bribe&) const = default;
};
using Bribes = std::array<Bribe, kNumTreasureTypes>;

// Why the match ended. kDeckEmptied only under end=deck_empty: an action
// left the deck empty.
enum class EndReason { kNotOver, kEmptyDeckDraw, kRefillRanOut, kDeckEmptied };
// "a draw found the deck empty", ...; "" for kNotOver.
absl::string_view EndReasonText(EndReason reason);

// Everything on the table. Public so tests can construct any position.
struct Position {
  // favor[space] is the treasure type whose token is on that space;
  // space 0 is the leftmost (lowest value).
  std::array<int, kFavorSpaces> favor{};
  // market[i]: the cards in the stall costing i.
  std::array<Counts, kNumStalls> market{};
  // The deck; back() is the top card.
  std::vector<int> deck;
  // Cards discarded to pay for purchases (face up, never reused).
  Counts discard{};
  std::vector<Counts> hands;
  std::vector<Bribes> bribes;
  Seat current = 0;
  EndReason end = EndReason::kNotOver;
  bool operator==(const Position&) const = default;
};

// A decoded action. Actions are encoded into 64 bits as:
//   bits 0-1 kind, 2-3 stall, 4-6 treasure type (kNoTreasure if none),
//   then 6 bits per card kind (Counts order) from bit 7.
struct Move {
  enum class Kind { kDraw = 0, kBribe = 1, kBuy = 2 };
  Kind kind = Kind::kDraw;
  int stall = 0;               // kBuy: the stall bought from
  int treasure = kNoTreasure;  // kBribe: the bribe's type; kBuy: the type cursed
  Counts cards{};              // kBribe: cards played; kBuy: cards discarded

  static Move Draw();
  static Move MakeBribe(int treasure, int treasures, int wilds);
  static Move Buy(int stall, const Counts& payment, int curse);

  Action Encode() const;
  // The move encoded by `action`, or nullopt if it encodes no move.
  static std::optional<Move> Decode(Action action);
  bool operator==(const Move&) const = default;
};

// What one seat (or a spectator) sees: everything on the table except the
// deck's order and the hands of others (their sizes are public), and what
// the table knows of each hand. Once the match is over every hand is shown.
struct VillageView final : ComparableView<VillageView> {
  Seat observer = kSpectator;
  Rules rules;
  std::array<int, kFavorSpaces> favor{};
  std::array<Counts, kNumStalls> market{};
  int deck_size = 0;
  Counts discard{};
  std::vector<int> hand_sizes;
  // hands[s] is known for the observer's own seat, and for all once over.
  std::vector<std::optional<Counts>> hands;
  // known[s]: cards everyone knows are in seat s's hand, by kind (see
  // VillageState::known()); the same for every observer.
  std::vector<Counts> known;
  std::vector<Bribes> bribes;
  Seat current = 0;
  EndReason end = EndReason::kNotOver;

  bool operator==(const VillageView&) const = default;
  std::string ToString() const override;
  std::string Summary() const override;
};

// ToString() renders the position, all that the rest of the match depends
// on; its fingerprint is what records and golden matches store. What the
// table knows of each hand is the match's history, which the views carry:
// it lives beside the position, not in it, so it changes no fingerprint.
class VillageState final : public State {
 public:
  // A match at `position`, where the table knows `known` of the hands (by
  // seat, as known() below; none when empty). REQUIRES: `known` is empty or
  // has a row per seat, each row within its hand.
  VillageState(const Rules& rules, Position position, std::vector<Counts> known = {});

  // Seats, legal actions, apply and the rest: see engine/game.h.
  int num_players() const override;
  Seats SeatsToAct() const override;
  using State::LegalActions;
  void LegalActions(Seat seat, std::vector<Action>* out) const override;
  Action DefaultAction(Seat seat) const override;
  absl::Status Apply(Seat seat, Action action) override;
  bool IsOver() const override;
  std::vector<double> Scores() const override;
  std::vector<int> Ranks() const override;
  std::unique_ptr<View> ViewFor(Seat observer) const override;
  std::string ActionToString(Seat seat, Action action) const override;
  std::string ToString() const override;
  std::uint64_t Fingerprint() const override;
  std::vector<Zone> Zones() const override;
  std::unique_ptr<State> Clone() const override;

  const Position& position() const { return position_; }
  const Rules& rules() const { return rules_; }
  // By seat: the cards everyone knows are in that hand. A purchase takes a
  // stall's cards face up, so they become known; cards of a kind that leave
  // the hand (a bribe, a payment) are taken from the known ones first, as
  // nobody can tell a known card from an unknown one of the same kind.
  const std::vector<Counts>& known() const { return known_; }
  // The value of a treasure type now (its token's space).
  int Value(int treasure) const;
  // Score by seat, before the match is over too (the end's merge aside).
  int ScoreOf(Seat seat) const;

 private:
  absl::Status CheckBribe(Seat seat, const Move& move) const;
  absl::Status CheckBuy(Seat seat, const Move& move) const;
  void MoveToken(int treasure, int spaces);
  // Returns false if the deck ran out before a match or a wild was placed.
  bool RefillMarket(int bribed);
  void EndMatch(EndReason reason);

  // Cards of `counts` leave `seat`'s hand: as many known ones go.
  void Forget(Seat seat, const Counts& counts);

  Rules rules_;
  Position position_;
  std::vector<Counts> known_;  // the history: outside the position
  // space_of_[t]: the space of treasure t's token (the inverse of favor).
  std::array<int, kNumTreasureTypes> space_of_{};
  // Bit i set: stall i holds cards.
  unsigned stocked_ = 0;
};

// Parses the village options of `config` (see VillageGame's info()).
absl::StatusOr<Rules> RulesFromConfig(const GameInfo& info, const MatchConfig& config);

// Deals a new match: shuffles the deck, then the favor tokens, deals
// hand_size cards to each seat one at a time, then one card into stalls
// 3, 2, 1 and 0. kFirstSeat starts.
Position Deal(const Rules& rules, int num_players, Rng& rng);

// The game and its deal (engine/sampler.h; village_sampler.cc), for its
// registration (register.cc).
std::unique_ptr<Game> MakeGame();
std::unique_ptr<Sampler> MakeSampler();
// What `hoard stats` counts in its matches (village_stats.cc).
MatchStatistics MakeStatistics();

}  // namespace hoard::engine::village

#endif  // HOARD_ENGINE_GAMES_VILLAGE_VILLAGE_H_
