#ifndef HOARD_ENGINE_GAMES_DRAGONS_GOLD_DRAGONS_GOLD_H_
#define HOARD_ENGINE_GAMES_DRAGONS_GOLD_DRAGONS_GOLD_H_

// Dragon's Gold (game id "dragons_gold", 3–6 players).
//
// Four dragons lie face up, each with the treasure tokens it guards. On a
// turn a player sends one of their ready adventurers (knights of strength 4
// and 3, a thief of 2, a wizard of 1) against one of them. When the
// strengths under a dragon reach its strength it is slain: its hidden
// treasure is drawn from the bag, and the players who took part share the
// tokens — a lone slayer takes all; otherwise they negotiate. Thieves then
// steal from their partners, wizards who received red tokens draw magic
// objects, the slayers' adventurers rest, and a new dragon is drawn. Between
// the 7th and 8th dragon of the pile the market opens for trading. When the
// bag is empty no dragon is drawn any more; the match ends once the table
// is clear. Tokens score by kind, with bonuses for gem majorities and
// straights, and the cursed black diamond.
//
// For bots the negotiation is a bounded protocol: the contributors take
// turns proposing a complete assignment of the dragon's tokens, the others
// accept or reject at once (a sealed decision), a unanimous acceptance
// settles it, and after a set number of proposals the treasure leaves the
// game. The market is a bounded series of offers between two players, each
// of a bundle of tokens for a bundle of tokens, accepted or refused.
//
// docs/rules/dragons_gold.md states the rules as implemented, with every gap
// in the rulebook (the dragons' numbers, the 24 magic objects, the protocols
// above, the turn cap) and how Hoard fills it.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/game.h"
#include "engine/rng.h"
#include "engine/sampler.h"

namespace hoard::engine::dragons_gold {

// ---- Tokens -------------------------------------------------------------
enum Token : int {
  kSilver = 0,
  kGold,
  kRed,  // magic items
  kBlue,
  kGreen,
  kPurple,
  kYellow,
  kWhite,  // diamonds
  kBlack,  // the black diamond
};
inline constexpr int kNumTokenKinds = 9;
inline constexpr int kFirstGem = kBlue;
inline constexpr int kNumGemColors = 5;  // blue, green, purple, yellow, white
using TokenCounts = std::array<int, kNumTokenKinds>;
// The bag at the start: 126 tokens.
inline constexpr TokenCounts kBagContents = {35, 20, 16, 12, 12, 12, 12, 6, 1};

absl::string_view TokenName(int token);        // "silver", ..., "black diamond"
absl::string_view TokenNamePlural(int token);  // "silver", "gold", "red", ...

// ---- Dragons -------------------------------------------------------------
struct DragonCard {
  int strength = 0;
  int known = 0;   // tokens placed on it when it is revealed
  int hidden = 0;  // tokens drawn when it is slain
};
inline constexpr int kNumDragons = 18;
// The 18 dragons (designed: the rules give no numbers). Together they call
// for 160 tokens, 34 more than the bag's 126, so that the bag, not the pile,
// runs out first, late in the match: when the last dragon of the pile would
// come up, the dragons before it have drawn about 140 tokens (all their known
// treasure and the hidden treasure of all but the four still on the table).
inline constexpr std::array<DragonCard, kNumDragons> kDragons = {{
    {5, 3, 2},
    {5, 4, 1},
    {6, 3, 3},
    {6, 2, 5},
    {6, 5, 2},
    {7, 4, 3},
    {7, 5, 3},
    {7, 3, 5},
    {8, 5, 4},
    {8, 4, 5},
    {8, 6, 4},
    {9, 5, 5},
    {9, 6, 4},
    {9, 4, 7},
    {10, 6, 5},
    {10, 7, 5},
    {10, 5, 7},
    {10, 7, 6},
}};
inline constexpr int kFaceUpDragons = 4;
// The market card lies under this many dragons of the pile.
inline constexpr int kMarketAfterDraws = 7;

// ---- Adventurers ---------------------------------------------------------
enum Adventurer : int { kKnight4 = 0, kKnight3, kThief, kWizard };
inline constexpr int kNumAdventurers = 4;
inline constexpr std::array<int, kNumAdventurers> kAdventurerStrength = {4, 3, 2, 1};
absl::string_view AdventurerName(int adventurer);  // "knight 4", ..., "wizard"

enum class AdventurerState : int { kReady = 0, kAttacking, kResting };

// ---- Magic objects -------------------------------------------------------
enum Object : int {
  kDragonSwap = 0,  // your turn: swap two face-up dragons with their treasure
  kSecondStrike,    // your turn: your attack sends two adventurers at once
  kRecall,          // your turn: your resting adventurers get ready
  kRetreat,         // your turn: one of your attacking adventurers comes back ready
  kTreasureMap,     // your turn: draw one token from the bag, in secret
  kSleepingPotion,  // your turn: a face-up dragon's strength drops by 2
  kSilverTongue,    // your proposal in a negotiation: two more proposals allowed
  kDecoyPurse,      // a thief steals from you at random: you pick the token
  kInvisibleHand,   // your turn: steal a random token from a player (off by default)
};
inline constexpr int kNumObjectKinds = 9;
using ObjectCounts = std::array<int, kNumObjectKinds>;
// The 24 cards of the deck (Invisible Hand's two leave it unless enabled).
inline constexpr ObjectCounts kObjectDeck = {3, 3, 3, 3, 3, 3, 2, 2, 2};
absl::string_view ObjectName(int object);  // "Dragon Swap", ...
inline constexpr int kSleepingPotionWeakening = 2;
// No potion brings a dragon below this strength.
inline constexpr int kMinDragonStrength = 1;
// Wizards draw a magic object per red token their owner receives (the
// rulebook's advanced rule); the basic game's "wizards take red tokens
// first" is not played, whichever scoring is chosen.
inline constexpr bool kWizardsDrawForRed = true;
// Every complete set of the five gem colours is a straight worth 5.
inline constexpr int kStraightBonus = 5;

// ---- Rules (the configurable decisions) ----------------------------------
struct Rules {
  bool advanced_scoring = true;   // option scoring=advanced|basic
  int negotiation_proposals = 6;  // proposals before the treasure is lost
  int market_rounds = 2;          // offers each player may make at the market
  int max_turns = 240;            // the turn cap
  bool invisible_hand = false;    // the two Invisible Hand cards in the deck
  bool magic_objects = true;      // deal and draw magic objects at all
  // Who starts: a seat drawn at random from the match's seed, as the rule
  // text says when nobody has slain a dragon yet (option
  // first_player=random); false: seat 0 (first_player=seat0).
  bool random_first_player = true;
  // What a thief steals from: the victim's share of this dragon's treasure,
  // which the whole table saw divided (option thief_steals=share); false:
  // anything behind the victim's screen (thief_steals=screen).
  bool thieves_steal_from_share = true;
  // When every adventurer of every player is attacking and no dragon can
  // fall, nobody can act again. true (option stalemate=retreat): every
  // attacking adventurer comes back ready, the dragons keep their treasure,
  // and play goes on; false (stalemate=end, as in ruleset 2): the match
  // ends at once.
  bool stalemate_retreat = true;
  bool operator==(const Rules&) const = default;
};

// ---- The table -----------------------------------------------------------
struct Attacker {
  Seat seat = 0;
  int adventurer = 0;
  bool operator==(const Attacker&) const = default;
};

struct FaceUpDragon {
  int card = -1;      // index into kDragons; -1: the slot is empty
  int weakening = 0;  // Sleeping Potions on it
  TokenCounts tokens{};
  std::vector<Attacker> attackers;  // in the order they came
  // Its strength after Sleeping Potions (at least 1); 0 for an empty slot.
  int strength() const;
  bool operator==(const FaceUpDragon&) const = default;
};

enum class Phase : int {
  kTurn = 0,     // the current player attacks (or first uses objects)
  kPropose,      // a contributor proposes a division
  kVote,         // the other contributors accept or reject (sealed)
  kThiefChoice,  // a thief whose owner's wizard took part picks a kind
  kDecoy,        // a robbed player with a Decoy Purse picks the token
  kMarketOffer,  // a player offers a swap at the market, or passes
  kMarketReply,  // the player offered a swap accepts or refuses
  kOver,
};

// A steal to carry out after a division: `thief_owner` takes one token from
// `victim`'s share of it (Negotiation::shares; from the whole screen under
// thief_steals=screen), at random unless the owner chooses (wizard and
// thief together) or the victim uses a Decoy Purse.
struct Steal {
  Seat thief_owner = 0;
  Seat victim = 0;
  bool chosen = false;
  bool operator==(const Steal&) const = default;
};

struct Negotiation {
  int slot = -1;                   // the slain dragon's slot
  Seat slayer = 0;                 // whose attack slew it
  std::vector<Seat> contributors;  // seat order
  TokenCounts tokens{};            // on the table to divide
  int proposals_made = 0;
  int proposals_allowed = 0;
  Seat proposer = 0;
  // The proposal under vote: proposal[i][kind] goes to contributors[i].
  std::vector<TokenCounts> proposal;
  // Sealed votes: 0 not yet, 1 accept, 2 reject (seat-indexed).
  std::vector<int> votes;
  // The last vote's outcome, public once every vote is in.
  std::vector<int> last_votes;
  // Once the treasure is divided: what each contributor received (in
  // contributor order), less what thieves have taken from it since. A
  // thief stealing from a share takes from here (thieves_steal_from_share).
  // Public, as the division was.
  std::vector<TokenCounts> shares;
  bool operator==(const Negotiation&) const = default;
};

// An offer at the market: `from` gives `to` the bundle `give` for the bundle
// `get`. Both bundles hold a token at least, no kind is in both, and neither
// holds more than kMaxMarketTokensOfAKind of a kind.
struct MarketOffer {
  Seat from = 0;
  Seat to = 0;
  TokenCounts give{};  // what `from` gives
  TokenCounts get{};   // what `from` asks for
  bool operator==(const MarketOffer&) const = default;
};
// The most tokens of one kind either side of a market offer may hold (the
// action's 64 bits hold 3 bits per kind and side).
inline constexpr int kMaxMarketTokensOfAKind = 7;

enum class EndReason : int { kNotOver = 0, kTableCleared, kStalemate, kTurnCap };

struct Position {
  std::vector<int> pile;  // dragon cards; back() is the top
  int drawn_from_pile = 0;
  bool market_done = false;
  std::array<FaceUpDragon, kFaceUpDragons> dragons;
  std::vector<int> bag;               // token kinds; back() is drawn next
  TokenCounts removed{};              // tokens that left the game
  std::vector<TokenCounts> holdings;  // behind each screen
  std::vector<std::array<AdventurerState, kNumAdventurers>> adventurers;
  std::vector<int> object_deck;  // back() is drawn next
  ObjectCounts object_discard{};
  std::vector<ObjectCounts> objects;  // each player's hand
  Phase phase = Phase::kTurn;
  Seat current = 0;  // whose turn it is
  int turns = 0;     // turns begun, skipped ones included
  Negotiation negotiation;
  std::vector<Steal> steals;  // still to carry out, first first
  // The market: who offers next, how many offers each has left.
  Seat market_offerer = 0;
  std::vector<int> market_offers_left;
  MarketOffer offer;
  int market_refill_slot = -1;  // the slot to refill once the market closes
  EndReason end = EndReason::kNotOver;
  // Stalemates broken by calling every attacker back (stalemate=retreat).
  int stalemate_retreats = 0;
  Rng rng{0};  // thieves' random picks, reshuffles of the object discard
  bool operator==(const Position&) const = default;
};

// ---- Actions -------------------------------------------------------------
// Encoded into 64 bits: bits 0-3 the kind, then its fields (see Encode).
struct Move {
  enum class Kind : int {
    kAttack = 0,     // adventurer (and second, with Second Strike) on slot
    kUseObject = 1,  // object with up to two parameters
    kPropose = 2,    // assignment of the dragon's tokens
    kAccept = 3,
    kReject = 4,
    kSteal = 5,      // the kind a choosing thief takes
    kDecoyGive = 6,  // the kind a robbed player gives up
    kDecoyKeep = 7,  // keep the Decoy Purse: the thief takes at random
    kMarketPass = 8,
    kMarketOffer = 9,  // target, give, get: a bundle for a bundle
    kMarketAccept = 10,
    kMarketRefuse = 11,
  };
  Kind kind = Kind::kAttack;
  int slot = 0;
  int adventurer = 0;
  int second = -1;  // kAttack: the second adventurer, or -1
  int object = 0;
  int a = 0, b = 0;    // kUseObject parameters
  int token = 0;       // kSteal, kDecoyGive
  Seat target = 0;     // kMarketOffer: the player offered
  TokenCounts give{};  // kMarketOffer: the bundle offered
  TokenCounts get{};   // kMarketOffer: the bundle asked for
  // kPropose: for each token on the dragon, in kind order, the index (in
  // contributor order) of who gets it; tokens of one kind go to
  // non-decreasing indexes, so that every division has one code.
  std::vector<int> assignment;

  Action Encode() const;
  static std::optional<Move> Decode(Action action);
  bool operator==(const Move&) const = default;
};
// 3 bits each after the kind. The largest hoard is 13 tokens (dragon 17: 7
// known and 6 hidden); Encode requires a proposal of at most this many.
inline constexpr int kMaxTokensOnDragon = 20;

// Builds the canonical proposal for `shares[i]` going to contributor i.
Move Proposal(const std::vector<TokenCounts>& shares);
// The shares a proposal gives each contributor (`tokens` on the dragon).
std::vector<TokenCounts> Shares(const Move& move, const TokenCounts& tokens, int contributors);

// ---- The public record ---------------------------------------------------
// What players at a real table see happen to the treasure, in order, and may
// remember: every slaying and its division, every market swap, every theft,
// every Treasure Map draw, and the treasure left on the table at the end.
// It is history, not position: the state keeps it beside its Position
// (ToString renders the position alone, so fingerprints and stored records
// do not depend on it), and each view carries it filtered for its observer
// (DragonsGoldState::ViewFor). A kind an observer may not see reads
// kHiddenToken: "a token". With it, counting the tokens into and out of a
// screen gives what the table knows of that screen (KnownTokens).

// A token whose kind the observer does not see.
inline constexpr int kHiddenToken = -1;

// What one seat got of a division.
struct Share {
  Seat seat = 0;
  TokenCounts tokens{};
  bool operator==(const Share&) const = default;
};

// A dragon slain, and what became of its treasure. Entered at the slaying;
// its outcome is settled in place once the treasure is divided or lost.
// Public.
struct Slaying {
  enum class Outcome : int {
    kNegotiating = 0,  // the contributors are still negotiating
    kDivided,          // `shares` went behind the contributors' screens
    kLost,             // `treasure` left the game
  };
  int card = -1;  // index into kDragons
  int slot = -1;
  // Inlined, as the views copy the record often: an entry copies without
  // allocating.
  Seat slayer = 0;                             // whose attack slew it
  absl::InlinedVector<Attacker, 8> attackers;  // in the order they came
  // The whole treasure shared: what lay on the dragon and what was drawn.
  TokenCounts treasure{};
  // The part drawn from the bag at the slaying: laid on the dragon for all
  // to see, a lone slayer's draw too.
  TokenCounts drawn{};
  Outcome outcome = Outcome::kNegotiating;
  // One per contributor, in seat order; empty shares unless kDivided.
  absl::InlinedVector<Share, 6> shares;
  bool operator==(const Slaying&) const = default;
};

// An accepted market offer: `from` gave the bundle `give` to `to` for the
// bundle `get`. Public.
struct MarketSwap {
  Seat from = 0;
  Seat to = 0;
  TokenCounts give{};
  TokenCounts get{};
  bool operator==(const MarketSwap&) const = default;
};

// How a token was stolen.
enum class TheftKind : int {
  kRandom = 0,     // a thief's random pick (under thief_steals=screen, a
                   // choosing thief's too, when the victim held none of the
                   // named kind)
  kChosen,         // a choosing thief named a kind the victim held
  kDecoyPurse,     // the victim gave it up with a Decoy Purse
  kInvisibleHand,  // an Invisible Hand took it at random
};

// One token taken from `victim`'s screen to `thief_owner`'s. Who did it,
// how, and the kind a choosing thief named are public; the kind taken is
// public for kChosen and kDecoyPurse, and for a thief's kRandom pick from
// the victim's share (the table watches it leave the share); otherwise
// (an Invisible Hand, or a thief under thief_steals=screen) it is seen only
// by the thief's owner and the victim (each behind their own screen).
struct Theft {
  Seat thief_owner = 0;
  Seat victim = 0;
  TheftKind how = TheftKind::kRandom;
  int named = -1;  // the kind a choosing thief named; -1 for other thefts
  int token = kHiddenToken;
  bool operator==(const Theft&) const = default;
};

// A Treasure Map drew a token from the bag to `seat`'s screen. That it was
// played is public; the kind only `seat` sees.
struct TreasureMapDraw {
  Seat seat = 0;
  int token = kHiddenToken;
  bool operator==(const TreasureMapDraw&) const = default;
};

// At the end, the treasure still on the dragons left the game. Public.
struct LeftOnTable {
  TokenCounts tokens{};
  bool operator==(const LeftOnTable&) const = default;
};

using RecordEntry = std::variant<Slaying, MarketSwap, Theft, TreasureMapDraw, LeftOnTable>;
using Record = std::vector<RecordEntry>;

// ---- The view ------------------------------------------------------------
struct PlayerView {
  std::array<AdventurerState, kNumAdventurers> adventurers{};
  int token_count = 0;
  int object_count = 0;
  // Known for the observer's own seat, and for every seat once over.
  std::optional<TokenCounts> tokens;
  std::optional<ObjectCounts> objects;
  bool operator==(const PlayerView&) const = default;
};

struct DragonsGoldView final : ComparableView<DragonsGoldView> {
  Seat observer = kSpectator;
  Rules rules;
  std::array<FaceUpDragon, kFaceUpDragons> dragons;
  int pile_size = 0;
  bool market_ahead = false;  // the market card is still in the pile
  int bag_size = 0;
  TokenCounts removed{};
  int object_deck_size = 0;
  ObjectCounts object_discard{};
  std::vector<PlayerView> players;
  Phase phase = Phase::kTurn;
  Seat current = 0;
  int turns = 0;
  // The negotiation, its sealed votes shown only as "voted" (1) or not (0).
  Negotiation negotiation;
  std::vector<Steal> steals;
  Seat market_offerer = 0;
  std::vector<int> market_offers_left;
  MarketOffer offer;
  EndReason end = EndReason::kNotOver;
  std::vector<int> scores;  // once over
  // The public record, oldest first, its hidden kinds kHiddenToken.
  Record record;

  bool operator==(const DragonsGoldView&) const = default;
  std::string ToString() const override;
  std::string Summary() const override;
};

// The tokens the record of `view` proves to lie behind `seat`'s screen now,
// by kind: a lower bound on its holdings, exact when every movement into and
// out of it is seen. A token of unknown kind stolen from the screen may have
// been of any kind it was known to hold, so it lowers each of them by one.
TokenCounts KnownTokens(const DragonsGoldView& view, Seat seat);

// ---- The state -----------------------------------------------------------
// The position is the whole match as it stands (ToString renders it); the
// public record is history that the views carry, kept beside it.
class DragonsGoldState final : public State {
 public:
  DragonsGoldState(const Rules& rules, Position position, Record record = {});

  int num_players() const override;
  Seats SeatsToAct() const override;
  using State::LegalActions;
  void LegalActions(Seat seat, std::vector<Action>* out) const override;
  bool LegalActionsComplete(Seat seat) const override;
  std::string LegalActionsHint(Seat seat) const override;
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
  // The public record with every kind, as nobody sees it.
  const Record& record() const { return record_; }
  // Final score of a seat's tokens under the match's scoring (any time).
  int ScoreOf(Seat seat) const;

 private:
  // The full state, once, for ToString() and Fingerprint()
  // (engine/state_packer.h).
  template <typename Out>
  void Describe(Out& out) const;
  // LegalActions of a turn, of a proposal (examples) and of the market.
  void AddTurnActions(Seat seat, std::vector<Action>* out) const;
  void AddProposalExamples(Seat seat, std::vector<Action>* out) const;
  void AddMarketOffers(Seat seat, std::vector<Action>* out) const;
  // Apply, one phase each; the seat is to act and the move decoded.
  absl::Status ApplyTurn(Seat seat, const Move& move);
  absl::Status ApplyProposal(Seat seat, const Move& move);
  absl::Status ApplyVote(Seat seat, const Move& move);
  absl::Status ApplyThiefChoice(const Move& move);
  absl::Status ApplyDecoy(Seat seat, const Move& move);
  absl::Status ApplyMarketOffer(Seat seat, const Move& move);
  absl::Status ApplyMarketReply(Seat seat, const Move& move);
  absl::Status CheckAttack(Seat seat, const Move& move) const;
  absl::Status CheckObject(Seat seat, const Move& move) const;
  absl::Status CheckProposal(const Move& move) const;
  void Attack(Seat seat, const Move& move);
  void UseObject(Seat seat, const Move& move);
  // After an attack: slays the dragon in `slot` if its strength is reached.
  void MaybeSlay(int slot, Seat slayer);
  void Divide(const std::vector<TokenCounts>& shares);
  void LoseTreasure();
  // Settles the slaying under way in the record (entering it first if the
  // record does not hold it, as in a state set up mid-negotiation).
  void Settle(Slaying::Outcome outcome, const std::vector<TokenCounts>& shares);
  // After a division or a loss: queues the thieves' steals and runs them.
  void SendThieves();
  // Carries out steals until one needs a decision, then ends the slaying.
  void RunSteals();
  void TakeToken(Seat from, Seat to, int token);
  // What a thief robbing `victim` takes from: their share of this division
  // (thieves_steal_from_share), else everything behind their screen.
  const TokenCounts& StealPool(Seat victim) const;
  // Carries out `theft` (a kHiddenToken kind: at random) and records it.
  void Rob(Theft theft);
  void FinishSlaying();
  void DrawObjects(Seat seat, int count);
  // Refills `slot`, opening the market first when its card comes up.
  void RefillOrMarket(int slot);
  void NextTurn();
  void OpenMarket(int slot);
  // The next player with offers left makes one, or the market closes.
  void NextMarketOffer(Seat after);
  void PlaceDragon(int slot);
  std::vector<int> AllScores() const;
  void EndMatch(EndReason reason);

  Rules rules_;
  Position position_;
  Record record_;
};

absl::StatusOr<Rules> RulesFromConfig(const GameInfo& info, const MatchConfig& config);

// A new match: the dragon pile and the bag shuffled, four dragons revealed
// with their known treasure, one magic object dealt to each player, and the
// first player drawn from `rng` (seat 0 when !rules.random_first_player).
Position Deal(const Rules& rules, int num_players, Rng& rng);

// The game and its deal (engine/sampler.h; dragons_gold_sampler.cc), for its
// registration (register.cc).
std::unique_ptr<Game> MakeGame();
std::unique_ptr<Sampler> MakeSampler();

}  // namespace hoard::engine::dragons_gold

#endif  // HOARD_ENGINE_GAMES_DRAGONS_GOLD_DRAGONS_GOLD_H_
