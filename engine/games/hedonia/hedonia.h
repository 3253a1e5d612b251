#ifndef HOARD_ENGINE_GAMES_HEDONIA_HEDONIA_H_
#define HOARD_ENGINE_GAMES_HEDONIA_HEDONIA_H_

// Hedonia (game id "hedonia", 3–6 players).
//
// The King hands 60 disputed assets back to the houses, one offer at a time.
// Each player holds five cards; the rest form the face-down unreleased deck.
// Every round has an active player, the player to the left of the last
// round's. Starting with them and going round in the direction of play, each
// player offers one card from their hand, face up, to their neighbour on the
// left. Then every player claims at once, sealed, either the card on their
// left or the card on their right (one is the card they offered, the other
// the card offered to them). A card claimed from both sides is shared (each
// side scores half its value at the end), a card claimed from one side goes
// to that player's treasury, and an unclaimed card goes to the King's
// treasury. Then everyone draws a card while the deck has one for each of
// them.
//
// Two kinds act the moment one player claims them: a Red Snatcher snatches
// the most valuable card of the other player beside it, and a Misdirection
// reverses the direction of play — the order in which the players offer and
// act at the end, not whom they offer to. The other nine kinds act when the
// match is over, kind by kind in a fixed order, each player in turn starting
// from the next active player: they score for packs and rarity, raid
// carrots, destroy, fetch from the King's treasury, grab, slay and curse. A
// player's score is their treasury's value after all that, their powers'
// points and half the value of every shared card beside them; halves are
// kept exact. Ties between equal scores are broken by what each player owns
// outright (TieBreak); players still tied share the rank.
//
// Seats are numbered clockwise: seat s + 1 sits on seat s's left. Gap g is
// the place between seat g and seat g + 1 (mod the player count): it lies on
// seat g's left and on seat g + 1's right. Each card is offered into the gap
// on its offerer's left (under the option offers=onward, into the gap
// towards the next player in the direction of play).
//
// docs/rules/hedonia.md states the rules as implemented, with the asset
// table and every gap in the rulebook and how Hoard fills it.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/game.h"
#include "engine/rng.h"
#include "engine/sampler.h"

namespace hoard::engine::hedonia {

// ---- Assets ---------------------------------------------------------------
// The nine kinds that act at the end come first, in the order they act.
enum Asset : int {
  kSnorkelPig = 0,
  kBeardedHopper,
  kMagicCarrot,
  kDoomSnail,
  kRoyalPoofin,
  kVeryRareEgg,
  kGrungle,
  kDeathslayer,
  kCursedSushi,
  kRedSnatcher,   // acts at once, when one player claims it
  kMisdirection,  // acts at once, when one player claims it
};
inline constexpr int kNumAssetKinds = 11;
inline constexpr int kNumEndKinds = 9;  // kSnorkelPig .. kCursedSushi

// How many cards of each kind, indexed by Asset.
using AssetCounts = std::array<std::int8_t, kNumAssetKinds>;

inline constexpr int kNumAssets = 60;
// The deck: how many cards of each kind (60 in all).
inline constexpr std::array<int, kNumAssetKinds> kAssetCounts = {9, 7, 6, 5, 5, 3, 5, 4, 6, 4, 6};
// Each card's printed value, the points it scores in a treasury (half of it
// to each side when shared).
inline constexpr std::array<int, kNumAssetKinds> kAssetValues = {1, 1, 1, 1, 2, 1, 2, 2, 1, 1, 2};

// The powers' numbers (docs/rules/hedonia.md has the whole table).
// Snorkel Pigs: each scores this much more per other pig of its owner.
inline constexpr int kPigPackBonus = 1;
// Magic Carrots: each scores kCarrotBonus more, or kFedCarrotBonus more if
// its owner holds a Bearded Hopper.
inline constexpr int kCarrotBonus = 1;
inline constexpr int kFedCarrotBonus = 2;
// Doom Snails: each scores this much for the card it destroys.
inline constexpr int kDoomFeast = 1;
// Very Rare Eggs: each scores this much more per egg of the deck that is
// not in a treasury.
inline constexpr int kEggRarityBonus = 1;
// Deathslayers: the points for each monster slain.
inline constexpr int kSlayBonus = 1;
// Cursed Sushi: each scores kSushiFeast more, unless its owner holds
// kSushiCurseFrom or more: then each scores kSushiCurse less instead.
inline constexpr int kSushiFeast = 1;
inline constexpr int kSushiCurseFrom = 2;
inline constexpr int kSushiCurse = 1;

absl::string_view AssetName(int asset);        // "Snorkel Pig", ...
absl::string_view AssetNamePlural(int asset);  // "Snorkel Pigs", ...

// The kind of the most valuable card among `counts` (the highest printed
// value; among equal values the kind first in the table), or -1 if none.
int MostValuable(const AssetCounts& counts);

int Total(const AssetCounts& counts);
// The printed value of `counts`.
int Value(const AssetCounts& counts);

// ---- Rules (the configurable decisions) ------------------------------------
enum class EndRule : std::int8_t {
  // Draws stop when the deck is empty; play goes on until every hand is
  // empty, so every card is offered (option end=hands_empty, the default).
  kHandsEmpty = 0,
  // The match ends at the first reveal after which the deck cannot give
  // every player a card; the cards still in hand are not scored
  // (end=deck_empty).
  kDeckEmpty = 1,
};

// Whom the offers go to, and which way the active player moves on.
enum class OfferRule : std::int8_t {
  // As the rulebook says: every card is offered to the offerer's neighbour on
  // the left, and each round's active player is the player to the left of
  // the last round's, whatever the direction of play. A Misdirection
  // reverses the direction of play only: the order in which the players
  // offer, and in which they act at the end (option offers=left, the
  // default).
  kLeft = 0,
  // Each card is offered to the next player in the direction of play, and
  // the active player moves one seat on in it: after a Misdirection the
  // offers go to the right (offers=onward; ruleset 1 played this way).
  kOnward = 1,
};

// How equal scores are ranked: the rulebook gives no tie-break.
enum class TieBreak : std::int8_t {
  // Hoard's tie-break: between equal scores, the player who owns more
  // outright ranks first — the more printed value in their treasury after
  // the powers, then the more cards in it. Players still tied share the
  // rank (option tie_break=treasury, the default).
  kTreasury = 0,
  // Equal scores share the rank (tie_break=none; ruleset 1 played this way).
  kNone = 1,
};

struct Rules {
  EndRule end = EndRule::kHandsEmpty;
  OfferRule offers = OfferRule::kLeft;
  TieBreak tie_break = TieBreak::kTreasury;
  bool operator==(const Rules&) const = default;
};

absl::StatusOr<Rules> RulesFromConfig(const GameInfo& info, const MatchConfig& config);

// ---- The table
// ---------------------------------------------------------------
inline constexpr int kMinPlayers = 3;
inline constexpr int kMaxPlayers = 6;
inline constexpr int kHandSize = 5;

enum class Phase : std::int8_t {
  kOffer = 0,  // the offerer offers a card from their hand
  kClaim,      // every player claims left or right, sealed
  kOver,
};

// A claim: the card on the player's left or on their right.
enum class Side : std::int8_t { kNone = 0, kLeft, kRight };

inline constexpr int kClockwise = 1;
inline constexpr int kCounterclockwise = -1;

struct Position {
  int num_players = 0;
  // The unreleased deck; deck[deck_size - 1] is its top.
  std::array<std::int8_t, kNumAssets> deck{};
  int deck_size = 0;
  // By seat.
  std::array<AssetCounts, kMaxPlayers> hands{};
  std::array<AssetCounts, kMaxPlayers> treasuries{};
  // By gap: the shared cards lying between seat g and seat g + 1.
  std::array<AssetCounts, kMaxPlayers> shared{};
  AssetCounts king{};
  int round = 1;
  Seat active = 0;
  int direction = kClockwise;  // kClockwise (seat + 1) or kCounterclockwise
  Phase phase = Phase::kOffer;
  int offers_made = 0;  // this round
  // By gap: the card offered into it this round, or -1.
  std::array<std::int8_t, kMaxPlayers> table{-1, -1, -1, -1, -1, -1};
  // By seat: the sealed claims of this round.
  std::array<Side, kMaxPlayers> claims{};
  // The last reveal, public: the cards by gap (-1: none) and the claims by
  // seat.
  std::array<std::int8_t, kMaxPlayers> last_table{-1, -1, -1, -1, -1, -1};
  std::array<Side, kMaxPlayers> last_claims{};
  bool operator==(const Position&) const = default;
};

// The seat `steps` seats from `seat` in direction `direction`.
Seat SeatAt(Seat seat, int steps, int direction, int num_players);
// The way round the table the offers go and the active player moves on,
// while the direction of play is `direction`: always clockwise (to the left)
// under OfferRule::kLeft, the direction of play under kOnward.
int OfferDirection(OfferRule offers, int direction);
// The gap a player offers into when offers go `offer_direction`
// (OfferDirection): the one on their left when it is clockwise, on their
// right otherwise.
int OfferGap(Seat seat, int offer_direction, int num_players);
// The gap on a player's left or right.
int GapOn(Seat seat, Side side, int num_players);

// ---- Actions
// ------------------------------------------------------------------- An
// offer's code is the kind offered (0 to 10); the two claims have codes of
// their own. Identical cards are one action.
Action OfferAction(int asset);
Action ClaimAction(Side side);  // REQUIRES: side is kLeft or kRight
inline constexpr std::uint64_t kClaimLeftCode = 16;
inline constexpr std::uint64_t kClaimRightCode = 17;
// The kind an offer names, or nullopt for any other code.
std::optional<int> OfferedAsset(Action action);
// The side a claim names, or nullopt for any other code.
std::optional<Side> ClaimedSide(Action action);

// ---- Scoring
// ------------------------------------------------------------------- The end
// of the match worked out: the treasuries after every power has acted, the
// points the powers scored, and each seat's score.
// One thing a power did at the end: moved a card from one place to another
// (or out of the game), or scored points for the cards of its kind that
// `seat` held when they acted.
struct PowerEvent {
  int power = 0;   // the kind whose power acted
  Seat seat = 0;   // the player whose cards acted
  int card = -1;   // the kind of the card moved, or -1 when none was
  Seat from = 0;   // a seat, or kKingsTreasury
  Seat to = 0;     // a seat, or kOutOfTheGame
  int points = 0;  // the points scored (bonuses, less curses)
};
inline constexpr Seat kKingsTreasury = -1;
inline constexpr Seat kOutOfTheGame = -2;

struct Reckoning {
  std::array<AssetCounts, kMaxPlayers> treasuries{};
  std::array<int, kMaxPlayers> power_points{};
  // The final score in half points (a shared card's half values stay exact).
  std::array<int, kMaxPlayers> score_halves{};
  // By kind, every seat together: the points its powers scored (bonuses, less
  // curses). The seats' power_points summed the other way.
  std::array<int, kNumAssetKinds> points_by_power{};
  // Every card the powers moved or removed and every score, in order.
  std::vector<PowerEvent> events;
};

// ---- The record
// -------------------------------------------------------------------- One
// round's reveal as the table saw it, kept for the rest of the match: the
// position forgets it once the next round is revealed, the players do not.
struct PastReveal {
  Seat active = 0;             // the round's active player, who offered first
  int direction = kClockwise;  // the direction of play of its offers
  // By gap: the card offered into it (-1: none). Gap g's card was offered by
  // seat g, or under offers=onward by seat g + 1 while play went
  // counterclockwise (OfferGap).
  std::array<std::int8_t, kMaxPlayers> cards{-1, -1, -1, -1, -1, -1};
  // By seat: the claim.
  std::array<Side, kMaxPlayers> claims{};
  // By gap: the kind of card the Red Snatcher offered into it snatched for
  // its claimer, or -1 (no snatcher, shared, the King's, or nothing to take).
  std::array<std::int8_t, kMaxPlayers> snatched{-1, -1, -1, -1, -1, -1};
  bool operator==(const PastReveal&) const = default;
};

// ---- The view
// --------------------------------------------------------------------
struct PlayerView {
  int hand_size = 0;
  // Known for the observer's own seat, and for every seat once over.
  std::optional<AssetCounts> hand;
  AssetCounts treasury{};
  bool operator==(const PlayerView&) const = default;
};

struct HedoniaView final : ComparableView<HedoniaView> {
  Seat observer = kSpectator;
  Rules rules;
  int round = 1;
  int rounds = 0;  // how many rounds the match lasts
  Phase phase = Phase::kOffer;
  Seat active = 0;
  int direction = kClockwise;
  Seat offerer = -1;  // in the offer phase: who offers now
  int deck_size = 0;
  std::vector<PlayerView> players;  // by seat
  std::vector<int> table;           // by gap: the card offered this round, or -1
  std::vector<AssetCounts> shared;  // by gap
  AssetCounts king{};
  // The observer's own claim this round; never another seat's.
  Side own_claim = Side::kNone;
  // The last reveal: the cards by gap (-1: none) and every claim by seat.
  std::vector<int> last_table;
  std::vector<Side> last_claims;
  // Every reveal of the match so far, round 1 first: public to everyone.
  std::vector<PastReveal> reveals;
  // Once over: the treasuries after the powers acted, the powers' points
  // and the scores; empty until then.
  std::vector<AssetCounts> final_treasuries;
  std::vector<int> power_points;
  std::vector<double> scores;

  bool operator==(const HedoniaView&) const = default;
  std::string ToString() const override;
  std::string Summary() const override;
};

// ---- The state
// ---------------------------------------------------------------------
// ToString() renders the position, all that the rest of the match depends
// on; its fingerprint is what records and golden matches store. The reveals
// of past rounds are the match's history, which the views carry: they live
// beside the position, not in it, so they change no fingerprint.
class HedoniaState final : public State {
 public:
  // A new match: the 60 assets shuffled, five dealt to each player, the
  // first active player drawn, play clockwise.
  static std::unique_ptr<HedoniaState> Deal(const Rules& rules, int num_players, Rng& rng);
  // A position set up by hand, for tests: any cards in any place (not
  // necessarily all 60). REQUIRES: 3 <= num_players <= 6, and the position
  // is one the rules could reach in its phase.
  static std::unique_ptr<HedoniaState> ForTesting(Position position, Rules rules = {});
  // A match at `position` under `rules` after the rounds `reveals`, as the
  // search's sampler rebuilds one from a seat's view (hedonia_sampler.cc).
  // REQUIRES: the same as ForTesting; the caller has checked the position.
  static std::unique_ptr<HedoniaState> FromPosition(const Rules& rules, const Position& position,
                                                    std::vector<PastReveal> reveals = {});

  int num_players() const override { return position_.num_players; }
  Seats SeatsToAct() const override;
  using State::LegalActions;
  void LegalActions(Seat seat, std::vector<Action>* out) const override;
  absl::Status Apply(Seat seat, Action action) override;
  bool IsOver() const override { return position_.phase == Phase::kOver; }
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
  // Every reveal so far, round 1 first.
  const std::vector<PastReveal>& reveals() const { return reveals_; }
  // Who offers now (in the offer phase).
  Seat Offerer() const;
  // How many rounds a match of these rules and players lasts.
  int Rounds() const;
  // The powers worked out on the treasuries as they stand: at the end, the
  // final result. Activation starts with the next active player.
  Reckoning Reckon() const;

 private:
  // The full state, once, for ToString() and Fingerprint()
  // (engine/state_packer.h).
  template <typename Out>
  void Describe(Out& out) const;
  HedoniaState(const Rules& rules, const Position& position);
  // Resolves the sealed claims, then draws and starts the next round or
  // ends the match.
  void Reveal();

  Rules rules_;
  Position position_;
  std::vector<PastReveal> reveals_;  // the history: outside the position
};

// The game and its deal (engine/sampler.h; hedonia_sampler.cc), for its
// registration (register.cc).
std::unique_ptr<Game> MakeGame();
std::unique_ptr<Sampler> MakeSampler();

}  // namespace hoard::engine::hedonia

#endif  // HOARD_ENGINE_GAMES_HEDONIA_HEDONIA_H_
