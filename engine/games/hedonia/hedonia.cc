#include "engine/games/hedonia/hedonia.h"

#include <algorithm>
#include <span>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/check.h"
#include "engine/state_packer.h"
#include "engine/status_macros.h"

namespace hoard::engine::hedonia {
namespace {

absl::Status Illegal(absl::string_view why) { return absl::InvalidArgumentError(why); }

// The kinds from the most valuable down; equal values in table order.
constexpr std::array<int, kNumAssetKinds> ByValue() {
  std::array<int, kNumAssetKinds> order{};
  for (int kind = 0; kind < kNumAssetKinds; ++kind) order[kind] = kind;
  // An insertion sort: stable, so equal values keep the table's order.
  for (int i = 1; i < kNumAssetKinds; ++i) {
    for (int j = i; j > 0 && kAssetValues[order[j - 1]] < kAssetValues[order[j]]; --j) {
      std::swap(order[j - 1], order[j]);
    }
  }
  return order;
}
constexpr std::array<int, kNumAssetKinds> kByValue = ByValue();

// Moves one card of `kind` from `from` to `to`.
void Move(AssetCounts& from, AssetCounts& to, int kind) {
  --from[kind];
  ++to[kind];
}

std::string CountsText(const AssetCounts& counts) {
  std::vector<std::string> parts;
  for (int kind = 0; kind < kNumAssetKinds; ++kind) {
    if (counts[kind] > 0) {
      parts.push_back(absl::StrCat(static_cast<int>(counts[kind]), " ",
                                   counts[kind] == 1 ? AssetName(kind) : AssetNamePlural(kind)));
    }
  }
  return parts.empty() ? "nothing" : absl::StrJoin(parts, ", ");
}

absl::string_view SideName(Side side) {
  switch (side) {
    case Side::kNone:
      return "none";
    case Side::kLeft:
      return "left";
    case Side::kRight:
      return "right";
  }
  return "";
}

absl::string_view PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kOffer:
      return "offers";
    case Phase::kClaim:
      return "claims";
    case Phase::kOver:
      return "over";
  }
  return "";
}

std::string CardText(int card) { return card < 0 ? "-" : std::string(AssetName(card)); }

absl::string_view DirectionName(int direction) {
  return direction == kClockwise ? "clockwise" : "counterclockwise";
}

// "cards by gap A, B, C; claims by seat left, right, left".
std::string RevealText(std::span<const std::int8_t> cards, std::span<const Side> claims) {
  std::vector<std::string> card_texts, claim_texts;
  for (int card : cards) card_texts.push_back(CardText(card));
  for (Side side : claims) claim_texts.push_back(std::string(SideName(side)));
  return absl::StrCat("cards by gap ", absl::StrJoin(card_texts, ", "), "; claims by seat ",
                      absl::StrJoin(claim_texts, ", "));
}

}  // namespace

absl::string_view AssetName(int asset) {
  static constexpr std::array<absl::string_view, kNumAssetKinds> kNames = {
      "Snorkel Pig",  "Bearded Hopper", "Magic Carrot", "Doom Snail",
      "Royal Poofin", "Very Rare Egg",  "Grungle",      "Deathslayer",
      "Cursed Sushi", "Red Snatcher",   "Misdirection"};
  return kNames[asset];
}

absl::string_view AssetNamePlural(int asset) {
  static constexpr std::array<absl::string_view, kNumAssetKinds> kNames = {
      "Snorkel Pigs",  "Bearded Hoppers", "Magic Carrots", "Doom Snails",
      "Royal Poofins", "Very Rare Eggs",  "Grungles",      "Deathslayers",
      "Cursed Sushi",  "Red Snatchers",   "Misdirections"};
  return kNames[asset];
}

int MostValuable(const AssetCounts& counts) {
  for (int kind : kByValue) {
    if (counts[kind] > 0) return kind;
  }
  return -1;
}

int Total(const AssetCounts& counts) {
  int total = 0;
  for (std::int8_t n : counts) total += n;
  return total;
}

int Value(const AssetCounts& counts) {
  int value = 0;
  for (int kind = 0; kind < kNumAssetKinds; ++kind) value += counts[kind] * kAssetValues[kind];
  return value;
}

Seat SeatAt(Seat seat, int steps, int direction, int num_players) {
  return ((seat + steps * direction) % num_players + num_players) % num_players;
}

int OfferDirection(OfferRule offers, int direction) {
  return offers == OfferRule::kLeft ? kClockwise : direction;
}

int OfferGap(Seat seat, int offer_direction, int num_players) {
  return offer_direction == kClockwise ? seat : SeatAt(seat, -1, kClockwise, num_players);
}

int GapOn(Seat seat, Side side, int num_players) {
  return side == Side::kLeft ? seat : SeatAt(seat, -1, kClockwise, num_players);
}

// ---------------------------------------------------------------- Actions

Action OfferAction(int asset) { return Action(static_cast<std::uint64_t>(asset)); }

Action ClaimAction(Side side) {
  HOARD_CHECK(side != Side::kNone, "a claim is left or right");
  return Action(side == Side::kLeft ? kClaimLeftCode : kClaimRightCode);
}

std::optional<int> OfferedAsset(Action action) {
  if (action.code() >= kNumAssetKinds) return std::nullopt;
  return static_cast<int>(action.code());
}

std::optional<Side> ClaimedSide(Action action) {
  if (action.code() == kClaimLeftCode) return Side::kLeft;
  if (action.code() == kClaimRightCode) return Side::kRight;
  return std::nullopt;
}

// ---------------------------------------------------------------- State

HedoniaState::HedoniaState(const Rules& rules, const Position& position)
    : rules_(rules), position_(position) {}

std::unique_ptr<HedoniaState> HedoniaState::Deal(const Rules& rules, int num_players, Rng& rng) {
  Position p;
  p.num_players = num_players;
  for (int kind = 0; kind < kNumAssetKinds; ++kind) {
    for (int i = 0; i < kAssetCounts[kind]; ++i)
      p.deck[p.deck_size++] = static_cast<std::int8_t>(kind);
  }
  rng.Shuffle(std::span<std::int8_t>(p.deck.data(), p.deck_size));
  for (int i = 0; i < kHandSize; ++i) {
    for (Seat s = 0; s < num_players; ++s) ++p.hands[s][p.deck[--p.deck_size]];
  }
  p.active = static_cast<Seat>(rng.Uniform(static_cast<std::uint64_t>(num_players)));
  return std::unique_ptr<HedoniaState>(new HedoniaState(rules, p));
}

std::unique_ptr<HedoniaState> HedoniaState::ForTesting(Position position, Rules rules) {
  HOARD_CHECK(position.num_players >= kMinPlayers && position.num_players <= kMaxPlayers,
              "Hedonia seats 3 to 6 players");
  return std::unique_ptr<HedoniaState>(new HedoniaState(rules, position));
}

std::unique_ptr<HedoniaState> HedoniaState::FromPosition(const Rules& rules,
                                                         const Position& position,
                                                         std::vector<PastReveal> reveals) {
  std::unique_ptr<HedoniaState> state = ForTesting(position, rules);
  state->reveals_ = std::move(reveals);
  return state;
}

Seat HedoniaState::Offerer() const {
  const Position& p = position_;
  return SeatAt(p.active, p.offers_made, p.direction, p.num_players);
}

int HedoniaState::Rounds() const {
  const int n = num_players();
  return rules_.end == EndRule::kHandsEmpty ? kNumAssets / n : (kNumAssets - kHandSize * n) / n + 1;
}

Seats HedoniaState::SeatsToAct() const {
  const Position& p = position_;
  Seats seats;
  switch (p.phase) {
    case Phase::kOffer:
      seats.push_back(Offerer());
      break;
    case Phase::kClaim:
      for (Seat s = 0; s < p.num_players; ++s) {
        if (p.claims[s] == Side::kNone) seats.push_back(s);
      }
      break;
    case Phase::kOver:
      break;
  }
  return seats;
}

void HedoniaState::LegalActions(Seat seat, std::vector<Action>* out) const {
  out->clear();
  const Position& p = position_;
  if (seat < 0 || seat >= p.num_players) return;
  if (p.phase == Phase::kOffer && seat == Offerer()) {
    for (int kind = 0; kind < kNumAssetKinds; ++kind) {
      if (p.hands[seat][kind] > 0) out->push_back(OfferAction(kind));
    }
  } else if (p.phase == Phase::kClaim && p.claims[seat] == Side::kNone) {
    // The card the player offered first: keeping it is the default.
    const Side own =
        OfferDirection(rules_.offers, p.direction) == kClockwise ? Side::kLeft : Side::kRight;
    out->push_back(ClaimAction(own));
    out->push_back(ClaimAction(own == Side::kLeft ? Side::kRight : Side::kLeft));
  }
}

absl::Status HedoniaState::Apply(Seat seat, Action action) {
  Position& p = position_;
  if (p.phase == Phase::kOver) return absl::FailedPreconditionError("the match is over");
  if (seat < 0 || seat >= p.num_players) {
    return absl::FailedPreconditionError(absl::StrCat("there is no seat ", seat));
  }
  if (p.phase == Phase::kOffer) {
    if (seat != Offerer()) {
      return absl::FailedPreconditionError(
          absl::StrCat("seat ", seat, " is not to act now: seat ", Offerer(), " offers"));
    }
    const std::optional<int> asset = OfferedAsset(action);
    if (!asset) return Illegal("now is the time to offer a card from your hand");
    if (p.hands[seat][*asset] == 0) {
      return Illegal(absl::StrCat("you hold no ", AssetName(*asset), " to offer"));
    }
    --p.hands[seat][*asset];
    p.table[OfferGap(seat, OfferDirection(rules_.offers, p.direction), p.num_players)] =
        static_cast<std::int8_t>(*asset);
    if (++p.offers_made == p.num_players) p.phase = Phase::kClaim;
    return absl::OkStatus();
  }
  if (p.claims[seat] != Side::kNone) {
    return absl::FailedPreconditionError(
        absl::StrCat("seat ", seat, " is not to act now: it has claimed already"));
  }
  const std::optional<Side> side = ClaimedSide(action);
  if (!side) return Illegal("now is the time to claim the card on your left or on your right");
  p.claims[seat] = *side;
  for (Seat s = 0; s < p.num_players; ++s) {
    if (p.claims[s] == Side::kNone) return absl::OkStatus();  // others still to claim
  }
  Reveal();
  return absl::OkStatus();
}

void HedoniaState::Reveal() {
  Position& p = position_;
  const int n = p.num_players;
  const int offer_direction = OfferDirection(rules_.offers, p.direction);
  // Who took each gap's card alone, or -1.
  std::array<Seat, kMaxPlayers> owner{};
  for (int gap = 0; gap < n; ++gap) {
    owner[gap] = -1;
    const int card = p.table[gap];
    if (card < 0) continue;
    const Seat left_of_gap = gap;  // the gap is on this seat's left
    const Seat right_of_gap = SeatAt(gap, 1, kClockwise, n);
    const bool from_left = p.claims[left_of_gap] == Side::kLeft;
    const bool from_right = p.claims[right_of_gap] == Side::kRight;
    if (from_left && from_right) {
      ++p.shared[gap][card];
    } else if (from_left || from_right) {
      owner[gap] = from_left ? left_of_gap : right_of_gap;
      ++p.treasuries[owner[gap]][card];
    } else {
      ++p.king[card];
    }
  }
  PastReveal record{
      .active = p.active, .direction = p.direction, .cards = p.table, .claims = p.claims};
  // Red Snatchers, in the order they were offered: each takes the most
  // valuable card of the player on the gap's other side.
  for (int i = 0; i < n; ++i) {
    const int gap = OfferGap(SeatAt(p.active, i, p.direction, n), offer_direction, n);
    if (p.table[gap] != kRedSnatcher || owner[gap] < 0) continue;
    const Seat victim = owner[gap] == gap ? SeatAt(gap, 1, kClockwise, n) : gap;
    const int best = MostValuable(p.treasuries[victim]);
    if (best < 0) continue;
    Move(p.treasuries[victim], p.treasuries[owner[gap]], best);
    record.snatched[gap] = static_cast<std::int8_t>(best);
  }
  reveals_.push_back(record);
  // Each Misdirection taken by one player reverses the direction of play.
  for (int gap = 0; gap < n; ++gap) {
    if (p.table[gap] == kMisdirection && owner[gap] >= 0) p.direction = -p.direction;
  }
  p.last_table = p.table;
  p.last_claims = p.claims;
  p.table.fill(-1);
  p.claims.fill(Side::kNone);
  p.offers_made = 0;

  const bool draw = p.deck_size >= n;
  if (draw) {
    for (Seat s = 0; s < n; ++s) ++p.hands[s][p.deck[--p.deck_size]];
  }
  bool hands_empty = false;  // (every hand holds as many cards)
  for (Seat s = 0; s < n; ++s) hands_empty = hands_empty || Total(p.hands[s]) == 0;
  if (hands_empty || (rules_.end == EndRule::kDeckEmpty && !draw)) {
    p.phase = Phase::kOver;
    return;
  }
  p.phase = Phase::kOffer;
  ++p.round;
  // The next active player: to the left, as the rulebook says (under
  // offers=onward, one seat on in the direction of play as it now stands).
  p.active = SeatAt(p.active, 1, OfferDirection(rules_.offers, p.direction), n);
}

// ---------------------------------------------------------------- Scoring

Reckoning HedoniaState::Reckon() const {
  const Position& p = position_;
  const int n = p.num_players;
  const int d = p.direction;
  Reckoning r;
  r.treasuries = p.treasuries;
  AssetCounts king = p.king;
  // A power scores `points` for seat `s`.
  auto score = [&r](Seat s, int power, int points) {
    r.power_points[s] += points;
    r.points_by_power[power] += points;
    r.events.push_back({.power = power, .seat = s, .points = points});
  };
  // A power moves a card from one place to another (or out of the game).
  auto move = [&r, &king](Seat s, int power, int card, Seat from, Seat to) {
    --(from == kKingsTreasury ? king : r.treasuries[from])[card];
    if (to != kOutOfTheGame) ++r.treasuries[to][card];
    r.events.push_back({.power = power, .seat = s, .card = card, .from = from, .to = to});
  };
  // The next active player, then round in the direction of play.
  const Seat first = SeatAt(p.active, 1, OfferDirection(rules_.offers, d), n);
  for (int kind = 0; kind < kNumEndKinds; ++kind) {
    for (int i = 0; i < n; ++i) {
      const Seat s = SeatAt(first, i, d, n);
      const AssetCounts& mine = r.treasuries[s];
      // The player's cards of this kind act now, as many as they hold.
      const int held = mine[kind];
      if (held == 0) continue;
      const Seat next = SeatAt(s, 1, d, n);
      const Seat previous = SeatAt(s, -1, d, n);
      switch (kind) {
        case kSnorkelPig:
          score(s, kind, kPigPackBonus * held * (held - 1));
          break;
        case kBeardedHopper:
          for (int k = 0; k < held && r.treasuries[next][kMagicCarrot] > 0; ++k) {
            move(s, kind, kMagicCarrot, next, s);
          }
          break;
        case kMagicCarrot:
          score(s, kind, (mine[kBeardedHopper] > 0 ? kFedCarrotBonus : kCarrotBonus) * held);
          break;
        case kDoomSnail:
          for (int k = 0; k < held; ++k) {
            const int best = MostValuable(r.treasuries[next]);
            if (best < 0) continue;
            move(s, kind, best, next, kOutOfTheGame);
            score(s, kind, kDoomFeast);
          }
          break;
        case kRoyalPoofin:
          for (int k = 0; k < held; ++k) {
            const int best = MostValuable(king);
            if (best >= 0) move(s, kind, best, kKingsTreasury, s);
          }
          break;
        case kVeryRareEgg: {
          int eggs = 0;
          for (Seat q = 0; q < n; ++q) eggs += r.treasuries[q][kVeryRareEgg];
          score(s, kind, held * kEggRarityBonus * (kAssetCounts[kVeryRareEgg] - eggs));
          break;
        }
        case kGrungle:
          for (int k = 0; k < held; ++k) {
            const int best = MostValuable(r.treasuries[previous]);
            if (best >= 0) move(s, kind, best, previous, s);
          }
          break;
        case kDeathslayer:
          for (int k = 0; k < held; ++k) {
            for (int step = 1; step < n; ++step) {
              const Seat victim = SeatAt(s, step, d, n);
              const AssetCounts& theirs = r.treasuries[victim];
              const int monster = theirs[kGrungle] > 0     ? kGrungle
                                  : theirs[kDoomSnail] > 0 ? kDoomSnail
                                                           : -1;
              if (monster < 0) continue;
              move(s, kind, monster, victim, kOutOfTheGame);
              score(s, kind, kSlayBonus);
              break;
            }
          }
          break;
        case kCursedSushi:
          score(s, kind, (held >= kSushiCurseFrom ? -kSushiCurse : kSushiFeast) * held);
          break;
        default:
          break;
      }
    }
  }
  for (Seat s = 0; s < n; ++s) {
    const int left = GapOn(s, Side::kLeft, n);
    const int right = GapOn(s, Side::kRight, n);
    // Half the value of each shared card beside the seat: in half points,
    // its whole value.
    r.score_halves[s] = 2 * (Value(r.treasuries[s]) + r.power_points[s]) + Value(p.shared[left]) +
                        Value(p.shared[right]);
  }
  return r;
}

std::vector<double> HedoniaState::Scores() const {
  HOARD_CHECK(IsOver(), "scores are final only once the match is over");
  const Reckoning r = Reckon();
  std::vector<double> scores(num_players());
  for (Seat s = 0; s < num_players(); ++s) scores[s] = r.score_halves[s] / 2.0;
  return scores;
}

std::vector<int> HedoniaState::Ranks() const {
  HOARD_CHECK(IsOver(), "ranks are final only once the match is over");
  const Reckoning r = Reckon();
  // The score, then (under the tie-break) the treasury's printed value and
  // its cards: the tie-break orders only equal scores.
  const bool tie_break = rules_.tie_break == TieBreak::kTreasury;
  std::vector<std::array<int, 3>> keys;
  for (Seat s = 0; s < num_players(); ++s) {
    keys.push_back({r.score_halves[s], tie_break ? Value(r.treasuries[s]) : 0,
                    tie_break ? Total(r.treasuries[s]) : 0});
  }
  return RanksFromKeys(keys);
}

// ---------------------------------------------------------------- Views

std::unique_ptr<View> HedoniaState::ViewFor(Seat observer) const {
  const Position& p = position_;
  const int n = p.num_players;
  auto view = std::make_unique<HedoniaView>();
  view->observer = observer;
  view->rules = rules_;
  view->round = p.round;
  view->rounds = Rounds();
  view->phase = p.phase;
  view->active = p.active;
  view->direction = p.direction;
  view->offerer = p.phase == Phase::kOffer ? Offerer() : -1;
  view->deck_size = p.deck_size;
  for (Seat s = 0; s < n; ++s) {
    PlayerView player;
    player.hand_size = Total(p.hands[s]);
    if (s == observer || IsOver()) player.hand = p.hands[s];
    player.treasury = p.treasuries[s];
    view->players.push_back(player);
    view->table.push_back(p.table[s]);
    view->shared.push_back(p.shared[s]);
    view->last_table.push_back(p.last_table[s]);
    view->last_claims.push_back(p.last_claims[s]);
  }
  view->reveals = reveals_;
  view->king = p.king;
  if (observer >= 0 && observer < n) view->own_claim = p.claims[observer];
  if (IsOver()) {
    const Reckoning r = Reckon();
    for (Seat s = 0; s < n; ++s) {
      view->final_treasuries.push_back(r.treasuries[s]);
      view->power_points.push_back(r.power_points[s]);
      view->scores.push_back(r.score_halves[s] / 2.0);
    }
  }
  return view;
}

std::string HedoniaView::ToString() const {
  const int n = static_cast<int>(players.size());
  std::string out =
      absl::StrCat("observer ", observer, ", round ", round, " of ", rounds, ", ", PhaseName(phase),
                   ", active seat ", active, ", ", DirectionName(direction),
                   offerer >= 0 ? absl::StrCat(", seat ", offerer, " to offer") : "", "\n");
  absl::StrAppend(&out, "deck ", deck_size, "; King's treasury: ", CountsText(king), "\n");
  for (int s = 0; s < n; ++s) {
    const PlayerView& player = players[s];
    absl::StrAppend(&out, "seat ", s, ": hand ", player.hand_size,
                    player.hand ? absl::StrCat(" (", CountsText(*player.hand), ")") : "",
                    "; treasury: ", CountsText(player.treasury), "\n");
  }
  for (int g = 0; g < n; ++g) {
    absl::StrAppend(&out, "gap ", g, "-", (g + 1) % n, ": offered ", CardText(table[g]),
                    "; shared: ", CountsText(shared[g]), "\n");
  }
  if (own_claim != Side::kNone) absl::StrAppend(&out, "your claim: ", SideName(own_claim), "\n");
  for (int r = 0; r < static_cast<int>(reveals.size()); ++r) {
    const PastReveal& reveal = reveals[r];
    std::vector<std::string> snatches;
    for (int g = 0; g < n; ++g) {
      if (reveal.snatched[g] >= 0) {
        snatches.push_back(absl::StrCat("gap ", g, " snatched ", CardText(reveal.snatched[g])));
      }
    }
    absl::StrAppend(&out, "round ", r + 1, " reveal (seat ", reveal.active, " first, ",
                    DirectionName(reveal.direction), "): ",
                    RevealText(std::span(reveal.cards).first(n), std::span(reveal.claims).first(n)),
                    snatches.empty() ? "" : "; ", absl::StrJoin(snatches, ", "), "\n");
  }
  if (reveals.empty() && !last_claims.empty() && last_claims[0] != Side::kNone) {
    std::vector<std::int8_t> cards(last_table.begin(), last_table.end());
    absl::StrAppend(&out, "last reveal: ", RevealText(cards, last_claims), "\n");
  }
  for (int s = 0; s < static_cast<int>(scores.size()); ++s) {
    absl::StrAppend(&out, "seat ", s, " after the powers: ", CountsText(final_treasuries[s]),
                    "; power points ", power_points[s], "; score ", scores[s], "\n");
  }
  return out;
}

std::string HedoniaView::Summary() const {
  std::vector<std::string> offered, treasuries;
  for (int card : table) offered.push_back(CardText(card));
  for (const PlayerView& player : players) {
    treasuries.push_back(absl::StrCat(Total(player.treasury), "/", Value(player.treasury)));
  }
  return absl::StrCat("round ", round, " ", PhaseName(phase), " | ", DirectionName(direction),
                      " | deck ", deck_size, " | on the table ", absl::StrJoin(offered, ", "),
                      " | treasuries (cards/value) ", absl::StrJoin(treasuries, " "), " | King ",
                      Total(king));
}

std::string HedoniaState::ActionToString(Seat seat, Action action) const {
  if (const std::optional<int> asset = OfferedAsset(action)) {
    return absl::StrCat("offer a ", AssetName(*asset));
  }
  if (const std::optional<Side> side = ClaimedSide(action)) {
    const int n = num_players();
    const int card = seat >= 0 && seat < n ? position_.table[GapOn(seat, *side, n)] : -1;
    return absl::StrCat("claim ", SideName(*side),
                        card >= 0 ? absl::StrCat(" (", AssetName(card), ")") : "");
  }
  return "(not an action)";
}

// Compact and complete, described once for the text and the fingerprint:
// in the text, one character per number (every number is from -1 to 60;
// -1 is written as '/').
template <typename Out>
void HedoniaState::Describe(Out& out) const {
  const Position& p = position_;
  const int n = p.num_players;
  auto counts = [&](const AssetCounts& c) {
    for (std::int8_t v : c) out.Digit(v);
  };
  out.Digit(static_cast<int>(rules_.end));
  out.Digit(static_cast<int>(rules_.offers));
  out.Digit(static_cast<int>(rules_.tie_break));
  out.Digit(n);
  out.Digit(p.round);
  out.Digit(p.active);
  out.Digit(p.direction);
  out.Digit(static_cast<int>(p.phase));
  out.Digit(p.offers_made);
  out.Mark(':');
  for (int i = 0; i < p.deck_size; ++i) out.Digit(p.deck[i]);
  for (Seat s = 0; s < n; ++s) {
    out.Mark('|');
    counts(p.hands[s]);
    counts(p.treasuries[s]);
    counts(p.shared[s]);
    out.Digit(p.table[s]);
    out.Digit(static_cast<int>(p.claims[s]));
    out.Digit(p.last_table[s]);
    out.Digit(static_cast<int>(p.last_claims[s]));
  }
  out.Mark('|');
  counts(p.king);
}

std::string HedoniaState::ToString() const {
  return TextOf([this](auto& out) { Describe(out); },
                64 + position_.deck_size + position_.num_players * 40);
}

std::uint64_t HedoniaState::Fingerprint() const {
  return FingerprintOf([this](auto& out) { Describe(out); });
}

std::vector<Zone> HedoniaState::Zones() const {
  const Position& p = position_;
  const int n = p.num_players;
  auto cards = [](std::string name, const AssetCounts& counts) {
    Zone zone{std::move(name), {}};
    for (int kind = 0; kind < kNumAssetKinds; ++kind) {
      zone.cards.insert(zone.cards.end(), counts[kind], std::string(AssetName(kind)));
    }
    return zone;
  };
  std::vector<Zone> zones;
  Zone deck{"unreleased deck", {}};
  for (int i = p.deck_size - 1; i >= 0; --i)
    deck.cards.push_back(std::string(AssetName(p.deck[i])));
  zones.push_back(std::move(deck));
  for (Seat s = 0; s < n; ++s)
    zones.push_back(cards(absl::StrCat("seat ", s, " hand"), p.hands[s]));
  for (Seat s = 0; s < n; ++s) {
    zones.push_back(cards(absl::StrCat("seat ", s, " treasury"), p.treasuries[s]));
  }
  for (int g = 0; g < n; ++g) {
    Zone offered{absl::StrCat("gap ", g, "-", (g + 1) % n, " offered"), {}};
    if (p.table[g] >= 0) offered.cards.push_back(std::string(AssetName(p.table[g])));
    zones.push_back(std::move(offered));
    zones.push_back(cards(absl::StrCat("gap ", g, "-", (g + 1) % n, " shared"), p.shared[g]));
  }
  zones.push_back(cards("King's treasury", p.king));
  return zones;
}

std::unique_ptr<State> HedoniaState::Clone() const {
  return std::unique_ptr<HedoniaState>(new HedoniaState(*this));
}

// ---------------------------------------------------------------- Setup

absl::StatusOr<Rules> RulesFromConfig(const GameInfo& info, const MatchConfig& config) {
  Rules rules;
  RETURN_IF_ERROR(ReadTwoWayOption(info, config, "end", "hands_empty", "deck_empty", &rules.end));
  RETURN_IF_ERROR(ReadTwoWayOption(info, config, "offers", "left", "onward", &rules.offers));
  RETURN_IF_ERROR(
      ReadTwoWayOption(info, config, "tie_break", "treasury", "none", &rules.tie_break));
  return rules;
}

namespace {

class HedoniaGame final : public Game {
 public:
  HedoniaGame() {
    info_.id = "hedonia";
    info_.name = "Hedonia";
    info_.min_players = kMinPlayers;
    info_.max_players = kMaxPlayers;
    info_.ruleset_version = "3";
    info_.options = {
        {"end", "hands_empty",
         "hands_empty (draws stop when the deck is empty; play goes on until "
         "every card is offered) or deck_empty (the match ends once a reveal "
         "leaves the deck unable to refill every hand; cards left in hand are "
         "not scored)"},
        {"offers", "left",
         "left (every card is offered to the offerer's left neighbour and the "
         "active player moves one seat left each round, as the rulebook says; "
         "a Misdirection reverses only the order of play) or onward (each "
         "card is offered to the next player in the direction of play and the "
         "active player moves on in it, so a Misdirection turns the offers "
         "to the right)"},
        {"tie_break", "treasury",
         "treasury (between equal scores, the more printed value in the "
         "treasury after the powers ranks first, then the more cards in it; "
         "players still tied share the rank) or none (equal scores share the "
         "rank)"},
    };
    // Every round each player offers one card and claims once: each card of
    // the deck is offered at most once, with one claim per offer.
    info_.max_actions = 2 * kNumAssets;
  }

  const GameInfo& info() const override { return info_; }

  absl::StatusOr<std::unique_ptr<State>> NewMatch(const MatchConfig& config) const override {
    RETURN_IF_ERROR(ValidateConfig(info_, config));
    ASSIGN_OR_RETURN(const Rules rules, RulesFromConfig(info_, config));
    Rng rng(config.seed);
    return HedoniaState::Deal(rules, config.num_players, rng);
  }

 private:
  GameInfo info_;
};

}  // namespace

std::unique_ptr<Game> MakeGame() { return std::make_unique<HedoniaGame>(); }

}  // namespace hoard::engine::hedonia
