#include <algorithm>
#include <bit>
#include <memory>
#include <string>
#include <vector>

#include "engine/games/frost_dragon/frost_dragon.h"
#include "engine/games/frost_dragon/frost_dragon_heuristic.h"
#include "engine/registry.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::engine::frost_dragon {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;

namespace fd = engine::frost_dragon;
using fd::CardSet;
using fd::FrostDragonState;
using fd::FrostDragonView;
using fd::Move;
using fd::Position;

int C(int kingdom, int rank) { return fd::KingdomCard(kingdom, rank); }

CardSet Cards(const std::vector<int>& cards) {
  CardSet set = 0;
  for (int card : cards) set |= fd::Bit(card);
  return set;
}

// Three adventurers in their challenges, Glacier trump, the Fate seat 2:
// seat 0 holds `mine`, the others share `theirs` (the first cards to seat
// 1), and the rest of the deck, less `played`, lies out of play. Seat
// `to_act` is to play to `challenge`.
Position ThreeInChallenges(const std::vector<int>& mine, const std::vector<int>& theirs,
                           const std::vector<fd::PlayedCard>& challenge, engine::Seat to_act) {
  Position p;
  p.num_players = 3;
  p.fate = 2;
  p.trump = fd::kGlacier;
  p.hands[0] = Cards(mine);
  const std::size_t half = (theirs.size() + 1) / 2;
  p.hands[1] = Cards(std::vector<int>(theirs.begin(), theirs.begin() + half));
  p.hands[2] = Cards(std::vector<int>(theirs.begin() + half, theirs.end()));
  p.hand_size = 18;
  for (int s = 0; s < 3; ++s) {
    p.adventurers[s].boast = 3;
    p.adventurers[s].marker = 3;
  }
  p.challenge.leader = challenge.empty() ? to_act : challenge[0].seat;
  for (const fd::PlayedCard& played : challenge) {
    p.challenge.cards[p.challenge.size++] = played;
    p.played |= fd::Bit(played.card);
    if (p.challenge.lead_kingdom == fd::kNoKingdom && played.as != fd::kNoCard) {
      p.challenge.lead_kingdom = fd::KingdomOf(played.as);
    }
  }
  p.out_of_play = fd::Rules{}.Deck() & ~p.hands[0] & ~p.hands[1] & ~p.hands[2] & ~p.played;
  p.phase = fd::Phase::kPlay;
  p.to_act = to_act;
  p.rng = engine::Rng(3);
  return p;
}

fd::PlayedCard Played(engine::Seat seat, int card) {
  const bool kingdom = fd::KindOf(card) == fd::CardKind::kKingdom;
  return {seat, card, kingdom ? card : fd::kNoCard};
}

// ---------------------------------------------------------------- Sampler

TEST(FrostDragonSamplerTest, NamesTheObserverAndRefusesSpectators) {
  const std::unique_ptr<Sampler> sampler = MakeSampler();
  const FrostDragonState state(fd::Rules{},
                               ThreeInChallenges({C(0, 2)}, {C(0, 3), C(0, 4)}, {}, 0));
  EXPECT_EQ(*sampler->Observer(*state.ViewFor(1)), 1);
  EXPECT_THAT(sampler->Observer(*state.ViewFor(engine::kSpectator)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spectator")));
}

TEST(FrostDragonSamplerTest, NeverDealsASeenCardIntoAHiddenPlace) {
  // Seat 0 holds three cards, has seen two played (and one removed by a
  // dragon earlier in the quest); the rest is hidden.
  const std::vector<int> mine = {C(fd::kGlacier, 14), fd::kLeprechaun, C(fd::kRiver, 5)};
  Position p =
      ThreeInChallenges(mine, {C(0, 2), C(0, 3), C(1, 4), C(1, 5), C(2, 6), C(2, 7)},
                        {Played(1, C(fd::kMountain, 9)), Played(2, fd::kTreasureJoker)}, 0);
  p.removed = fd::Bit(C(fd::kForest, 14));
  p.played |= p.removed;
  p.out_of_play &= ~p.removed;
  const FrostDragonState state(fd::Rules{}, p);
  const std::unique_ptr<engine::View> view = state.ViewFor(0);
  const CardSet seen = Cards(mine) | p.played | p.removed;

  const std::unique_ptr<Sampler> sampler = MakeSampler();
  engine::Rng rng(11);
  int moved = 0;
  for (int i = 0; i < 1000; ++i) {
    absl::StatusOr<std::unique_ptr<engine::State>> sample = sampler->Sample(*view, rng);
    ASSERT_THAT(sample, IsOk());
    const auto& s = static_cast<const FrostDragonState&>(**sample);
    ASSERT_TRUE(s.ViewFor(0)->Equals(*view));
    const Position& q = s.position();
    for (CardSet hidden : {q.hands[1], q.hands[2], q.out_of_play}) {
      ASSERT_EQ(hidden & seen, 0u) << s.ToString();
    }
    EXPECT_EQ(std::popcount(q.hands[1]), std::popcount(p.hands[1]));
    EXPECT_EQ(std::popcount(q.hands[2]), std::popcount(p.hands[2]));
    EXPECT_EQ(std::popcount(q.out_of_play), std::popcount(p.out_of_play));
    EXPECT_EQ(q.hands[0], p.hands[0]);
    moved += q.hands[1] != p.hands[1];
  }
  EXPECT_GT(moved, 900);
}

TEST(FrostDragonSamplerTest, KeepsALeadKingdomOutOfAHandThatShowedItHasNone) {
  // Seat 1 led Mountain; seat 2 answered with a Forest card, so it holds no
  // Mountain, and every hidden Mountain card lies with seat 1 or out of play.
  const FrostDragonState state(
      fd::Rules{},
      ThreeInChallenges({C(fd::kMountain, 3), C(fd::kRiver, 4)},
                        {C(1, 2), C(1, 3), C(1, 4), C(1, 5), C(1, 6), C(1, 7), C(1, 8)},
                        {Played(1, C(fd::kMountain, 10)), Played(2, C(fd::kForest, 12))}, 0));
  const std::unique_ptr<engine::View> view = state.ViewFor(0);
  const std::unique_ptr<Sampler> sampler = MakeSampler();
  engine::Rng rng(5);
  int mountains_with_seat_1 = 0;
  for (int i = 0; i < 1000; ++i) {
    absl::StatusOr<std::unique_ptr<engine::State>> sample = sampler->Sample(*view, rng);
    ASSERT_THAT(sample, IsOk());
    const Position& q = static_cast<const FrostDragonState&>(**sample).position();
    ASSERT_EQ(q.hands[2] & fd::KingdomCards(fd::kMountain), 0u);
    mountains_with_seat_1 += (q.hands[1] & fd::KingdomCards(fd::kMountain)) != 0;
  }
  EXPECT_GT(mountains_with_seat_1, 0);
}

TEST(FrostDragonSamplerTest, RefusesAViewNoMatchCouldShow) {
  const FrostDragonState state(fd::Rules{},
                               ThreeInChallenges({C(0, 2)}, {C(0, 3), C(0, 4)}, {}, 0));
  const std::unique_ptr<Sampler> sampler = MakeSampler();
  engine::Rng rng(1);
  FrostDragonView view = static_cast<const FrostDragonView&>(*state.ViewFor(0));

  FrostDragonView too_many = view;
  too_many.players[1].hand_size = 18;
  too_many.out_of_play = 60;
  EXPECT_THAT(sampler->Sample(too_many, rng),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unseen")));

  FrostDragonView negative = view;
  negative.players[2].hand_size = -3;
  EXPECT_THAT(sampler->Sample(negative, rng),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));

  FrostDragonView no_seats = view;
  no_seats.players.clear();
  EXPECT_THAT(sampler->Sample(no_seats, rng),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));

  FrostDragonView off_map = view;
  off_map.players[1].adventurer.space = 99;
  EXPECT_THAT(sampler->Sample(off_map, rng),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));

  FrostDragonView shown_twice = view;
  shown_twice.played |= *view.players[0].hand;
  EXPECT_THAT(sampler->Sample(shown_twice, rng),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
}

// ---------------------------------------------------------------- Heuristic

Move Decide(const Position& p, engine::Seat seat, std::uint64_t seed = 1) {
  const FrostDragonState state(fd::Rules{}, p);
  const std::vector<engine::Action> legal = state.LegalActions(seat);
  const engine::Action chosen = MakeHeuristicBot(seed)->Choose(*state.ViewFor(seat), legal);
  EXPECT_NE(std::find(legal.begin(), legal.end(), chosen), legal.end());
  return *Move::Decode(chosen);
}

TEST(FrostDragonHeuristicTest, ShortOfItsMarkerTakesTheChallengeWithItsCheapestWinner) {
  Position p =
      ThreeInChallenges({C(fd::kMountain, 2), C(fd::kMountain, 10), C(fd::kMountain, 13)},
                        {C(1, 2), C(1, 3), C(1, 4), C(1, 5)},
                        {Played(1, C(fd::kMountain, 5)), Played(2, C(fd::kMountain, 9))}, 0);
  EXPECT_EQ(Decide(p, 0).card, C(fd::kMountain, 10));
}

TEST(FrostDragonHeuristicTest, AtNineThreatPastItsMarkerDucks) {
  Position p = ThreeInChallenges(
      {C(fd::kMountain, 3), C(fd::kMountain, 13)}, {C(1, 2), C(1, 3), C(1, 4), C(1, 5)},
      {Played(1, C(fd::kMountain, 5)), Played(2, C(fd::kMountain, 9))}, 0);
  p.adventurers[0].boast = 0;
  p.adventurers[0].marker = 0;
  p.adventurers[0].reached_marker = true;
  p.adventurers[0].threat = 9;
  EXPECT_EQ(Decide(p, 0).card, C(fd::kMountain, 3));
}

TEST(FrostDragonHeuristicTest, AtNineThreatTakesATreasureWithItsDragon) {
  Position p = ThreeInChallenges({C(fd::kMountain, 2), C(fd::kRiver, 14), fd::kDragonJoker},
                                 {C(1, 2), C(1, 3), C(1, 4), C(1, 5)},
                                 {Played(1, C(fd::kRiver, 13)), Played(2, fd::kTreasureJoker)}, 0);
  p.adventurers[0].boast = 0;
  p.adventurers[0].marker = 0;
  p.adventurers[0].reached_marker = true;
  p.adventurers[0].threat = 9;
  EXPECT_EQ(Decide(p, 0).card, fd::kDragonJoker);
}

TEST(FrostDragonHeuristicTest, NamesAnAllyTheAceOfTrumpToWin) {
  // Void in Mountain, short of its marker, last to play.
  Position p =
      ThreeInChallenges({fd::kRogue, C(fd::kRiver, 2)}, {C(1, 2), C(1, 3), C(1, 4), C(1, 5)},
                        {Played(1, C(fd::kMountain, 5)), Played(2, C(fd::kGlacier, 9))}, 0);
  const Move move = Decide(p, 0);
  EXPECT_EQ(move.card, fd::kRogue);
  EXPECT_EQ(fd::KingdomOf(move.as), fd::kGlacier);
  EXPECT_GT(fd::RankOf(move.as), 9);
}

// A two-player boast of seat 0 holding `hand`, from space 0.
int Boast(const std::vector<int>& hand) {
  Position p;
  p.num_players = 2;
  p.fate = 1;
  p.trump = fd::kGlacier;
  p.hand_size = 14;
  p.hands[0] = Cards(hand);
  CardSet rest = fd::Rules{}.Deck() & ~p.hands[0];
  for (int i = 0; i < 14; ++i) {
    const int card = std::countr_zero(rest);
    p.hands[1] |= fd::Bit(card);
    rest &= rest - 1;
  }
  p.out_of_play = rest;
  p.phase = fd::Phase::kBoast;
  p.to_act = 0;
  return Decide(p, 0).boast;
}

TEST(FrostDragonHeuristicTest, BoastsWhatItsHandCanWin) {
  std::vector<int> trumps;
  for (int rank = 14; rank > 0 && trumps.size() < 10; --rank)
    trumps.push_back(C(fd::kGlacier, rank));
  trumps.insert(trumps.end(),
                {fd::kLeprechaun, fd::kRogue, C(fd::kMountain, 14), C(fd::kRiver, 14)});
  EXPECT_GE(Boast(trumps), 9);
  std::vector<int> weak;
  for (int rank = 2; weak.size() < 14; ++rank) {
    weak.push_back(C(fd::kMountain, rank));
    weak.push_back(C(fd::kForest, rank));
    weak.push_back(C(fd::kRiver, rank));
  }
  weak.resize(14);
  EXPECT_LE(Boast(weak), 1);
}

TEST(FrostDragonHeuristicTest, PlaysOnlyListedActionsAndFinishesMatches) {
  const engine::Game& game = **engine::FindGame("frost_dragon");
  std::vector<engine::Action> legal;
  for (int n = 2; n <= 4; ++n) {
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      std::unique_ptr<engine::State> state = *game.NewMatch({.num_players = n, .seed = seed});
      std::vector<std::unique_ptr<Bot>> bots;
      for (int s = 0; s < n; ++s) bots.push_back(MakeHeuristicBot(seed * 10 + s));
      while (!state->IsOver()) {
        const engine::Seat seat = state->SeatsToAct()[0];
        state->LegalActions(seat, &legal);
        const engine::Action chosen = bots[seat]->Choose(*state->ViewFor(seat), legal);
        ASSERT_NE(std::find(legal.begin(), legal.end(), chosen), legal.end());
        ASSERT_THAT(state->Apply(seat, chosen), IsOk());
      }
    }
  }
}

TEST(FrostDragonHeuristicTest, SameSeedSameChoices) {
  Position p = ThreeInChallenges({fd::kRogue, C(fd::kRiver, 2), C(fd::kRiver, 3)},
                                 {C(1, 2), C(1, 3), C(1, 4), C(1, 5)}, {}, 0);
  for (std::uint64_t seed = 1; seed < 20; ++seed) EXPECT_EQ(Decide(p, 0, seed), Decide(p, 0, seed));
}

TEST(FrostDragonHeuristicTest, FallsBackToTheFirstActionOnAnotherGamesView) {
  struct OtherView final : engine::ComparableView<OtherView> {
    bool operator==(const OtherView&) const = default;
    std::string ToString() const override { return ""; }
    std::string Summary() const override { return ""; }
  };
  const std::vector<engine::Action> legal = {engine::Action(7), engine::Action(9)};
  EXPECT_EQ(MakeHeuristicBot(1)->Choose(OtherView{}, legal), engine::Action(7));
}

}  // namespace
}  // namespace hoard::engine::frost_dragon
