#include "engine/games/dragons_gold/dragons_gold_proto.h"

#include <functional>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "engine/codec.h"
#include "engine/registry.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hoard/v1/arena.pb.h"

namespace hoard::engine::dragons_gold {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;

// Abseil 20220623's StatusOr has no matcher of its own for this.
MATCHER_P(IsOkAndHolds, action, "is OK and holds the action") {
  if (!arg.ok()) {
    *result_listener << "status is " << arg.status();
    return false;
  }
  *result_listener << "holds code " << arg->code() << ", expected " << action.code();
  return *arg == action;
}

const GameCodec& Codec() { return **FindCodec("dragons_gold"); }

std::unique_ptr<State> NewMatch(int players, std::uint64_t seed) {
  return *(*FindGame("dragons_gold"))->NewMatch({.num_players = players, .seed = seed});
}

const DragonsGoldState& Of(const State& state) {
  return static_cast<const DragonsGoldState&>(state);
}

// One random legal action of a random seat to act.
void PlayRandomly(State& state, Rng& rng) {
  const Seats seats = state.SeatsToAct();
  const Seat seat = seats[rng.Uniform(seats.size())];
  const std::vector<Action> legal = state.LegalActions(seat);
  ASSERT_THAT(state.Apply(seat, legal[rng.Uniform(legal.size())]), IsOk());
}

TokenCounts Tokens(std::initializer_list<std::pair<int, int>> kinds) {
  TokenCounts counts{};
  for (auto [kind, n] : kinds) counts[kind] = n;
  return counts;
}

TokenCounts FromWire(const hoard::v1::DragonsGoldTokenCounts& t) {
  return {t.silver(), t.gold(),   t.red(),   t.blue(), t.green(),
          t.purple(), t.yellow(), t.white(), t.black()};
}

ObjectCounts FromWire(const hoard::v1::DragonsGoldObjectCounts& o) {
  return {o.dragon_swap(),   o.second_strike(), o.recall(),
          o.retreat(),       o.treasure_map(),  o.sleeping_potion(),
          o.silver_tongue(), o.decoy_purse(),   o.invisible_hand()};
}

hoard::v1::Action Wire(Action action) {
  hoard::v1::Action wire;
  Codec().ActionToProto(action, &wire);
  return wire;
}

hoard::v1::DragonsGoldView Wire(const View& view) {
  hoard::v1::View wire;
  Codec().ViewToProto(view, &wire);
  EXPECT_TRUE(wire.has_dragons_gold());
  return wire.dragons_gold();
}

Move Attack(int slot, int adventurer, int second = -1) {
  return {.kind = Move::Kind::kAttack, .slot = slot, .adventurer = adventurer, .second = second};
}
Move Use(int object, int a = 0, int b = 0) {
  return {.kind = Move::Kind::kUseObject, .object = object, .a = a, .b = b};
}

TEST(DragonsGoldProtoTest, EveryKindOfActionRoundTrips) {
  const std::vector<Move> moves = {
      Attack(3, kThief),
      Attack(1, kKnight4, kWizard),
      Use(kDragonSwap, 1, 3),
      Use(kRecall),
      Use(kRetreat, kWizard),
      Use(kTreasureMap),
      Use(kSleepingPotion, 2),
      Use(kSilverTongue),
      Use(kInvisibleHand, 4),
      Proposal({Tokens({{kGold, 2}}), Tokens({{kSilver, 1}, {kGold, 1}}), Tokens({{kBlack, 1}})}),
      Proposal({Tokens({{kRed, 3}, {kWhite, 1}}), TokenCounts{}}),  // all to the first
      Proposal({TokenCounts{}, TokenCounts{}, Tokens({{kBlue, 5}})}),
      {.kind = Move::Kind::kAccept},
      {.kind = Move::Kind::kReject},
      {.kind = Move::Kind::kSteal, .token = kBlack},
      {.kind = Move::Kind::kDecoyGive, .token = kSilver},
      {.kind = Move::Kind::kDecoyKeep},
      {.kind = Move::Kind::kMarketPass},
      {.kind = Move::Kind::kMarketOffer,
       .target = 5,
       .give = Tokens({{kGold, 2}, {kRed, 1}}),
       .get = Tokens({{kBlue, 7}})},
      {.kind = Move::Kind::kMarketAccept},
      {.kind = Move::Kind::kMarketRefuse},
  };
  std::set<Move::Kind> kinds;
  for (const Move& move : moves) {
    const Action action = move.Encode();
    const hoard::v1::Action wire = Wire(action);
    ASSERT_TRUE(wire.has_dragons_gold());
    const absl::StatusOr<Action> back = Codec().ActionFromProto(wire);
    ASSERT_THAT(back, IsOk()) << wire.DebugString();
    EXPECT_EQ(*back, action) << wire.DebugString();
    EXPECT_EQ(Move::Decode(*back), move) << wire.DebugString();
    kinds.insert(move.kind);
  }
  EXPECT_EQ(kinds.size(), 12u) << "every kind of move";
}

TEST(DragonsGoldProtoTest, TheWireSpellsActionsOutInItsOwnTerms) {
  const hoard::v1::DragonsGoldAction attack =
      Wire(Attack(1, kKnight4, kWizard).Encode()).dragons_gold();
  EXPECT_EQ(attack.attack().slot(), 1);
  EXPECT_EQ(attack.attack().adventurer(), hoard::v1::DRAGONS_GOLD_ADVENTURER_KNIGHT_4);
  EXPECT_EQ(attack.attack().second(), hoard::v1::DRAGONS_GOLD_ADVENTURER_WIZARD);
  EXPECT_EQ(Wire(Attack(0, kThief).Encode()).dragons_gold().attack().second(),
            hoard::v1::DRAGONS_GOLD_ADVENTURER_UNSPECIFIED);

  const hoard::v1::DragonsGoldAction retreat = Wire(Use(kRetreat, kThief).Encode()).dragons_gold();
  EXPECT_EQ(retreat.use_object().object(), hoard::v1::DRAGONS_GOLD_OBJECT_RETREAT);
  EXPECT_EQ(retreat.use_object().adventurer(), hoard::v1::DRAGONS_GOLD_ADVENTURER_THIEF);
  EXPECT_EQ(retreat.use_object().a(), 0);
  const hoard::v1::DragonsGoldAction swap = Wire(Use(kDragonSwap, 0, 2).Encode()).dragons_gold();
  EXPECT_EQ(swap.use_object().object(), hoard::v1::DRAGONS_GOLD_OBJECT_DRAGON_SWAP);
  EXPECT_EQ(swap.use_object().a(), 0);
  EXPECT_EQ(swap.use_object().b(), 2);

  const hoard::v1::DragonsGoldAction offer = Wire(Move{.kind = Move::Kind::kMarketOffer,
                                                       .target = 2,
                                                       .give = Tokens({{kWhite, 1}, {kSilver, 2}}),
                                                       .get = Tokens({{kRed, 3}})}
                                                      .Encode())
                                                 .dragons_gold();
  EXPECT_EQ(offer.market_offer().to(), 2);
  EXPECT_EQ(offer.market_offer().give().white(), 1);
  EXPECT_EQ(offer.market_offer().give().silver(), 2);
  EXPECT_EQ(offer.market_offer().get().red(), 3);
  EXPECT_EQ(offer.market_offer().get().silver(), 0);

  // A treasure of 1 silver, 3 gold and the black diamond: silver to the
  // second contributor, gold to the first (2) and second (1), the black
  // diamond to the third.
  const hoard::v1::DragonsGoldAction propose =
      Wire(Proposal(
               {Tokens({{kGold, 2}}), Tokens({{kSilver, 1}, {kGold, 1}}), Tokens({{kBlack, 1}})})
               .Encode())
          .dragons_gold();
  EXPECT_THAT(propose.propose().assignment(), ::testing::ElementsAre(1, 0, 0, 1, 2));
  EXPECT_TRUE(propose.propose().shares().empty());
  EXPECT_THAT(Wire(Proposal({Tokens({{kGold, 2}}), TokenCounts{}}).Encode())
                  .dragons_gold()
                  .propose()
                  .assignment(),
              ::testing::ElementsAre(0))
      << "everything to the first contributor is spelled out";
}

TEST(DragonsGoldProtoTest, SharesInSeatOrderMakeTheProposal) {
  hoard::v1::Action wire;
  auto add_share = [&](Seat seat, const TokenCounts& counts) {
    hoard::v1::DragonsGoldShare* share =
        wire.mutable_dragons_gold()->mutable_propose()->add_shares();
    share->set_seat(seat);
    hoard::v1::DragonsGoldTokenCounts* t = share->mutable_tokens();
    t->set_silver(counts[kSilver]);
    t->set_gold(counts[kGold]);
    t->set_black(counts[kBlack]);
  };
  add_share(0, Tokens({{kGold, 2}}));
  add_share(2, Tokens({{kSilver, 1}, {kGold, 1}}));
  add_share(5, Tokens({{kBlack, 1}}));
  const Action expected =
      Proposal({Tokens({{kGold, 2}}), Tokens({{kSilver, 1}, {kGold, 1}}), Tokens({{kBlack, 1}})})
          .Encode();
  EXPECT_THAT(Codec().ActionFromProto(wire), IsOkAndHolds(expected));
}

// The shares a proposal gives, as a bot would write them.
hoard::v1::DragonsGoldAction SharesOf(Action action, const Negotiation& n) {
  const std::vector<TokenCounts> shares =
      Shares(*Move::Decode(action), n.tokens, static_cast<int>(n.contributors.size()));
  hoard::v1::DragonsGoldAction wire;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    hoard::v1::DragonsGoldShare* share = wire.mutable_propose()->add_shares();
    share->set_seat(n.contributors[i]);
    hoard::v1::DragonsGoldTokenCounts* t = share->mutable_tokens();
    t->set_silver(shares[i][kSilver]);
    t->set_gold(shares[i][kGold]);
    t->set_red(shares[i][kRed]);
    t->set_blue(shares[i][kBlue]);
    t->set_green(shares[i][kGreen]);
    t->set_purple(shares[i][kPurple]);
    t->set_yellow(shares[i][kYellow]);
    t->set_white(shares[i][kWhite]);
    t->set_black(shares[i][kBlack]);
  }
  return wire;
}

TEST(DragonsGoldProtoTest, EveryLegalActionOfRandomMatchesRoundTrips) {
  int checked = 0;
  int proposals = 0;
  for (int players = 3; players <= 6; ++players) {
    for (std::uint64_t seed : {21, 22}) {
      std::unique_ptr<State> state = NewMatch(players, seed);
      Rng rng(seed);
      while (!state->IsOver()) {
        const Negotiation& n = Of(*state).position().negotiation;
        for (Seat seat : state->SeatsToAct()) {
          for (Action action : state->LegalActions(seat)) {
            const hoard::v1::Action wire = Wire(action);
            ASSERT_THAT(Codec().ActionFromProto(wire), IsOkAndHolds(action))
                << state->ActionToString(seat, action);
            EXPECT_THAT(FromProto(wire.dragons_gold(), n), IsOkAndHolds(action));
            ++checked;
            if (Move::Decode(action)->kind != Move::Kind::kPropose) continue;
            // The same proposal as shares: without the negotiation (in seat
            // order) and with it.
            const hoard::v1::DragonsGoldAction shares = SharesOf(action, n);
            EXPECT_THAT(FromProto(shares), IsOkAndHolds(action)) << shares.DebugString();
            EXPECT_THAT(FromProto(shares, n), IsOkAndHolds(action));
            ++proposals;
          }
        }
        ASSERT_NO_FATAL_FAILURE(PlayRandomly(*state, rng));
      }
    }
  }
  EXPECT_GT(checked, 5000);
  EXPECT_GT(proposals, 20);
}

// The wire's record says what the view's does, entry by entry (a hidden
// kind, kHiddenToken, is UNSPECIFIED).
void ExpectSameRecord(const Record& record, const hoard::v1::DragonsGoldView& wire) {
  ASSERT_EQ(wire.record_size(), static_cast<int>(record.size()));
  for (int i = 0; i < wire.record_size(); ++i) {
    const hoard::v1::DragonsGoldRecordEntry& out = wire.record(i);
    if (const auto* slaying = std::get_if<Slaying>(&record[i])) {
      ASSERT_TRUE(out.has_slaying());
      EXPECT_EQ(out.slaying().card(), slaying->card);
      EXPECT_EQ(out.slaying().slot(), slaying->slot);
      EXPECT_EQ(out.slaying().slayer(), slaying->slayer);
      EXPECT_EQ(out.slaying().attackers_size(), static_cast<int>(slaying->attackers.size()));
      EXPECT_EQ(FromWire(out.slaying().treasure()), slaying->treasure);
      EXPECT_EQ(FromWire(out.slaying().drawn()), slaying->drawn);
      EXPECT_EQ(out.slaying().outcome(), static_cast<int>(slaying->outcome) + 1);
      ASSERT_EQ(out.slaying().shares_size(), static_cast<int>(slaying->shares.size()));
      for (int k = 0; k < out.slaying().shares_size(); ++k) {
        EXPECT_EQ(out.slaying().shares(k).seat(), slaying->shares[k].seat);
        EXPECT_EQ(FromWire(out.slaying().shares(k).tokens()), slaying->shares[k].tokens);
      }
    } else if (const auto* swap = std::get_if<MarketSwap>(&record[i])) {
      ASSERT_TRUE(out.has_market_swap());
      EXPECT_EQ(out.market_swap().from(), swap->from);
      EXPECT_EQ(out.market_swap().to(), swap->to);
      EXPECT_EQ(FromWire(out.market_swap().give()), swap->give);
      EXPECT_EQ(FromWire(out.market_swap().get()), swap->get);
    } else if (const auto* theft = std::get_if<Theft>(&record[i])) {
      ASSERT_TRUE(out.has_theft());
      EXPECT_EQ(out.theft().thief_seat(), theft->thief_owner);
      EXPECT_EQ(out.theft().victim(), theft->victim);
      EXPECT_EQ(out.theft().how(), static_cast<int>(theft->how) + 1);
      EXPECT_EQ(out.theft().named(), theft->named + 1);
      EXPECT_EQ(out.theft().token(), theft->token + 1);
    } else if (const auto* map = std::get_if<TreasureMapDraw>(&record[i])) {
      ASSERT_TRUE(out.has_treasure_map());
      EXPECT_EQ(out.treasure_map().seat(), map->seat);
      EXPECT_EQ(out.treasure_map().token(), map->token + 1);
    } else {
      ASSERT_TRUE(out.has_left_on_table());
      EXPECT_EQ(FromWire(out.left_on_table().tokens()), std::get<LeftOnTable>(record[i]).tokens);
    }
  }
}

// Checks that `wire` says exactly what `view` says.
void ExpectSameView(const DragonsGoldView& view, const hoard::v1::DragonsGoldView& wire) {
  EXPECT_EQ(wire.observer(), view.observer);
  EXPECT_EQ(wire.rules().advanced_scoring(), view.rules.advanced_scoring);
  EXPECT_EQ(wire.rules().negotiation_proposals(), view.rules.negotiation_proposals);
  EXPECT_EQ(wire.rules().market_rounds(), view.rules.market_rounds);
  EXPECT_EQ(wire.rules().max_turns(), view.rules.max_turns);
  EXPECT_EQ(wire.rules().invisible_hand(), view.rules.invisible_hand);
  EXPECT_EQ(wire.rules().magic_objects(), view.rules.magic_objects);
  ASSERT_EQ(wire.dragons_size(), kFaceUpDragons);
  for (int slot = 0; slot < kFaceUpDragons; ++slot) {
    const FaceUpDragon& dragon = view.dragons[slot];
    const hoard::v1::DragonsGoldDragon& out = wire.dragons(slot);
    EXPECT_EQ(out.card(), dragon.card);
    EXPECT_EQ(out.strength(), dragon.card < 0 ? 0 : dragon.strength());
    EXPECT_EQ(out.hidden_tokens(), dragon.card < 0 ? 0 : kDragons[dragon.card].hidden);
    EXPECT_EQ(out.sleeping_potions(), dragon.weakening);
    EXPECT_EQ(FromWire(out.tokens()), dragon.tokens);
    ASSERT_EQ(out.attackers_size(), static_cast<int>(dragon.attackers.size()));
    for (int i = 0; i < out.attackers_size(); ++i) {
      EXPECT_EQ(out.attackers(i).seat(), dragon.attackers[i].seat);
      EXPECT_EQ(out.attackers(i).adventurer(), dragon.attackers[i].adventurer + 1);
    }
  }
  EXPECT_EQ(wire.pile_size(), view.pile_size);
  EXPECT_EQ(wire.market_ahead(), view.market_ahead);
  EXPECT_EQ(wire.bag_size(), view.bag_size);
  EXPECT_EQ(FromWire(wire.removed()), view.removed);
  EXPECT_EQ(wire.object_deck_size(), view.object_deck_size);
  EXPECT_EQ(FromWire(wire.object_discard()), view.object_discard);
  ASSERT_EQ(wire.players_size(), static_cast<int>(view.players.size()));
  for (int seat = 0; seat < wire.players_size(); ++seat) {
    const PlayerView& player = view.players[seat];
    const hoard::v1::DragonsGoldPlayer& out = wire.players(seat);
    EXPECT_EQ(out.seat(), seat);
    EXPECT_EQ(out.adventurers().knight_4(), static_cast<int>(player.adventurers[kKnight4]) + 1);
    EXPECT_EQ(out.adventurers().knight_3(), static_cast<int>(player.adventurers[kKnight3]) + 1);
    EXPECT_EQ(out.adventurers().thief(), static_cast<int>(player.adventurers[kThief]) + 1);
    EXPECT_EQ(out.adventurers().wizard(), static_cast<int>(player.adventurers[kWizard]) + 1);
    EXPECT_EQ(out.token_count(), player.token_count);
    EXPECT_EQ(out.object_count(), player.object_count);
    ASSERT_EQ(out.has_tokens(), player.tokens.has_value());
    if (player.tokens) {
      EXPECT_EQ(FromWire(out.tokens()), *player.tokens);
    }
    ASSERT_EQ(out.has_objects(), player.objects.has_value());
    if (player.objects) {
      EXPECT_EQ(FromWire(out.objects()), *player.objects);
    }
  }
  EXPECT_EQ(wire.phase(), static_cast<int>(view.phase) + 1);
  EXPECT_EQ(wire.current_seat(), view.current);
  EXPECT_EQ(wire.turns(), view.turns);

  const Negotiation& n = view.negotiation;
  ASSERT_EQ(wire.has_negotiation(), n.slot >= 0);
  if (n.slot >= 0) {
    const hoard::v1::DragonsGoldNegotiation& talk = wire.negotiation();
    EXPECT_EQ(talk.slot(), n.slot);
    EXPECT_EQ(talk.slayer(), n.slayer);
    EXPECT_EQ(std::vector<Seat>(talk.contributors().begin(), talk.contributors().end()),
              n.contributors);
    EXPECT_EQ(FromWire(talk.tokens()), n.tokens);
    EXPECT_EQ(talk.proposals_made(), n.proposals_made);
    EXPECT_EQ(talk.proposals_allowed(), n.proposals_allowed);
    EXPECT_EQ(talk.proposer(), n.proposer);
    ASSERT_EQ(talk.proposal_size(), static_cast<int>(n.proposal.size()));
    for (int i = 0; i < talk.proposal_size(); ++i) {
      EXPECT_EQ(talk.proposal(i).seat(), n.contributors[i]);
      EXPECT_EQ(FromWire(talk.proposal(i).tokens()), n.proposal[i]);
    }
    std::vector<Seat> voted, accepted, rejected;
    for (Seat s = 0; s < static_cast<Seat>(n.votes.size()); ++s) {
      if (n.votes[s] != 0) voted.push_back(s);
    }
    for (Seat s = 0; s < static_cast<Seat>(n.last_votes.size()); ++s) {
      if (n.last_votes[s] == 1) accepted.push_back(s);
      if (n.last_votes[s] == 2) rejected.push_back(s);
    }
    EXPECT_EQ(std::vector<Seat>(talk.voted().begin(), talk.voted().end()), voted);
    EXPECT_EQ(std::vector<Seat>(talk.last_accepted().begin(), talk.last_accepted().end()),
              accepted);
    EXPECT_EQ(std::vector<Seat>(talk.last_rejected().begin(), talk.last_rejected().end()),
              rejected);
  }
  ASSERT_EQ(wire.steals_size(), static_cast<int>(view.steals.size()));
  for (int i = 0; i < wire.steals_size(); ++i) {
    EXPECT_EQ(wire.steals(i).thief_seat(), view.steals[i].thief_owner);
    EXPECT_EQ(wire.steals(i).victim(), view.steals[i].victim);
    EXPECT_EQ(wire.steals(i).chosen(), view.steals[i].chosen);
  }
  ASSERT_EQ(wire.has_market(), !view.market_offers_left.empty());
  if (wire.has_market()) {
    EXPECT_EQ(wire.market().offerer(), view.market_offerer);
    EXPECT_EQ(
        std::vector<int>(wire.market().offers_left().begin(), wire.market().offers_left().end()),
        view.market_offers_left);
    ASSERT_EQ(wire.market().has_offer(), view.phase == Phase::kMarketReply);
    if (wire.market().has_offer()) {
      EXPECT_EQ(view.offer.from, view.market_offerer);
      EXPECT_EQ(wire.market().offer().to(), view.offer.to);
      EXPECT_EQ(FromWire(wire.market().offer().give()), view.offer.give);
      EXPECT_EQ(FromWire(wire.market().offer().get()), view.offer.get);
    }
  }
  EXPECT_EQ(wire.end_reason() == hoard::v1::DRAGONS_GOLD_END_REASON_UNSPECIFIED,
            view.end == EndReason::kNotOver);
  EXPECT_EQ(std::vector<int>(wire.scores().begin(), wire.scores().end()), view.scores);
  ASSERT_NO_FATAL_FAILURE(ExpectSameRecord(view.record, wire));
}

TEST(DragonsGoldProtoTest, AViewFromARealMatchShowsTheTable) {
  std::unique_ptr<State> state = NewMatch(4, 5);
  Rng rng(5);
  for (int i = 0; i < 12; ++i) ASSERT_NO_FATAL_FAILURE(PlayRandomly(*state, rng));
  ASSERT_FALSE(state->IsOver());
  const auto view = state->ViewFor(1);
  const auto& v = static_cast<const DragonsGoldView&>(*view);
  const hoard::v1::DragonsGoldView wire = Wire(*view);
  EXPECT_EQ(wire.observer(), 1);
  EXPECT_EQ(wire.rules().max_turns(), 240);
  EXPECT_TRUE(wire.rules().advanced_scoring());
  ASSERT_EQ(wire.dragons_size(), 4);
  for (int slot = 0; slot < 4; ++slot) {
    if (v.dragons[slot].card < 0) continue;
    EXPECT_EQ(wire.dragons(slot).card(), v.dragons[slot].card);
    EXPECT_EQ(wire.dragons(slot).strength(), v.dragons[slot].strength());
  }
  EXPECT_EQ(wire.bag_size(), static_cast<int>(Of(*state).position().bag.size()));
  ASSERT_EQ(wire.players_size(), 4);
  EXPECT_TRUE(wire.players(1).has_tokens()) << "the observer's own screen";
  EXPECT_EQ(FromWire(wire.players(1).tokens()), Of(*state).position().holdings[1]);
  EXPECT_EQ(FromWire(wire.players(1).objects()), Of(*state).position().objects[1]);
  EXPECT_FALSE(wire.players(0).has_tokens());
  EXPECT_FALSE(wire.players(2).has_objects());
  EXPECT_EQ(wire.turns(), Of(*state).position().turns);
  EXPECT_EQ(wire.end_reason(), hoard::v1::DRAGONS_GOLD_END_REASON_UNSPECIFIED);
  EXPECT_TRUE(wire.scores().empty());
  ExpectSameView(v, wire);
}

TEST(DragonsGoldProtoTest, EveryViewOfRandomMatchesCarriesEveryField) {
  std::set<int> phases;
  for (int players = 3; players <= 6; ++players) {
    std::unique_ptr<State> state = NewMatch(players, 30 + players);
    Rng rng(players);
    while (true) {
      phases.insert(static_cast<int>(Of(*state).position().phase));
      for (Seat observer = kSpectator; observer < players; ++observer) {
        const auto view = state->ViewFor(observer);
        SCOPED_TRACE(view->ToString());
        ASSERT_NO_FATAL_FAILURE(
            ExpectSameView(static_cast<const DragonsGoldView&>(*view), Wire(*view)));
      }
      if (state->IsOver()) break;
      ASSERT_NO_FATAL_FAILURE(PlayRandomly(*state, rng));
    }
    const hoard::v1::DragonsGoldView over = Wire(*state->ViewFor(kSpectator));
    EXPECT_EQ(over.phase(), hoard::v1::DRAGONS_GOLD_PHASE_OVER);
    EXPECT_NE(over.end_reason(), hoard::v1::DRAGONS_GOLD_END_REASON_UNSPECIFIED);
    EXPECT_EQ(over.scores_size(), players);
  }
  EXPECT_TRUE(phases.count(static_cast<int>(Phase::kVote))) << "a negotiation was seen";
  EXPECT_TRUE(phases.count(static_cast<int>(Phase::kMarketOffer))) << "the market was seen";
}

TEST(DragonsGoldProtoTest, ASpectatorSeesNobodysTokensUntilTheEnd) {
  std::unique_ptr<State> state = NewMatch(5, 8);
  Rng rng(8);
  while (!state->IsOver()) {
    const hoard::v1::DragonsGoldView wire = Wire(*state->ViewFor(kSpectator));
    EXPECT_EQ(wire.observer(), -1);
    for (int seat = 0; seat < 5; ++seat) {
      ASSERT_FALSE(wire.players(seat).has_tokens()) << "seat " << seat;
      ASSERT_FALSE(wire.players(seat).has_objects()) << "seat " << seat;
      EXPECT_EQ(wire.players(seat).token_count(),
                std::accumulate(Of(*state).position().holdings[seat].begin(),
                                Of(*state).position().holdings[seat].end(), 0));
    }
    ASSERT_NO_FATAL_FAILURE(PlayRandomly(*state, rng));
  }
  const hoard::v1::DragonsGoldView over = Wire(*state->ViewFor(kSpectator));
  for (int seat = 0; seat < 5; ++seat) {
    ASSERT_TRUE(over.players(seat).has_tokens()) << "every screen is lifted at the end";
    EXPECT_EQ(FromWire(over.players(seat).tokens()), Of(*state).position().holdings[seat]);
  }
}

TEST(DragonsGoldProtoTest, MalformedActionsNameTheField) {
  struct Case {
    std::function<void(hoard::v1::DragonsGoldAction*)> fill;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](auto*) {}, "the Dragon's Gold action is empty"},
      {[](auto* a) { a->mutable_attack()->set_slot(4); }, "attack.slot is 4; slots are 0 to 3"},
      {[](auto* a) { a->mutable_attack()->set_slot(-1); }, "attack.slot is -1"},
      {[](auto* a) { a->mutable_attack(); }, "attack.adventurer must name an adventurer"},
      {[](auto* a) {
         a->mutable_attack()->set_adventurer(hoard::v1::DRAGONS_GOLD_ADVENTURER_THIEF);
         a->mutable_attack()->set_second(static_cast<hoard::v1::DragonsGoldAdventurer>(9));
       },
       "attack.second must name an adventurer (knight 4, knight 3, thief or "
       "wizard), not 9"},
      {[](auto* a) { a->mutable_use_object(); },
       "use_object.object must name a magic object, not "
       "DRAGONS_GOLD_OBJECT_UNSPECIFIED"},
      {[](auto* a) {
         a->mutable_use_object()->set_object(hoard::v1::DRAGONS_GOLD_OBJECT_DRAGON_SWAP);
         a->mutable_use_object()->set_b(256);
       },
       "use_object.b is 256; it must be from 0 to 255"},
      {[](auto* a) {
         a->mutable_use_object()->set_object(hoard::v1::DRAGONS_GOLD_OBJECT_RETREAT);
         a->mutable_use_object()->set_a(2);
       },
       "a Retreat names its adventurer in use_object.adventurer"},
      {[](auto* a) { a->mutable_use_object()->set_object(hoard::v1::DRAGONS_GOLD_OBJECT_RETREAT); },
       "use_object.adventurer must name an adventurer"},
      {[](auto* a) {
         a->mutable_use_object()->set_object(hoard::v1::DRAGONS_GOLD_OBJECT_SLEEPING_POTION);
         a->mutable_use_object()->set_adventurer(hoard::v1::DRAGONS_GOLD_ADVENTURER_WIZARD);
       },
       "use_object.adventurer is for a Retreat only"},
      {[](auto* a) { a->mutable_propose(); }, "propose is empty: set shares"},
      {[](auto* a) {
         a->mutable_propose()->add_assignment(0);
         a->mutable_propose()->add_shares();
       },
       "propose sets both shares and assignment"},
      {[](auto* a) { a->mutable_propose()->add_shares(); },
       "propose.shares lists 1 shares; list one per contributor (2 to 6)"},
      {[](auto* a) {
         a->mutable_propose()->add_shares()->set_seat(2);
         a->mutable_propose()->add_shares()->set_seat(1);
       },
       "propose.shares[1].seat is 1, after seat 2: list one share per "
       "contributor, in seat order"},
      {[](auto* a) {
         a->mutable_propose()->add_shares()->set_seat(0);
         a->mutable_propose()->add_shares()->set_seat(6);
       },
       "propose.shares[1].seat is 6; seats are 0 to 5"},
      {[](auto* a) {
         a->mutable_propose()->add_shares()->set_seat(0);
         a->mutable_propose()->add_shares()->set_seat(1);
         a->mutable_propose()->mutable_shares(1)->mutable_tokens()->set_purple(-2);
       },
       "propose.shares[1].tokens.purple is -2; it must be from 0 to 20"},
      {[](auto* a) {
         a->mutable_propose()->add_shares()->mutable_tokens()->set_gold(15);
         a->mutable_propose()->add_shares()->set_seat(1);
         a->mutable_propose()->mutable_shares(1)->mutable_tokens()->set_silver(6);
       },
       "the shares hold 21 tokens; a dragon holds at most 20"},
      {[](auto* a) {
         for (int i = 0; i < 21; ++i) a->mutable_propose()->add_assignment(0);
       },
       "propose.assignment lists 21 tokens; a dragon holds at most 20"},
      {[](auto* a) {
         a->mutable_propose()->add_assignment(1);
         a->mutable_propose()->add_assignment(-1);
       },
       "propose.assignment[1] is -1; it must be a contributor's index, from 0 "
       "to 5"},
      {[](auto* a) { a->mutable_steal(); },
       "steal.token must name a token kind (silver to black), not "
       "DRAGONS_GOLD_TOKEN_UNSPECIFIED"},
      {[](auto* a) {
         a->mutable_decoy_give()->set_token(static_cast<hoard::v1::DragonsGoldToken>(10));
       },
       "decoy_give.token must name a token kind (silver to black), not 10"},
      {[](auto* a) {
         a->mutable_market_offer()->set_to(7);
         a->mutable_market_offer()->mutable_give()->set_gold(1);
         a->mutable_market_offer()->mutable_get()->set_red(1);
       },
       "market_offer.to is 7; seats are 0 to 5"},
      {[](auto* a) {
         a->mutable_market_offer()->set_to(1);
         a->mutable_market_offer()->mutable_give()->set_gold(8);
       },
       "market_offer.give.gold is 8; it must be from 0 to 7"},
  };
  for (const Case& c : cases) {
    hoard::v1::Action wire;
    c.fill(wire.mutable_dragons_gold());
    EXPECT_THAT(Codec().ActionFromProto(wire),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)))
        << wire.DebugString();
  }

  hoard::v1::Action wire;
  EXPECT_THAT(Codec().ActionFromProto(wire),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("names no game: set its 'dragons_gold' field")));
  wire.mutable_village()->mutable_draw();
  EXPECT_THAT(Codec().ActionFromProto(wire),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("for another game ('village'); this match plays dragons_gold")));
}

TEST(DragonsGoldProtoTest, GivenTheNegotiationAProposalMustFitIt) {
  Negotiation n;
  n.slot = 2;
  n.contributors = {0, 2, 3};
  n.tokens = Tokens({{kSilver, 2}, {kGold, 1}, {kBlue, 1}});
  auto propose = [](std::vector<std::pair<Seat, TokenCounts>> shares) {
    hoard::v1::DragonsGoldAction wire;
    for (const auto& [seat, counts] : shares) {
      hoard::v1::DragonsGoldShare* share = wire.mutable_propose()->add_shares();
      share->set_seat(seat);
      share->mutable_tokens()->set_silver(counts[kSilver]);
      share->mutable_tokens()->set_gold(counts[kGold]);
      share->mutable_tokens()->set_blue(counts[kBlue]);
    }
    return wire;
  };
  // Any order, and a contributor who gets nothing may be left out.
  EXPECT_THAT(FromProto(propose({{3, Tokens({{kBlue, 1}, {kSilver, 1}})},
                                 {0, Tokens({{kSilver, 1}, {kGold, 1}})}}),
                        n),
              IsOkAndHolds(Proposal({Tokens({{kSilver, 1}, {kGold, 1}}), TokenCounts{},
                                     Tokens({{kBlue, 1}, {kSilver, 1}})})
                               .Encode()));
  EXPECT_THAT(
      FromProto(propose({{0, Tokens({{kSilver, 2}})}, {1, Tokens({{kGold, 1}, {kBlue, 1}})}}), n),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("propose.shares[1].seat is 1, who took no part in slaying the "
                         "dragon; the contributors are seats 0, 2, 3")));
  EXPECT_THAT(
      FromProto(propose({{0, Tokens({{kSilver, 1}})}, {0, Tokens({{kSilver, 1}, {kGold, 1}})}}), n),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a second share for seat 0")));
  EXPECT_THAT(
      FromProto(propose({{0, Tokens({{kSilver, 3}})}, {2, Tokens({{kGold, 1}, {kBlue, 1}})}}), n),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("the shares give out 3 silver, but the treasure holds 2")));
  EXPECT_THAT(FromProto(propose({{0, Tokens({{kSilver, 2}})}, {2, Tokens({{kGold, 1}})}}), n),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the shares give out 0 blue, but the treasure holds 1")));

  hoard::v1::DragonsGoldAction assignment;
  for (int who : {0, 1, 3}) assignment.mutable_propose()->add_assignment(who);
  EXPECT_THAT(FromProto(assignment, n),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("propose.assignment[2] is 3; only 3 players took part (seats 0, "
                                 "2, 3)")));
  assignment.mutable_propose()->set_assignment(2, 2);
  assignment.mutable_propose()->set_assignment(0, 1);
  assignment.mutable_propose()->set_assignment(1, 0);
  EXPECT_THAT(FromProto(assignment, n),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("within a kind, the indexes must not decrease")));
  for (int i = 0; i < 2; ++i) assignment.mutable_propose()->add_assignment(0);
  EXPECT_THAT(FromProto(assignment, n),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("propose.assignment lists 5 tokens; the treasure holds 4")));
  EXPECT_THAT(
      FromProto(assignment, Negotiation{}),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no negotiation is under way")));

  // Other actions need no negotiation.
  hoard::v1::DragonsGoldAction accept;
  accept.mutable_accept();
  EXPECT_THAT(FromProto(accept, Negotiation{}),
              IsOkAndHolds(Move{.kind = Move::Kind::kAccept}.Encode()));
}

TEST(DragonsGoldProtoTest, AnAnswerToAProposalRequestIsCheckedAgainstTheTreasure) {
  // Seats 0 and 1 slew a dragon holding 2 silver: seat 1 proposes.
  Position p;
  p.holdings.assign(3, TokenCounts{});
  p.adventurers.assign(3, {});
  p.objects.assign(3, ObjectCounts{});
  p.market_done = true;
  p.dragons[0].card = 0;
  p.dragons[0].tokens[kSilver] = 2;
  p.dragons[1].card = 17;
  p.adventurers[0][kKnight3] = AdventurerState::kAttacking;
  p.dragons[0].attackers = {{0, kKnight3}};
  p.current = 1;
  DragonsGoldState state({}, p);
  ASSERT_THAT(
      state.Apply(1, Move{.kind = Move::Kind::kAttack, .slot = 0, .adventurer = kThief}.Encode()),
      IsOk());
  ASSERT_EQ(state.position().phase, Phase::kPropose);
  hoard::v1::Action wire;
  auto* propose = wire.mutable_dragons_gold()->mutable_propose();
  auto* share = propose->add_shares();
  share->set_seat(0);
  share->mutable_tokens()->set_gold(1);  // the treasure holds no gold
  auto* mine = propose->add_shares();
  mine->set_seat(1);
  mine->mutable_tokens()->set_silver(1);
  EXPECT_THAT(Codec().ActionFromProtoIn(wire, state),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("treasure")));
  share->mutable_tokens()->set_gold(0);
  share->mutable_tokens()->set_silver(1);
  absl::StatusOr<Action> fair = Codec().ActionFromProtoIn(wire, state);
  ASSERT_THAT(fair, IsOk());
  ASSERT_THAT(state.Apply(1, *fair), IsOk());
  EXPECT_EQ(state.position().negotiation.proposal[0][kSilver], 1);
  EXPECT_EQ(state.position().negotiation.proposal[1][kSilver], 1);
}

}  // namespace
}  // namespace hoard::engine::dragons_gold
