// Hedonia on the wire (proto/hoard/v1/hedonia.proto).

#include "engine/games/hedonia/hedonia_proto.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "engine/codec.h"
#include "engine/status_macros.h"
#include "hoard/v1/arena.pb.h"

namespace hoard::engine::hedonia {
namespace {

// The wire's enums are the engine's values plus one (UNSPECIFIED is 0).
hoard::v1::HedoniaAsset AssetToProto(int asset) {
  return asset < 0 ? hoard::v1::HEDONIA_ASSET_UNSPECIFIED
                   : static_cast<hoard::v1::HedoniaAsset>(asset + 1);
}

hoard::v1::HedoniaSide SideToProto(Side side) {
  switch (side) {
    case Side::kNone:
      break;
    case Side::kLeft:
      return hoard::v1::HEDONIA_SIDE_LEFT;
    case Side::kRight:
      return hoard::v1::HEDONIA_SIDE_RIGHT;
  }
  return hoard::v1::HEDONIA_SIDE_UNSPECIFIED;
}

hoard::v1::HedoniaPhase PhaseToProto(Phase phase) {
  return static_cast<hoard::v1::HedoniaPhase>(static_cast<int>(phase) + 1);
}

void CountsToProto(const AssetCounts& counts, hoard::v1::HedoniaAssetCounts* out) {
  out->set_snorkel_pigs(counts[kSnorkelPig]);
  out->set_bearded_hoppers(counts[kBeardedHopper]);
  out->set_magic_carrots(counts[kMagicCarrot]);
  out->set_doom_snails(counts[kDoomSnail]);
  out->set_royal_poofins(counts[kRoyalPoofin]);
  out->set_very_rare_eggs(counts[kVeryRareEgg]);
  out->set_grungles(counts[kGrungle]);
  out->set_deathslayers(counts[kDeathslayer]);
  out->set_cursed_sushi(counts[kCursedSushi]);
  out->set_red_snatchers(counts[kRedSnatcher]);
  out->set_misdirections(counts[kMisdirection]);
}

// An enum value as an error message shows it: its name, or its number when
// the wire's enum has no such value.
std::string EnumText(const std::string& name, int value) {
  return name.empty() ? absl::StrCat(value) : name;
}

class HedoniaCodec final : public GameCodec {
 public:
  void ViewToProto(const View& view, hoard::v1::View* out) const override {
    ToProto(static_cast<const HedoniaView&>(view), out->mutable_hedonia());
  }

  void ActionToProto(Action action, hoard::v1::Action* out) const override {
    ToProto(action, out->mutable_hedonia());
  }

  absl::StatusOr<Action> ActionFromProto(const hoard::v1::Action& action) const override {
    RETURN_IF_ERROR(CheckActionGame(action, "hedonia"));
    return FromProto(action.hedonia());
  }
};

}  // namespace

void ToProto(const HedoniaView& view, hoard::v1::HedoniaView* out) {
  const int n = static_cast<int>(view.players.size());
  out->set_observer(view.observer);
  out->mutable_rules()->set_end(view.rules.end == EndRule::kHandsEmpty
                                    ? hoard::v1::HEDONIA_END_RULE_HANDS_EMPTY
                                    : hoard::v1::HEDONIA_END_RULE_DECK_EMPTY);
  out->mutable_rules()->set_offers(view.rules.offers == OfferRule::kLeft
                                       ? hoard::v1::HEDONIA_OFFER_RULE_LEFT
                                       : hoard::v1::HEDONIA_OFFER_RULE_ONWARD);
  out->mutable_rules()->set_tie_break(view.rules.tie_break == TieBreak::kTreasury
                                          ? hoard::v1::HEDONIA_TIE_BREAK_TREASURY
                                          : hoard::v1::HEDONIA_TIE_BREAK_NONE);
  out->set_round(view.round);
  out->set_rounds(view.rounds);
  out->set_phase(PhaseToProto(view.phase));
  out->set_active_seat(view.active);
  out->set_clockwise(view.direction == kClockwise);
  out->set_offerer(view.offerer);
  out->set_deck_size(view.deck_size);
  const bool over = !view.scores.empty();
  for (int seat = 0; seat < n; ++seat) {
    const PlayerView& player = view.players[seat];
    hoard::v1::HedoniaPlayer* out_player = out->add_players();
    out_player->set_seat(seat);
    out_player->set_hand_size(player.hand_size);
    if (player.hand) CountsToProto(*player.hand, out_player->mutable_hand());
    CountsToProto(player.treasury, out_player->mutable_treasury());
    if (over) {
      CountsToProto(view.final_treasuries[seat], out_player->mutable_final_treasury());
      out_player->set_power_points(view.power_points[seat]);
      out_player->set_score(view.scores[seat]);
    }
  }
  for (int gap = 0; gap < n; ++gap) {
    hoard::v1::HedoniaGap* out_gap = out->add_gaps();
    out_gap->set_left_seat(gap);
    out_gap->set_right_seat((gap + 1) % n);
    out_gap->set_offered(AssetToProto(view.table[gap]));
    out_gap->set_offered_by(view.table[gap] < 0 ? -1
                            : OfferDirection(view.rules.offers, view.direction) == kClockwise
                                ? gap
                                : (gap + 1) % n);
    CountsToProto(view.shared[gap], out_gap->mutable_shared());
  }
  CountsToProto(view.king, out->mutable_king());
  out->set_own_claim(SideToProto(view.own_claim));
  if (!view.last_claims.empty() && view.last_claims[0] != Side::kNone) {
    hoard::v1::HedoniaReveal* reveal = out->mutable_last_reveal();
    for (int card : view.last_table) reveal->add_cards(AssetToProto(card));
    for (Side side : view.last_claims) reveal->add_claims(SideToProto(side));
  }
  for (int r = 0; r < static_cast<int>(view.reveals.size()); ++r) {
    const PastReveal& past = view.reveals[r];
    hoard::v1::HedoniaReveal* reveal = out->add_reveals();
    reveal->set_round(r + 1);
    reveal->set_active_seat(past.active);
    reveal->set_clockwise(past.direction == kClockwise);
    for (int gap = 0; gap < n; ++gap) {
      reveal->add_cards(AssetToProto(past.cards[gap]));
      reveal->add_snatched(AssetToProto(past.snatched[gap]));
    }
    for (Seat seat = 0; seat < n; ++seat) reveal->add_claims(SideToProto(past.claims[seat]));
  }
}

void ToProto(Action action, hoard::v1::HedoniaAction* out) {
  if (const std::optional<int> asset = OfferedAsset(action)) {
    out->mutable_offer()->set_asset(AssetToProto(*asset));
  } else if (const std::optional<Side> side = ClaimedSide(action)) {
    out->mutable_claim()->set_side(SideToProto(*side));
  }
}

absl::StatusOr<Action> FromProto(const hoard::v1::HedoniaAction& action) {
  switch (action.kind_case()) {
    case hoard::v1::HedoniaAction::kOffer: {
      const hoard::v1::HedoniaAsset asset = action.offer().asset();
      const int kind = static_cast<int>(asset) - 1;
      if (kind < 0 || kind >= kNumAssetKinds) {
        return absl::InvalidArgumentError(
            absl::StrCat("offer.asset must name an asset (Snorkel Pig to "
                         "Misdirection), not ",
                         EnumText(hoard::v1::HedoniaAsset_Name(asset), asset)));
      }
      return OfferAction(kind);
    }
    case hoard::v1::HedoniaAction::kClaim: {
      const hoard::v1::HedoniaSide side = action.claim().side();
      if (side == hoard::v1::HEDONIA_SIDE_LEFT) return ClaimAction(Side::kLeft);
      if (side == hoard::v1::HEDONIA_SIDE_RIGHT) return ClaimAction(Side::kRight);
      return absl::InvalidArgumentError(
          absl::StrCat("claim.side must be LEFT or RIGHT, not ",
                       EnumText(hoard::v1::HedoniaSide_Name(side), side)));
    }
    case hoard::v1::HedoniaAction::KIND_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError("the Hedonia action is empty: set one of offer or claim");
}

std::unique_ptr<GameCodec> MakeCodec() { return std::make_unique<HedoniaCodec>(); }

}  // namespace hoard::engine::hedonia
