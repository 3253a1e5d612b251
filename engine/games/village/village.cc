#include "engine/games/village/village.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "engine/state_packer.h"
#include "engine/status_macros.h"

namespace hoard::engine::village {
namespace {

constexpr std::array<absl::string_view, kNumCardKinds> kNames = {
    "sword", "scroll", "feather", "potion", "axe", "crown", "wild"};
constexpr std::array<absl::string_view, kNumCardKinds> kPlurals = {
    "swords", "scrolls", "feathers", "potions", "axes", "crowns", "wilds"};

constexpr int kCountBits = 6;
constexpr std::uint64_t kCountMask = (1u << kCountBits) - 1;
constexpr int kCardsShift = 7;

// Move::Encode's fields, each in its place.
constexpr std::uint64_t KindBits(Move::Kind kind) { return static_cast<std::uint64_t>(kind); }
constexpr std::uint64_t StallBits(int stall) { return static_cast<std::uint64_t>(stall) << 2; }
constexpr std::uint64_t TreasureBits(int treasure) {
  return static_cast<std::uint64_t>(treasure) << 4;
}
// One card of `kind` (a count of n is n times this, for n < 64).
constexpr std::uint64_t CountBit(int kind) {
  return std::uint64_t{1} << (kCardsShift + kCountBits * kind);
}

// The bit of treasure type `kind` in a set of types; none for a wild
// (without a branch: the wild's bit falls outside the mask).
constexpr unsigned kTreasureTypes = (1u << kNumTreasureTypes) - 1;
constexpr unsigned TypeBit(int kind) { return (1u << kind) & kTreasureTypes; }
static_assert(TypeBit(kWild) == 0 && TypeBit(kCrown) == 1u << kCrown);

// The codes of one payment's curses: bits[i] names the i-th treasure type
// of a set of types (a mask of TypeBit), in type order.
struct Curses {
  std::array<std::uint64_t, 3> bits{};
  int count = 0;
};
constexpr std::array<Curses, 1u << kNumTreasureTypes> kCursesOf = [] {
  std::array<Curses, 1u << kNumTreasureTypes> table{};
  for (unsigned paid = 0; paid < table.size(); ++paid) {
    for (int t = 0; t < kNumTreasureTypes; ++t) {
      if ((paid & (1u << t)) == 0) continue;
      if (table[paid].count < 3) table[paid].bits[table[paid].count] = TreasureBits(t);
      ++table[paid].count;
    }
  }
  return table;
}();

// The purchases, each encoded as it is found. A payment is a multiset of
// cards; its cards taken in kind order make a sorted tuple, and the tuples
// in ascending order put more of an earlier kind first, which is the list's
// order. A tuple's first card is a treasure (wilds alone may not pay), and
// each payment is listed once per treasure type it discards, as the curse,
// in type order. The loops are steered by the hand's shape, never by a
// branch on a count; the codes go to a buffer on the stack, where each
// payment writes three curses and keeps as many as it has.
class PaymentLister {
 public:
  // Room for the codes of every stall: at most 7 + 28 + 84 multisets of one
  // to three of the seven kinds, each with at most its size in curses, and
  // the two that a last payment may write past its own.
  static constexpr int kMaxCodes = 7 * 1 + 28 * 2 + 84 * 3 + 2;

  explicit PaymentLister(const Counts& hand) : hand_(hand) {
    // Each kind is written in the next place, which only a held kind keeps.
    for (int kind = 0; kind < kNumCardKinds; ++kind) {
      held_[num_held_] = kind;
      num_held_ += hand[kind] != 0;
    }
    num_treasures_ = num_held_ - (hand[kWild] != 0);
  }

  // Every purchase from `stall` (1 to 3 cards).
  void List(int stall) {
    static_assert(kNumStalls <= 4, "a payment here has at most three cards");
    const std::uint64_t buy = KindBits(Move::Kind::kBuy) | StallBits(stall);
    for (int a = 0; a < num_treasures_; ++a) {
      const int first = held_[a];
      const std::uint64_t one = buy + CountBit(first);
      if (stall == 1) {
        Emit(one, TypeBit(first));
        continue;
      }
      // A second card of the first kind only if there are two.
      for (int b = a + (hand_[first] < 2); b < num_held_; ++b) {
        const int second = held_[b];
        const std::uint64_t two = one + CountBit(second);
        const unsigned paid = TypeBit(first) | TypeBit(second);
        if (stall == 2) {
          Emit(two, paid);
          continue;
        }
        // A third card of the second kind only if there are enough.
        for (int c = b + (hand_[second] < 2 + (b == a)); c < num_held_; ++c) {
          const int third = held_[c];
          Emit(two + CountBit(third), paid | TypeBit(third));
        }
      }
    }
  }

  // Appends what List() wrote to `out`.
  void AppendTo(std::vector<Action>* out) const {
    static_assert(std::is_trivially_copyable_v<Action> && sizeof(Action) == sizeof(std::uint64_t));
    const std::size_t old = out->size();
    out->resize(old + size_);
    std::memcpy(out->data() + old, codes_, size_ * sizeof(std::uint64_t));
  }

 private:
  // The payment `code` once per treasure type in `paid`, as the curse.
  void Emit(std::uint64_t code, unsigned paid) {
    const Curses& curses = kCursesOf[paid];
    std::uint64_t* next = codes_ + size_;
    next[0] = code | curses.bits[0];
    next[1] = code | curses.bits[1];
    next[2] = code | curses.bits[2];
    size_ += curses.count;
  }

  const Counts& hand_;
  // The kinds in the hand, in kind order (wilds last); the first
  // num_treasures_ of them are treasures.
  std::array<int, kNumCardKinds> held_{};
  int num_held_ = 0;
  int num_treasures_ = 0;
  std::uint64_t codes_[kMaxCodes];  // written before read: not zeroed
  int size_ = 0;
};

int Total(const Counts& counts) { return std::accumulate(counts.begin(), counts.end(), 0); }

bool Empty(const Counts& counts) {
  int any = 0;
  for (int n : counts) any |= n;
  return any == 0;
}

// "2 swords, 1 wild" (or "nothing").
std::string CountsToString(const Counts& counts) {
  std::vector<std::string> parts;
  for (int kind = 0; kind < kNumCardKinds; ++kind) {
    if (counts[kind] == 0) continue;
    parts.push_back(
        absl::StrCat(counts[kind], " ", counts[kind] == 1 ? CardName(kind) : CardNamePlural(kind)));
  }
  return parts.empty() ? "nothing" : absl::StrJoin(parts, ", ");
}

std::vector<std::string> CountsToCards(const Counts& counts) {
  std::vector<std::string> cards;
  for (int kind = 0; kind < kNumCardKinds; ++kind) {
    for (int i = 0; i < counts[kind]; ++i) cards.emplace_back(CardName(kind));
  }
  return cards;
}

// Is counts[k] <= have[k] for every kind? (Every kind compared, without a
// branch for each.)
bool Covers(const Counts& have, const Counts& counts) {
  bool covers = true;
  for (int kind = 0; kind < kNumCardKinds; ++kind) covers &= counts[kind] <= have[kind];
  return covers;
}

void Add(Counts& to, const Counts& counts) {
  for (int kind = 0; kind < kNumCardKinds; ++kind) to[kind] += counts[kind];
}

void Subtract(Counts& from, const Counts& counts) {
  for (int kind = 0; kind < kNumCardKinds; ++kind) from[kind] -= counts[kind];
}

std::string FavorRow(const std::array<int, kFavorSpaces>& favor, const Rules& rules) {
  std::vector<std::string> spaces;
  for (int space = 0; space < kFavorSpaces; ++space) {
    spaces.push_back(absl::StrCat(CardName(favor[space]), "=", rules.favor_values[space]));
  }
  return absl::StrJoin(spaces, " ");
}

std::string MarketRow(const std::array<Counts, kNumStalls>& market) {
  std::vector<std::string> stalls;
  for (int stall = kNumStalls - 1; stall >= 0; --stall) {
    stalls.push_back(absl::StrCat("[", stall, "] ", CountsToString(market[stall])));
  }
  return absl::StrJoin(stalls, " | ");
}

std::string BribesToString(const Bribes& bribes) {
  std::vector<std::string> parts;
  for (int t = 0; t < kNumTreasureTypes; ++t) {
    if (bribes[t].size() == 0) continue;
    parts.push_back(
        absl::StrCat(CardName(t), " x", bribes[t].size(),
                     bribes[t].wilds > 0 ? absl::StrCat(" (", bribes[t].wilds, " wild)") : ""));
  }
  return parts.empty() ? "none" : absl::StrJoin(parts, ", ");
}

// The public table, then each seat; `hands[s]` is shown when known.
std::string RenderTable(const Rules& rules, const std::array<int, kFavorSpaces>& favor,
                        const std::array<Counts, kNumStalls>& market, const Counts& discard,
                        const std::vector<int>& hand_sizes,
                        const std::vector<std::optional<Counts>>& hands,
                        const std::vector<Bribes>& bribes) {
  std::string out =
      absl::StrCat("favor: ", FavorRow(favor, rules), "\n", "market: ", MarketRow(market), "\n",
                   "discard: ", CountsToString(discard), "\n");
  for (std::size_t seat = 0; seat < hand_sizes.size(); ++seat) {
    absl::StrAppend(&out, "seat ", seat, ": hand ", hand_sizes[seat],
                    hands[seat] ? absl::StrCat(" (", CountsToString(*hands[seat]), ")") : "",
                    "; bribes ", BribesToString(bribes[seat]), "\n");
  }
  return out;
}

// The rules that differ from the defaults of the options added after
// ruleset 1 (" end deck_empty"), so that matches under the defaults keep
// their fingerprints.
std::string LaterOptions(const Rules& rules) {
  return absl::StrCat(rules.end == EndRule::kDeckEmpty ? " end deck_empty" : "",
                      rules.merge == MergeRule::kNone ? " merge none" : "",
                      rules.tie_break == TieBreak::kNone ? " tie_break none" : "");
}

}  // namespace

absl::string_view CardName(int card) { return kNames.at(card); }
absl::string_view CardNamePlural(int card) { return kPlurals.at(card); }

absl::string_view EndReasonText(EndReason reason) {
  switch (reason) {
    case EndReason::kNotOver:
      return "";
    case EndReason::kEmptyDeckDraw:
      return "a draw found the deck empty";
    case EndReason::kRefillRanOut:
      return "the deck ran out during a refill";
    case EndReason::kDeckEmptied:
      return "the deck was emptied";
  }
  return "";
}

// ---------------------------------------------------------------- Move

Move Move::Draw() { return Move{}; }

Move Move::MakeBribe(int treasure, int treasures, int wilds) {
  Move move{.kind = Kind::kBribe, .treasure = treasure};
  move.cards[treasure] = treasures;
  move.cards[kWild] = wilds;
  return move;
}

Move Move::Buy(int stall, const Counts& payment, int curse) {
  return Move{.kind = Kind::kBuy, .stall = stall, .treasure = curse, .cards = payment};
}

Action Move::Encode() const {
  std::uint64_t code = KindBits(kind) | StallBits(stall) | TreasureBits(treasure);
  for (int kind = 0; kind < kNumCardKinds; ++kind) {
    code |= (static_cast<std::uint64_t>(cards[kind]) & kCountMask)
            << (kCardsShift + kCountBits * kind);
  }
  return Action(code);
}

std::optional<Move> Move::Decode(Action action) {
  const std::uint64_t code = action.code();
  Move move;
  const std::uint64_t kind = code & 3;
  if (kind > 2) return std::nullopt;
  move.kind = static_cast<Kind>(kind);
  move.stall = static_cast<int>((code >> 2) & 3);
  move.treasure = static_cast<int>((code >> 4) & 7);
  if (move.treasure == kNumTreasureTypes) return std::nullopt;
  for (int k = 0; k < kNumCardKinds; ++k) {
    move.cards[k] = static_cast<int>((code >> (kCardsShift + kCountBits * k)) & kCountMask);
  }
  // Only canonical encodings name a move: the fields above read every bit
  // below the last count's, so a stray bit can only be above it.
  if ((code >> (kCardsShift + kCountBits * kNumCardKinds)) != 0) return std::nullopt;
  return move;
}

// ---------------------------------------------------------------- View

std::string VillageView::ToString() const {
  std::string out =
      absl::StrCat(observer == kSpectator ? "spectator" : absl::StrCat("seat ", observer),
                   end == EndReason::kNotOver ? absl::StrCat("; seat ", current, " to act")
                                              : absl::StrCat("; match over: ", EndReasonText(end)),
                   "; deck ", deck_size, "\n");
  absl::StrAppend(&out, RenderTable(rules, favor, market, discard, hand_sizes, hands, bribes));
  for (std::size_t seat = 0; seat < known.size(); ++seat) {
    if (Total(known[seat]) == 0) continue;
    absl::StrAppend(&out, "seat ", seat, " is known to hold ", CountsToString(known[seat]), "\n");
  }
  return out;
}

std::string VillageView::Summary() const {
  return absl::StrCat("favor ", FavorRow(favor, rules), "; deck ", deck_size);
}

// ---------------------------------------------------------------- State

VillageState::VillageState(const Rules& rules, Position position, std::vector<Counts> known)
    : rules_(rules), position_(std::move(position)), known_(std::move(known)) {
  for (int space = 0; space < kFavorSpaces; ++space) {
    space_of_[position_.favor[space]] = space;
  }
  if (known_.empty()) known_.assign(position_.hands.size(), Counts{});
  for (int stall = 0; stall < kNumStalls; ++stall) {
    if (!Empty(position_.market[stall])) stocked_ |= 1u << stall;
  }
}

void VillageState::Forget(Seat seat, const Counts& counts) {
  for (int kind = 0; kind < kNumCardKinds; ++kind) {
    known_[seat][kind] = std::max(0, known_[seat][kind] - counts[kind]);
  }
}

int VillageState::num_players() const { return static_cast<int>(position_.hands.size()); }

Seats VillageState::SeatsToAct() const {
  if (IsOver()) return {};
  return {position_.current};
}

bool VillageState::IsOver() const { return position_.end != EndReason::kNotOver; }

int VillageState::Value(int treasure) const { return rules_.favor_values[space_of_[treasure]]; }

void VillageState::LegalActions(Seat seat, std::vector<Action>* out) const {
  out->clear();
  if (IsOver() || seat != position_.current) return;
  const Counts& hand = position_.hands[seat];
  const Bribes& bribes = position_.bribes[seat];

  // Every action is encoded as it is enumerated (Move::Encode's layout),
  // without building a Move for it.
  out->push_back(Move::Draw().Encode());
  // The bribes of each type: rows of treasures, each row every count of
  // wilds, walked as one run (a row's end chosen without a branch).
  const int wilds_held = hand[kWild];
  for (int t = 0; t < kNumTreasureTypes; ++t) {
    const int adds = bribes[t].treasures > 0;  // wilds alone may add to it
    int count = hand[t] * (wilds_held + 1) + adds * wilds_held;
    // The first row: no treasure and a wild if that may add to the bribe,
    // else one treasure and no wild.
    const int wilds_first = adds & (wilds_held > 0);
    std::uint64_t code = KindBits(Move::Kind::kBribe) | TreasureBits(t) |
                         (wilds_first * CountBit(kWild) + (1 - wilds_first) * CountBit(t));
    int wilds = wilds_first;
    // After a row's last count of wilds, the next row: one treasure more,
    // no wilds.
    const std::uint64_t next_row =
        CountBit(t) - static_cast<std::uint64_t>(wilds_held) * CountBit(kWild);
    for (; count > 0; --count) {
      out->push_back(Action(code));
      // 1 at a row's end, else 0: the step is chosen by arithmetic, as the
      // rows' lengths vary from hand to hand.
      const int row_ends = wilds == wilds_held;
      code += CountBit(kWild) + static_cast<std::uint64_t>(row_ends) * (next_row - CountBit(kWild));
      wilds = (wilds + 1) * (1 - row_ends);
    }
  }

  if (stocked_ & 1u) {
    out->push_back(Move::Buy(0, Counts{}, kNoTreasure).Encode());
  }
  PaymentLister payments(hand);
  for (int stall = 1; stall < kNumStalls; ++stall) {
    if (stocked_ & (1u << stall)) payments.List(stall);
  }
  payments.AppendTo(out);
}

// Drawing is always legal, and listed first.
Action VillageState::DefaultAction(Seat) const { return Move::Draw().Encode(); }

absl::Status VillageState::CheckBribe(Seat seat, const Move& move) const {
  const int t = move.treasure;
  if (t == kNoTreasure) {
    return absl::InvalidArgumentError("a bribe must name its treasure type");
  }
  int others = 0;  // treasures of other types, found without a branch each
  for (int kind = 0; kind < kNumTreasureTypes; ++kind) others |= kind != t ? move.cards[kind] : 0;
  for (int kind = 0; others != 0 && kind < kNumTreasureTypes; ++kind) {
    if (kind != t && move.cards[kind] > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("a bribe holds one treasure type (plus wilds): cannot add ",
                       CardNamePlural(kind), " to a bribe of ", CardNamePlural(t)));
    }
  }
  const int treasures = move.cards[t];
  const int wilds = move.cards[kWild];
  if (treasures + wilds == 0) {
    return absl::InvalidArgumentError("a bribe needs at least one card");
  }
  if (treasures == 0 && position_.bribes[seat][t].treasures == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("wilds alone cannot start a new bribe: a new bribe of ", CardNamePlural(t),
                     " needs at least one ", CardName(t)));
  }
  if (!Covers(position_.hands[seat], move.cards)) {
    return absl::InvalidArgumentError(absl::StrCat("the bribe needs ", CountsToString(move.cards),
                                                   " but the hand holds ",
                                                   CountsToString(position_.hands[seat])));
  }
  return absl::OkStatus();
}

absl::Status VillageState::CheckBuy(Seat seat, const Move& move) const {
  const int stall = move.stall;
  if ((stocked_ & (1u << stall)) == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("stall ", stall, " is empty: there is nothing to buy"));
  }
  const int paid = Total(move.cards);
  if (paid != stall) {
    return absl::InvalidArgumentError(absl::StrCat("stall ", stall, " costs exactly ", stall,
                                                   " card(s), but the payment has ", paid));
  }
  if (stall == 0) {
    if (move.treasure != kNoTreasure) {
      return absl::InvalidArgumentError("stall 0 is free, so buying from it curses nothing");
    }
    return absl::OkStatus();
  }
  if (move.cards[kWild] == paid) {
    return absl::InvalidArgumentError(
        "a payment of wilds only is not allowed: discard at least one "
        "treasure");
  }
  if (!Covers(position_.hands[seat], move.cards)) {
    return absl::InvalidArgumentError(absl::StrCat("the payment needs ", CountsToString(move.cards),
                                                   " but the hand holds ",
                                                   CountsToString(position_.hands[seat])));
  }
  if (move.treasure == kNoTreasure) {
    return absl::InvalidArgumentError(
        "every purchase that costs cards curses one of the discarded "
        "treasure types: name it");
  }
  if (move.cards[move.treasure] == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the cursed type must be one of the discarded treasures, and no ",
                     CardName(move.treasure), " was discarded"));
  }
  return absl::OkStatus();
}

absl::Status VillageState::Apply(Seat seat, Action action) {
  if (IsOver()) return absl::FailedPreconditionError("the match is over");
  if (seat != position_.current) {
    return absl::FailedPreconditionError(
        absl::StrCat("it is seat ", position_.current, "'s turn, not seat ", seat, "'s"));
  }
  const std::optional<Move> move = Move::Decode(action);
  if (!move) {
    return absl::InvalidArgumentError(
        absl::StrCat("code ", action.code(), " is not a village action"));
  }
  Counts& hand = position_.hands[seat];
  switch (move->kind) {
    case Move::Kind::kDraw:
      if (move->stall != 0 || move->treasure != kNoTreasure || Total(move->cards) != 0) {
        return absl::InvalidArgumentError("a draw names no cards");
      }
      if (position_.deck.empty()) {
        EndMatch(EndReason::kEmptyDeckDraw);
        return absl::OkStatus();
      }
      ++hand[position_.deck.back()];
      position_.deck.pop_back();
      break;
    case Move::Kind::kBribe: {
      if (move->stall != 0) {
        return absl::InvalidArgumentError("a bribe names no stall");
      }
      if (absl::Status status = CheckBribe(seat, *move); !status.ok()) {
        return status;
      }
      const int t = move->treasure;
      Subtract(hand, move->cards);
      Forget(seat, move->cards);
      position_.bribes[seat][t].treasures += move->cards[t];
      position_.bribes[seat][t].wilds += move->cards[kWild];
      MoveToken(t, Total(move->cards));
      if (!RefillMarket(t)) {
        EndMatch(EndReason::kRefillRanOut);
        return absl::OkStatus();
      }
      break;
    }
    case Move::Kind::kBuy: {
      if (absl::Status status = CheckBuy(seat, *move); !status.ok()) {
        return status;
      }
      Subtract(hand, move->cards);
      Forget(seat, move->cards);
      Add(position_.discard, move->cards);
      Add(hand, position_.market[move->stall]);
      Add(known_[seat], position_.market[move->stall]);
      position_.market[move->stall] = Counts{};
      stocked_ &= ~(1u << move->stall);
      if (move->stall > 0) MoveToken(move->treasure, -move->stall);
      break;
    }
  }
  if (rules_.end == EndRule::kDeckEmpty && position_.deck.empty()) {
    EndMatch(EndReason::kDeckEmptied);
    return absl::OkStatus();
  }
  position_.current = (position_.current + 1) % num_players();
  return absl::OkStatus();
}

void VillageState::MoveToken(int treasure, int spaces) {
  const int from = space_of_[treasure];
  const int to = std::clamp(from + spaces, 0, kFavorSpaces - 1);
  const int step = to > from ? 1 : -1;
  // Each token passed shifts one space towards `from`.
  for (int space = from; space != to; space += step) {
    position_.favor[space] = position_.favor[space + step];
    space_of_[position_.favor[space]] = space;
  }
  position_.favor[to] = treasure;
  space_of_[treasure] = to;
}

bool VillageState::RefillMarket(int bribed) {
  int stall = kFirstRefillStall;
  for (;;) {
    if (position_.deck.empty()) return false;
    const int card = position_.deck.back();
    position_.deck.pop_back();
    ++position_.market[stall][card];
    stocked_ |= 1u << stall;
    if (card == bribed || card == kWild) return true;
    stall = stall == 0 ? kFirstRefillStall : stall - 1;
  }
}

void VillageState::EndMatch(EndReason reason) {
  position_.end = reason;
  if (rules_.merge == MergeRule::kNone) return;
  // Treasures in hand join the player's bribe of their type, if there is one.
  for (Seat seat = 0; seat < num_players(); ++seat) {
    for (int t = 0; t < kNumTreasureTypes; ++t) {
      Bribe& bribe = position_.bribes[seat][t];
      if (bribe.treasures == 0) continue;
      bribe.treasures += position_.hands[seat][t];
      position_.hands[seat][t] = 0;
      known_[seat][t] = 0;
    }
  }
}

int VillageState::ScoreOf(Seat seat) const {
  int score = 0;
  for (int t = 0; t < kNumTreasureTypes; ++t) {
    score += Value(t) * (position_.bribes[seat][t].size() - position_.hands[seat][t]);
  }
  return score - kWildPenalty * position_.hands[seat][kWild];
}

std::vector<double> VillageState::Scores() const {
  std::vector<double> scores;
  for (Seat seat = 0; seat < num_players(); ++seat) {
    scores.push_back(ScoreOf(seat));
  }
  return scores;
}

std::vector<int> VillageState::Ranks() const {
  // Score, then bribe sizes under the tokens from the rightmost space left.
  using Key = std::pair<int, std::array<int, kFavorSpaces>>;
  std::vector<Key> keys;
  for (Seat seat = 0; seat < num_players(); ++seat) {
    Key key{ScoreOf(seat), {}};
    if (rules_.tie_break == TieBreak::kNone) {
      keys.push_back(key);
      continue;
    }
    for (int i = 0; i < kFavorSpaces; ++i) {
      const int t = position_.favor[kFavorSpaces - 1 - i];
      key.second[i] = position_.bribes[seat][t].size();
    }
    keys.push_back(key);
  }
  return RanksFromKeys(keys);
}

std::unique_ptr<View> VillageState::ViewFor(Seat observer) const {
  auto view = std::make_unique<VillageView>();
  view->observer = observer;
  view->rules = rules_;
  view->favor = position_.favor;
  view->market = position_.market;
  view->deck_size = static_cast<int>(position_.deck.size());
  view->discard = position_.discard;
  view->known = known_;
  view->bribes = position_.bribes;
  view->current = position_.current;
  view->end = position_.end;
  for (Seat seat = 0; seat < num_players(); ++seat) {
    view->hand_sizes.push_back(Total(position_.hands[seat]));
    const bool shown = IsOver() || seat == observer;
    view->hands.push_back(shown ? std::optional(position_.hands[seat]) : std::nullopt);
  }
  return view;
}

std::string VillageState::ActionToString(Seat, Action action) const {
  const std::optional<Move> move = Move::Decode(action);
  if (!move) return absl::StrCat("<code ", action.code(), ": not a village action>");
  switch (move->kind) {
    case Move::Kind::kDraw:
      return "draw a card";
    case Move::Kind::kBribe:
      return absl::StrCat("bribe ",
                          move->treasure == kNoTreasure ? "?" : CardNamePlural(move->treasure),
                          " with ", CountsToString(move->cards));
    case Move::Kind::kBuy:
      if (move->stall == 0 && move->treasure == kNoTreasure && Total(move->cards) == 0) {
        return "take stall 0 for free";
      }
      if (move->treasure == kNoTreasure) {
        return absl::StrCat("buy stall ", move->stall, " paying ", CountsToString(move->cards),
                            ", cursing nothing");
      }
      return absl::StrCat("buy stall ", move->stall, " paying ", CountsToString(move->cards),
                          ", cursing ", CardNamePlural(move->treasure));
  }
  return "?";
}

std::string VillageState::ToString() const {
  std::vector<int> hand_sizes;
  std::vector<std::optional<Counts>> hands;
  for (const Counts& hand : position_.hands) {
    hand_sizes.push_back(Total(hand));
    hands.emplace_back(hand);
  }
  std::vector<std::string> deck;
  for (auto it = position_.deck.rbegin(); it != position_.deck.rend(); ++it) {
    deck.emplace_back(CardName(*it));
  }
  return absl::StrCat("village; rules favor ", absl::StrJoin(rules_.favor_values, ","), " wilds ",
                      rules_.wilds, " hand ", rules_.hand_size, LaterOptions(rules_), "; ",
                      IsOver() ? absl::StrCat("over (", static_cast<int>(position_.end), ")")
                               : absl::StrCat("seat ", position_.current, " to act"),
                      "\ndeck (top first): ", absl::StrJoin(deck, " "), "\n",
                      RenderTable(rules_, position_.favor, position_.market, position_.discard,
                                  hand_sizes, hands, position_.bribes));
}

std::uint64_t VillageState::Fingerprint() const {
  // The fields ToString() draws, in its order, packed without drawing them.
  StatePacker out;
  out.List(rules_.favor_values);
  for (int v : {rules_.wilds, rules_.hand_size, static_cast<int>(rules_.end),
                static_cast<int>(rules_.merge), static_cast<int>(rules_.tie_break)}) {
    out.Num(v);
  }
  if (IsOver()) {
    out.Mark('o');
    out.Num(static_cast<int>(position_.end));
  } else {
    out.Num(position_.current);
  }
  out.List(position_.deck);
  out.List(position_.favor);
  for (const Counts& stall : position_.market) out.List(stall);
  out.List(position_.discard);
  for (Seat seat = 0; seat < num_players(); ++seat) {
    out.List(position_.hands[seat]);
    for (const Bribe& bribe : position_.bribes[seat]) {
      out.Num(bribe.treasures);
      out.Num(bribe.wilds);
    }
  }
  return out.Hash();
}

std::vector<Zone> VillageState::Zones() const {
  std::vector<Zone> zones;
  Zone deck{"deck", {}};
  for (auto it = position_.deck.rbegin(); it != position_.deck.rend(); ++it) {
    deck.cards.emplace_back(CardName(*it));
  }
  zones.push_back(std::move(deck));
  Zone favor{"favor", {}};
  for (int t : position_.favor) favor.cards.emplace_back(CardName(t));
  zones.push_back(std::move(favor));
  for (int stall = kNumStalls - 1; stall >= 0; --stall) {
    zones.push_back({absl::StrCat("stall ", stall), CountsToCards(position_.market[stall])});
  }
  zones.push_back({"discard", CountsToCards(position_.discard)});
  for (Seat seat = 0; seat < num_players(); ++seat) {
    zones.push_back({absl::StrCat("hand ", seat), CountsToCards(position_.hands[seat])});
    for (int t = 0; t < kNumTreasureTypes; ++t) {
      const Bribe& bribe = position_.bribes[seat][t];
      if (bribe.size() == 0) continue;
      Counts cards{};
      cards[t] = bribe.treasures;
      cards[kWild] = bribe.wilds;
      zones.push_back({absl::StrCat("bribe ", seat, " ", CardName(t)), CountsToCards(cards)});
    }
  }
  return zones;
}

std::unique_ptr<State> VillageState::Clone() const { return std::make_unique<VillageState>(*this); }

// ---------------------------------------------------------------- Setup

absl::StatusOr<Rules> RulesFromConfig(const GameInfo& info, const MatchConfig& config) {
  Rules rules;
  const std::string values = OptionValue(info, config, "favor_values");
  std::vector<std::string> parts = absl::StrSplit(values, ',');
  if (parts.size() != kFavorSpaces) {
    return absl::InvalidArgumentError(absl::StrCat("favor_values needs ", kFavorSpaces,
                                                   " comma-separated values, got '", values, "'"));
  }
  for (int space = 0; space < kFavorSpaces; ++space) {
    int value = 0;
    if (!absl::SimpleAtoi(parts[space], &value) || value < 0 || value > kMaxFavorValue) {
      return absl::InvalidArgumentError(absl::StrCat(
          "favor_values: '", parts[space], "' is not a value from 0 to ", kMaxFavorValue));
    }
    rules.favor_values[space] = value;
  }
  const std::string wilds = OptionValue(info, config, "wilds");
  if (wilds == "auto") {
    rules.wilds = kDefaultWilds[config.num_players - 2];
  } else if (!absl::SimpleAtoi(wilds, &rules.wilds) || rules.wilds < 0 || rules.wilds > kMaxWilds) {
    return absl::InvalidArgumentError(absl::StrCat("wilds must be 'auto' or a number from 0 to ",
                                                   kMaxWilds, ", not '", wilds, "'"));
  }
  const std::string hand = OptionValue(info, config, "hand_size");
  if (!absl::SimpleAtoi(hand, &rules.hand_size) || rules.hand_size < 1 ||
      rules.hand_size > kMaxHandSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("hand_size must be a number from 1 to ", kMaxHandSize, ", not '", hand, "'"));
  }
  RETURN_IF_ERROR(ReadTwoWayOption(info, config, "end", "draw_fails", "deck_empty", &rules.end));
  RETURN_IF_ERROR(ReadTwoWayOption(info, config, "merge", "auto", "none", &rules.merge));
  RETURN_IF_ERROR(ReadTwoWayOption(info, config, "tie_break", "favor", "none", &rules.tie_break));
  return rules;
}

Position Deal(const Rules& rules, int num_players, Rng& rng) {
  Position p;
  for (int t = 0; t < kNumTreasureTypes; ++t) {
    p.deck.insert(p.deck.end(), kCardsPerTreasureType, t);
  }
  p.deck.insert(p.deck.end(), rules.wilds, kWild);
  rng.Shuffle(std::span<int>(p.deck));
  std::iota(p.favor.begin(), p.favor.end(), 0);
  rng.Shuffle(std::span<int>(p.favor));
  p.hands.assign(num_players, Counts{});
  p.bribes.assign(num_players, Bribes{});
  for (int round = 0; round < rules.hand_size; ++round) {
    for (Seat seat = 0; seat < num_players; ++seat) {
      ++p.hands[seat][p.deck.back()];
      p.deck.pop_back();
    }
  }
  for (int stall = kFirstRefillStall; stall >= 0; --stall) {
    ++p.market[stall][p.deck.back()];
    p.deck.pop_back();
  }
  p.current = kFirstSeat;
  return p;
}

namespace {

class VillageGame final : public Game {
 public:
  VillageGame() {
    info_.id = "village";
    info_.name = "Please Don't Burn My Village!";
    info_.min_players = 2;
    info_.max_players = 5;
    info_.ruleset_version = "1";
    info_.options = {
        {"favor_values", absl::StrJoin(kDefaultFavorValues, ","),
         "values of the six Dragon's Favor spaces, left to right"},
        {"wilds", "auto",
         "wild cards in the deck: 'auto' is 11/13/18/20 for 2/3/4/5 players, "
         "or a number up to 40"},
        {"hand_size", absl::StrCat(kDefaultHandSize),
         absl::StrCat("cards dealt to each player (1 to ", kMaxHandSize, ")")},
        {"end", "draw_fails",
         "draw_fails (the match ends when a player must take a card from an "
         "empty deck: a draw, or a refill that runs out; taking the last card "
         "ends nothing) or deck_empty (also as soon as an action leaves the "
         "deck empty)"},
        {"merge", "auto",
         "auto (at the end, treasures in hand join the player's bribe of "
         "their type) or none (they stay in hand and cost their value)"},
        {"tie_break", "favor",
         "favor (between equal scores, more bribe cards under the rightmost "
         "token ranks first, then under the next token to the left, and so "
         "on; players still tied share the rank) or none (equal scores share "
         "the rank)"},
    };
    // Every action but the last lowers 2*deck + market by at least one, and
    // that is at most 2 * (84 + 40) + 4 at the start.
    info_.max_actions =
        2 * (kNumTreasureTypes * kCardsPerTreasureType + kMaxWilds) + kNumStalls + 1;
  }

  const GameInfo& info() const override { return info_; }

  absl::StatusOr<std::unique_ptr<State>> NewMatch(const MatchConfig& config) const override {
    RETURN_IF_ERROR(ValidateConfig(info_, config));
    absl::StatusOr<Rules> rules = RulesFromConfig(info_, config);
    if (!rules.ok()) return rules.status();
    // 5 players * 12 cards + 4 stalls never exceed the 84 treasures.
    static_assert(5 * kMaxHandSize + kNumStalls <= kNumTreasureTypes * kCardsPerTreasureType);
    Rng rng(config.seed);
    return std::make_unique<VillageState>(*rules, Deal(*rules, config.num_players, rng));
  }

 private:
  GameInfo info_;
};

}  // namespace

std::unique_ptr<Game> MakeGame() { return std::make_unique<VillageGame>(); }

}  // namespace hoard::engine::village
