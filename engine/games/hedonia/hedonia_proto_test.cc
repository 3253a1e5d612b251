#include "engine/games/hedonia/hedonia_proto.h"

#include <memory>

#include "engine/codec.h"
#include "engine/registry.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hoard/v1/arena.pb.h"

namespace hoard::engine::hedonia {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;

TEST(HedoniaProtoTest, AViewShowsTheOwnHandTheTableAndNoOtherClaim) {
  Position p;
  p.num_players = 3;
  p.active = 1;
  p.hands[0] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};  // a pig, a Misdirection
  p.hands[1] = {1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};  // a pig, a Grungle
  p.hands[2] = {0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0};  // two sushi
  p.shared[2][kVeryRareEgg] = 1;
  p.king[kDoomSnail] = 1;
  auto state = HedoniaState::ForTesting(p);
  ASSERT_THAT(state->Apply(1, OfferAction(kGrungle)), IsOk());
  ASSERT_THAT(state->Apply(2, OfferAction(kCursedSushi)), IsOk());
  ASSERT_THAT(state->Apply(0, OfferAction(kMisdirection)), IsOk());
  ASSERT_THAT(state->Apply(2, ClaimAction(Side::kRight)), IsOk());

  const GameCodec& codec = **FindCodec("hedonia");
  hoard::v1::View view;
  codec.ViewToProto(*state->ViewFor(0), &view);
  ASSERT_TRUE(view.has_hedonia());
  const hoard::v1::HedoniaView& h = view.hedonia();
  EXPECT_EQ(h.observer(), 0);
  EXPECT_EQ(h.phase(), hoard::v1::HEDONIA_PHASE_CLAIM);
  EXPECT_EQ(h.rules().end(), hoard::v1::HEDONIA_END_RULE_HANDS_EMPTY);
  EXPECT_EQ(h.rules().offers(), hoard::v1::HEDONIA_OFFER_RULE_LEFT);
  EXPECT_EQ(h.rules().tie_break(), hoard::v1::HEDONIA_TIE_BREAK_TREASURY);
  EXPECT_EQ(h.round(), 1);
  EXPECT_EQ(h.rounds(), 20);
  EXPECT_EQ(h.active_seat(), 1);
  EXPECT_TRUE(h.clockwise());
  EXPECT_EQ(h.offerer(), -1);
  ASSERT_EQ(h.players_size(), 3);
  EXPECT_TRUE(h.players(0).has_hand());
  EXPECT_EQ(h.players(0).hand().snorkel_pigs(), 1);
  EXPECT_FALSE(h.players(1).has_hand());
  EXPECT_FALSE(h.players(2).has_hand());
  EXPECT_EQ(h.players(1).hand_size(), 1);
  ASSERT_EQ(h.gaps_size(), 3);
  EXPECT_EQ(h.gaps(1).left_seat(), 1);
  EXPECT_EQ(h.gaps(1).right_seat(), 2);
  EXPECT_EQ(h.gaps(1).offered(), hoard::v1::HEDONIA_ASSET_GRUNGLE);
  EXPECT_EQ(h.gaps(1).offered_by(), 1);
  EXPECT_EQ(h.gaps(2).offered(), hoard::v1::HEDONIA_ASSET_CURSED_SUSHI);
  EXPECT_EQ(h.gaps(0).offered(), hoard::v1::HEDONIA_ASSET_MISDIRECTION);
  EXPECT_EQ(h.gaps(2).shared().very_rare_eggs(), 1);
  EXPECT_EQ(h.king().doom_snails(), 1);
  EXPECT_EQ(h.own_claim(), hoard::v1::HEDONIA_SIDE_UNSPECIFIED) << "seat 2's claim is sealed";
  EXPECT_FALSE(h.has_last_reveal());
  EXPECT_EQ(h.reveals_size(), 0);

  hoard::v1::View own;
  codec.ViewToProto(*state->ViewFor(2), &own);
  EXPECT_EQ(own.hedonia().own_claim(), hoard::v1::HEDONIA_SIDE_RIGHT);

  ASSERT_THAT(state->Apply(0, ClaimAction(Side::kLeft)), IsOk());
  ASSERT_THAT(state->Apply(1, ClaimAction(Side::kLeft)), IsOk());
  hoard::v1::View after;
  codec.ViewToProto(*state->ViewFor(kSpectator), &after);
  const hoard::v1::HedoniaReveal& reveal = after.hedonia().last_reveal();
  ASSERT_EQ(reveal.claims_size(), 3);
  EXPECT_EQ(reveal.claims(2), hoard::v1::HEDONIA_SIDE_RIGHT);
  EXPECT_EQ(reveal.cards(1), hoard::v1::HEDONIA_ASSET_GRUNGLE);
  // The record holds the same reveal in full.
  ASSERT_EQ(after.hedonia().reveals_size(), 1);
  const hoard::v1::HedoniaReveal& first = after.hedonia().reveals(0);
  EXPECT_EQ(first.round(), 1);
  EXPECT_EQ(first.active_seat(), 1);
  EXPECT_TRUE(first.clockwise()) << "the offers went clockwise";
  ASSERT_EQ(first.cards_size(), 3);
  EXPECT_EQ(first.cards(0), hoard::v1::HEDONIA_ASSET_MISDIRECTION);
  EXPECT_EQ(first.cards(2), hoard::v1::HEDONIA_ASSET_CURSED_SUSHI);
  ASSERT_EQ(first.claims_size(), 3);
  EXPECT_EQ(first.claims(0), hoard::v1::HEDONIA_SIDE_LEFT);
  EXPECT_EQ(first.claims(2), hoard::v1::HEDONIA_SIDE_RIGHT);
  ASSERT_EQ(first.snatched_size(), 3);
  EXPECT_EQ(first.snatched(0), hoard::v1::HEDONIA_ASSET_UNSPECIFIED);
  // Seat 0 took its Misdirection alone (play turns counterclockwise),
  // seats 1 and 2 share the Grungle, and the sushi goes to the King.
  EXPECT_EQ(after.hedonia().players(0).treasury().misdirections(), 1);
  EXPECT_EQ(after.hedonia().gaps(1).shared().grungles(), 1);
  EXPECT_EQ(after.hedonia().king().cursed_sushi(), 1);
  EXPECT_FALSE(after.hedonia().clockwise());
  // Seat 2, on seat 1's left, is active and offers to its own left.
  EXPECT_EQ(after.hedonia().offerer(), 2);
  EXPECT_EQ(after.hedonia().gaps(0).offered(), hoard::v1::HEDONIA_ASSET_UNSPECIFIED);
  EXPECT_EQ(after.hedonia().gaps(0).offered_by(), -1);
  ASSERT_THAT(state->Apply(2, OfferAction(kCursedSushi)), IsOk());
  hoard::v1::View offered;
  codec.ViewToProto(*state->ViewFor(kSpectator), &offered);
  EXPECT_EQ(offered.hedonia().gaps(2).offered(), hoard::v1::HEDONIA_ASSET_CURSED_SUSHI);
  EXPECT_EQ(offered.hedonia().gaps(2).offered_by(), 2);
}

TEST(HedoniaProtoTest, UnderOffersOnwardACounterclockwiseOfferLiesOnTheRight) {
  Position p;
  p.num_players = 3;
  p.direction = kCounterclockwise;
  p.hands[0] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  p.hands[1] = p.hands[2] = p.hands[0];
  auto state =
      HedoniaState::ForTesting(p, {.offers = OfferRule::kOnward, .tie_break = TieBreak::kNone});
  ASSERT_THAT(state->Apply(0, OfferAction(kSnorkelPig)), IsOk());
  hoard::v1::View view;
  (*FindCodec("hedonia"))->ViewToProto(*state->ViewFor(kSpectator), &view);
  const hoard::v1::HedoniaView& h = view.hedonia();
  EXPECT_EQ(h.rules().offers(), hoard::v1::HEDONIA_OFFER_RULE_ONWARD);
  EXPECT_EQ(h.rules().tie_break(), hoard::v1::HEDONIA_TIE_BREAK_NONE);
  // Seat 0's pig lies in gap 2, between seats 2 and 0: on seat 0's right.
  EXPECT_EQ(h.gaps(2).offered(), hoard::v1::HEDONIA_ASSET_SNORKEL_PIG);
  EXPECT_EQ(h.gaps(2).offered_by(), 0);
}

TEST(HedoniaProtoTest, TheFinalViewCarriesTheScores) {
  Position p;
  p.num_players = 3;
  p.phase = Phase::kOver;
  p.treasuries[0][kCursedSushi] = 1;
  p.shared[0][kCursedSushi] = 1;
  p.treasuries[1][kSnorkelPig] = 2;
  hoard::v1::View view;
  (*FindCodec("hedonia"))->ViewToProto(*HedoniaState::ForTesting(p)->ViewFor(kSpectator), &view);
  const hoard::v1::HedoniaView& h = view.hedonia();
  EXPECT_EQ(h.phase(), hoard::v1::HEDONIA_PHASE_OVER);
  EXPECT_DOUBLE_EQ(h.players(0).score(), 2.5);
  EXPECT_DOUBLE_EQ(h.players(1).score(), 4.5);
  EXPECT_EQ(h.players(1).power_points(), 2);
  EXPECT_EQ(h.players(1).final_treasury().snorkel_pigs(), 2);
}

TEST(HedoniaProtoTest, ActionsGoBothWays) {
  const GameCodec& codec = **FindCodec("hedonia");
  for (int kind = 0; kind < kNumAssetKinds; ++kind) {
    hoard::v1::Action wire;
    codec.ActionToProto(OfferAction(kind), &wire);
    EXPECT_EQ(wire.hedonia().offer().asset(), kind + 1);
    EXPECT_THAT(codec.ActionFromProto(wire), IsOk());
    EXPECT_EQ(*codec.ActionFromProto(wire), OfferAction(kind));
  }
  for (Side side : {Side::kLeft, Side::kRight}) {
    hoard::v1::Action wire;
    codec.ActionToProto(ClaimAction(side), &wire);
    EXPECT_TRUE(wire.hedonia().has_claim());
    EXPECT_EQ(*codec.ActionFromProto(wire), ClaimAction(side));
  }
  hoard::v1::HedoniaAction empty;
  ToProto(Action(99), &empty);
  EXPECT_EQ(empty.kind_case(), hoard::v1::HedoniaAction::KIND_NOT_SET);
}

TEST(HedoniaProtoTest, BadActionsAreRefusedByField) {
  const GameCodec& codec = **FindCodec("hedonia");
  hoard::v1::Action action;
  EXPECT_THAT(codec.ActionFromProto(action),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("set its 'hedonia' field")));
  action.mutable_village();
  EXPECT_THAT(codec.ActionFromProto(action),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("another game ('village')")));
  action.mutable_hedonia();
  EXPECT_THAT(codec.ActionFromProto(action),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("set one of offer or claim")));
  action.mutable_hedonia()->mutable_offer();
  EXPECT_THAT(codec.ActionFromProto(action), StatusIs(absl::StatusCode::kInvalidArgument,
                                                      HasSubstr("offer.asset must name an asset")));
  action.mutable_hedonia()->mutable_offer()->set_asset(static_cast<hoard::v1::HedoniaAsset>(40));
  EXPECT_THAT(codec.ActionFromProto(action),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not 40")));
  action.mutable_hedonia()->mutable_claim();
  EXPECT_THAT(codec.ActionFromProto(action),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("claim.side must be LEFT or RIGHT, not "
                                 "HEDONIA_SIDE_UNSPECIFIED")));
}

}  // namespace
}  // namespace hoard::engine::hedonia
