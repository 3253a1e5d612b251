#include "engine/games/dragons_gold/dragons_gold.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/check.h"
#include "engine/state_packer.h"
#include "engine/status_macros.h"

namespace hoard::engine::dragons_gold {
namespace {

int Total(const TokenCounts& counts) { return std::accumulate(counts.begin(), counts.end(), 0); }
// (ObjectCounts is the same array type: Total serves both.)

// Majority bonuses by player count (3..6): advanced, basic.
int AdvancedMajority(int players) { return players == 3 ? 12 : players == 6 ? 8 : 10; }
int BasicMajority(int players) { return players == 3 ? 15 : players == 6 ? 10 : 12; }
constexpr int kBlackAdvanced = 19;
constexpr int kBlackBasic = 7;

std::string CountsText(const TokenCounts& counts) {
  std::vector<std::string> parts;
  for (int kind = 0; kind < kNumTokenKinds; ++kind) {
    if (counts[kind] > 0) {
      parts.push_back(absl::StrCat(counts[kind], " ",
                                   counts[kind] == 1 ? TokenName(kind) : TokenNamePlural(kind)));
    }
  }
  return parts.empty() ? "nothing" : absl::StrJoin(parts, ", ");
}

std::string ObjectsText(const ObjectCounts& counts) {
  std::vector<std::string> parts;
  for (int kind = 0; kind < kNumObjectKinds; ++kind) {
    for (int i = 0; i < counts[kind]; ++i) parts.push_back(std::string(ObjectName(kind)));
  }
  return parts.empty() ? "none" : absl::StrJoin(parts, ", ");
}

// Whether `holdings` hold every token of `bundle`.
bool Holds(const TokenCounts& holdings, const TokenCounts& bundle) {
  for (int kind = 0; kind < kNumTokenKinds; ++kind) {
    if (holdings[kind] < bundle[kind]) return false;
  }
  return true;
}

int AttackTotal(const FaceUpDragon& dragon) {
  int total = 0;
  for (const Attacker& a : dragon.attackers) total += kAdventurerStrength[a.adventurer];
  return total;
}

// Puts `value` into bits [shift, shift + width) of `code`.
void Put(std::uint64_t& code, int shift, int width, std::uint64_t value) {
  code |= (value & ((std::uint64_t{1} << width) - 1)) << shift;
}
int Get(std::uint64_t code, int shift, int width) {
  return static_cast<int>((code >> shift) & ((std::uint64_t{1} << width) - 1));
}

absl::Status Illegal(absl::string_view why) { return absl::InvalidArgumentError(why); }

// Appends `move` to `out` unless it is there already.
void AddOnce(const Move& move, std::vector<Action>* out) {
  const Action code = move.Encode();
  if (std::find(out->begin(), out->end(), code) == out->end()) out->push_back(code);
}

// The use of magic object `kind` with parameters a and b.
Move ObjectMove(int kind, int a = 0, int b = 0) {
  Move m;
  m.kind = Move::Kind::kUseObject;
  m.object = kind;
  m.a = a;
  m.b = b;
  return m;
}

// An action of the wrong kind for the phase.
absl::Status WrongMove(absl::string_view expected) {
  return Illegal(absl::StrCat("now is the time to ", expected));
}

}  // namespace

absl::string_view TokenName(int token) {
  static constexpr std::array<absl::string_view, kNumTokenKinds> kNames = {
      "silver", "gold",   "red",           "blue",         "green",
      "purple", "yellow", "white diamond", "black diamond"};
  return kNames[token];
}

absl::string_view TokenNamePlural(int token) {
  static constexpr std::array<absl::string_view, kNumTokenKinds> kNames = {
      "silver", "gold",           "red",           "blue", "green", "purple",
      "yellow", "white diamonds", "black diamonds"};
  return kNames[token];
}

absl::string_view AdventurerName(int adventurer) {
  static constexpr std::array<absl::string_view, kNumAdventurers> kNames = {"knight 4", "knight 3",
                                                                            "thief", "wizard"};
  return kNames[adventurer];
}

absl::string_view ObjectName(int object) {
  static constexpr std::array<absl::string_view, kNumObjectKinds> kNames = {
      "Dragon Swap",     "Second Strike", "Recall",      "Retreat",       "Treasure Map",
      "Sleeping Potion", "Silver Tongue", "Decoy Purse", "Invisible Hand"};
  return kNames[object];
}

int FaceUpDragon::strength() const {
  if (card < 0) return 0;
  return std::max(kMinDragonStrength,
                  kDragons[card].strength - kSleepingPotionWeakening * weakening);
}

// ---------------------------------------------------------------- Moves
//
// Bits 0-3: the kind. kAttack: 4-5 slot, 6-7 adventurer, 8-10 second
// adventurer + 1 (0: none). kUseObject: 4-7 object, 8-15 a, 16-23 b.
// kPropose: 3 bits per token from bit 4. kSteal, kDecoyGive: 4-7 token.
// kMarketOffer: 4-6 target, then 3 bits per kind in kind order: 7-33 the
// bundle given, 34-60 the bundle asked for.

Action Move::Encode() const {
  std::uint64_t code = 0;
  Put(code, 0, 4, static_cast<std::uint64_t>(kind));
  switch (kind) {
    case Kind::kAttack:
      Put(code, 4, 2, slot);
      Put(code, 6, 2, adventurer);
      Put(code, 8, 3, second + 1);
      break;
    case Kind::kUseObject:
      Put(code, 4, 4, object);
      Put(code, 8, 8, a);
      Put(code, 16, 8, b);
      break;
    case Kind::kPropose:
      HOARD_CHECK(assignment.size() <= kMaxTokensOnDragon, "a dragon holds at most 20 tokens");
      for (std::size_t i = 0; i < assignment.size(); ++i) Put(code, 4 + 3 * i, 3, assignment[i]);
      break;
    case Kind::kSteal:
    case Kind::kDecoyGive:
      Put(code, 4, 4, token);
      break;
    case Kind::kMarketOffer:
      Put(code, 4, 3, target);
      for (int kind = 0; kind < kNumTokenKinds; ++kind) {
        HOARD_CHECK(give[kind] >= 0 && give[kind] <= kMaxMarketTokensOfAKind && get[kind] >= 0 &&
                        get[kind] <= kMaxMarketTokensOfAKind,
                    "a market offer holds 0 to 7 tokens of a kind each way");
        Put(code, 7 + 3 * kind, 3, give[kind]);
        Put(code, 7 + 3 * kNumTokenKinds + 3 * kind, 3, get[kind]);
      }
      break;
    default:
      break;
  }
  return Action(code);
}

std::optional<Move> Move::Decode(Action action) {
  const std::uint64_t code = action.code();
  Move move;
  const int kind = Get(code, 0, 4);
  if (kind > static_cast<int>(Kind::kMarketRefuse)) return std::nullopt;
  move.kind = static_cast<Kind>(kind);
  std::uint64_t used = 0xf;
  switch (move.kind) {
    case Kind::kAttack:
      move.slot = Get(code, 4, 2);
      move.adventurer = Get(code, 6, 2);
      move.second = Get(code, 8, 3) - 1;
      if (move.second >= kNumAdventurers) return std::nullopt;
      used = (std::uint64_t{1} << 11) - 1;
      break;
    case Kind::kUseObject:
      move.object = Get(code, 4, 4);
      move.a = Get(code, 8, 8);
      move.b = Get(code, 16, 8);
      if (move.object >= kNumObjectKinds) return std::nullopt;
      used = (std::uint64_t{1} << 24) - 1;
      break;
    case Kind::kPropose:
      for (int i = 0; i < kMaxTokensOnDragon; ++i)
        move.assignment.push_back(Get(code, 4 + 3 * i, 3));
      while (!move.assignment.empty() && move.assignment.back() == 0) move.assignment.pop_back();
      used = ~std::uint64_t{0};
      break;
    case Kind::kSteal:
    case Kind::kDecoyGive:
      move.token = Get(code, 4, 4);
      if (move.token >= kNumTokenKinds) return std::nullopt;
      used = 0xff;
      break;
    case Kind::kMarketOffer:
      move.target = Get(code, 4, 3);
      for (int kind = 0; kind < kNumTokenKinds; ++kind) {
        move.give[kind] = Get(code, 7 + 3 * kind, 3);
        move.get[kind] = Get(code, 7 + 3 * kNumTokenKinds + 3 * kind, 3);
      }
      used = (std::uint64_t{1} << (7 + 6 * kNumTokenKinds)) - 1;
      break;
    default:
      break;
  }
  if ((code & ~used) != 0) return std::nullopt;  // one code per move
  return move;
}

Move Proposal(const std::vector<TokenCounts>& shares) {
  Move move;
  move.kind = Move::Kind::kPropose;
  for (int kind = 0; kind < kNumTokenKinds; ++kind) {
    for (int who = 0; who < static_cast<int>(shares.size()); ++who) {
      move.assignment.insert(move.assignment.end(), shares[who][kind], who);
    }
  }
  while (!move.assignment.empty() && move.assignment.back() == 0) move.assignment.pop_back();
  return move;
}

std::vector<TokenCounts> Shares(const Move& move, const TokenCounts& tokens, int contributors) {
  std::vector<TokenCounts> shares(contributors, TokenCounts{});
  int index = 0;
  for (int kind = 0; kind < kNumTokenKinds; ++kind) {
    for (int i = 0; i < tokens[kind]; ++i, ++index) {
      const int who = index < static_cast<int>(move.assignment.size()) ? move.assignment[index] : 0;
      if (who < contributors) ++shares[who][kind];
    }
  }
  return shares;
}

// ---------------------------------------------------------------- State

DragonsGoldState::DragonsGoldState(const Rules& rules, Position position, Record record)
    : rules_(rules), position_(std::move(position)), record_(std::move(record)) {}

int DragonsGoldState::num_players() const { return static_cast<int>(position_.holdings.size()); }

bool DragonsGoldState::IsOver() const { return position_.phase == Phase::kOver; }

Seats DragonsGoldState::SeatsToAct() const {
  const Position& p = position_;
  switch (p.phase) {
    case Phase::kTurn:
      return {p.current};
    case Phase::kPropose:
      return {p.negotiation.proposer};
    case Phase::kVote: {
      Seats seats;
      for (Seat s : p.negotiation.contributors) {
        if (s != p.negotiation.proposer && p.negotiation.votes[s] == 0) seats.push_back(s);
      }
      return seats;
    }
    case Phase::kThiefChoice:
      return {p.steals.front().thief_owner};
    case Phase::kDecoy:
      return {p.steals.front().victim};
    case Phase::kMarketOffer:
      return {p.market_offerer};
    case Phase::kMarketReply:
      return {p.offer.to};
    case Phase::kOver:
      return {};
  }
  return {};
}

void DragonsGoldState::LegalActions(Seat seat, std::vector<Action>* out) const {
  out->clear();
  const Seats to_act = SeatsToAct();
  if (std::find(to_act.begin(), to_act.end(), seat) == to_act.end()) return;
  const Position& p = position_;
  switch (p.phase) {
    case Phase::kTurn:
      AddTurnActions(seat, out);
      break;
    case Phase::kPropose:
      AddProposalExamples(seat, out);
      break;
    case Phase::kVote:  // rejecting first: the default action commits to nothing
      AddOnce({.kind = Move::Kind::kReject}, out);
      AddOnce({.kind = Move::Kind::kAccept}, out);
      break;
    case Phase::kThiefChoice: {
      // From a share, the kinds in it; from a screen, any kind (blind).
      const TokenCounts& pool = StealPool(p.steals.front().victim);
      for (int token = 0; token < kNumTokenKinds; ++token) {
        if (pool[token] > 0 || !rules_.thieves_steal_from_share) {
          AddOnce({.kind = Move::Kind::kSteal, .token = token}, out);
        }
      }
      break;
    }
    case Phase::kDecoy: {  // letting the thief pick first: the default spends no card
      AddOnce({.kind = Move::Kind::kDecoyKeep}, out);
      if (p.objects[seat][kDecoyPurse] == 0) break;
      const TokenCounts& pool = StealPool(seat);
      for (int token = 0; token < kNumTokenKinds; ++token) {
        if (pool[token] > 0) AddOnce({.kind = Move::Kind::kDecoyGive, .token = token}, out);
      }
      break;
    }
    case Phase::kMarketOffer:
      AddOnce({.kind = Move::Kind::kMarketPass}, out);
      AddMarketOffers(seat, out);
      break;
    case Phase::kMarketReply:  // refusing first, as for votes
      AddOnce({.kind = Move::Kind::kMarketRefuse}, out);
      if (Holds(p.holdings[seat], p.offer.get)) AddOnce({.kind = Move::Kind::kMarketAccept}, out);
      break;
    case Phase::kOver:
      break;
  }
}

void DragonsGoldState::AddTurnActions(Seat seat, std::vector<Action>* out) const {
  const Position& p = position_;
  for (int slot = 0; slot < kFaceUpDragons; ++slot) {
    if (p.dragons[slot].card < 0) continue;
    for (int adv = 0; adv < kNumAdventurers; ++adv) {
      if (p.adventurers[seat][adv] != AdventurerState::kReady) continue;
      AddOnce({.kind = Move::Kind::kAttack, .slot = slot, .adventurer = adv}, out);
      if (p.objects[seat][kSecondStrike] == 0) continue;
      for (int second = adv + 1; second < kNumAdventurers; ++second) {
        if (p.adventurers[seat][second] == AdventurerState::kReady) {
          AddOnce({.kind = Move::Kind::kAttack, .slot = slot, .adventurer = adv, .second = second},
                  out);
        }
      }
    }
  }
  for (int kind = 0; kind < kNumObjectKinds; ++kind) {
    if (p.objects[seat][kind] == 0) continue;
    // The parameters each object takes: two slots, one slot, an
    // adventurer, a player, or none.
    const int first = kind == kInvisibleHand                           ? num_players()
                      : kind == kRetreat                               ? kNumAdventurers
                      : kind == kDragonSwap || kind == kSleepingPotion ? kFaceUpDragons
                                                                       : 1;
    const int second = kind == kDragonSwap ? kFaceUpDragons : 1;
    for (int a = 0; a < first; ++a) {
      for (int b = 0; b < second; ++b) {
        const Move m = ObjectMove(kind, a, b);
        if (CheckObject(seat, m).ok()) AddOnce(m, out);
      }
    }
  }
}

void DragonsGoldState::AddProposalExamples(Seat seat, std::vector<Action>* out) const {
  const Position& p = position_;
  // Examples: an even split dealt round the table from the proposer
  // (first: it is the default action), then the whole treasure to each
  // contributor in turn, the proposer first.
  const Negotiation& n = p.negotiation;
  const int k = static_cast<int>(n.contributors.size());
  const int me = static_cast<int>(std::find(n.contributors.begin(), n.contributors.end(), seat) -
                                  n.contributors.begin());
  std::vector<TokenCounts> even(k, TokenCounts{});
  int next = me;
  for (int kind = 0; kind < kNumTokenKinds; ++kind) {
    for (int i = 0; i < n.tokens[kind]; ++i) ++even[next++ % k][kind];
  }
  AddOnce(Proposal(even), out);
  for (int i = 0; i < k; ++i) {
    std::vector<TokenCounts> shares(k, TokenCounts{});
    shares[(me + i) % k] = n.tokens;
    AddOnce(Proposal(shares), out);
  }
  if (p.objects[seat][kSilverTongue] > 0) AddOnce(ObjectMove(kSilverTongue), out);
}

void DragonsGoldState::AddMarketOffers(Seat seat, std::vector<Action>* out) const {
  // Examples: every one-for-one swap of a kind held for another kind.
  const Position& p = position_;
  for (Seat to = 0; to < num_players(); ++to) {
    if (to == seat) continue;
    for (int give = 0; give < kNumTokenKinds; ++give) {
      if (p.holdings[seat][give] == 0) continue;
      for (int get = 0; get < kNumTokenKinds; ++get) {
        if (get == give) continue;
        Move offer{.kind = Move::Kind::kMarketOffer, .target = to};
        offer.give[give] = 1;
        offer.get[get] = 1;
        AddOnce(offer, out);
      }
    }
  }
}

bool DragonsGoldState::LegalActionsComplete(Seat seat) const {
  const Position& p = position_;
  if (p.phase == Phase::kPropose) return seat != p.negotiation.proposer;
  // Bundles are too many to list: the swaps of one token each are examples.
  if (p.phase == Phase::kMarketOffer)
    return seat != p.market_offerer || Total(p.holdings[seat]) == 0;
  return true;
}

std::string DragonsGoldState::LegalActionsHint(Seat seat) const {
  if (LegalActionsComplete(seat)) return "";
  if (position_.phase == Phase::kMarketOffer) {
    return absl::StrCat(
        "offer another player any bundle of your tokens (", CountsText(position_.holdings[seat]),
        ") for any bundle of tokens of other kinds, at least one token and at "
        "most ",
        kMaxMarketTokensOfAKind, " of a kind each way, or pass; the examples are a few of them");
  }
  const Negotiation& n = position_.negotiation;
  std::vector<std::string> who;
  for (Seat s : n.contributors) who.push_back(absl::StrCat("seat ", s));
  return absl::StrCat("propose any division of the dragon's ", Total(n.tokens), " tokens (",
                      CountsText(n.tokens), ") that gives every token to one of ",
                      absl::StrJoin(who, ", "), "; the examples are a few of them");
}

absl::Status DragonsGoldState::CheckAttack(Seat seat, const Move& move) const {
  const Position& p = position_;
  if (p.dragons[move.slot].card < 0) {
    return Illegal(absl::StrCat("no dragon lies in slot ", move.slot));
  }
  if (move.adventurer >= kNumAdventurers ||
      p.adventurers[seat][move.adventurer] != AdventurerState::kReady) {
    return Illegal(absl::StrCat("your ", AdventurerName(move.adventurer), " is not ready"));
  }
  if (move.second >= 0) {
    if (p.objects[seat][kSecondStrike] == 0) {
      return Illegal("sending two adventurers needs a Second Strike");
    }
    if (move.second <= move.adventurer ||
        p.adventurers[seat][move.second] != AdventurerState::kReady) {
      return Illegal("the second adventurer must be another ready one, named after the first");
    }
  }
  return absl::OkStatus();
}

absl::Status DragonsGoldState::CheckObject(Seat seat, const Move& move) const {
  const Position& p = position_;
  if (move.object >= kNumObjectKinds || p.objects[seat][move.object] == 0) {
    return Illegal(absl::StrCat("you hold no ", ObjectName(move.object)));
  }
  const bool turn = p.phase == Phase::kTurn;
  auto occupied = [&](int slot) {
    return slot >= 0 && slot < kFaceUpDragons && p.dragons[slot].card >= 0;
  };
  auto no_params = [&] { return move.a == 0 && move.b == 0; };
  switch (move.object) {
    case kDragonSwap: {
      if (!turn) return Illegal("a Dragon Swap is played on your turn");
      if (!occupied(move.a) || !occupied(move.b) || move.a >= move.b) {
        return Illegal("a Dragon Swap names two face-up dragons, the lower slot first");
      }
      const FaceUpDragon& x = p.dragons[move.a];
      const FaceUpDragon& y = p.dragons[move.b];
      if (AttackTotal(x) >= y.strength() || AttackTotal(y) >= x.strength()) {
        return Illegal("a Dragon Swap may not put a dragon under attackers who would slay it");
      }
      return absl::OkStatus();
    }
    case kRecall:
      if (!turn || !no_params()) return Illegal("a Recall is played on your turn");
      for (AdventurerState s : p.adventurers[seat]) {
        if (s == AdventurerState::kResting) return absl::OkStatus();
      }
      return Illegal("a Recall needs a resting adventurer");
    case kRetreat:
      if (!turn || move.b != 0) return Illegal("a Retreat is played on your turn");
      if (move.a >= kNumAdventurers || p.adventurers[seat][move.a] != AdventurerState::kAttacking) {
        return Illegal("a Retreat calls back one of your attacking adventurers");
      }
      return absl::OkStatus();
    case kTreasureMap:
      if (!turn || !no_params()) return Illegal("a Treasure Map is played on your turn");
      if (p.bag.empty()) return Illegal("the bag is empty");
      return absl::OkStatus();
    case kSleepingPotion: {
      if (!turn || move.b != 0) return Illegal("a Sleeping Potion is played on your turn");
      if (!occupied(move.a)) return Illegal("a Sleeping Potion names a face-up dragon");
      FaceUpDragon weaker = p.dragons[move.a];
      ++weaker.weakening;
      if (weaker.strength() == p.dragons[move.a].strength() ||
          AttackTotal(weaker) >= weaker.strength()) {
        return Illegal("a Sleeping Potion must weaken a dragon without its attackers slaying it");
      }
      return absl::OkStatus();
    }
    case kInvisibleHand:
      if (!turn || move.b != 0) return Illegal("an Invisible Hand is played on your turn");
      if (move.a == seat || move.a >= num_players() || Total(p.holdings[move.a]) == 0) {
        return Illegal("an Invisible Hand names another player who holds a token");
      }
      return absl::OkStatus();
    case kSilverTongue:
      if (p.phase != Phase::kPropose || !no_params()) {
        return Illegal("a Silver Tongue is played when you are to propose a division");
      }
      return absl::OkStatus();
    case kSecondStrike:
      return Illegal("a Second Strike is played with an attack that sends two adventurers");
    case kDecoyPurse:
      return Illegal("a Decoy Purse is played when a thief steals from you");
  }
  return Illegal("no such object");
}

absl::Status DragonsGoldState::CheckProposal(const Move& move) const {
  const Negotiation& n = position_.negotiation;
  const int count = Total(n.tokens);
  const int k = static_cast<int>(n.contributors.size());
  if (static_cast<int>(move.assignment.size()) > count) {
    return Illegal(absl::StrCat("the dragon holds ", count, " tokens, the proposal assigns ",
                                move.assignment.size()));
  }
  int index = 0;
  for (int kind = 0; kind < kNumTokenKinds; ++kind) {
    int previous = 0;
    for (int i = 0; i < n.tokens[kind]; ++i, ++index) {
      const int who = index < static_cast<int>(move.assignment.size()) ? move.assignment[index] : 0;
      if (who >= k) {
        return Illegal(absl::StrCat("token ", index, " goes to contributor ", who, ", but only ", k,
                                    " took part"));
      }
      if (who < previous) {
        return Illegal("the tokens of one kind must be assigned in contributor order");
      }
      previous = who;
    }
  }
  return absl::OkStatus();
}

absl::Status DragonsGoldState::Apply(Seat seat, Action action) {
  if (IsOver()) return absl::FailedPreconditionError("the match is over");
  const Seats to_act = SeatsToAct();
  if (std::find(to_act.begin(), to_act.end(), seat) == to_act.end()) {
    return absl::FailedPreconditionError(absl::StrCat("seat ", seat, " is not to act now"));
  }
  const std::optional<Move> decoded = Move::Decode(action);
  if (!decoded) return Illegal("that code is no Dragon's Gold action");
  switch (position_.phase) {
    case Phase::kTurn:
      return ApplyTurn(seat, *decoded);
    case Phase::kPropose:
      return ApplyProposal(seat, *decoded);
    case Phase::kVote:
      return ApplyVote(seat, *decoded);
    case Phase::kThiefChoice:
      return ApplyThiefChoice(*decoded);
    case Phase::kDecoy:
      return ApplyDecoy(seat, *decoded);
    case Phase::kMarketOffer:
      return ApplyMarketOffer(seat, *decoded);
    case Phase::kMarketReply:
      return ApplyMarketReply(seat, *decoded);
    case Phase::kOver:
      break;
  }
  return absl::FailedPreconditionError("the match is over");
}

absl::Status DragonsGoldState::ApplyTurn(Seat seat, const Move& move) {
  if (move.kind == Move::Kind::kAttack) {
    RETURN_IF_ERROR(CheckAttack(seat, move));
    Attack(seat, move);
    return absl::OkStatus();
  }
  if (move.kind == Move::Kind::kUseObject) {
    RETURN_IF_ERROR(CheckObject(seat, move));
    UseObject(seat, move);
    return absl::OkStatus();
  }
  return WrongMove("attack a dragon (or play a magic object first)");
}

absl::Status DragonsGoldState::ApplyProposal(Seat seat, const Move& move) {
  if (move.kind == Move::Kind::kUseObject) {
    RETURN_IF_ERROR(CheckObject(seat, move));
    UseObject(seat, move);
    return absl::OkStatus();
  }
  if (move.kind != Move::Kind::kPropose) return WrongMove("propose a division of the treasure");
  RETURN_IF_ERROR(CheckProposal(move));
  Negotiation& n = position_.negotiation;
  n.proposal = Shares(move, n.tokens, static_cast<int>(n.contributors.size()));
  ++n.proposals_made;
  n.votes.assign(num_players(), 0);
  position_.phase = Phase::kVote;
  return absl::OkStatus();
}

absl::Status DragonsGoldState::ApplyVote(Seat seat, const Move& move) {
  if (move.kind != Move::Kind::kAccept && move.kind != Move::Kind::kReject) {
    return WrongMove("accept or reject the proposal");
  }
  Negotiation& n = position_.negotiation;
  n.votes[seat] = move.kind == Move::Kind::kAccept ? 1 : 2;
  if (!SeatsToAct().empty()) return absl::OkStatus();  // others still to vote
  n.last_votes = n.votes;
  bool unanimous = true;
  for (Seat s : n.contributors) unanimous = unanimous && (s == n.proposer || n.votes[s] == 1);
  if (unanimous) {
    Divide(n.proposal);
  } else if (n.proposals_made >= n.proposals_allowed) {
    LoseTreasure();
  } else {
    const auto it = std::find(n.contributors.begin(), n.contributors.end(), n.proposer);
    n.proposer = n.contributors[(it - n.contributors.begin() + 1) % n.contributors.size()];
    n.proposal.clear();
    n.votes.assign(num_players(), 0);
    position_.phase = Phase::kPropose;
  }
  return absl::OkStatus();
}

absl::Status DragonsGoldState::ApplyThiefChoice(const Move& move) {
  Position& p = position_;
  if (move.kind != Move::Kind::kSteal) {
    return WrongMove("choose the kind of token your thief takes");
  }
  const Steal steal = p.steals.front();
  const bool held = StealPool(steal.victim)[move.token] > 0;
  if (rules_.thieves_steal_from_share && !held) {
    return Illegal(
        absl::StrCat("seat ", steal.victim, "'s share holds no ", TokenNamePlural(move.token)));
  }
  p.steals.erase(p.steals.begin());
  // From a screen, a kind the victim does not hold: the thief takes at
  // random after all.
  Rob({.thief_owner = steal.thief_owner,
       .victim = steal.victim,
       .how = held ? TheftKind::kChosen : TheftKind::kRandom,
       .named = move.token,
       .token = held ? move.token : kHiddenToken});
  RunSteals();
  return absl::OkStatus();
}

absl::Status DragonsGoldState::ApplyDecoy(Seat seat, const Move& move) {
  Position& p = position_;
  const Steal steal = p.steals.front();
  if (move.kind == Move::Kind::kDecoyGive) {
    if (p.objects[seat][kDecoyPurse] == 0) return Illegal("you hold no Decoy Purse");
    if (StealPool(seat)[move.token] == 0) {
      return Illegal(
          absl::StrCat(rules_.thieves_steal_from_share ? "your share holds no " : "you hold no ",
                       TokenName(move.token)));
    }
    p.steals.erase(p.steals.begin());
    --p.objects[seat][kDecoyPurse];
    ++p.object_discard[kDecoyPurse];
    Rob({.thief_owner = steal.thief_owner,
         .victim = seat,
         .how = TheftKind::kDecoyPurse,
         .token = move.token});
  } else if (move.kind == Move::Kind::kDecoyKeep) {
    p.steals.erase(p.steals.begin());
    Rob({.thief_owner = steal.thief_owner, .victim = seat});
  } else {
    return WrongMove("give up a token of your choice with your Decoy Purse, or keep it");
  }
  RunSteals();
  return absl::OkStatus();
}

absl::Status DragonsGoldState::ApplyMarketOffer(Seat seat, const Move& move) {
  Position& p = position_;
  if (move.kind == Move::Kind::kMarketPass) {
    --p.market_offers_left[seat];
    NextMarketOffer(seat);
    return absl::OkStatus();
  }
  if (move.kind != Move::Kind::kMarketOffer)
    return WrongMove("offer a swap at the market, or pass");
  if (move.target == seat || move.target >= num_players()) {
    return Illegal("a swap is offered to another player");
  }
  if (Total(move.give) == 0 || Total(move.get) == 0) {
    return Illegal("a swap gives at least one token for at least one token");
  }
  for (int kind = 0; kind < kNumTokenKinds; ++kind) {
    if (move.give[kind] > 0 && move.get[kind] > 0) {
      return Illegal(absl::StrCat("a swap does not both give and ask for ", TokenNamePlural(kind)));
    }
  }
  if (!Holds(p.holdings[seat], move.give)) {
    return Illegal(absl::StrCat("you do not hold ", CountsText(move.give), " to give"));
  }
  p.offer = {.from = seat, .to = move.target, .give = move.give, .get = move.get};
  p.phase = Phase::kMarketReply;
  return absl::OkStatus();
}

absl::Status DragonsGoldState::ApplyMarketReply(Seat seat, const Move& move) {
  Position& p = position_;
  if (move.kind == Move::Kind::kMarketAccept) {
    if (!Holds(p.holdings[seat], p.offer.get)) {
      return Illegal(absl::StrCat("you do not hold ", CountsText(p.offer.get), " to give"));
    }
    HOARD_CHECK(Holds(p.holdings[p.offer.from], p.offer.give),
                "an offerer's screen does not change while the offer awaits its reply");
    for (int kind = 0; kind < kNumTokenKinds; ++kind) {
      p.holdings[p.offer.from][kind] += p.offer.get[kind] - p.offer.give[kind];
      p.holdings[seat][kind] += p.offer.give[kind] - p.offer.get[kind];
    }
    record_.push_back(
        MarketSwap{.from = p.offer.from, .to = seat, .give = p.offer.give, .get = p.offer.get});
  } else if (move.kind != Move::Kind::kMarketRefuse) {
    return WrongMove("accept or refuse the swap");
  }
  --p.market_offers_left[p.offer.from];
  NextMarketOffer(p.offer.from);
  return absl::OkStatus();
}

void DragonsGoldState::Attack(Seat seat, const Move& move) {
  Position& p = position_;
  FaceUpDragon& dragon = p.dragons[move.slot];
  for (int adv : {move.adventurer, move.second}) {
    if (adv < 0) continue;
    p.adventurers[seat][adv] = AdventurerState::kAttacking;
    dragon.attackers.push_back({seat, adv});
  }
  if (move.second >= 0) {
    --p.objects[seat][kSecondStrike];
    ++p.object_discard[kSecondStrike];
  }
  if (AttackTotal(dragon) >= dragon.strength()) {
    MaybeSlay(move.slot, seat);
  } else {
    NextTurn();
  }
}

void DragonsGoldState::UseObject(Seat seat, const Move& move) {
  Position& p = position_;
  --p.objects[seat][move.object];
  ++p.object_discard[move.object];
  switch (move.object) {
    case kDragonSwap: {
      FaceUpDragon& x = p.dragons[move.a];
      FaceUpDragon& y = p.dragons[move.b];
      std::swap(x.card, y.card);
      std::swap(x.weakening, y.weakening);
      std::swap(x.tokens, y.tokens);
      break;
    }
    case kRecall:
      for (AdventurerState& s : p.adventurers[seat]) {
        if (s == AdventurerState::kResting) s = AdventurerState::kReady;
      }
      break;
    case kRetreat:
      for (FaceUpDragon& dragon : p.dragons) {
        std::erase(dragon.attackers, Attacker{seat, move.a});
      }
      p.adventurers[seat][move.a] = AdventurerState::kReady;
      break;
    case kTreasureMap:
      ++p.holdings[seat][p.bag.back()];
      record_.push_back(TreasureMapDraw{.seat = seat, .token = p.bag.back()});
      p.bag.pop_back();
      break;
    case kSleepingPotion:
      ++p.dragons[move.a].weakening;
      break;
    case kInvisibleHand:
      Rob({.thief_owner = seat, .victim = move.a, .how = TheftKind::kInvisibleHand});
      break;
    case kSilverTongue:
      p.negotiation.proposals_allowed += 2;
      break;
    default:
      break;
  }
}

void DragonsGoldState::MaybeSlay(int slot, Seat slayer) {
  Position& p = position_;
  FaceUpDragon& dragon = p.dragons[slot];
  TokenCounts drawn{};
  for (int i = 0; i < kDragons[dragon.card].hidden && !p.bag.empty(); ++i) {
    ++drawn[p.bag.back()];
    ++dragon.tokens[p.bag.back()];
    p.bag.pop_back();
  }
  Negotiation n;
  n.slot = slot;
  n.slayer = slayer;
  std::set<Seat> contributors;
  for (const Attacker& a : dragon.attackers) contributors.insert(a.seat);
  n.contributors.assign(contributors.begin(), contributors.end());
  n.tokens = dragon.tokens;
  dragon.tokens = TokenCounts{};
  n.proposer = slayer;
  n.proposals_allowed = rules_.negotiation_proposals;
  n.votes.assign(num_players(), 0);
  Slaying slaying{.card = dragon.card,
                  .slot = slot,
                  .slayer = slayer,
                  .attackers = {dragon.attackers.begin(), dragon.attackers.end()},
                  .treasure = n.tokens,
                  .drawn = drawn};
  for (Seat s : n.contributors) slaying.shares.push_back({.seat = s});
  record_.push_back(std::move(slaying));
  p.negotiation = std::move(n);
  if (p.negotiation.contributors.size() == 1 || Total(p.negotiation.tokens) == 0) {
    // A lone slayer takes all; an empty hoard needs no talk.
    std::vector<TokenCounts> shares(p.negotiation.contributors.size(), TokenCounts{});
    shares[0] = p.negotiation.tokens;
    Divide(shares);
    return;
  }
  p.phase = Phase::kPropose;
}

void DragonsGoldState::Divide(const std::vector<TokenCounts>& shares) {
  Position& p = position_;
  Negotiation& n = p.negotiation;
  const FaceUpDragon& dragon = p.dragons[n.slot];
  for (std::size_t i = 0; i < n.contributors.size(); ++i) {
    const Seat seat = n.contributors[i];
    for (int kind = 0; kind < kNumTokenKinds; ++kind) p.holdings[seat][kind] += shares[i][kind];
    // A wizard's owner draws a magic object for every red token received
    // (the advanced rule, under either scoring: kWizardsDrawForRed).
    const bool wizard = std::find(dragon.attackers.begin(), dragon.attackers.end(),
                                  Attacker{seat, kWizard}) != dragon.attackers.end();
    if (kWizardsDrawForRed && wizard && rules_.magic_objects) DrawObjects(seat, shares[i][kRed]);
  }
  Settle(Slaying::Outcome::kDivided, shares);
  n.tokens = TokenCounts{};
  n.shares = shares;
  SendThieves();
}

void DragonsGoldState::LoseTreasure() {
  Position& p = position_;
  Negotiation& n = p.negotiation;
  for (int kind = 0; kind < kNumTokenKinds; ++kind) p.removed[kind] += n.tokens[kind];
  Settle(Slaying::Outcome::kLost, {});
  n.tokens = TokenCounts{};
  n.shares.assign(n.contributors.size(), TokenCounts{});
  SendThieves();
}

void DragonsGoldState::Settle(Slaying::Outcome outcome, const std::vector<TokenCounts>& shares) {
  const Negotiation& n = position_.negotiation;
  Slaying* slaying = record_.empty() ? nullptr : std::get_if<Slaying>(&record_.back());
  if (slaying == nullptr || slaying->outcome != Slaying::Outcome::kNegotiating) {
    const FaceUpDragon& dragon = position_.dragons[n.slot];
    record_.push_back(Slaying{.card = dragon.card,
                              .slot = n.slot,
                              .slayer = n.slayer,
                              .attackers = {dragon.attackers.begin(), dragon.attackers.end()},
                              .treasure = n.tokens});
    slaying = &std::get<Slaying>(record_.back());
  }
  slaying->outcome = outcome;
  slaying->shares.clear();
  for (std::size_t i = 0; i < n.contributors.size(); ++i) {
    slaying->shares.push_back(
        {.seat = n.contributors[i], .tokens = i < shares.size() ? shares[i] : TokenCounts{}});
  }
}

void DragonsGoldState::SendThieves() {
  Position& p = position_;
  const Negotiation& n = p.negotiation;
  // Each thief, in the order they came, robs every other contributor.
  const FaceUpDragon& dragon = p.dragons[n.slot];
  p.steals.clear();
  for (const Attacker& a : dragon.attackers) {
    if (a.adventurer != kThief) continue;
    const bool chooses = std::find(dragon.attackers.begin(), dragon.attackers.end(),
                                   Attacker{a.seat, kWizard}) != dragon.attackers.end();
    for (Seat victim : n.contributors) {
      if (victim != a.seat) p.steals.push_back({a.seat, victim, chooses});
    }
  }
  RunSteals();
}

void DragonsGoldState::RunSteals() {
  Position& p = position_;
  while (!p.steals.empty()) {
    const Steal& steal = p.steals.front();
    // Nothing to take: an empty screen, or (thieves_steal_from_share) an
    // empty share.
    if (Total(StealPool(steal.victim)) == 0) {
      p.steals.erase(p.steals.begin());
      continue;
    }
    if (steal.chosen) {
      p.phase = Phase::kThiefChoice;
      return;
    }
    // A victim who holds any magic object is asked, purse or not, so that
    // the question tells nobody who holds a Decoy Purse.
    if (Total(p.objects[steal.victim]) > 0) {
      p.phase = Phase::kDecoy;
      return;
    }
    Rob({.thief_owner = steal.thief_owner, .victim = steal.victim});
    p.steals.erase(p.steals.begin());
  }
  FinishSlaying();
}

void DragonsGoldState::TakeToken(Seat from, Seat to, int token) {
  --position_.holdings[from][token];
  ++position_.holdings[to][token];
}

namespace {

// Where `seat`'s share lies in `n.shares`, or -1 if it has none.
int ShareIndex(const Negotiation& n, Seat seat) {
  const auto it = std::find(n.contributors.begin(), n.contributors.end(), seat);
  const int index = static_cast<int>(it - n.contributors.begin());
  return index < static_cast<int>(n.shares.size()) ? index : -1;
}

}  // namespace

const TokenCounts& DragonsGoldState::StealPool(Seat victim) const {
  static constexpr TokenCounts kNothing{};
  if (!rules_.thieves_steal_from_share) return position_.holdings[victim];
  const int index = ShareIndex(position_.negotiation, victim);
  return index >= 0 ? position_.negotiation.shares[index] : kNothing;
}

void DragonsGoldState::Rob(Theft theft) {
  Position& p = position_;
  // A thief takes from the victim's pool; an Invisible Hand from the screen.
  const bool thief = theft.how != TheftKind::kInvisibleHand;
  const TokenCounts pool = thief ? StealPool(theft.victim) : p.holdings[theft.victim];
  const int total = Total(pool);
  if (total == 0) return;
  if (theft.token == kHiddenToken) {
    int pick = static_cast<int>(p.rng.Uniform(static_cast<std::uint64_t>(total)));
    for (theft.token = 0; pick >= pool[theft.token]; ++theft.token) pick -= pool[theft.token];
  }
  if (thief && rules_.thieves_steal_from_share) {
    --p.negotiation.shares[ShareIndex(p.negotiation, theft.victim)][theft.token];
  }
  TakeToken(theft.victim, theft.thief_owner, theft.token);
  record_.push_back(theft);
}

void DragonsGoldState::DrawObjects(Seat seat, int count) {
  Position& p = position_;
  for (int i = 0; i < count; ++i) {
    if (p.object_deck.empty()) {
      // The discard is shuffled into a new deck.
      for (int kind = 0; kind < kNumObjectKinds; ++kind) {
        p.object_deck.insert(p.object_deck.end(), p.object_discard[kind], kind);
      }
      p.object_discard = ObjectCounts{};
      p.rng.Shuffle(std::span<int>(p.object_deck));
      if (p.object_deck.empty()) return;
    }
    ++p.objects[seat][p.object_deck.back()];
    p.object_deck.pop_back();
  }
}

void DragonsGoldState::FinishSlaying() {
  Position& p = position_;
  const int slot = p.negotiation.slot;
  FaceUpDragon& dragon = p.dragons[slot];
  for (const Attacker& a : dragon.attackers) {
    p.adventurers[a.seat][a.adventurer] = AdventurerState::kResting;
  }
  dragon = FaceUpDragon{};
  p.negotiation = Negotiation{};
  RefillOrMarket(slot);
}

void DragonsGoldState::PlaceDragon(int slot) {
  Position& p = position_;
  FaceUpDragon& dragon = p.dragons[slot];
  dragon = FaceUpDragon{};
  dragon.card = p.pile.back();
  p.pile.pop_back();
  ++p.drawn_from_pile;
  for (int i = 0; i < kDragons[dragon.card].known && !p.bag.empty(); ++i) {
    ++dragon.tokens[p.bag.back()];
    p.bag.pop_back();
  }
}

void DragonsGoldState::RefillOrMarket(int slot) {
  Position& p = position_;
  if (!p.bag.empty() && !p.pile.empty()) {
    if (p.drawn_from_pile == kMarketAfterDraws && !p.market_done) {
      OpenMarket(slot);
      return;
    }
    PlaceDragon(slot);
  }
  bool any = false;
  for (const FaceUpDragon& dragon : p.dragons) any = any || dragon.card >= 0;
  if (!any) {
    EndMatch(EndReason::kTableCleared);
    return;
  }
  NextTurn();
}

void DragonsGoldState::OpenMarket(int slot) {
  Position& p = position_;
  p.market_done = true;
  p.market_refill_slot = slot;
  p.market_offers_left.assign(num_players(), rules_.market_rounds);
  p.phase = Phase::kMarketOffer;
  NextMarketOffer(p.current);  // the player after the current one starts
}

void DragonsGoldState::NextMarketOffer(Seat after) {
  Position& p = position_;
  for (int i = 1; i <= num_players(); ++i) {
    const Seat seat = (after + i) % num_players();
    if (p.market_offers_left[seat] > 0) {
      p.market_offerer = seat;
      p.phase = Phase::kMarketOffer;
      return;
    }
  }
  // Every offer is made: the market card leaves, the next dragon comes.
  p.market_offers_left.clear();
  p.offer = MarketOffer{};
  const int slot = p.market_refill_slot;
  p.market_refill_slot = -1;
  PlaceDragon(slot);
  NextTurn();
}

void DragonsGoldState::NextTurn() {
  Position& p = position_;
  bool stalemate = true;
  for (const auto& team : p.adventurers) {
    for (AdventurerState s : team) stalemate = stalemate && s == AdventurerState::kAttacking;
  }
  if (stalemate) {
    // Nobody can ever act again (only possible with three players: four
    // dragons hold up to 36 strength unslain, three teams bring 30).
    if (!rules_.stalemate_retreat) {
      EndMatch(EndReason::kStalemate);
      return;
    }
    // Every attacker comes back ready; the dragons keep their treasure.
    for (FaceUpDragon& dragon : p.dragons) dragon.attackers.clear();
    for (auto& team : p.adventurers) team.fill(AdventurerState::kReady);
    ++p.stalemate_retreats;
  }
  for (int tries = 0; tries < num_players(); ++tries) {
    p.current = (p.current + 1) % num_players();
    ++p.turns;
    if (p.turns > rules_.max_turns) {
      EndMatch(EndReason::kTurnCap);
      return;
    }
    auto& team = p.adventurers[p.current];
    const auto ready = [&] {
      return std::count(team.begin(), team.end(), AdventurerState::kReady) > 0;
    };
    if (!ready()) {
      for (AdventurerState& s : team) {
        if (s == AdventurerState::kResting) s = AdventurerState::kReady;
      }
    }
    if (ready()) {
      p.phase = Phase::kTurn;
      return;
    }
    // Every adventurer of this player is attacking: the turn is skipped.
  }
  EndMatch(EndReason::kStalemate);  // nobody can ever act again (not reached: see above)
}

void DragonsGoldState::EndMatch(EndReason reason) {
  Position& p = position_;
  p.phase = Phase::kOver;
  p.end = reason;
  p.steals.clear();
  // Treasure still on the table leaves the game.
  LeftOnTable left;
  for (FaceUpDragon& dragon : p.dragons) {
    for (int kind = 0; kind < kNumTokenKinds; ++kind) {
      p.removed[kind] += dragon.tokens[kind];
      left.tokens[kind] += dragon.tokens[kind];
    }
    dragon.tokens = TokenCounts{};
  }
  if (Total(left.tokens) > 0) record_.push_back(left);
}

// ---------------------------------------------------------------- Scoring

std::vector<int> DragonsGoldState::AllScores() const {
  const Position& p = position_;
  const int n = num_players();
  std::vector<int> scores(n, 0);
  std::vector<bool> cursed(n, false);
  for (Seat s = 0; s < n; ++s) {
    const TokenCounts& h = p.holdings[s];
    scores[s] = h[kSilver] + 3 * h[kGold] + h[kRed] +
                h[kBlack] * (rules_.advanced_scoring ? kBlackAdvanced : kBlackBasic);
    cursed[s] = rules_.advanced_scoring && h[kBlack] > 0;
    if (rules_.advanced_scoring && !cursed[s]) {
      int straights = h[kFirstGem];
      for (int c = 0; c < kNumGemColors; ++c) straights = std::min(straights, h[kFirstGem + c]);
      scores[s] += kStraightBonus * straights;
    }
  }
  for (int c = 0; c < kNumGemColors; ++c) {
    const int color = kFirstGem + c;
    int most = 0;
    for (Seat s = 0; s < n; ++s) most = std::max(most, p.holdings[s][color]);
    if (most == 0) continue;
    std::vector<Seat> leaders;
    for (Seat s = 0; s < n; ++s) {
      if (p.holdings[s][color] == most) leaders.push_back(s);
    }
    if (!rules_.advanced_scoring) {
      for (Seat s : leaders) scores[s] += BasicMajority(n);
      continue;
    }
    const int bonus = AdvancedMajority(n);
    if (leaders.size() == 1) {
      if (!cursed[leaders[0]]) scores[leaders[0]] += bonus;  // a cursed sole leader: nobody
    } else if (leaders.size() == 2) {
      for (Seat s : leaders) {
        if (!cursed[s]) scores[s] += bonus / 2;
      }
    }
  }
  return scores;
}

int DragonsGoldState::ScoreOf(Seat seat) const { return AllScores()[seat]; }

std::vector<double> DragonsGoldState::Scores() const {
  HOARD_CHECK(IsOver(), "scores are final only once the match is over");
  const std::vector<int> scores = AllScores();
  return std::vector<double>(scores.begin(), scores.end());
}

std::vector<int> DragonsGoldState::Ranks() const {
  HOARD_CHECK(IsOver(), "ranks are final only once the match is over");
  return RanksFromKeys(AllScores());
}

// ---------------------------------------------------------------- Views

namespace {

// `entry` as `observer` sees it: the one place that hides a kind. A thief's
// random pick from a share is public: the table watches it leave the share.
RecordEntry SeenBy(RecordEntry entry, Seat observer, const Rules& rules) {
  if (auto* theft = std::get_if<Theft>(&entry)) {
    const bool by_chance = (theft->how == TheftKind::kRandom && !rules.thieves_steal_from_share) ||
                           theft->how == TheftKind::kInvisibleHand;
    if (by_chance && observer != theft->thief_owner && observer != theft->victim) {
      theft->token = kHiddenToken;
    }
  } else if (auto* map = std::get_if<TreasureMapDraw>(&entry)) {
    if (observer != map->seat) map->token = kHiddenToken;
  }
  return entry;
}

}  // namespace

std::unique_ptr<View> DragonsGoldState::ViewFor(Seat observer) const {
  const Position& p = position_;
  auto view = std::make_unique<DragonsGoldView>();
  view->observer = observer;
  view->rules = rules_;
  view->dragons = p.dragons;
  view->pile_size = static_cast<int>(p.pile.size());
  view->market_ahead = !p.market_done;
  view->bag_size = static_cast<int>(p.bag.size());
  view->removed = p.removed;
  view->object_deck_size = static_cast<int>(p.object_deck.size());
  view->object_discard = p.object_discard;
  for (Seat s = 0; s < num_players(); ++s) {
    PlayerView player;
    player.adventurers = p.adventurers[s];
    player.token_count = Total(p.holdings[s]);
    player.object_count = Total(p.objects[s]);
    if (s == observer || IsOver()) {
      player.tokens = p.holdings[s];
      player.objects = p.objects[s];
    }
    view->players.push_back(player);
  }
  view->phase = p.phase;
  view->current = p.current;
  // The turn counter passes the cap as it ends the match, but the turn it
  // counted never began.
  view->turns = std::min(p.turns, rules_.max_turns);
  view->negotiation = p.negotiation;
  // Sealed votes: whether each has voted, not how.
  for (int& vote : view->negotiation.votes) vote = vote != 0 ? 1 : 0;
  view->steals = p.steals;
  view->market_offerer = p.market_offerer;
  view->market_offers_left = p.market_offers_left;
  view->offer = p.offer;
  view->end = p.end;
  if (IsOver()) view->scores = AllScores();
  view->record.reserve(record_.size());
  for (const RecordEntry& entry : record_) view->record.push_back(SeenBy(entry, observer, rules_));
  return view;
}

TokenCounts KnownTokens(const DragonsGoldView& view, Seat seat) {
  if (seat >= 0 && seat < static_cast<int>(view.players.size()) && view.players[seat].tokens) {
    return *view.players[seat].tokens;
  }
  TokenCounts known{};
  auto seen = [](int kind) { return kind >= 0 && kind < kNumTokenKinds; };
  auto gain = [&](Seat to, int kind) {
    if (to == seat && seen(kind)) ++known[kind];
  };
  auto lose = [&](Seat from, int kind) {
    if (from != seat) return;
    if (!seen(kind)) {
      for (int& count : known) count = std::max(0, count - 1);
    } else if (known[kind] > 0) {
      --known[kind];
    }  // else the token was one of those of unknown kind
  };
  for (const RecordEntry& entry : view.record) {
    if (const auto* slaying = std::get_if<Slaying>(&entry)) {
      if (slaying->outcome != Slaying::Outcome::kDivided) continue;
      for (const Share& share : slaying->shares) {
        if (share.seat != seat) continue;
        for (int kind = 0; kind < kNumTokenKinds; ++kind) known[kind] += share.tokens[kind];
      }
    } else if (const auto* swap = std::get_if<MarketSwap>(&entry)) {
      for (int kind = 0; kind < kNumTokenKinds; ++kind) {
        for (int i = 0; i < swap->give[kind]; ++i) {
          lose(swap->from, kind);
          gain(swap->to, kind);
        }
        for (int i = 0; i < swap->get[kind]; ++i) {
          lose(swap->to, kind);
          gain(swap->from, kind);
        }
      }
    } else if (const auto* theft = std::get_if<Theft>(&entry)) {
      lose(theft->victim, theft->token);
      gain(theft->thief_owner, theft->token);
    } else if (const auto* map = std::get_if<TreasureMapDraw>(&entry)) {
      gain(map->seat, map->token);
    }
  }
  // The tokens offered at the market are their offerer's.
  if (view.phase == Phase::kMarketReply && view.offer.from == seat) {
    for (int kind = 0; kind < kNumTokenKinds; ++kind) {
      known[kind] = std::max(known[kind], view.offer.give[kind]);
    }
  }
  return known;
}

namespace {

std::string PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kTurn:
      return "turn";
    case Phase::kPropose:
      return "proposal";
    case Phase::kVote:
      return "vote";
    case Phase::kThiefChoice:
      return "thief's choice";
    case Phase::kDecoy:
      return "decoy purse";
    case Phase::kMarketOffer:
      return "market offer";
    case Phase::kMarketReply:
      return "market reply";
    case Phase::kOver:
      return "over";
  }
  return "";
}

std::string DragonText(const FaceUpDragon& dragon) {
  if (dragon.card < 0) return "(empty)";
  std::vector<std::string> attackers;
  for (const Attacker& a : dragon.attackers) {
    attackers.push_back(absl::StrCat("seat ", a.seat, " ", AdventurerName(a.adventurer)));
  }
  return absl::StrCat("dragon ", dragon.card, " strength ", dragon.strength(), " (attack ",
                      AttackTotal(dragon), "), treasure ", CountsText(dragon.tokens),
                      attackers.empty() ? "" : "; attackers ", absl::StrJoin(attackers, ", "));
}

std::string AdventurersText(const std::array<AdventurerState, kNumAdventurers>& team) {
  std::vector<std::string> parts;
  for (int adv = 0; adv < kNumAdventurers; ++adv) {
    const char* state = team[adv] == AdventurerState::kReady       ? "ready"
                        : team[adv] == AdventurerState::kAttacking ? "attacking"
                                                                   : "resting";
    parts.push_back(absl::StrCat(AdventurerName(adv), " ", state));
  }
  return absl::StrJoin(parts, ", ");
}

std::string NegotiationText(const Negotiation& n) {
  if (n.slot < 0) return "";
  std::string text = absl::StrCat(
      "negotiation over slot ", n.slot, " (slain by seat ", n.slayer, "): ", CountsText(n.tokens),
      "; contributors ", absl::StrJoin(n.contributors, ","), "; proposals ", n.proposals_made, "/",
      n.proposals_allowed, "; proposer seat ", n.proposer);
  if (!n.proposal.empty()) {
    std::vector<std::string> shares;
    for (std::size_t i = 0; i < n.proposal.size(); ++i) {
      shares.push_back(absl::StrCat("seat ", n.contributors[i], " ", CountsText(n.proposal[i])));
    }
    absl::StrAppend(&text, "; on the table: ", absl::StrJoin(shares, " / "));
  }
  absl::StrAppend(&text, "; votes ", absl::StrJoin(n.votes, ","), "; last votes ",
                  absl::StrJoin(n.last_votes, ","));
  return text;
}

std::string KindText(int token) {
  return token == kHiddenToken ? "a token" : absl::StrCat("a ", TokenName(token));
}

std::string RecordText(const RecordEntry& entry) {
  if (const auto* slaying = std::get_if<Slaying>(&entry)) {
    std::string text =
        absl::StrCat("seat ", slaying->slayer, " slew dragon ", slaying->card, " in slot ",
                     slaying->slot, " (drawn: ", CountsText(slaying->drawn), "): ");
    switch (slaying->outcome) {
      case Slaying::Outcome::kNegotiating:
        return absl::StrCat(text, "negotiating over ", CountsText(slaying->treasure));
      case Slaying::Outcome::kLost:
        return absl::StrCat(text, CountsText(slaying->treasure), " lost");
      case Slaying::Outcome::kDivided:
        break;
    }
    std::vector<std::string> shares;
    for (const Share& share : slaying->shares) {
      shares.push_back(absl::StrCat("seat ", share.seat, " ", CountsText(share.tokens)));
    }
    return absl::StrCat(text, absl::StrJoin(shares, " / "));
  }
  if (const auto* swap = std::get_if<MarketSwap>(&entry)) {
    return absl::StrCat("seat ", swap->from, " gave seat ", swap->to, " ", CountsText(swap->give),
                        " for ", CountsText(swap->get));
  }
  if (const auto* theft = std::get_if<Theft>(&entry)) {
    static constexpr std::array<absl::string_view, 4> kHow = {
        "at random", "by choice", "with a Decoy Purse", "with an Invisible Hand"};
    return absl::StrCat(
        "seat ", theft->thief_owner, " took ", KindText(theft->token), " from seat ", theft->victim,
        " ", kHow[static_cast<int>(theft->how)],
        theft->named >= 0 ? absl::StrCat(" (named ", TokenName(theft->named), ")") : "");
  }
  if (const auto* map = std::get_if<TreasureMapDraw>(&entry)) {
    return absl::StrCat("seat ", map->seat, " drew ", KindText(map->token), " with a Treasure Map");
  }
  return absl::StrCat(CountsText(std::get<LeftOnTable>(entry).tokens), " left on the table");
}

}  // namespace

std::string DragonsGoldView::ToString() const {
  std::string out = absl::StrCat("observer ", observer, ", phase ", PhaseName(phase),
                                 ", current seat ", current, ", turn ", turns, "\n");
  for (int slot = 0; slot < kFaceUpDragons; ++slot) {
    absl::StrAppend(&out, "slot ", slot, ": ", DragonText(dragons[slot]), "\n");
  }
  absl::StrAppend(&out, "pile ", pile_size, market_ahead ? " (market ahead)" : "", ", bag ",
                  bag_size, ", removed ", CountsText(removed), ", objects deck ", object_deck_size,
                  ", discard ", ObjectsText(object_discard), "\n");
  for (std::size_t s = 0; s < players.size(); ++s) {
    const PlayerView& player = players[s];
    absl::StrAppend(
        &out, "seat ", s, ": ", AdventurersText(player.adventurers), "; ", player.token_count,
        " tokens", player.tokens ? absl::StrCat(" (", CountsText(*player.tokens), ")") : "", "; ",
        player.object_count, " objects",
        player.objects ? absl::StrCat(" (", ObjectsText(*player.objects), ")") : "", "\n");
  }
  const std::string talk = NegotiationText(negotiation);
  if (!talk.empty()) absl::StrAppend(&out, talk, "\n");
  if (!scores.empty()) absl::StrAppend(&out, "scores ", absl::StrJoin(scores, ", "), "\n");
  for (const RecordEntry& entry : record) {
    absl::StrAppend(&out, "record: ", RecordText(entry), "\n");
  }
  return out;
}

std::string DragonsGoldView::Summary() const {
  std::vector<std::string> slots;
  for (const FaceUpDragon& dragon : dragons) {
    slots.push_back(dragon.card < 0 ? "-"
                                    : absl::StrCat(AttackTotal(dragon), "/", dragon.strength()));
  }
  std::vector<std::string> tokens;
  for (const PlayerView& player : players) tokens.push_back(absl::StrCat(player.token_count));
  return absl::StrCat(PhaseName(phase), " | dragons ", absl::StrJoin(slots, " "), " | bag ",
                      bag_size, " | tokens ", absl::StrJoin(tokens, " "));
}

std::string DragonsGoldState::ActionToString(Seat seat, Action action) const {
  const std::optional<Move> move = Move::Decode(action);
  if (!move) return "(not an action)";
  const Position& p = position_;
  switch (move->kind) {
    case Move::Kind::kAttack:
      return absl::StrCat("send ", AdventurerName(move->adventurer),
                          move->second >= 0 ? absl::StrCat(" and ", AdventurerName(move->second),
                                                           " (Second Strike)")
                                            : "",
                          " against the dragon in slot ", move->slot);
    case Move::Kind::kUseObject:
      switch (move->object) {
        case kDragonSwap:
          return absl::StrCat("play Dragon Swap on slots ", move->a, " and ", move->b);
        case kRetreat:
          if (move->a >= kNumAdventurers) return "play Retreat (no such adventurer)";
          return absl::StrCat("play Retreat: the ", AdventurerName(move->a), " comes back");
        case kSleepingPotion:
          return absl::StrCat("play Sleeping Potion on slot ", move->a);
        case kInvisibleHand:
          return absl::StrCat("play Invisible Hand on seat ", move->a);
        default:
          return absl::StrCat("play ", ObjectName(move->object));
      }
    case Move::Kind::kPropose: {
      const Negotiation& n = p.negotiation;
      if (n.slot < 0) return "propose a division";
      const std::vector<TokenCounts> shares =
          Shares(*move, n.tokens, static_cast<int>(n.contributors.size()));
      std::vector<std::string> parts;
      for (std::size_t i = 0; i < shares.size(); ++i) {
        parts.push_back(absl::StrCat("seat ", n.contributors[i], " ", CountsText(shares[i])));
      }
      return absl::StrCat("propose: ", absl::StrJoin(parts, "; "));
    }
    case Move::Kind::kAccept:
      return "accept";
    case Move::Kind::kReject:
      return "reject";
    case Move::Kind::kSteal:
      return absl::StrCat("steal a ", TokenName(move->token));
    case Move::Kind::kDecoyGive:
      return absl::StrCat("give up a ", TokenName(move->token), " (Decoy Purse)");
    case Move::Kind::kDecoyKeep:
      return "let the thief pick";
    case Move::Kind::kMarketPass:
      return "pass at the market";
    case Move::Kind::kMarketOffer:
      return absl::StrCat("offer seat ", move->target, " ", CountsText(move->give), " for ",
                          CountsText(move->get));
    case Move::Kind::kMarketAccept:
      return "accept the swap";
    case Move::Kind::kMarketRefuse:
      return "refuse the swap";
  }
  (void)seat;
  return "";
}

// Compact and complete: every field of the rules and the position, as
// numbers, described once for the text and the fingerprint (the conformance
// suite compares states by the text).
template <typename Out>
void DragonsGoldState::Describe(Out& out) const {
  const Position& p = position_;
  out.Label("rules:");
  for (int v : {int{rules_.advanced_scoring}, rules_.negotiation_proposals, rules_.market_rounds,
                rules_.max_turns, int{rules_.invisible_hand}, int{rules_.magic_objects},
                int{rules_.random_first_player}, int{rules_.thieves_steal_from_share},
                int{rules_.stalemate_retreat}}) {
    out.Num(v);
  }
  out.Label("\npile:");
  out.List(p.pile);
  out.Num(p.drawn_from_pile);
  out.Num(p.market_done);
  out.Label("\ndragons:");
  for (const FaceUpDragon& d : p.dragons) {
    out.Num(d.card);
    out.Num(d.weakening);
    out.List(d.tokens);
    for (const Attacker& a : d.attackers) out.Num(a.seat * kNumAdventurers + a.adventurer);
    out.Mark('|');
  }
  out.Label("\nbag:");
  for (int token : p.bag) out.Digit(token);  // kinds 0..8
  out.Mark(';');
  out.List(p.removed);
  out.Label("\nplayers:");
  for (Seat s = 0; s < num_players(); ++s) {
    out.List(p.holdings[s]);
    for (AdventurerState a : p.adventurers[s]) out.Num(static_cast<int>(a));
    out.List(p.objects[s]);
    out.Mark('|');
  }
  out.Label("\nobjects:");
  out.List(p.object_deck);
  out.List(p.object_discard);
  out.Label("\nturn:");
  for (int v : {static_cast<int>(p.phase), p.current, p.turns, static_cast<int>(p.end),
                p.stalemate_retreats}) {
    out.Num(v);
  }
  const Negotiation& n = p.negotiation;
  out.Label("\nnegotiation:");
  for (int v : {n.slot, n.slayer, n.proposals_made, n.proposals_allowed, n.proposer}) out.Num(v);
  out.List(n.contributors);
  out.List(n.tokens);
  for (const TokenCounts& share : n.proposal) out.List(share);
  out.Mark('|');
  out.List(n.votes);
  out.List(n.last_votes);
  for (const TokenCounts& share : n.shares) out.List(share);
  out.Label("\nsteals:");
  for (const Steal& st : p.steals) {
    for (int v : {st.thief_owner, st.victim, int{st.chosen}}) out.Num(v);
  }
  out.Label("\nmarket:");
  out.Num(p.market_offerer);
  out.List(p.market_offers_left);
  for (int v : {p.offer.from, p.offer.to, p.market_refill_slot}) out.Num(v);
  out.List(p.offer.give);
  out.List(p.offer.get);
  out.Label("\nrng:");
  out.Wide(Rng(p.rng).Next());
}

std::string DragonsGoldState::ToString() const {
  return TextOf([this](auto& out) { Describe(out); }, 2048);
}

std::uint64_t DragonsGoldState::Fingerprint() const {
  return FingerprintOf([this](auto& out) { Describe(out); });
}

std::vector<Zone> DragonsGoldState::Zones() const {
  const Position& p = position_;
  std::vector<Zone> zones;
  auto tokens = [](const std::string& name, const TokenCounts& counts) {
    Zone zone{name, {}};
    for (int kind = 0; kind < kNumTokenKinds; ++kind) {
      zone.cards.insert(zone.cards.end(), counts[kind], std::string(TokenName(kind)));
    }
    return zone;
  };
  Zone pile{"dragon pile", {}};
  for (auto it = p.pile.rbegin(); it != p.pile.rend(); ++it) {
    pile.cards.push_back(absl::StrCat("dragon ", *it));
  }
  zones.push_back(pile);
  for (int slot = 0; slot < kFaceUpDragons; ++slot) {
    Zone zone = tokens(absl::StrCat("slot ", slot), p.dragons[slot].tokens);
    if (p.dragons[slot].card >= 0) {
      zone.cards.insert(zone.cards.begin(), absl::StrCat("dragon ", p.dragons[slot].card));
    }
    zones.push_back(zone);
  }
  Zone bag{"bag", {}};
  for (auto it = p.bag.rbegin(); it != p.bag.rend(); ++it) {
    bag.cards.push_back(std::string(TokenName(*it)));
  }
  zones.push_back(bag);
  for (Seat s = 0; s < num_players(); ++s) {
    zones.push_back(tokens(absl::StrCat("seat ", s, " treasure"), p.holdings[s]));
    Zone objects{absl::StrCat("seat ", s, " objects"), {}};
    for (int kind = 0; kind < kNumObjectKinds; ++kind) {
      objects.cards.insert(objects.cards.end(), p.objects[s][kind], std::string(ObjectName(kind)));
    }
    zones.push_back(objects);
  }
  Zone deck{"object deck", {}};
  for (auto it = p.object_deck.rbegin(); it != p.object_deck.rend(); ++it) {
    deck.cards.push_back(std::string(ObjectName(*it)));
  }
  zones.push_back(deck);
  return zones;
}

std::unique_ptr<State> DragonsGoldState::Clone() const {
  return std::make_unique<DragonsGoldState>(*this);
}

// ---------------------------------------------------------------- Setup

absl::StatusOr<Rules> RulesFromConfig(const GameInfo& info, const MatchConfig& config) {
  Rules rules;
  auto on_off = [&](const std::string& name, bool* out) -> absl::Status {
    const std::string value = OptionValue(info, config, name);
    if (value != "on" && value != "off") {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " must be 'on' or 'off', not '", value, "'"));
    }
    *out = value == "on";
    return absl::OkStatus();
  };
  auto number = [&](const std::string& name, int low, int high, int* out) -> absl::Status {
    const std::string value = OptionValue(info, config, name);
    if (!absl::SimpleAtoi(value, out) || *out < low || *out > high) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " must be a number from ", low, " to ", high, ", not '", value, "'"));
    }
    return absl::OkStatus();
  };
  const std::string scoring = OptionValue(info, config, "scoring");
  if (scoring != "advanced" && scoring != "basic") {
    return absl::InvalidArgumentError(
        absl::StrCat("scoring must be 'advanced' or 'basic', not '", scoring, "'"));
  }
  rules.advanced_scoring = scoring == "advanced";
  RETURN_IF_ERROR(number("negotiation_proposals", 1, 20, &rules.negotiation_proposals));
  RETURN_IF_ERROR(number("market_rounds", 0, 5, &rules.market_rounds));
  RETURN_IF_ERROR(number("max_turns", 30, 1000, &rules.max_turns));
  RETURN_IF_ERROR(on_off("invisible_hand", &rules.invisible_hand));
  RETURN_IF_ERROR(on_off("magic_objects", &rules.magic_objects));
  auto either = [&](const std::string& name, const std::string& yes, const std::string& no,
                    bool* out) -> absl::Status {
    const std::string value = OptionValue(info, config, name);
    if (value != yes && value != no) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " must be '", yes, "' or '", no, "', not '", value, "'"));
    }
    *out = value == yes;
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(either("first_player", "random", "seat0", &rules.random_first_player));
  RETURN_IF_ERROR(either("thief_steals", "share", "screen", &rules.thieves_steal_from_share));
  RETURN_IF_ERROR(either("stalemate", "retreat", "end", &rules.stalemate_retreat));
  return rules;
}

Position Deal(const Rules& rules, int num_players, Rng& rng) {
  Position p;
  p.pile.resize(kNumDragons);
  std::iota(p.pile.begin(), p.pile.end(), 0);
  rng.Shuffle(std::span<int>(p.pile));
  for (int kind = 0; kind < kNumTokenKinds; ++kind) {
    p.bag.insert(p.bag.end(), kBagContents[kind], kind);
  }
  rng.Shuffle(std::span<int>(p.bag));
  p.holdings.assign(num_players, TokenCounts{});
  p.adventurers.assign(num_players, {});
  p.objects.assign(num_players, ObjectCounts{});
  if (rules.magic_objects) {
    for (int kind = 0; kind < kNumObjectKinds; ++kind) {
      if (kind == kInvisibleHand && !rules.invisible_hand) continue;
      p.object_deck.insert(p.object_deck.end(), kObjectDeck[kind], kind);
    }
    rng.Shuffle(std::span<int>(p.object_deck));
  }
  for (int slot = 0; slot < kFaceUpDragons; ++slot) {
    FaceUpDragon& dragon = p.dragons[slot];
    dragon.card = p.pile.back();
    p.pile.pop_back();
    for (int i = 0; i < kDragons[dragon.card].known; ++i) {
      ++dragon.tokens[p.bag.back()];
      p.bag.pop_back();
    }
  }
  if (rules.magic_objects) {
    for (Seat s = 0; s < num_players; ++s) {
      ++p.objects[s][p.object_deck.back()];
      p.object_deck.pop_back();
    }
  }
  p.rng = Rng(rng.Fork());
  // Nobody has slain a dragon yet: the first player is drawn at random
  // (after the rest of the deal, which stays as under first_player=seat0).
  if (rules.random_first_player) {
    p.current = static_cast<Seat>(rng.Uniform(static_cast<std::uint64_t>(num_players)));
  }
  p.turns = 1;
  return p;
}

namespace {

class DragonsGoldGame final : public Game {
 public:
  DragonsGoldGame() {
    info_.id = "dragons_gold";
    info_.name = "Dragon's Gold";
    info_.min_players = 3;
    info_.max_players = 6;
    info_.ruleset_version = "3";
    info_.options = {
        {"scoring", "advanced",
         "advanced (gem majorities, straights, the cursed black diamond) or basic"},
        {"negotiation_proposals", "6",
         "proposals before an unshared treasure leaves the game (1 to 20)"},
        {"market_rounds", "2", "offers each player makes at the market (0 to 5)"},
        {"max_turns", "240", "turns before the match ends regardless (30 to 1000)"},
        {"invisible_hand", "off",
         "put the two Invisible Hand cards in the magic object deck (on/off)"},
        {"magic_objects", "on", "deal and draw magic objects at all (on/off)"},
        {"first_player", "random",
         "who starts: a seat drawn from the seed (random) or seat 0 (seat0)"},
        {"thief_steals", "share",
         "what a thief steals from: the victim's share of the dragon (share) or their whole screen "
         "(screen)"},
        {"stalemate", "retreat",
         "when no adventurer can act: every attacker comes back ready (retreat) or the match ends "
         "(end)"},
    };
    // Turns (at most 1000), objects played (every card at most once per
    // pass through the deck: bounded by the red tokens, 16, plus the 24),
    // 18 negotiations of at most 20 + 2 * 24 proposals with 5 votes each,
    // 4 * 6 thieves' decisions each, and the market's 6 * 5 offers and replies.
    info_.max_actions = 1000 + 40 + kNumDragons * ((20 + 48) * 6 + 6 * 5) + 6 * 5 * 2;
  }

  const GameInfo& info() const override { return info_; }

  absl::StatusOr<std::unique_ptr<State>> NewMatch(const MatchConfig& config) const override {
    RETURN_IF_ERROR(ValidateConfig(info_, config));
    ASSIGN_OR_RETURN(const Rules rules, RulesFromConfig(info_, config));
    Rng rng(config.seed);
    return std::make_unique<DragonsGoldState>(rules, Deal(rules, config.num_players, rng));
  }

 private:
  GameInfo info_;
};

}  // namespace

std::unique_ptr<Game> MakeGame() { return std::make_unique<DragonsGoldGame>(); }

}  // namespace hoard::engine::dragons_gold
