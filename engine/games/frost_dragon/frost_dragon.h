#ifndef HOARD_ENGINE_GAMES_FROST_DRAGON_FROST_DRAGON_H_
#define HOARD_ENGINE_GAMES_FROST_DRAGON_FROST_DRAGON_H_

// Frost Dragon's Treasure (game id "frost_dragon", 2–4 players).
//
// A trick-taking race along a map. The match is a series of quests. The
// first Fate names the trump kingdom for the whole match; at the start of
// each quest the Fate (the dealer, one seat further left every quest) deals
// the cards by a chart: 14 each to two players, 18 to three, 13 to four;
// leftovers stay face down out of play.
// Each adventurer then boasts how many challenges (tricks) they will win,
// clockwise from the Fate's left, which places their boast marker that many
// spaces ahead of them on the map. The highest boaster leads the first
// challenge; the others follow the lead kingdom if they can, and may always
// play a joker. Trump may not be led until a challenge has been led in
// trump, unless the leader holds nothing else. The first card played that
// is not a joker sets the lead kingdom. The highest trump wins, else the
// highest card of the lead kingdom; the winner leads the next.
//
// Each challenge won moves its winner one space, until they reach their
// marker; after that it earns a point of threat instead, and at 10 threat
// they fall back 10 spaces. Three kinds of joker bend this: an ally joker
// (Leprechaun, Rogue, Fairy, Imp) counts as any card its player names, and
// wins ties against the card it copies; a Treasure joker cannot win, but
// gives whoever wins its challenge 3 spaces at the quest's end; a Dragon
// joker wins its challenge outright, moves nobody, and sends every other
// card of the challenge out of the match.
//
// When the cards are all played, whoever fell short of their marker moves
// back by the shortfall, treasure bonuses are paid, and the action spaces
// the adventurers stand on act: two throw them back, two carry them ahead
// on their next win (the Catapult only during the next quest), and one
// swaps them with the leader. The match ends once a quest leaves someone on
// or beyond the finish; the furthest wins, then the most threatening, then
// — if the tie stands in the Frost Dragon's lair — whoever it does not eat.
//
// docs/rules/frost_dragon.md states the rules as implemented, with every
// gap in the rulebook (the joker counts, the map, the corner cases of
// challenges made of jokers, the tie-breaks, the quest cap) and how Hoard
// fills it.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/game.h"
#include "engine/rng.h"
#include "engine/sampler.h"

namespace hoard::engine::frost_dragon {

inline constexpr int kMinPlayers = 2;
inline constexpr int kMaxPlayers = 4;

// ---- Cards ---------------------------------------------------------------
//
// Every card has an id from 0 to 63, so a set of cards is a 64-bit mask:
//   0-51   the kingdom cards: kingdom * 13 + (rank - 2), ranks 2 to 14 (ace)
//   52-55  the ally jokers: Leprechaun, Rogue, Fairy, Imp
//   56-59  Treasure jokers (as many as the rules put in the deck)
//   60-63  Dragon jokers (likewise)
inline constexpr int kNumKingdoms = 4;
inline constexpr int kNumRanks = 13;
inline constexpr int kLowestRank = 2;
inline constexpr int kAce = 14;
inline constexpr int kNumKingdomCards = kNumKingdoms * kNumRanks;  // 52
inline constexpr int kFirstAlly = 52;
inline constexpr int kFirstTreasure = 56;
inline constexpr int kFirstDragon = 60;
inline constexpr int kMaxJokersOfAKind = 4;
inline constexpr int kNumCardIds = 64;
inline constexpr int kNoCard = -1;
inline constexpr int kNoKingdom = -1;

using CardSet = std::uint64_t;

// The four kingdoms (the rulebook does not name them).
enum Kingdom : int { kMountain = 0, kForest, kRiver, kGlacier };
// The first joker of each kind (the others follow it).
inline constexpr int kLeprechaun = kFirstAlly;
inline constexpr int kRogue = kFirstAlly + 1;
inline constexpr int kFairy = kFirstAlly + 2;
inline constexpr int kImp = kFirstAlly + 3;
inline constexpr int kTreasureJoker = kFirstTreasure;
inline constexpr int kDragonJoker = kFirstDragon;

enum class CardKind : int { kKingdom = 0, kAlly, kTreasure, kDragon };

constexpr CardKind KindOf(int card) {
  return card < kFirstAlly       ? CardKind::kKingdom
         : card < kFirstTreasure ? CardKind::kAlly
         : card < kFirstDragon   ? CardKind::kTreasure
                                 : CardKind::kDragon;
}
constexpr int KingdomCard(int kingdom, int rank) {
  return kingdom * kNumRanks + (rank - kLowestRank);
}
// REQUIRES: KindOf(card) == CardKind::kKingdom.
constexpr int KingdomOf(int card) { return card / kNumRanks; }
constexpr int RankOf(int card) { return card % kNumRanks + kLowestRank; }
constexpr CardSet Bit(int card) { return CardSet{1} << card; }
// Every kingdom card of `kingdom`.
constexpr CardSet KingdomCards(int kingdom) {
  return ((CardSet{1} << kNumRanks) - 1) << (kingdom * kNumRanks);
}
inline constexpr CardSet kAllKingdomCards = (CardSet{1} << kNumKingdomCards) - 1;
inline constexpr CardSet kJokers = ~kAllKingdomCards;

absl::string_view KingdomName(int kingdom);  // "Mountain", ...
// "Q of Forest", "10 of Glacier", "Leprechaun", "Treasure joker",
// "Dragon joker".
std::string CardName(int card);
// "QF", "10G", "Lep", "Tre", "Dra": for one-line summaries.
std::string CardShort(int card);

// Cards dealt to each adventurer by player count (the rulebook's chart).
inline constexpr std::array<int, kMaxPlayers + 1> kHandSizeChart = {0, 0, 14, 18, 13};
inline constexpr int kMaxHandSize = 18;

// ---- The map -------------------------------------------------------------
//
// A track of spaces from the start (0) to the finish, then the treasure
// spaces beyond it, which make the Frost Dragon's lair. Five action spaces
// lie on it; the table below is the whole map.
inline constexpr int kStartSpace = 0;
inline constexpr int kFinishSpace = 25;
inline constexpr int kTreasureSpaces = 5;
inline constexpr int kLastSpace = kFinishSpace + kTreasureSpaces;  // 30
inline constexpr int kNumSpaces = kLastSpace + 1;

// What an action space does to an adventurer who ends a quest on it.
enum class Effect : int {
  kFall = 0,  // moves them to the space `to`
  kSwap,      // once everyone else has moved, swaps them with the leader
  kLaunch,    // moves them to `to`; their next win takes them to `jump_to`
};

enum class ActionSpaceKind : int {
  kSleepingOrc = 0,
  kSlipperyBridge,
  kLeprechaunsTreasure,
  kCatapult,
  kMindTheGap,
};
inline constexpr int kNumActionSpaces = 5;

struct ActionSpace {
  ActionSpaceKind kind;
  int space;  // the A space
  Effect effect;
  int to;       // the B space, or -1
  int jump_to;  // the C space, or -1
  // Only an adventurer who reached their boast marker this quest triggers
  // it (the helpful spaces); the penalty spaces catch everyone.
  bool needs_boast;
  // The jump lasts the next quest only, and is lost if no win of that quest
  // spends it (the Catapult: "launch yourself during the next quest"),
  // unless rules.catapult_until_used. False: the jump waits until used.
  bool jump_next_quest_only;
};

inline constexpr std::array<ActionSpace, kNumActionSpaces> kActionSpaces = {{
    {ActionSpaceKind::kSleepingOrc, 3, Effect::kLaunch, 4, 9, true, false},
    {ActionSpaceKind::kSlipperyBridge, 8, Effect::kFall, 5, -1, false, false},
    // Two spaces short of the finish, where the leader is seldom far ahead:
    // on space 12 the swap decided 42% of four-player matches
    // (docs/rules/frost_dragon.md, "How the game plays").
    {ActionSpaceKind::kLeprechaunsTreasure, 23, Effect::kSwap, -1, -1, true, false},
    {ActionSpaceKind::kCatapult, 15, Effect::kLaunch, 14, 21, true, true},
    {ActionSpaceKind::kMindTheGap, 19, Effect::kFall, 16, -1, false, false},
}};

// A helpful space (needs_boast) acts only on an adventurer who boasted at
// least this many challenges and reached their marker. A boast of 0 is
// reached before the first card, so without it an adventurer could sit on a
// helpful space, boast 0, and have it act every quest (the Leprechaun's swap
// with the leader above all).
inline constexpr int kHelpfulSpaceMinBoast = 1;

// Whether `space` acts on an adventurer who ends the quest on it after
// boasting `boast` and reaching (or not) their marker.
constexpr bool ActsOn(const ActionSpace& space, int boast, bool reached_marker) {
  return !space.needs_boast || (reached_marker && boast >= kHelpfulSpaceMinBoast);
}

// kActionAt[space]: the index in kActionSpaces of the action space there,
// or -1.
inline constexpr std::array<int, kNumSpaces> kActionAt = [] {
  std::array<int, kNumSpaces> at{};
  for (int& a : at) a = -1;
  for (int i = 0; i < kNumActionSpaces; ++i) at[kActionSpaces[i].space] = i;
  return at;
}();

absl::string_view ActionSpaceName(ActionSpaceKind kind);  // "Slippery Bridge", ...

// ---- Movement ------------------------------------------------------------
// Threat that throws an adventurer back, and how far.
inline constexpr int kThreatLimit = 10;
inline constexpr int kThreatSetback = 10;
// Spaces a Treasure joker gives whoever wins its challenge.
inline constexpr int kTreasureBonus = 3;
// A Frost Dragon's victim scores this much less than any survivor.
inline constexpr int kEatenPenalty = 100;

// ---- Rules (the configurable decisions) ----------------------------------
// The quest caps an option may set. Below 20, long matches would end by the
// cap: with no Treasure joker, 0.5% of four-player matches reach it even so.
inline constexpr int kMinQuestsLimit = 20;
inline constexpr int kMaxQuestsLimit = 100;
// The most Dragon jokers the deck may hold, by player count. Each dragon's
// challenge sends the other players' cards out of the match, so the dragons
// times (players - 1) stay at most 4: with two dragons, 41% of four-player
// matches ran out of cards before anyone reached the treasure, and with four
// 84% ran to the quest cap.
inline constexpr std::array<int, kMaxPlayers + 1> kMaxDragonJokers = {0, 0, 4, 2, 1};

struct Rules {
  int ally_jokers = 4;  // Leprechaun, Rogue, Fairy, Imp: the first n
  int treasure_jokers = 2;
  // One dragon: with two, each four-player quest sends about six cards out
  // of the match and 41% of four-player matches ran out of cards before
  // anyone reached the treasure.
  int dragon_jokers = 1;
  int max_quests = 20;  // the quest cap
  // The rulebook's rules are the defaults; each of these is an option that
  // departs from it.
  // Each quest's Fate names trump (trump=every_quest); by default the first
  // Fate names it once for the whole match.
  bool trump_every_quest = false;
  // An ally joker sets a challenge's lead kingdom like a kingdom card
  // (lead_kingdom=first_card_or_ally); by default only a card that is not a
  // joker sets it.
  bool ally_sets_lead = false;
  // A Catapult's launch waits until used (catapult=until_used); by default
  // it lasts the next quest only.
  bool catapult_until_used = false;
  bool operator==(const Rules&) const = default;
  // Every card of the deck under these rules.
  CardSet Deck() const;
};

// ---- The table -----------------------------------------------------------
enum class Phase : int {
  kChooseTrump = 0,  // the Fate names the trump kingdom
  kBoast,            // the boaster places their marker
  kPlay,             // the seat to play adds a card to the challenge
  kOver,
};

enum class EndReason : int {
  kNotOver = 0,
  kTreasureReached,  // a quest left someone on or beyond the finish
  kQuestCap,         // max_quests quests were played
  kDeckExhausted,    // too few cards were left to give everyone one
};

struct Adventurer {
  int space = kStartSpace;
  int threat = 0;
  // This quest's boast and marker space, -1 until placed.
  int boast = -1;
  int marker = -1;
  bool reached_marker = false;  // this quest
  int won = 0;                  // challenges won this quest
  int treasures = 0;            // Treasure jokers won this quest
  // The C space of a Sleeping Orc or Catapult: their next win that moves
  // them goes there. -1 for none; lost when they leave the B space.
  int jump_to = -1;
  bool operator==(const Adventurer&) const = default;
};

// A card played to a challenge. `as` is the card it counts as: itself for a
// kingdom card, the named card for an ally, kNoCard for a Treasure or
// Dragon joker.
struct PlayedCard {
  Seat seat = 0;
  int card = kNoCard;
  int as = kNoCard;
  bool operator==(const PlayedCard&) const = default;
};

struct Challenge {
  Seat leader = 0;
  int size = 0;
  std::array<PlayedCard, kMaxPlayers> cards{};
  // LeadKingdom() of the cards played so far.
  int lead_kingdom = kNoKingdom;
  // Once complete: the winner, or -1 if nobody won it.
  Seat winner = -1;
  bool operator==(const Challenge&) const = default;
};

struct Position {
  int num_players = 0;
  int quest = 1;  // 1-based
  Seat fate = 0;
  int trump = kNoKingdom;
  bool trump_led = false;  // this quest
  int hand_size = 0;       // cards dealt each this quest
  std::array<CardSet, kMaxPlayers> hands{};
  CardSet out_of_play = 0;  // this quest's leftovers, face down
  CardSet removed = 0;      // out for the rest of the match (dragons' work)
  CardSet played = 0;       // played this quest
  std::array<Adventurer, kMaxPlayers> adventurers{};
  Phase phase = Phase::kChooseTrump;
  Seat to_act = 0;
  Challenge challenge;       // under way (or, between quests, empty)
  Challenge last_challenge;  // the last one completed, winner set
  // Someone stood on or beyond the finish during this quest.
  bool final_quest = false;
  EndReason end = EndReason::kNotOver;
  Rng rng{0};  // the deals
  bool operator==(const Position&) const = default;
};

// ---- Actions -------------------------------------------------------------
// Encoded into 64 bits: bits 0-1 the kind; kChooseTrump: bits 2-3 the
// kingdom; kBoast: bits 2-7 the number; kPlay: bits 2-7 the card, and for an
// ally bits 8-13 the kingdom card it is played as.
struct Move {
  enum class Kind : int { kChooseTrump = 0, kBoast = 1, kPlay = 2 };
  Kind kind = Kind::kPlay;
  int kingdom = 0;
  int boast = 0;
  int card = 0;
  int as = 0;  // allies only

  static Move ChooseTrump(int kingdom);
  static Move Boast(int boast);
  // `as` is the kingdom card an ally counts as; ignored for other cards.
  static Move Play(int card, int as = 0);
  Action Encode() const;
  static std::optional<Move> Decode(Action action);
  bool operator==(const Move&) const = default;
};

// ---- The view ------------------------------------------------------------
struct PlayerView {
  Adventurer adventurer;
  int hand_size = 0;
  std::optional<CardSet> hand;  // the observer's own only
  bool operator==(const PlayerView&) const = default;
};

struct FrostDragonView final : ComparableView<FrostDragonView> {
  Seat observer = kSpectator;
  Rules rules;
  int quest = 1;
  Seat fate = 0;
  int trump = kNoKingdom;
  bool trump_led = false;
  int hand_size = 0;
  int cards_in_match = 0;  // in the deck, not removed
  int out_of_play = 0;     // this quest's leftovers (how many, not which)
  CardSet removed = 0;
  CardSet played = 0;
  Phase phase = Phase::kChooseTrump;
  Seat to_act = 0;
  Challenge challenge;
  Challenge last_challenge;
  // Every challenge completed this quest, in order, each with every seat's
  // card (and what an ally counted as), its lead kingdom and its winner:
  // who played what, and so who has shown they lack a kingdom. The last is
  // last_challenge; empty before the quest's first is complete.
  std::vector<Challenge> challenges;
  bool final_quest = false;
  std::vector<PlayerView> players;
  EndReason end = EndReason::kNotOver;
  std::vector<double> scores;  // once over

  bool operator==(const FrostDragonView&) const = default;
  std::string ToString() const override;
  std::string Summary() const override;
};

// ---- Movements ------------------------------------------------------------
// Why an adventurer's token moved.
enum class MoveCause : int {
  kChallenge = 0,  // a challenge won: one space forward
  kJump,           // a challenge won with a launch ready: to the C space
  kThreat,         // threat reached the limit: thrown back
  kShortfall,      // fell short of the marker: back by the shortfall
  kTreasure,       // Treasure jokers won: their bonus
  kActionSpace,    // an action space acted (fall, launch, or swap)
};

// One move of one token. Two moves of a Leprechaun's swap happen at once:
// the swapper's comes first, with `together_with_next` set.
struct Movement {
  Seat seat = 0;
  int from = 0;
  int to = 0;
  MoveCause cause = MoveCause::kChallenge;
  // The index in kActionSpaces of the space behind the move: the space that
  // acted (kActionSpace), or that launched the jump (kJump); else -1.
  int action_space = -1;
  bool together_with_next = false;
  bool operator==(const Movement&) const = default;
};

// ---- The state -----------------------------------------------------------
// ToString() renders the position, all that the rest of the match depends
// on; its fingerprint is what records and golden matches store. The
// challenges completed this quest are the quest's history, which the views
// carry: they live beside the position, not in it, so they change no
// fingerprint.
class FrostDragonState final : public State {
 public:
  // A match in `position` (tests build any position they need), with
  // `challenges` completed this quest before it (as the sampler rebuilds a
  // match from a view).
  FrostDragonState(const Rules& rules, Position position, std::vector<Challenge> challenges = {});

  int num_players() const override;
  Seats SeatsToAct() const override;
  using State::LegalActions;
  void LegalActions(Seat seat, std::vector<Action>* out) const override;
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
  // The challenges completed this quest, in order.
  const std::vector<Challenge>& challenges() const { return challenges_; }
  // Whether the Frost Dragon's tie-break eats `seat` (only once over).
  bool Eaten(Seat seat) const;
  // Every token moved by the last action, in order (the last card of a
  // quest moves its winner, then the boasting resolution's moves follow).
  // For the statistics (frost_dragon_stats.cc); history, like challenges().
  const std::vector<Movement>& movements() const { return movements_; }

 private:
  // The full state, once, for ToString() and Fingerprint()
  // (engine/state_packer.h).
  template <typename Out>
  void Describe(Out& out) const;
  absl::Status CheckPlay(Seat seat, const Move& move) const;
  void Play(Seat seat, const Move& move);
  void FinishChallenge();
  // The challenge's winner: the last Dragon joker, else the highest trump,
  // else the highest of the lead kingdom, later copies beating earlier; -1
  // when only Treasure jokers were played.
  Seat ChallengeWinner() const;
  void Win(Seat seat);
  // Moves `seat` to `space`, which loses any pending jump, and notes why.
  void MoveTo(Seat seat, int space, MoveCause cause, int action_space = -1,
              bool together_with_next = false);
  void ResolveBoasts();
  void StartQuest();
  void Deal();
  std::array<double, kMaxPlayers> AllScores() const;

  Rules rules_;
  Position position_;
  std::vector<Challenge> challenges_;  // the history: outside the position
  std::vector<Movement> movements_;    // the last action's: history too
};

// The lead kingdom of a challenge whose cards so far are `cards`, in the
// order played: that of the first card that sets it — a kingdom card, or,
// with rules.ally_sets_lead, an ally as the card it is named — and
// kNoKingdom while none has been played; followers must follow it once set.
// When the challenge is `complete` and no card set it (only jokers were
// played), the first ally's named kingdom decides it, as if that ally had
// set it; with no ally either (Treasure and Dragon jokers alone) there is
// none.
int LeadKingdom(const Rules& rules, std::span<const PlayedCard> cards, bool complete);

absl::StatusOr<Rules> RulesFromConfig(const GameInfo& info, const MatchConfig& config);

// A new match: the first Fate spun from `rng`, the first quest begun (the
// Fate to name trump).
Position NewPosition(const Rules& rules, int num_players, Rng& rng);

// How many cards each adventurer is dealt from `cards` cards in the match:
// the chart, or as many as divide evenly when there are too few.
int HandSize(int num_players, int cards);

// The game and its deal (engine/sampler.h; frost_dragon_sampler.cc), for its
// registration (register.cc).
std::unique_ptr<Game> MakeGame();
std::unique_ptr<Sampler> MakeSampler();

}  // namespace hoard::engine::frost_dragon

#endif  // HOARD_ENGINE_GAMES_FROST_DRAGON_FROST_DRAGON_H_
