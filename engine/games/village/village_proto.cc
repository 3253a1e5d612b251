// Please Don't Burn My Village! on the wire (proto/hoard/v1/village.proto).

#include "engine/games/village/village_proto.h"

#include "absl/strings/str_cat.h"
#include "engine/codec.h"
#include "engine/status_macros.h"
#include "hoard/v1/arena.pb.h"

namespace hoard::engine::village {
namespace {

// Counts above this cannot be encoded in an action (6 bits per kind).
constexpr int kMaxCount = 63;

hoard::v1::VillageCard CardToProto(int card) {
  return static_cast<hoard::v1::VillageCard>(card + 1);
}

void CountsToProto(const Counts& counts, hoard::v1::VillageCards* out) {
  out->set_swords(counts[kSword]);
  out->set_scrolls(counts[kScroll]);
  out->set_feathers(counts[kFeather]);
  out->set_potions(counts[kPotion]);
  out->set_axes(counts[kAxe]);
  out->set_crowns(counts[kCrown]);
  out->set_wilds(counts[kWild]);
}

absl::StatusOr<Counts> CountsFromProto(const hoard::v1::VillageCards& cards,
                                       absl::string_view field) {
  const Counts counts = {cards.swords(), cards.scrolls(), cards.feathers(), cards.potions(),
                         cards.axes(),   cards.crowns(),  cards.wilds()};
  for (int kind = 0; kind < kNumCardKinds; ++kind) {
    if (counts[kind] < 0 || counts[kind] > kMaxCount) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".", CardNamePlural(kind), " is ",
                                                     counts[kind], "; it must be from 0 to ",
                                                     kMaxCount));
    }
  }
  return counts;
}

// A treasure type from the wire; `none_allowed` accepts UNSPECIFIED as
// kNoTreasure.
absl::StatusOr<int> TreasureFromProto(hoard::v1::VillageCard card, absl::string_view field,
                                      bool none_allowed) {
  if (card == hoard::v1::VILLAGE_CARD_UNSPECIFIED && none_allowed) {
    return kNoTreasure;
  }
  const int kind = static_cast<int>(card) - 1;
  if (kind < 0 || kind >= kNumTreasureTypes) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, " must name a treasure type (sword to crown), not ",
        hoard::v1::VillageCard_Name(card).empty() ? absl::StrCat(static_cast<int>(card))
                                                  : hoard::v1::VillageCard_Name(card)));
  }
  return kind;
}

void RulesToProto(const Rules& rules, hoard::v1::VillageRules* out) {
  for (int value : rules.favor_values) out->add_favor_values(value);
  out->set_wilds(rules.wilds);
  out->set_hand_size(rules.hand_size);
  out->set_end(rules.end == EndRule::kDrawFails ? hoard::v1::VILLAGE_END_RULE_DRAW_FAILS
                                                : hoard::v1::VILLAGE_END_RULE_DECK_EMPTY);
  out->set_merge(rules.merge == MergeRule::kAuto ? hoard::v1::VILLAGE_MERGE_RULE_AUTO
                                                 : hoard::v1::VILLAGE_MERGE_RULE_NONE);
  out->set_tie_break(rules.tie_break == TieBreak::kFavor ? hoard::v1::VILLAGE_TIE_BREAK_FAVOR
                                                         : hoard::v1::VILLAGE_TIE_BREAK_NONE);
}

class VillageCodec final : public GameCodec {
 public:
  void ViewToProto(const View& view, hoard::v1::View* out) const override {
    ToProto(static_cast<const VillageView&>(view), out->mutable_village());
  }

  void ActionToProto(Action action, hoard::v1::Action* out) const override {
    ToProto(action, out->mutable_village());
  }

  absl::StatusOr<Action> ActionFromProto(const hoard::v1::Action& action) const override {
    RETURN_IF_ERROR(CheckActionGame(action, "village"));
    return FromProto(action.village());
  }
};

}  // namespace

void ToProto(const VillageView& view, hoard::v1::VillageView* out) {
  out->set_observer(view.observer);
  for (int space = 0; space < kFavorSpaces; ++space) {
    out->add_favor(CardToProto(view.favor[space]));
    out->add_favor_values(view.rules.favor_values[space]);
  }
  for (const Counts& stall : view.market) CountsToProto(stall, out->add_market());
  out->set_deck_size(view.deck_size);
  CountsToProto(view.discard, out->mutable_discard());
  for (std::size_t seat = 0; seat < view.hand_sizes.size(); ++seat) {
    hoard::v1::VillagePlayer* player = out->add_players();
    player->set_seat(static_cast<int>(seat));
    player->set_hand_size(view.hand_sizes[seat]);
    if (view.hands[seat]) CountsToProto(*view.hands[seat], player->mutable_hand());
    CountsToProto(view.known[seat], player->mutable_known());
    for (int t = 0; t < kNumTreasureTypes; ++t) {
      const Bribe& bribe = view.bribes[seat][t];
      if (bribe.size() == 0) continue;
      hoard::v1::VillageBribe* out_bribe = player->add_bribes();
      out_bribe->set_treasure(CardToProto(t));
      out_bribe->set_treasures(bribe.treasures);
      out_bribe->set_wilds(bribe.wilds);
    }
  }
  out->set_current_seat(view.current);
  out->set_over(view.end != EndReason::kNotOver);
  out->set_end_reason(std::string(EndReasonText(view.end)));
  RulesToProto(view.rules, out->mutable_rules());
}

void ToProto(Action action, hoard::v1::VillageAction* out) {
  const std::optional<Move> move = Move::Decode(action);
  if (!move) return;
  switch (move->kind) {
    case Move::Kind::kDraw:
      out->mutable_draw();
      break;
    case Move::Kind::kBribe:
      out->mutable_bribe()->set_treasure(CardToProto(move->treasure));
      CountsToProto(move->cards, out->mutable_bribe()->mutable_cards());
      break;
    case Move::Kind::kBuy:
      out->mutable_buy()->set_stall(move->stall);
      CountsToProto(move->cards, out->mutable_buy()->mutable_payment());
      if (move->treasure != kNoTreasure) {
        out->mutable_buy()->set_curse(CardToProto(move->treasure));
      }
      break;
  }
}

absl::StatusOr<Action> FromProto(const hoard::v1::VillageAction& action) {
  switch (action.kind_case()) {
    case hoard::v1::VillageAction::kDraw:
      return Move::Draw().Encode();
    case hoard::v1::VillageAction::kBribe: {
      absl::StatusOr<int> treasure =
          TreasureFromProto(action.bribe().treasure(), "bribe.treasure", false);
      if (!treasure.ok()) return treasure.status();
      absl::StatusOr<Counts> cards = CountsFromProto(action.bribe().cards(), "bribe.cards");
      if (!cards.ok()) return cards.status();
      Move move = Move::MakeBribe(*treasure, 0, 0);
      move.cards = *cards;
      return move.Encode();
    }
    case hoard::v1::VillageAction::kBuy: {
      if (action.buy().stall() < 0 || action.buy().stall() >= kNumStalls) {
        return absl::InvalidArgumentError(
            absl::StrCat("buy.stall is ", action.buy().stall(), "; stalls are 0 to 3"));
      }
      absl::StatusOr<int> curse = TreasureFromProto(action.buy().curse(), "buy.curse", true);
      if (!curse.ok()) return curse.status();
      absl::StatusOr<Counts> payment = CountsFromProto(action.buy().payment(), "buy.payment");
      if (!payment.ok()) return payment.status();
      return Move::Buy(action.buy().stall(), *payment, *curse).Encode();
    }
    case hoard::v1::VillageAction::KIND_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError("the village action is empty: set one of draw, bribe or buy");
}

std::unique_ptr<GameCodec> MakeCodec() { return std::make_unique<VillageCodec>(); }

}  // namespace hoard::engine::village
