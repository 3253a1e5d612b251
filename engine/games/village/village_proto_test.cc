#include "engine/games/village/village_proto.h"

#include <memory>

#include "engine/codec.h"
#include "engine/registry.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hoard/v1/arena.pb.h"

namespace hoard::engine::village {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;

TEST(VillageProtoTest, EveryLegalActionRoundTrips) {
  const GameCodec& codec = **FindCodec("village");
  Rng rng(1);
  int checked = 0;
  for (std::uint64_t seed : {9, 10, 11, 12}) {
    std::unique_ptr<State> state =
        *(*FindGame("village"))->NewMatch({.num_players = 3, .seed = seed});
    while (!state->IsOver()) {
      const Seat seat = state->SeatsToAct()[0];
      const std::vector<Action> legal = state->LegalActions(seat);
      for (Action action : legal) {
        hoard::v1::Action wire;
        codec.ActionToProto(action, &wire);
        ASSERT_TRUE(wire.has_village());
        absl::StatusOr<Action> back = codec.ActionFromProto(wire);
        ASSERT_THAT(back, IsOk());
        EXPECT_EQ(*back, action) << state->ActionToString(seat, action);
        ++checked;
      }
      ASSERT_THAT(state->Apply(seat, legal[rng.Uniform(legal.size())]), IsOk());
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(VillageProtoTest, TheViewCarriesTheRules) {
  Position p;
  p.favor = {kSword, kScroll, kFeather, kPotion, kAxe, kCrown};
  p.hands.assign(2, Counts{});
  p.bribes.assign(2, Bribes{});
  VillageState state(Rules{.wilds = 11, .end = EndRule::kDeckEmpty, .tie_break = TieBreak::kNone},
                     p);
  hoard::v1::View wire;
  (*FindCodec("village"))->ViewToProto(*state.ViewFor(kSpectator), &wire);
  const hoard::v1::VillageRules& rules = wire.village().rules();
  ASSERT_EQ(rules.favor_values_size(), kFavorSpaces);
  EXPECT_EQ(rules.favor_values(5), 4);
  EXPECT_EQ(rules.wilds(), 11);
  EXPECT_EQ(rules.hand_size(), kDefaultHandSize);
  EXPECT_EQ(rules.end(), hoard::v1::VILLAGE_END_RULE_DECK_EMPTY);
  EXPECT_EQ(rules.merge(), hoard::v1::VILLAGE_MERGE_RULE_AUTO);
  EXPECT_EQ(rules.tie_break(), hoard::v1::VILLAGE_TIE_BREAK_NONE);
}

TEST(VillageProtoTest, TheViewShowsOnlyTheObserversHand) {
  Position p;
  p.favor = {kSword, kScroll, kFeather, kPotion, kAxe, kCrown};
  p.hands = {Counts{2, 0, 0, 0, 0, 0, 1}, Counts{0, 0, 0, 0, 0, 3, 0}};
  p.bribes.assign(2, Bribes{});
  p.bribes[1][kAxe] = {2, 1};
  p.market[3] = Counts{0, 1, 0, 0, 0, 0, 0};
  VillageState state(Rules{}, p);
  hoard::v1::View wire;
  (*FindCodec("village"))->ViewToProto(*state.ViewFor(0), &wire);
  const hoard::v1::VillageView& view = wire.village();
  EXPECT_EQ(view.observer(), 0);
  EXPECT_EQ(view.favor(0), hoard::v1::VILLAGE_CARD_SWORD);
  EXPECT_EQ(view.favor_values(5), 4);
  EXPECT_EQ(view.market(3).scrolls(), 1);
  EXPECT_TRUE(view.players(0).has_hand());
  EXPECT_EQ(view.players(0).hand().swords(), 2);
  EXPECT_FALSE(view.players(1).has_hand());
  EXPECT_EQ(view.players(1).hand_size(), 3);
  EXPECT_EQ(view.players(1).bribes(0).treasure(), hoard::v1::VILLAGE_CARD_AXE);
  EXPECT_EQ(view.players(1).bribes(0).wilds(), 1);
  EXPECT_EQ(view.players(0).known().swords(), 0) << "dealt cards are not known";

  // Seat 0 buys the scroll: every seat knows it is in seat 0's hand.
  ASSERT_THAT(state.Apply(0, Move::Buy(3, Counts{2, 0, 0, 0, 0, 0, 1}, kSword).Encode()), IsOk());
  hoard::v1::View after;
  (*FindCodec("village"))->ViewToProto(*state.ViewFor(1), &after);
  EXPECT_FALSE(after.village().players(0).has_hand());
  EXPECT_EQ(after.village().players(0).known().scrolls(), 1);
  EXPECT_EQ(after.village().players(1).known().crowns(), 0);
}

TEST(VillageProtoTest, MalformedActionsNameTheField) {
  const GameCodec& codec = **FindCodec("village");
  hoard::v1::Action action;
  EXPECT_THAT(codec.ActionFromProto(action),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("names no game")));
  action.mutable_village();
  EXPECT_THAT(codec.ActionFromProto(action),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("action is empty")));
  action.mutable_village()->mutable_bribe()->mutable_cards()->set_swords(1);
  EXPECT_THAT(codec.ActionFromProto(action),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("bribe.treasure must name a treasure type")));
  action.mutable_village()->mutable_bribe()->set_treasure(hoard::v1::VILLAGE_CARD_WILD);
  EXPECT_THAT(codec.ActionFromProto(action),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("VILLAGE_CARD_WILD")));
  action.mutable_village()->mutable_buy()->set_stall(4);
  EXPECT_THAT(codec.ActionFromProto(action),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("stalls are 0 to 3")));
  action.mutable_village()->mutable_buy()->set_stall(2);
  action.mutable_village()->mutable_buy()->mutable_payment()->set_wilds(-1);
  EXPECT_THAT(codec.ActionFromProto(action),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("buy.payment.wilds is -1")));
}

}  // namespace
}  // namespace hoard::engine::village
