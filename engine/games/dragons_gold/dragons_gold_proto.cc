// Dragon's Gold on the wire (proto/hoard/v1/dragons_gold.proto).

#include "engine/games/dragons_gold/dragons_gold_proto.h"

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/codec.h"
#include "engine/status_macros.h"
#include "hoard/v1/arena.pb.h"

namespace hoard::engine::dragons_gold {
namespace {

using ::google::protobuf::RepeatedPtrField;

// Dragon's Gold seats at most six (its GameInfo::max_players).
constexpr int kMaxPlayers = 6;
// A magic object's parameters take 8 bits each in a move's code.
constexpr int kMaxObjectParameter = 255;

// The wire's enums are the engine's values plus one (UNSPECIFIED is 0, and
// so a hidden token, kHiddenToken, is UNSPECIFIED).
hoard::v1::DragonsGoldToken TokenToProto(int token) {
  return static_cast<hoard::v1::DragonsGoldToken>(token + 1);
}
hoard::v1::DragonsGoldAdventurer AdventurerToProto(int adventurer) {
  return static_cast<hoard::v1::DragonsGoldAdventurer>(adventurer + 1);
}
hoard::v1::DragonsGoldAdventurerState StateToProto(AdventurerState state) {
  return static_cast<hoard::v1::DragonsGoldAdventurerState>(static_cast<int>(state) + 1);
}
hoard::v1::DragonsGoldObject ObjectToProto(int object) {
  return static_cast<hoard::v1::DragonsGoldObject>(object + 1);
}
hoard::v1::DragonsGoldPhase PhaseToProto(Phase phase) {
  return static_cast<hoard::v1::DragonsGoldPhase>(static_cast<int>(phase) + 1);
}
hoard::v1::DragonsGoldSlayingOutcome OutcomeToProto(Slaying::Outcome outcome) {
  return static_cast<hoard::v1::DragonsGoldSlayingOutcome>(static_cast<int>(outcome) + 1);
}
hoard::v1::DragonsGoldTheftKind TheftKindToProto(TheftKind how) {
  return static_cast<hoard::v1::DragonsGoldTheftKind>(static_cast<int>(how) + 1);
}

hoard::v1::DragonsGoldEndReason EndReasonToProto(EndReason end) {
  switch (end) {
    case EndReason::kNotOver:
      break;
    case EndReason::kTableCleared:
      return hoard::v1::DRAGONS_GOLD_END_REASON_TABLE_CLEARED;
    case EndReason::kStalemate:
      return hoard::v1::DRAGONS_GOLD_END_REASON_STALEMATE;
    case EndReason::kTurnCap:
      return hoard::v1::DRAGONS_GOLD_END_REASON_TURN_CAP;
  }
  return hoard::v1::DRAGONS_GOLD_END_REASON_UNSPECIFIED;
}

void CountsToProto(const TokenCounts& counts, hoard::v1::DragonsGoldTokenCounts* out) {
  out->set_silver(counts[kSilver]);
  out->set_gold(counts[kGold]);
  out->set_red(counts[kRed]);
  out->set_blue(counts[kBlue]);
  out->set_green(counts[kGreen]);
  out->set_purple(counts[kPurple]);
  out->set_yellow(counts[kYellow]);
  out->set_white(counts[kWhite]);
  out->set_black(counts[kBlack]);
}

void ObjectsToProto(const ObjectCounts& counts, hoard::v1::DragonsGoldObjectCounts* out) {
  out->set_dragon_swap(counts[kDragonSwap]);
  out->set_second_strike(counts[kSecondStrike]);
  out->set_recall(counts[kRecall]);
  out->set_retreat(counts[kRetreat]);
  out->set_treasure_map(counts[kTreasureMap]);
  out->set_sleeping_potion(counts[kSleepingPotion]);
  out->set_silver_tongue(counts[kSilverTongue]);
  out->set_decoy_purse(counts[kDecoyPurse]);
  out->set_invisible_hand(counts[kInvisibleHand]);
}

void ShareToProto(Seat seat, const TokenCounts& tokens, hoard::v1::DragonsGoldShare* out) {
  out->set_seat(seat);
  CountsToProto(tokens, out->mutable_tokens());
}

void AttackerToProto(const Attacker& attacker, hoard::v1::DragonsGoldAttacker* out) {
  out->set_seat(attacker.seat);
  out->set_adventurer(AdventurerToProto(attacker.adventurer));
}

void RecordEntryToProto(const RecordEntry& entry, hoard::v1::DragonsGoldRecordEntry* out) {
  if (const auto* slaying = std::get_if<Slaying>(&entry)) {
    hoard::v1::DragonsGoldSlaying* out_slaying = out->mutable_slaying();
    out_slaying->set_card(slaying->card);
    out_slaying->set_slot(slaying->slot);
    out_slaying->set_slayer(slaying->slayer);
    for (const Attacker& attacker : slaying->attackers) {
      AttackerToProto(attacker, out_slaying->add_attackers());
    }
    CountsToProto(slaying->treasure, out_slaying->mutable_treasure());
    CountsToProto(slaying->drawn, out_slaying->mutable_drawn());
    out_slaying->set_outcome(OutcomeToProto(slaying->outcome));
    for (const Share& share : slaying->shares) {
      ShareToProto(share.seat, share.tokens, out_slaying->add_shares());
    }
  } else if (const auto* swap = std::get_if<MarketSwap>(&entry)) {
    hoard::v1::DragonsGoldMarketSwap* out_swap = out->mutable_market_swap();
    out_swap->set_from(swap->from);
    out_swap->set_to(swap->to);
    CountsToProto(swap->give, out_swap->mutable_give());
    CountsToProto(swap->get, out_swap->mutable_get());
  } else if (const auto* theft = std::get_if<Theft>(&entry)) {
    hoard::v1::DragonsGoldTheft* out_theft = out->mutable_theft();
    out_theft->set_thief_seat(theft->thief_owner);
    out_theft->set_victim(theft->victim);
    out_theft->set_how(TheftKindToProto(theft->how));
    out_theft->set_named(TokenToProto(theft->named));  // -1: UNSPECIFIED
    out_theft->set_token(TokenToProto(theft->token));
  } else if (const auto* map = std::get_if<TreasureMapDraw>(&entry)) {
    hoard::v1::DragonsGoldTreasureMapDraw* out_map = out->mutable_treasure_map();
    out_map->set_seat(map->seat);
    out_map->set_token(TokenToProto(map->token));
  } else {
    CountsToProto(std::get<LeftOnTable>(entry).tokens,
                  out->mutable_left_on_table()->mutable_tokens());
  }
}

// An enum value as an error message shows it: its name, or its number when
// the wire's enum has no such value.
template <typename Enum>
std::string EnumText(const std::string& name, Enum value) {
  return name.empty() ? absl::StrCat(static_cast<int>(value)) : name;
}

absl::StatusOr<int> TokenFromProto(hoard::v1::DragonsGoldToken token, absl::string_view field) {
  const int kind = static_cast<int>(token) - 1;
  if (kind < 0 || kind >= kNumTokenKinds) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " must name a token kind (silver to black), not ",
                     EnumText(hoard::v1::DragonsGoldToken_Name(token), token)));
  }
  return kind;
}

// An adventurer from the wire; `none_allowed` reads UNSPECIFIED as -1.
absl::StatusOr<int> AdventurerFromProto(hoard::v1::DragonsGoldAdventurer adventurer,
                                        absl::string_view field, bool none_allowed) {
  if (adventurer == hoard::v1::DRAGONS_GOLD_ADVENTURER_UNSPECIFIED && none_allowed) return -1;
  const int kind = static_cast<int>(adventurer) - 1;
  if (kind < 0 || kind >= kNumAdventurers) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " must name an adventurer (knight 4, knight 3, thief or wizard), not ",
                     EnumText(hoard::v1::DragonsGoldAdventurer_Name(adventurer), adventurer)));
  }
  return kind;
}

absl::StatusOr<int> ObjectFromProto(hoard::v1::DragonsGoldObject object, absl::string_view field) {
  const int kind = static_cast<int>(object) - 1;
  if (kind < 0 || kind >= kNumObjectKinds) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " must name a magic object, not ",
                     EnumText(hoard::v1::DragonsGoldObject_Name(object), object)));
  }
  return kind;
}

absl::StatusOr<TokenCounts> CountsFromProto(const hoard::v1::DragonsGoldTokenCounts& tokens,
                                            absl::string_view field,
                                            int most = kMaxTokensOnDragon) {
  const TokenCounts counts = {tokens.silver(), tokens.gold(),  tokens.red(),
                              tokens.blue(),   tokens.green(), tokens.purple(),
                              tokens.yellow(), tokens.white(), tokens.black()};
  for (int kind = 0; kind < kNumTokenKinds; ++kind) {
    if (counts[kind] < 0 || counts[kind] > most) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ".", hoard::v1::DragonsGoldTokenCounts::descriptor()->field(kind)->name(), " is ",
          counts[kind], "; it must be from 0 to ", most));
    }
  }
  return counts;
}

int Total(const TokenCounts& counts) {
  int total = 0;
  for (int count : counts) total += count;
  return total;
}

absl::Status CheckSeat(int seat, absl::string_view field) {
  if (seat < 0 || seat >= kMaxPlayers) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " is ", seat, "; seats are 0 to ", kMaxPlayers - 1));
  }
  return absl::OkStatus();
}

absl::Status CheckObjectParameter(int value, absl::string_view field) {
  if (value < 0 || value > kMaxObjectParameter) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " is ", value, "; it must be from 0 to ", kMaxObjectParameter));
  }
  return absl::OkStatus();
}

// The proposal's assignment form, checked only for what a code can hold.
absl::StatusOr<Move> AssignmentFromProto(const hoard::v1::DragonsGoldPropose& propose) {
  if (propose.assignment_size() > kMaxTokensOnDragon) {
    return absl::InvalidArgumentError(
        absl::StrCat("propose.assignment lists ", propose.assignment_size(),
                     " tokens; a dragon holds at most ", kMaxTokensOnDragon));
  }
  Move move;
  move.kind = Move::Kind::kPropose;
  for (int i = 0; i < propose.assignment_size(); ++i) {
    const int who = propose.assignment(i);
    if (who < 0 || who >= kMaxPlayers) {
      return absl::InvalidArgumentError(
          absl::StrCat("propose.assignment[", i, "] is ", who,
                       "; it must be a contributor's index, from 0 to ", kMaxPlayers - 1));
    }
    move.assignment.push_back(who);
  }
  return move;
}

// Each share's tokens, checked for range, and their sum within what a
// dragon can hold.
absl::StatusOr<std::vector<TokenCounts>> ShareCounts(
    const RepeatedPtrField<hoard::v1::DragonsGoldShare>& shares) {
  std::vector<TokenCounts> counts;
  int total = 0;
  for (int i = 0; i < shares.size(); ++i) {
    ASSIGN_OR_RETURN(
        TokenCounts share,
        CountsFromProto(shares[i].tokens(), absl::StrCat("propose.shares[", i, "].tokens")));
    total += Total(share);
    counts.push_back(share);
  }
  if (total > kMaxTokensOnDragon) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the shares hold ", total, " tokens; a dragon holds at most ", kMaxTokensOnDragon));
  }
  return counts;
}

// The shares form without the negotiation: one share per contributor, in
// seat order, read by place.
absl::StatusOr<Action> ProposalFromProto(const hoard::v1::DragonsGoldPropose& propose) {
  if (propose.shares_size() > 0 && propose.assignment_size() > 0) {
    return absl::InvalidArgumentError("propose sets both shares and assignment: set one");
  }
  if (propose.shares_size() == 0) {
    if (propose.assignment_size() == 0) {
      return absl::InvalidArgumentError(
          "propose is empty: set shares, one per contributor in seat order");
    }
    ASSIGN_OR_RETURN(const Move move, AssignmentFromProto(propose));
    return move.Encode();
  }
  const auto& shares = propose.shares();
  if (shares.size() < 2 || shares.size() > kMaxPlayers) {
    return absl::InvalidArgumentError(absl::StrCat("propose.shares lists ", shares.size(),
                                                   " shares; list one per contributor (2 to ",
                                                   kMaxPlayers, "), in seat order"));
  }
  for (int i = 0; i < shares.size(); ++i) {
    RETURN_IF_ERROR(CheckSeat(shares[i].seat(), absl::StrCat("propose.shares[", i, "].seat")));
    if (i > 0 && shares[i].seat() <= shares[i - 1].seat()) {
      return absl::InvalidArgumentError(
          absl::StrCat("propose.shares[", i, "].seat is ", shares[i].seat(), ", after seat ",
                       shares[i - 1].seat(), ": list one share per contributor, in seat order"));
    }
  }
  ASSIGN_OR_RETURN(const std::vector<TokenCounts> counts, ShareCounts(shares));
  return Proposal(counts).Encode();
}

std::string SeatsText(const std::vector<Seat>& seats) {
  return absl::StrCat(seats.size() == 1 ? "seat " : "seats ", absl::StrJoin(seats, ", "));
}

// Either form, checked against the negotiation under way.
absl::StatusOr<Action> ProposalFromProto(const hoard::v1::DragonsGoldPropose& propose,
                                         const Negotiation& negotiation) {
  if (negotiation.slot < 0) {
    return absl::InvalidArgumentError(
        "no negotiation is under way: there is no treasure to propose a "
        "division of");
  }
  const std::vector<Seat>& contributors = negotiation.contributors;
  const int k = static_cast<int>(contributors.size());
  if (propose.shares_size() == 0) {
    // The assignment form, or the error for an empty or doubly set propose.
    ASSIGN_OR_RETURN(const Action action, ProposalFromProto(propose));
    const Move move = *Move::Decode(action);
    if (propose.assignment_size() > Total(negotiation.tokens)) {
      return absl::InvalidArgumentError(
          absl::StrCat("propose.assignment lists ", propose.assignment_size(),
                       " tokens; the treasure holds ", Total(negotiation.tokens)));
    }
    for (int i = 0; i < propose.assignment_size(); ++i) {
      if (propose.assignment(i) >= k) {
        return absl::InvalidArgumentError(
            absl::StrCat("propose.assignment[", i, "] is ", propose.assignment(i), "; only ", k,
                         " players took part (", SeatsText(contributors), ")"));
      }
    }
    if (Proposal(Shares(move, negotiation.tokens, k)).Encode() != action) {
      return absl::InvalidArgumentError(
          "propose.assignment gives the tokens of one kind to contributors out "
          "of order: within "
          "a kind, the indexes must not decrease");
    }
    return action;
  }
  if (propose.assignment_size() > 0) {
    return absl::InvalidArgumentError("propose sets both shares and assignment: set one");
  }
  std::vector<TokenCounts> by_contributor(k, TokenCounts{});
  std::vector<bool> listed(k, false);
  ASSIGN_OR_RETURN(const std::vector<TokenCounts> counts, ShareCounts(propose.shares()));
  for (int i = 0; i < propose.shares_size(); ++i) {
    const Seat seat = propose.shares(i).seat();
    const auto it = std::find(contributors.begin(), contributors.end(), seat);
    if (it == contributors.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "propose.shares[", i, "].seat is ", seat, ", who took no part in slaying the dragon; ",
          "the contributors are ", SeatsText(contributors)));
    }
    const int index = static_cast<int>(it - contributors.begin());
    if (listed[index]) {
      return absl::InvalidArgumentError(
          absl::StrCat("propose.shares[", i, "] is a second share for seat ", seat));
    }
    listed[index] = true;
    by_contributor[index] = counts[i];
  }
  for (int kind = 0; kind < kNumTokenKinds; ++kind) {
    int given = 0;
    for (const TokenCounts& share : by_contributor) given += share[kind];
    if (given != negotiation.tokens[kind]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the shares give out ", given, " ", TokenNamePlural(kind), ", but the treasure holds ",
          negotiation.tokens[kind], ": every token must go to exactly one contributor"));
    }
  }
  return Proposal(by_contributor).Encode();
}

class DragonsGoldCodec final : public GameCodec {
 public:
  void ViewToProto(const View& view, hoard::v1::View* out) const override {
    ToProto(static_cast<const DragonsGoldView&>(view), out->mutable_dragons_gold());
  }

  void ActionToProto(Action action, hoard::v1::Action* out) const override {
    ToProto(action, out->mutable_dragons_gold());
  }

  absl::StatusOr<Action> ActionFromProto(const hoard::v1::Action& action) const override {
    RETURN_IF_ERROR(CheckActionGame(action, "dragons_gold"));
    return FromProto(action.dragons_gold());
  }

  // A proposal answering a decision is checked against the treasure under
  // negotiation, so that shares that do not add up to it are refused rather
  // than read as another division.
  absl::StatusOr<Action> ActionFromProtoIn(const hoard::v1::Action& action,
                                           const State& state) const override {
    const auto* dragons = dynamic_cast<const DragonsGoldState*>(&state);
    if (dragons == nullptr || action.game_case() != hoard::v1::Action::kDragonsGold ||
        !action.dragons_gold().has_propose() || dragons->position().phase != Phase::kPropose) {
      return ActionFromProto(action);
    }
    return FromProto(action.dragons_gold(), dragons->position().negotiation);
  }
};

}  // namespace

void ToProto(const DragonsGoldView& view, hoard::v1::DragonsGoldView* out) {
  out->set_observer(view.observer);
  hoard::v1::DragonsGoldRules* rules = out->mutable_rules();
  rules->set_advanced_scoring(view.rules.advanced_scoring);
  rules->set_negotiation_proposals(view.rules.negotiation_proposals);
  rules->set_market_rounds(view.rules.market_rounds);
  rules->set_max_turns(view.rules.max_turns);
  rules->set_invisible_hand(view.rules.invisible_hand);
  rules->set_magic_objects(view.rules.magic_objects);
  rules->set_random_first_player(view.rules.random_first_player);
  rules->set_thieves_steal_from_share(view.rules.thieves_steal_from_share);
  rules->set_stalemate_retreat(view.rules.stalemate_retreat);

  for (const FaceUpDragon& dragon : view.dragons) {
    hoard::v1::DragonsGoldDragon* slot = out->add_dragons();
    slot->set_card(dragon.card);
    if (dragon.card >= 0) {
      slot->set_strength(dragon.strength());
      slot->set_hidden_tokens(kDragons[dragon.card].hidden);
    }
    slot->set_sleeping_potions(dragon.weakening);
    CountsToProto(dragon.tokens, slot->mutable_tokens());
    for (const Attacker& attacker : dragon.attackers) {
      AttackerToProto(attacker, slot->add_attackers());
    }
  }
  out->set_pile_size(view.pile_size);
  out->set_market_ahead(view.market_ahead);
  out->set_bag_size(view.bag_size);
  CountsToProto(view.removed, out->mutable_removed());
  out->set_object_deck_size(view.object_deck_size);
  ObjectsToProto(view.object_discard, out->mutable_object_discard());

  for (std::size_t seat = 0; seat < view.players.size(); ++seat) {
    const PlayerView& player = view.players[seat];
    hoard::v1::DragonsGoldPlayer* out_player = out->add_players();
    out_player->set_seat(static_cast<int>(seat));
    hoard::v1::DragonsGoldAdventurers* team = out_player->mutable_adventurers();
    team->set_knight_4(StateToProto(player.adventurers[kKnight4]));
    team->set_knight_3(StateToProto(player.adventurers[kKnight3]));
    team->set_thief(StateToProto(player.adventurers[kThief]));
    team->set_wizard(StateToProto(player.adventurers[kWizard]));
    out_player->set_token_count(player.token_count);
    out_player->set_object_count(player.object_count);
    if (player.tokens) CountsToProto(*player.tokens, out_player->mutable_tokens());
    if (player.objects) ObjectsToProto(*player.objects, out_player->mutable_objects());
  }
  out->set_phase(PhaseToProto(view.phase));
  out->set_current_seat(view.current);
  out->set_turns(view.turns);

  const Negotiation& n = view.negotiation;
  if (n.slot >= 0) {
    hoard::v1::DragonsGoldNegotiation* talk = out->mutable_negotiation();
    talk->set_slot(n.slot);
    talk->set_slayer(n.slayer);
    for (Seat seat : n.contributors) talk->add_contributors(seat);
    CountsToProto(n.tokens, talk->mutable_tokens());
    talk->set_proposals_made(n.proposals_made);
    talk->set_proposals_allowed(n.proposals_allowed);
    talk->set_proposer(n.proposer);
    for (std::size_t i = 0; i < n.proposal.size() && i < n.contributors.size(); ++i) {
      ShareToProto(n.contributors[i], n.proposal[i], talk->add_proposal());
    }
    for (std::size_t seat = 0; seat < n.votes.size(); ++seat) {
      if (n.votes[seat] != 0) talk->add_voted(static_cast<int>(seat));
    }
    for (std::size_t seat = 0; seat < n.last_votes.size(); ++seat) {
      if (n.last_votes[seat] == 1) talk->add_last_accepted(static_cast<int>(seat));
      if (n.last_votes[seat] == 2) talk->add_last_rejected(static_cast<int>(seat));
    }
    for (std::size_t i = 0; i < n.shares.size() && i < n.contributors.size(); ++i) {
      ShareToProto(n.contributors[i], n.shares[i], talk->add_shares());
    }
  }
  for (const Steal& steal : view.steals) {
    hoard::v1::DragonsGoldPendingSteal* out_steal = out->add_steals();
    out_steal->set_thief_seat(steal.thief_owner);
    out_steal->set_victim(steal.victim);
    out_steal->set_chosen(steal.chosen);
  }
  if (!view.market_offers_left.empty()) {
    hoard::v1::DragonsGoldMarket* market = out->mutable_market();
    market->set_offerer(view.market_offerer);
    for (int left : view.market_offers_left) market->add_offers_left(left);
    if (view.phase == Phase::kMarketReply) {
      hoard::v1::DragonsGoldMarketOffer* offer = market->mutable_offer();
      offer->set_to(view.offer.to);
      CountsToProto(view.offer.give, offer->mutable_give());
      CountsToProto(view.offer.get, offer->mutable_get());
    }
  }
  out->set_end_reason(EndReasonToProto(view.end));
  for (int score : view.scores) out->add_scores(score);
  for (const RecordEntry& entry : view.record) {
    RecordEntryToProto(entry, out->add_record());
  }
}

void ToProto(Action action, hoard::v1::DragonsGoldAction* out) {
  const std::optional<Move> move = Move::Decode(action);
  if (!move) return;
  switch (move->kind) {
    case Move::Kind::kAttack: {
      hoard::v1::DragonsGoldAttack* attack = out->mutable_attack();
      attack->set_slot(move->slot);
      attack->set_adventurer(AdventurerToProto(move->adventurer));
      if (move->second >= 0) attack->set_second(AdventurerToProto(move->second));
      break;
    }
    case Move::Kind::kUseObject: {
      hoard::v1::DragonsGoldUseObject* use = out->mutable_use_object();
      use->set_object(ObjectToProto(move->object));
      if (move->object == kRetreat && move->a < kNumAdventurers) {
        use->set_adventurer(AdventurerToProto(move->a));
      } else {
        use->set_a(move->a);
      }
      use->set_b(move->b);
      break;
    }
    case Move::Kind::kPropose: {
      hoard::v1::DragonsGoldPropose* propose = out->mutable_propose();
      for (int who : move->assignment) propose->add_assignment(who);
      // Everything to the first contributor has an empty assignment; the
      // wire spells it out, as an empty propose is refused.
      if (move->assignment.empty()) propose->add_assignment(0);
      break;
    }
    case Move::Kind::kAccept:
      out->mutable_accept();
      break;
    case Move::Kind::kReject:
      out->mutable_reject();
      break;
    case Move::Kind::kSteal:
      out->mutable_steal()->set_token(TokenToProto(move->token));
      break;
    case Move::Kind::kDecoyGive:
      out->mutable_decoy_give()->set_token(TokenToProto(move->token));
      break;
    case Move::Kind::kDecoyKeep:
      out->mutable_decoy_keep();
      break;
    case Move::Kind::kMarketPass:
      out->mutable_market_pass();
      break;
    case Move::Kind::kMarketOffer: {
      hoard::v1::DragonsGoldMarketOffer* offer = out->mutable_market_offer();
      offer->set_to(move->target);
      CountsToProto(move->give, offer->mutable_give());
      CountsToProto(move->get, offer->mutable_get());
      break;
    }
    case Move::Kind::kMarketAccept:
      out->mutable_market_accept();
      break;
    case Move::Kind::kMarketRefuse:
      out->mutable_market_refuse();
      break;
  }
}

absl::StatusOr<Action> FromProto(const hoard::v1::DragonsGoldAction& action) {
  using Kind = Move::Kind;
  switch (action.kind_case()) {
    case hoard::v1::DragonsGoldAction::kAttack: {
      const hoard::v1::DragonsGoldAttack& attack = action.attack();
      if (attack.slot() < 0 || attack.slot() >= kFaceUpDragons) {
        return absl::InvalidArgumentError(absl::StrCat("attack.slot is ", attack.slot(),
                                                       "; slots are 0 to ", kFaceUpDragons - 1));
      }
      ASSIGN_OR_RETURN(const int adventurer,
                       AdventurerFromProto(attack.adventurer(), "attack.adventurer", false));
      ASSIGN_OR_RETURN(const int second,
                       AdventurerFromProto(attack.second(), "attack.second", true));
      return Move{
          .kind = Kind::kAttack, .slot = attack.slot(), .adventurer = adventurer, .second = second}
          .Encode();
    }
    case hoard::v1::DragonsGoldAction::kUseObject: {
      const hoard::v1::DragonsGoldUseObject& use = action.use_object();
      ASSIGN_OR_RETURN(const int object, ObjectFromProto(use.object(), "use_object.object"));
      RETURN_IF_ERROR(CheckObjectParameter(use.a(), "use_object.a"));
      RETURN_IF_ERROR(CheckObjectParameter(use.b(), "use_object.b"));
      int a = use.a();
      if (object == kRetreat) {
        if (a != 0) {
          return absl::InvalidArgumentError(
              "a Retreat names its adventurer in use_object.adventurer, not in "
              "use_object.a");
        }
        ASSIGN_OR_RETURN(a, AdventurerFromProto(use.adventurer(), "use_object.adventurer", false));
      } else if (use.adventurer() != hoard::v1::DRAGONS_GOLD_ADVENTURER_UNSPECIFIED) {
        return absl::InvalidArgumentError(
            "use_object.adventurer is for a Retreat only; leave it "
            "unspecified");
      }
      return Move{.kind = Kind::kUseObject, .object = object, .a = a, .b = use.b()}.Encode();
    }
    case hoard::v1::DragonsGoldAction::kPropose:
      return ProposalFromProto(action.propose());
    case hoard::v1::DragonsGoldAction::kAccept:
      return Move{.kind = Kind::kAccept}.Encode();
    case hoard::v1::DragonsGoldAction::kReject:
      return Move{.kind = Kind::kReject}.Encode();
    case hoard::v1::DragonsGoldAction::kSteal: {
      ASSIGN_OR_RETURN(const int token, TokenFromProto(action.steal().token(), "steal.token"));
      return Move{.kind = Kind::kSteal, .token = token}.Encode();
    }
    case hoard::v1::DragonsGoldAction::kDecoyGive: {
      ASSIGN_OR_RETURN(const int token,
                       TokenFromProto(action.decoy_give().token(), "decoy_give.token"));
      return Move{.kind = Kind::kDecoyGive, .token = token}.Encode();
    }
    case hoard::v1::DragonsGoldAction::kDecoyKeep:
      return Move{.kind = Kind::kDecoyKeep}.Encode();
    case hoard::v1::DragonsGoldAction::kMarketPass:
      return Move{.kind = Kind::kMarketPass}.Encode();
    case hoard::v1::DragonsGoldAction::kMarketOffer: {
      const hoard::v1::DragonsGoldMarketOffer& offer = action.market_offer();
      RETURN_IF_ERROR(CheckSeat(offer.to(), "market_offer.to"));
      ASSIGN_OR_RETURN(const TokenCounts give,
                       CountsFromProto(offer.give(), "market_offer.give", kMaxMarketTokensOfAKind));
      ASSIGN_OR_RETURN(const TokenCounts get,
                       CountsFromProto(offer.get(), "market_offer.get", kMaxMarketTokensOfAKind));
      return Move{.kind = Kind::kMarketOffer, .target = offer.to(), .give = give, .get = get}
          .Encode();
    }
    case hoard::v1::DragonsGoldAction::kMarketAccept:
      return Move{.kind = Kind::kMarketAccept}.Encode();
    case hoard::v1::DragonsGoldAction::kMarketRefuse:
      return Move{.kind = Kind::kMarketRefuse}.Encode();
    case hoard::v1::DragonsGoldAction::KIND_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(
      "the Dragon's Gold action is empty: set one of attack, use_object, "
      "propose, accept, "
      "reject, steal, decoy_give, decoy_keep, market_pass, market_offer, "
      "market_accept or "
      "market_refuse");
}

absl::StatusOr<Action> FromProto(const hoard::v1::DragonsGoldAction& action,
                                 const Negotiation& negotiation) {
  if (action.kind_case() == hoard::v1::DragonsGoldAction::kPropose) {
    return ProposalFromProto(action.propose(), negotiation);
  }
  return FromProto(action);
}

std::unique_ptr<GameCodec> MakeCodec() { return std::make_unique<DragonsGoldCodec>(); }

}  // namespace hoard::engine::dragons_gold
