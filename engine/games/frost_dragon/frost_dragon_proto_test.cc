#include "engine/games/frost_dragon/frost_dragon_proto.h"

#include <memory>

#include "engine/codec.h"
#include "engine/registry.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hoard/v1/arena.pb.h"

namespace hoard::engine::frost_dragon {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;

TEST(FrostDragonProtoTest, EveryLegalActionRoundTrips) {
  const GameCodec& codec = **FindCodec("frost_dragon");
  Rng rng(1);
  int checked = 0, allies = 0;
  for (std::uint64_t seed : {9, 10}) {
    std::unique_ptr<State> state =
        *(*FindGame("frost_dragon"))->NewMatch({.num_players = 3, .seed = seed});
    while (!state->IsOver()) {
      const Seat seat = state->SeatsToAct()[0];
      const std::vector<Action> legal = state->LegalActions(seat);
      for (Action action : legal) {
        hoard::v1::Action wire;
        codec.ActionToProto(action, &wire);
        ASSERT_TRUE(wire.has_frost_dragon());
        absl::StatusOr<Action> back = codec.ActionFromProto(wire);
        ASSERT_THAT(back, IsOk());
        EXPECT_EQ(*back, action) << state->ActionToString(seat, action);
        allies += wire.frost_dragon().play().as_rank() != 0;
        ++checked;
      }
      ASSERT_THAT(state->Apply(seat, legal[rng.Uniform(legal.size())]), IsOk());
    }
  }
  EXPECT_GT(checked, 1000);
  EXPECT_GT(allies, 100);
}

TEST(FrostDragonProtoTest, TheViewShowsTheMapTheChallengeAndOnlyTheObserversHand) {
  Position p;
  p.num_players = 2;
  p.trump = kRiver;
  p.hand_size = 2;
  p.hands = {Bit(kLeprechaun) | Bit(KingdomCard(kForest, 12)), Bit(KingdomCard(kMountain, 2))};
  p.phase = Phase::kPlay;
  p.to_act = 1;
  p.challenge.leader = 0;
  p.challenge.size = 1;
  p.challenge.cards[0] = {0, kRogue, KingdomCard(kMountain, 14)};
  p.challenge.lead_kingdom = kMountain;
  p.removed = Bit(kTreasureJoker);
  p.adventurers[0] = {.space = 7, .threat = 2, .boast = 3, .marker = 10, .jump_to = 9};
  FrostDragonState state(Rules{}, p);
  hoard::v1::View wire;
  (*FindCodec("frost_dragon"))->ViewToProto(*state.ViewFor(0), &wire);
  const hoard::v1::FrostDragonView& view = wire.frost_dragon();
  EXPECT_EQ(view.observer(), 0);
  EXPECT_EQ(view.map().finish(), kFinishSpace);
  EXPECT_EQ(view.map().action_spaces_size(), kNumActionSpaces);
  EXPECT_EQ(view.map().action_spaces(1).kind(),
            hoard::v1::FROST_DRAGON_ACTION_SPACE_KIND_SLIPPERY_BRIDGE);
  EXPECT_EQ(view.map().action_spaces(3).kind(), hoard::v1::FROST_DRAGON_ACTION_SPACE_KIND_CATAPULT);
  EXPECT_TRUE(view.map().action_spaces(3).jump_next_quest_only());
  EXPECT_FALSE(view.map().action_spaces(0).jump_next_quest_only()) << "the Sleeping Orc's waits";
  EXPECT_FALSE(view.rules().trump_every_quest());
  EXPECT_FALSE(view.rules().ally_sets_lead());
  EXPECT_FALSE(view.rules().catapult_until_used());
  EXPECT_EQ(view.trump(), hoard::v1::FROST_DRAGON_KINGDOM_RIVER);
  EXPECT_EQ(view.phase(), hoard::v1::FROST_DRAGON_PHASE_PLAY);
  EXPECT_EQ(view.seat_to_act(), 1);
  EXPECT_EQ(view.cards_in_match(), 58);  // 60 by default, one removed
  ASSERT_EQ(view.removed_size(), 1);
  EXPECT_EQ(view.removed(0).joker(), hoard::v1::FROST_DRAGON_JOKER_TREASURE);
  ASSERT_EQ(view.challenge().cards_size(), 1);
  EXPECT_EQ(view.challenge().cards(0).card().joker(), hoard::v1::FROST_DRAGON_JOKER_ROGUE);
  EXPECT_EQ(view.challenge().cards(0).as().rank(), 14);
  EXPECT_EQ(view.challenge().lead_kingdom(), hoard::v1::FROST_DRAGON_KINGDOM_MOUNTAIN);
  EXPECT_FALSE(view.has_last_challenge());
  const hoard::v1::FrostDragonPlayer& me = view.players(0);
  EXPECT_EQ(me.space(), 7);
  EXPECT_EQ(me.boast(), 3);
  EXPECT_EQ(me.marker(), 10);
  EXPECT_EQ(me.jump_to(), 9);
  ASSERT_EQ(me.cards_held(), 2);
  ASSERT_EQ(me.hand().size(), 2);
  EXPECT_EQ(me.hand(0).kingdom(), hoard::v1::FROST_DRAGON_KINGDOM_FOREST);
  EXPECT_EQ(me.hand(0).rank(), 12);
  EXPECT_EQ(me.hand(1).joker(), hoard::v1::FROST_DRAGON_JOKER_LEPRECHAUN);
  const hoard::v1::FrostDragonPlayer& other = view.players(1);
  EXPECT_EQ(other.cards_held(), 1);
  EXPECT_TRUE(other.hand().empty());
  EXPECT_FALSE(other.has_boast());
  EXPECT_FALSE(other.has_jump_to());
  EXPECT_EQ(view.challenges_size(), 0);

  // Seat 1 completes the challenge: it joins the quest's record.
  ASSERT_THAT(state.Apply(1, Move::Play(KingdomCard(kMountain, 2)).Encode()), IsOk());
  hoard::v1::View after;
  (*FindCodec("frost_dragon"))->ViewToProto(*state.ViewFor(1), &after);
  ASSERT_EQ(after.frost_dragon().challenges_size(), 1);
  const hoard::v1::FrostDragonChallenge& done = after.frost_dragon().challenges(0);
  EXPECT_EQ(done.leader(), 0);
  ASSERT_EQ(done.cards_size(), 2);
  EXPECT_EQ(done.cards(0).as().rank(), 14);
  EXPECT_EQ(done.cards(1).seat(), 1);
  EXPECT_EQ(done.cards(1).card().rank(), 2);
  EXPECT_EQ(done.lead_kingdom(), hoard::v1::FROST_DRAGON_KINGDOM_MOUNTAIN);
  EXPECT_EQ(done.winner(), 0);

  // The options that depart from the rulebook show in the rules.
  const FrostDragonState options(
      Rules{.trump_every_quest = true, .ally_sets_lead = true, .catapult_until_used = true}, p);
  hoard::v1::View with_options;
  (*FindCodec("frost_dragon"))->ViewToProto(*options.ViewFor(0), &with_options);
  EXPECT_TRUE(with_options.frost_dragon().rules().trump_every_quest());
  EXPECT_TRUE(with_options.frost_dragon().rules().ally_sets_lead());
  EXPECT_TRUE(with_options.frost_dragon().rules().catapult_until_used());
}

TEST(FrostDragonProtoTest, MalformedActionsNameTheField) {
  const GameCodec& codec = **FindCodec("frost_dragon");
  hoard::v1::Action action;
  EXPECT_THAT(codec.ActionFromProto(action),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("names no game")));
  action.mutable_village()->mutable_draw();
  EXPECT_THAT(codec.ActionFromProto(action), StatusIs(absl::StatusCode::kInvalidArgument,
                                                      HasSubstr("for another game ('village')")));
  action.mutable_frost_dragon();
  EXPECT_THAT(codec.ActionFromProto(action),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("action is empty")));
  action.mutable_frost_dragon()->mutable_choose_trump();
  EXPECT_THAT(codec.ActionFromProto(action),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("choose_trump.kingdom must name a kingdom")));
  action.mutable_frost_dragon()->mutable_boast()->set_challenges(-1);
  EXPECT_THAT(codec.ActionFromProto(action),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("boast.challenges is -1")));
  hoard::v1::FrostDragonPlay* play = action.mutable_frost_dragon()->mutable_play();
  play->set_card(64);
  EXPECT_THAT(codec.ActionFromProto(action),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("card ids are 0 to 63")));
  play->set_card(kFairy);
  EXPECT_THAT(codec.ActionFromProto(action),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("play.as_kingdom must name")));
  play->set_as_kingdom(hoard::v1::FROST_DRAGON_KINGDOM_GLACIER);
  play->set_as_rank(15);
  EXPECT_THAT(codec.ActionFromProto(action),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("play.as_rank is 15")));
  play->set_as_rank(11);
  EXPECT_THAT(codec.ActionFromProto(action), IsOk());
  EXPECT_EQ(*codec.ActionFromProto(action), Move::Play(kFairy, KingdomCard(kGlacier, 11)).Encode());
  play->set_card(KingdomCard(kForest, 5));
  EXPECT_THAT(codec.ActionFromProto(action),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("for ally jokers only")));
}

}  // namespace
}  // namespace hoard::engine::frost_dragon
