#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "engine/games/dragons_gold/dragons_gold.h"
#include "engine/games/dragons_gold/dragons_gold_heuristic.h"
#include "engine/registry.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::engine::dragons_gold {
namespace {

using engine::Action;
using engine::Seat;
using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;
namespace dg = engine::dragons_gold;
using dg::Move;
using Kind = Move::Kind;

const engine::Game& DragonsGold() { return **engine::FindGame("dragons_gold"); }

const dg::DragonsGoldState& AsDragonsGold(const engine::State& state) {
  return dynamic_cast<const dg::DragonsGoldState&>(state);
}

// Every token and object of every place, sorted. Dragons are left out: the
// view does not say which were slain, so a sample's pile may differ.
std::vector<std::string> TokensAndObjects(const engine::State& state) {
  std::vector<std::string> cards;
  for (const engine::Zone& zone : state.Zones()) {
    for (const std::string& card : zone.cards) {
      if (!absl::StartsWith(card, "dragon ")) cards.push_back(card);
    }
  }
  std::sort(cards.begin(), cards.end());
  return cards;
}

// A dealt match of `players` with tokens moved about, for hand-built cases,
// seat 0 to play.
dg::Position Dealt(int players, std::uint64_t seed = 3) {
  engine::Rng rng(seed);
  return dg::Deal(dg::Rules{.random_first_player = false}, players, rng);
}

// Moves every token of `kind` from the bag to `to`.
void FromBag(dg::Position& p, int kind, dg::TokenCounts& to, int count = 99) {
  for (auto it = p.bag.begin(); it != p.bag.end() && count > 0;) {
    if (*it == kind) {
      ++to[kind];
      --count;
      it = p.bag.erase(it);
    } else {
      ++it;
    }
  }
}

// ---------------------------------------------------------------- Sampler

// The shared sampler test compares a sample's cards with the match's first
// ones, which Dragon's Gold's slain dragons and lost treasure leave; here
// the sample's tokens and objects are compared with the match's own now.
TEST(DragonsGoldSamplerTest, SamplesLookLikeTheMatchToEverySeat) {
  const std::unique_ptr<Sampler> sampler = MakeSampler();
  engine::Rng rng(17);
  std::int64_t samples = 0, moved = 0;
  std::vector<Action> legal;
  for (int n = 3; n <= 6; ++n) {
    for (int m = 0; m < 6; ++m) {
      const std::uint64_t seed = rng.Next();
      std::unique_ptr<engine::State> state =
          *DragonsGold().NewMatch({.num_players = n, .seed = seed});
      for (int step = 0; !state->IsOver(); ++step) {
        const std::vector<std::string> cards = TokensAndObjects(*state);
        for (Seat seat = 0; seat < n; ++seat) {
          const std::string where =
              absl::StrCat(n, " players, seed ", seed, ", step ", step, ", seat ", seat);
          const std::unique_ptr<engine::View> view = state->ViewFor(seat);
          ASSERT_THAT(sampler->Observer(*view), IsOk());
          absl::StatusOr<std::unique_ptr<engine::State>> sample = sampler->Sample(*view, rng);
          ASSERT_THAT(sample, IsOk()) << where;
          ++samples;
          ASSERT_TRUE((*sample)->ViewFor(seat)->Equals(*view)) << where;
          ASSERT_EQ(TokensAndObjects(**sample), cards) << where;
          ASSERT_EQ((*sample)->SeatsToAct(), state->SeatsToAct()) << where;
          ASSERT_EQ((*sample)->LegalActions(seat), state->LegalActions(seat)) << where;
          // No dragon twice, and none both face up and in the pile.
          const dg::Position& p = AsDragonsGold(**sample).position();
          std::vector<int> dragons = p.pile;
          for (const dg::FaceUpDragon& d : p.dragons) {
            if (d.card >= 0) dragons.push_back(d.card);
          }
          std::sort(dragons.begin(), dragons.end());
          ASSERT_EQ(std::adjacent_find(dragons.begin(), dragons.end()), dragons.end()) << where;
          if ((*sample)->ToString() != state->ToString()) ++moved;
          if (step % 23 == seat) {
            engine::State& s = **sample;
            for (int guard = 0; !s.IsOver(); ++guard) {
              ASSERT_LT(guard, DragonsGold().info().max_actions) << where;
              const Seat next = s.SeatsToAct()[0];
              s.LegalActions(next, &legal);
              ASSERT_THAT(s.Apply(next, legal[rng.Uniform(legal.size())]), IsOk()) << where;
            }
          }
        }
        const Seat actor = state->SeatsToAct()[0];
        state->LegalActions(actor, &legal);
        ASSERT_THAT(state->Apply(actor, legal[rng.Uniform(legal.size())]), IsOk());
      }
    }
  }
  EXPECT_GT(moved, samples * 9 / 10) << moved << " of " << samples;
}

TEST(DragonsGoldSamplerTest, NeverHidesWhatTheSeatHasSeen) {
  dg::Position p = Dealt(4);
  // Seat 0 holds every white diamond; the black diamond lies on slot 2; two
  // silver have left the game; seat 0 holds both Decoy Purses and every
  // Dragon Swap is in the discard.
  for (int slot = 0; slot < dg::kFaceUpDragons; ++slot) {
    for (int k : {dg::kWhite, dg::kBlack}) {
      while (p.dragons[slot].tokens[k] > 0) {
        --p.dragons[slot].tokens[k];
        p.bag.insert(p.bag.begin(), k);
      }
    }
  }
  FromBag(p, dg::kWhite, p.holdings[0]);
  FromBag(p, dg::kBlack, p.dragons[2].tokens);
  FromBag(p, dg::kSilver, p.removed, 2);
  FromBag(p, dg::kGold, p.holdings[1], 3);
  FromBag(p, dg::kBlue, p.holdings[2], 2);
  std::vector<int> deck = p.object_deck;
  for (dg::ObjectCounts& hand : p.objects) {
    for (int k = 0; k < dg::kNumObjectKinds; ++k) deck.insert(deck.end(), hand[k], k);
    hand = {};
  }
  p.object_deck.clear();
  for (int card : deck) {
    if (card == dg::kDecoyPurse) {
      ++p.objects[0][card];
    } else if (card == dg::kDragonSwap) {
      ++p.object_discard[card];
    } else {
      p.object_deck.push_back(card);
    }
  }
  for (Seat s = 1; s < 4; ++s) {  // one card each for the others
    ++p.objects[s][p.object_deck.back()];
    p.object_deck.pop_back();
  }
  const dg::DragonsGoldState state(dg::Rules{}, p);
  const std::unique_ptr<engine::View> view = state.ViewFor(0);
  const std::unique_ptr<Sampler> sampler = MakeSampler();
  engine::Rng rng(5);
  int moved = 0;
  for (int i = 0; i < 1000; ++i) {
    absl::StatusOr<std::unique_ptr<engine::State>> sample = sampler->Sample(*view, rng);
    ASSERT_THAT(sample, IsOk());
    const dg::Position& q = AsDragonsGold(**sample).position();
    ASSERT_TRUE((*sample)->ViewFor(0)->Equals(*view));
    ASSERT_EQ(std::count(q.bag.begin(), q.bag.end(), dg::kWhite), 0);
    ASSERT_EQ(std::count(q.bag.begin(), q.bag.end(), dg::kBlack), 0);
    ASSERT_EQ(q.bag.size(), p.bag.size());
    ASSERT_EQ(q.object_deck.size(), p.object_deck.size());
    ASSERT_EQ(std::count(q.object_deck.begin(), q.object_deck.end(), dg::kDecoyPurse), 0);
    ASSERT_EQ(std::count(q.object_deck.begin(), q.object_deck.end(), dg::kDragonSwap), 0);
    for (Seat s = 1; s < 4; ++s) {
      int tokens = 0, objects = 0;
      for (int k = 0; k < dg::kNumTokenKinds; ++k) tokens += q.holdings[s][k];
      for (int k = 0; k < dg::kNumObjectKinds; ++k) objects += q.objects[s][k];
      ASSERT_EQ(tokens, s == 1 ? 3 : s == 2 ? 2 : 0);
      ASSERT_EQ(objects, 1);
      ASSERT_EQ(q.holdings[s][dg::kWhite] + q.holdings[s][dg::kBlack], 0);
      ASSERT_EQ(q.objects[s][dg::kDecoyPurse] + q.objects[s][dg::kDragonSwap], 0);
    }
    for (const dg::FaceUpDragon& d : q.dragons) {
      ASSERT_EQ(std::count(q.pile.begin(), q.pile.end(), d.card), 0);
    }
    ASSERT_EQ(q.pile.size(), p.pile.size());
    if (q.holdings[1] != p.holdings[1]) ++moved;
  }
  EXPECT_GT(moved, 900);  // seat 1's three gold are not known to be gold
}

TEST(DragonsGoldSamplerTest, DrawsSealedVotesAmongAcceptAndReject) {
  dg::Position p = Dealt(4);
  p.phase = dg::Phase::kVote;
  dg::Negotiation& n = p.negotiation;
  n.slot = 1;
  n.slayer = 0;
  n.contributors = {0, 1, 2, 3};
  n.tokens = p.dragons[1].tokens;
  p.dragons[1].tokens = {};
  p.dragons[1].attackers = {{0, 0}, {1, 0}, {2, 0}, {3, 0}};
  for (Seat s = 0; s < 4; ++s) p.adventurers[s][0] = dg::AdventurerState::kAttacking;
  n.proposals_made = 1;
  n.proposals_allowed = 6;
  n.proposer = 0;
  n.proposal = {n.tokens, {}, {}, {}};
  n.votes = {0, 1, 2, 0};  // seat 1 accepted, seat 2 rejected, seat 3 to vote
  const dg::DragonsGoldState state(dg::Rules{}, p);
  const std::unique_ptr<engine::View> view = state.ViewFor(3);
  const std::unique_ptr<Sampler> sampler = MakeSampler();
  engine::Rng rng(8);
  int accepts = 0;
  for (int i = 0; i < 400; ++i) {
    std::unique_ptr<engine::State> sample = *sampler->Sample(*view, rng);
    const std::vector<int>& votes = AsDragonsGold(*sample).position().negotiation.votes;
    ASSERT_EQ(votes[0], 0);
    ASSERT_EQ(votes[3], 0);
    ASSERT_TRUE(votes[1] == 1 || votes[1] == 2);
    ASSERT_TRUE(votes[2] == 1 || votes[2] == 2);
    accepts += votes[1] == 1;
    ASSERT_TRUE(sample->ViewFor(3)->Equals(*view));
  }
  EXPECT_GT(accepts, 120);
  EXPECT_LT(accepts, 280);
}

TEST(DragonsGoldSamplerTest, AnOfferedBundleStaysWithItsOfferer) {
  dg::Position p = Dealt(3);
  FromBag(p, dg::kYellow, p.holdings[1], 1);
  FromBag(p, dg::kSilver, p.holdings[1], 2);
  p.phase = dg::Phase::kMarketReply;
  p.market_done = true;
  p.market_offers_left = {2, 1, 2};
  p.market_offerer = 1;
  p.offer = {.from = 1, .to = 2, .give = {}, .get = {}};
  p.offer.give[dg::kYellow] = 1;
  p.offer.give[dg::kSilver] = 2;
  p.offer.get[dg::kGold] = 1;
  p.market_refill_slot = 0;
  for (int k = 0; k < dg::kNumTokenKinds; ++k) {
    p.bag.insert(p.bag.begin(), p.dragons[0].tokens[k], k);
  }
  p.dragons[0] = dg::FaceUpDragon{};
  const dg::DragonsGoldState state(dg::Rules{}, p);
  const std::unique_ptr<engine::View> view = state.ViewFor(0);
  const std::unique_ptr<Sampler> sampler = MakeSampler();
  engine::Rng rng(9);
  for (int i = 0; i < 300; ++i) {
    std::unique_ptr<engine::State> sample = *sampler->Sample(*view, rng);
    ASSERT_GE(AsDragonsGold(*sample).position().holdings[1][dg::kYellow], 1);
    ASSERT_GE(AsDragonsGold(*sample).position().holdings[1][dg::kSilver], 2);
    ASSERT_EQ(AsDragonsGold(*sample).position().market_refill_slot, 0);
    ASSERT_TRUE(sample->ViewFor(0)->Equals(*view));
  }
}

TEST(DragonsGoldSamplerTest, RefusesViewsNoMatchCouldShow) {
  const std::unique_ptr<Sampler> sampler = MakeSampler();
  std::unique_ptr<engine::State> state = *DragonsGold().NewMatch({.num_players = 4, .seed = 2});
  const std::unique_ptr<engine::View> seen = state->ViewFor(1);
  const auto& view = dynamic_cast<const dg::DragonsGoldView&>(*seen);
  engine::Rng rng(1);
  auto refused = [&](dg::DragonsGoldView bad, absl::string_view what) {
    EXPECT_THAT(sampler->Sample(bad, rng),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(what)));
  };
  dg::DragonsGoldView bad = view;
  (*bad.players[1].tokens)[dg::kWhite] = 7;
  bad.players[1].token_count = 7;
  refused(bad, "white diamonds than exist");
  bad = view;
  bad.bag_size = -1;
  refused(bad, "negative");
  bad = view;
  bad.bag_size += 1;
  refused(bad, "places for them");
  bad = view;
  bad.pile_size = 15;
  refused(bad, "pile");
  bad = view;
  bad.players.resize(2);
  refused(bad, "2 players");
  bad = view;
  bad.dragons[1].card = bad.dragons[0].card;
  refused(bad, "face up twice");
  bad = view;
  bad.dragons[0].attackers.push_back({9, 0});
  refused(bad, "attacker");
  bad = view;
  bad.players[2].tokens = dg::TokenCounts{};
  refused(bad, "screen");
  bad = view;
  bad.object_deck_size += 3;
  refused(bad, "objects unseen");
  bad = view;
  bad.observer = 7;
  EXPECT_THAT(sampler->Observer(bad), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("7")));
}

// ---------------------------------------------------------------- Heuristic

Action Choose(const dg::DragonsGoldState& state, Seat seat, std::uint64_t seed = 1) {
  const std::unique_ptr<Bot> bot = MakeHeuristicBot(seed);
  const std::vector<Action> legal = state.LegalActions(seat);
  return bot->Choose(*state.ViewFor(seat), legal);
}

// Three players, an empty table but for the dragons laid, nothing held.
dg::Position Bare(int players = 3) {
  dg::Position p = Dealt(players);
  for (dg::FaceUpDragon& d : p.dragons) {
    for (int k = 0; k < dg::kNumTokenKinds; ++k) {
      p.bag.insert(p.bag.begin(), d.tokens[k], k);
    }
    d = dg::FaceUpDragon{};
  }
  for (dg::ObjectCounts& hand : p.objects) {
    for (int k = 0; k < dg::kNumObjectKinds; ++k)
      p.object_deck.insert(p.object_deck.begin(), hand[k], k);
    hand = {};
  }
  return p;
}

// Lays dragon `card` in `slot` with `count` tokens of `kind` from the bag.
void Lay(dg::Position& p, int slot, int card, int kind, int count) {
  p.dragons[slot].card = card;
  FromBag(p, kind, p.dragons[slot].tokens, count);
}

TEST(DragonsGoldHeuristicTest, FinishesItsOwnDragonAlone) {
  dg::Position p = Bare();
  Lay(p, 0, 9, dg::kSilver, 3);  // strength 8, nobody on it
  Lay(p, 1, 0, dg::kGold, 2);    // strength 5: seat 0's knight 4 is on it
  p.dragons[1].attackers = {{0, dg::kKnight4}};
  p.adventurers[0][dg::kKnight4] = dg::AdventurerState::kAttacking;
  const std::optional<Move> move = Move::Decode(Choose(dg::DragonsGoldState({}, p), 0));
  ASSERT_TRUE(move.has_value());
  EXPECT_EQ(move->kind, Kind::kAttack);
  EXPECT_EQ(move->slot, 1);
  EXPECT_EQ(move->adventurer, dg::kWizard);  // exactly enough: the knights stay free
}

TEST(DragonsGoldHeuristicTest, JoinsAKillRatherThanLeaveItToARival) {
  dg::Position p = Bare();
  Lay(p, 0, 16, dg::kGold, 4);  // strength 10; seat 1 has 9 on it
  p.dragons[0].attackers = {{1, dg::kKnight4}, {1, dg::kKnight3}, {1, dg::kThief}};
  for (int a : {dg::kKnight4, dg::kKnight3, dg::kThief}) {
    p.adventurers[1][a] = dg::AdventurerState::kAttacking;
  }
  Lay(p, 1, 14, dg::kSilver, 1);  // strength 10, empty
  const std::optional<Move> move = Move::Decode(Choose(dg::DragonsGoldState({}, p), 0));
  ASSERT_TRUE(move.has_value());
  EXPECT_EQ(move->kind, Kind::kAttack);
  EXPECT_EQ(move->slot, 0);
}

TEST(DragonsGoldHeuristicTest, ReadsATreasureMapBeforeAttacking) {
  dg::Position p = Bare();
  Lay(p, 0, 9, dg::kSilver, 3);
  ++p.objects[0][dg::kTreasureMap];
  EXPECT_EQ(Choose(dg::DragonsGoldState({}, p), 0),
            (Move{.kind = Kind::kUseObject, .object = dg::kTreasureMap}.Encode()));
}

// Seat 0 slew slot 0 with seat 1; `proposal` is under vote, seat 1 to vote.
dg::Position Vote(const dg::TokenCounts& tokens, std::vector<dg::TokenCounts> proposal, int made,
                  int allowed = 6) {
  dg::Position p = Bare();
  Lay(p, 0, 0, dg::kSilver, 0);
  p.dragons[0].attackers = {{1, dg::kKnight3}, {0, dg::kThief}};
  p.adventurers[1][dg::kKnight3] = dg::AdventurerState::kAttacking;
  p.adventurers[0][dg::kThief] = dg::AdventurerState::kAttacking;
  for (int k = 0; k < dg::kNumTokenKinds; ++k) FromBag(p, k, p.negotiation.tokens, tokens[k]);
  p.phase = dg::Phase::kVote;
  p.negotiation.slot = 0;
  p.negotiation.slayer = 0;
  p.negotiation.contributors = {0, 1};
  p.negotiation.proposer = 0;
  p.negotiation.proposal = std::move(proposal);
  p.negotiation.proposals_made = made;
  p.negotiation.proposals_allowed = allowed;
  p.negotiation.votes = {0, 0, 0};
  return p;
}

TEST(DragonsGoldHeuristicTest, VotesForFairSharesAndAgainstGreed) {
  const dg::TokenCounts tokens = {2, 2, 0, 0, 0, 0, 0, 0, 0};
  const Action accept = Move{.kind = Kind::kAccept}.Encode();
  const Action reject = Move{.kind = Kind::kReject}.Encode();
  // All to the proposer, early: reject.
  EXPECT_EQ(Choose(dg::DragonsGoldState({}, Vote(tokens, {tokens, {}}, 1)), 1), reject);
  // An even split: accept.
  const dg::TokenCounts half = {1, 1, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(Choose(dg::DragonsGoldState({}, Vote(tokens, {half, half}, 1)), 1), accept);
  // The last proposal gives a silver: better than the treasure leaving.
  const dg::TokenCounts silver = {1, 0, 0, 0, 0, 0, 0, 0, 0};
  const dg::TokenCounts rest = {1, 2, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(Choose(dg::DragonsGoldState({}, Vote(tokens, {rest, silver}, 6)), 1), accept);
}

TEST(DragonsGoldHeuristicTest, ProposesALegalDivisionKeepingWhatItNeeds) {
  // Seat 0 holds two blue; the hoard is 2 blue and 2 silver.
  dg::Position p = Vote({2, 0, 0, 2, 0, 0, 0, 0, 0}, {}, 0);
  p.phase = dg::Phase::kPropose;
  FromBag(p, dg::kBlue, p.holdings[0], 2);
  const dg::DragonsGoldState state({}, p);
  const Action action = Choose(state, 0);
  dg::DragonsGoldState after = state;
  ASSERT_THAT(after.Apply(0, action), IsOk());
  const std::vector<dg::TokenCounts>& shares = after.position().negotiation.proposal;
  ASSERT_EQ(shares.size(), 2u);
  EXPECT_GE(shares[0][dg::kBlue], 1);
  EXPECT_GE(shares[1][dg::kSilver] + shares[1][dg::kBlue], 1);  // something for the partner
}

TEST(DragonsGoldHeuristicTest, TakesAGoodSwapAndRefusesABadOne) {
  dg::Position p = Bare();
  Lay(p, 1, 5, dg::kSilver, 2);
  FromBag(p, dg::kSilver, p.holdings[0], 2);
  FromBag(p, dg::kGold, p.holdings[0], 1);
  FromBag(p, dg::kGold, p.holdings[2], 1);
  FromBag(p, dg::kSilver, p.holdings[2], 1);
  p.phase = dg::Phase::kMarketReply;
  p.market_done = true;
  p.market_offers_left = {2, 2, 1};
  p.market_offerer = 2;
  p.market_refill_slot = 0;
  const Action accept = Move{.kind = Kind::kMarketAccept}.Encode();
  const Action refuse = Move{.kind = Kind::kMarketRefuse}.Encode();
  auto offer = [&](int give, int give_count, int get, int get_count) {
    p.offer = {.from = 2, .to = 0};
    p.offer.give[give] = give_count;
    p.offer.get[get] = get_count;
  };
  offer(dg::kGold, 1, dg::kSilver, 1);
  EXPECT_EQ(Choose(dg::DragonsGoldState({}, p), 0), accept);
  offer(dg::kSilver, 1, dg::kGold, 1);
  EXPECT_EQ(Choose(dg::DragonsGoldState({}, p), 0), refuse);
  offer(dg::kGold, 1, dg::kSilver, 2);  // 3 points for 2
  EXPECT_EQ(Choose(dg::DragonsGoldState({}, p), 0), accept);
}

TEST(DragonsGoldHeuristicTest, OffersABundleItHoldsForTokensTheRecordShows) {
  dg::Position p = Bare();
  Lay(p, 1, 5, dg::kSilver, 2);
  FromBag(p, dg::kBlue, p.holdings[0], 1);
  FromBag(p, dg::kYellow, p.holdings[0], 1);
  FromBag(p, dg::kSilver, p.holdings[0], 2);
  FromBag(p, dg::kBlue, p.holdings[1], 3);
  FromBag(p, dg::kGold, p.holdings[1], 1);
  p.phase = dg::Phase::kMarketOffer;
  p.market_done = true;
  p.market_offers_left = {2, 2, 2};
  p.market_offerer = 0;
  p.market_refill_slot = 0;
  // The table saw seat 1 receive its tokens.
  dg::Slaying slaying{.card = 3,
                      .slot = 0,
                      .slayer = 1,
                      .treasure = p.holdings[1],
                      .outcome = dg::Slaying::Outcome::kDivided};
  slaying.shares = {{.seat = 1, .tokens = p.holdings[1]}};
  const dg::DragonsGoldState state({}, p, {slaying});
  const Action action = Choose(state, 0);
  const std::optional<Move> move = Move::Decode(action);
  ASSERT_TRUE(move.has_value());
  dg::DragonsGoldState after = state;
  ASSERT_THAT(after.Apply(0, action), IsOk());
  if (move->kind == Kind::kMarketOffer) {
    EXPECT_EQ(move->target, 1) << "seat 2 is not known to hold anything";
    for (int k = 0; k < dg::kNumTokenKinds; ++k) {
      EXPECT_LE(move->give[k], p.holdings[0][k]);
      EXPECT_LE(move->get[k], p.holdings[1][k]);
    }
  } else {
    EXPECT_EQ(move->kind, Kind::kMarketPass);
  }
}

TEST(DragonsGoldHeuristicTest, ADecoyPurseGivesUpTheCheapestToken) {
  dg::Position p = Vote({}, {}, 0);
  FromBag(p, dg::kGold, p.holdings[1], 3);
  FromBag(p, dg::kSilver, p.holdings[1], 1);
  p.negotiation.tokens = {};
  p.negotiation.shares = {{}, p.holdings[1]};  // seat 1 received it all
  p.phase = dg::Phase::kDecoy;
  p.steals = {{.thief_owner = 0, .victim = 1, .chosen = false}};
  ++p.objects[1][dg::kDecoyPurse];
  p.object_deck.erase(std::find(p.object_deck.begin(), p.object_deck.end(), dg::kDecoyPurse));
  EXPECT_EQ(Choose(dg::DragonsGoldState({}, p), 1),
            (Move{.kind = Kind::kDecoyGive, .token = dg::kSilver}.Encode()));
}

// Whole matches with the heuristic at every other seat: every action it
// picks is listed, or (a proposal of its own) accepted by the rules; and
// it decides the same from the same seed.
TEST(DragonsGoldHeuristicTest, OnlyPlaysLegalActionsAndIsReproducible) {
  engine::Rng rng(4);
  std::vector<Action> legal;
  int built = 0, decisions = 0;
  for (int n = 3; n <= 6; ++n) {
    for (int m = 0; m < 15; ++m) {
      std::unique_ptr<engine::State> state =
          *DragonsGold().NewMatch({.num_players = n, .seed = rng.Next()});
      std::vector<std::unique_ptr<Bot>> bots;
      for (Seat s = 0; s < n; ++s) bots.push_back(MakeHeuristicBot(100 + s));
      while (!state->IsOver()) {
        const Seat seat = state->SeatsToAct()[0];
        state->LegalActions(seat, &legal);
        Action action = legal[rng.Uniform(legal.size())];
        if ((seat + m) % 2 == 0) {
          const std::unique_ptr<engine::View> view = state->ViewFor(seat);
          action = bots[seat]->Choose(*view, legal);
          ++decisions;
          EXPECT_EQ(MakeHeuristicBot(100 + seat)->Choose(*view, legal),
                    MakeHeuristicBot(100 + seat)->Choose(*view, legal));
          if (std::find(legal.begin(), legal.end(), action) == legal.end()) {
            ASSERT_FALSE(state->LegalActionsComplete(seat)) << state->ActionToString(seat, action);
            ++built;
          }
        }
        ASSERT_THAT(state->Apply(seat, action), IsOk()) << state->ActionToString(seat, action);
      }
    }
  }
  EXPECT_GT(built, 0);  // some proposals were its own
  EXPECT_GT(decisions, 1000);
}

TEST(DragonsGoldHeuristicTest, AnotherGamesViewGetsTheFirstAction) {
  std::unique_ptr<engine::State> other =
      *(*engine::FindGame("village"))->NewMatch({.num_players = 3, .seed = 1});
  const Seat seat = other->SeatsToAct()[0];
  const std::vector<Action> legal = other->LegalActions(seat);
  EXPECT_EQ(MakeHeuristicBot(1)->Choose(*other->ViewFor(seat), legal), legal[0]);
}

}  // namespace
}  // namespace hoard::engine::dragons_gold
