#include "engine/games/village/village.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <numeric>

#include "engine/registry.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::engine::village {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// The favor row left to right: sword scroll feather potion axe crown, worth
// 1 1 2 2 3 4 with the default values.
Position Table(int players) {
  Position p;
  p.favor = {kSword, kScroll, kFeather, kPotion, kAxe, kCrown};
  p.hands.assign(players, Counts{});
  p.bribes.assign(players, Bribes{});
  return p;
}

Counts Cards(std::initializer_list<std::pair<int, int>> kinds) {
  Counts counts{};
  for (auto [kind, n] : kinds) counts[kind] += n;
  return counts;
}

// Cards to place on the deck, the first one on top.
std::vector<int> DeckTopFirst(std::vector<int> cards) {
  std::reverse(cards.begin(), cards.end());
  return cards;
}

Action BribeAction(int treasure, int treasures, int wilds = 0) {
  return Move::MakeBribe(treasure, treasures, wilds).Encode();
}

Action Buy(int stall, const Counts& payment, int curse) {
  return Move::Buy(stall, payment, curse).Encode();
}

const Action kDraw = Move::Draw().Encode();

// ------------------------------------------------------------- bribing

TEST(VillageBribeTest, NewBribeTakesTheCardsAndMovesTheToken) {
  Position p = Table(2);
  p.hands[0] = Cards({{kScroll, 2}, {kWild, 1}, {kAxe, 1}});
  p.deck = DeckTopFirst({kScroll, kSword});
  VillageState state(Rules{}, p);
  ASSERT_THAT(state.Apply(0, BribeAction(kScroll, 2, 1)), IsOk());
  EXPECT_EQ(state.position().bribes[0][kScroll], (Bribe{2, 1}));
  EXPECT_EQ(state.position().hands[0], Cards({{kAxe, 1}}));
  EXPECT_EQ(state.position().current, 1);
}

TEST(VillageBribeTest, AddingToAnExistingBribe) {
  Position p = Table(2);
  p.hands[0] = Cards({{kSword, 3}});
  p.bribes[0][kSword] = {2, 0};
  p.deck = DeckTopFirst({kSword});
  VillageState state(Rules{}, p);
  ASSERT_THAT(state.Apply(0, BribeAction(kSword, 3)), IsOk());
  EXPECT_EQ(state.position().bribes[0][kSword], (Bribe{5, 0}));
}

TEST(VillageBribeTest, WildsAloneMayAddToAnExistingBribe) {
  Position p = Table(2);
  p.hands[0] = Cards({{kWild, 2}});
  p.bribes[0][kPotion] = {1, 0};
  p.deck = DeckTopFirst({kWild});
  VillageState state(Rules{}, p);
  ASSERT_THAT(state.Apply(0, BribeAction(kPotion, 0, 2)), IsOk());
  EXPECT_EQ(state.position().bribes[0][kPotion], (Bribe{1, 2}));
}

TEST(VillageBribeTest, WildsAloneCannotStartABribe) {
  Position p = Table(2);
  p.hands[0] = Cards({{kWild, 2}, {kAxe, 1}});
  p.bribes[1][kPotion] = {3, 0};  // another player's bribe does not count
  p.deck = DeckTopFirst({kWild});
  VillageState state(Rules{}, p);
  EXPECT_THAT(state.Apply(0, BribeAction(kPotion, 0, 2)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("wilds alone cannot start a new bribe")));
  EXPECT_EQ(state.position(), p);
}

TEST(VillageBribeTest, TwoTreasureTypesInOneBribeAreRefused) {
  Position p = Table(2);
  p.hands[0] = Cards({{kSword, 1}, {kScroll, 1}});
  p.deck = DeckTopFirst({kSword});
  VillageState state(Rules{}, p);
  Move two_types = Move::MakeBribe(kSword, 1, 0);
  two_types.cards[kScroll] = 1;
  EXPECT_THAT(
      state.Apply(0, two_types.Encode()),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a bribe holds one treasure type")));
  EXPECT_EQ(state.position(), p);
}

TEST(VillageBribeTest, CardsNotInHandAreRefused) {
  Position p = Table(2);
  p.hands[0] = Cards({{kSword, 1}});
  VillageState state(Rules{}, p);
  EXPECT_THAT(state.Apply(0, BribeAction(kSword, 2)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("the hand holds 1 sword")));
}

// ------------------------------------------------------------- the favor row

TEST(VillageFavorTest, ABribePushesPassedTokensLeft) {
  Position p = Table(2);
  p.hands[0] = Cards({{kScroll, 3}});
  p.deck = DeckTopFirst({kScroll});
  VillageState state(Rules{}, p);
  ASSERT_THAT(state.Apply(0, BribeAction(kScroll, 3)), IsOk());
  EXPECT_THAT(state.position().favor,
              ElementsAre(kSword, kFeather, kPotion, kAxe, kScroll, kCrown));
  EXPECT_EQ(state.Value(kScroll), 3);
  EXPECT_EQ(state.Value(kAxe), 2);
}

TEST(VillageFavorTest, ACursePushesPassedTokensRight) {
  Position p = Table(2);
  p.hands[0] = Cards({{kAxe, 1}, {kSword, 1}});
  p.market[2] = Cards({{kCrown, 1}});
  VillageState state(Rules{}, p);
  ASSERT_THAT(state.Apply(0, Buy(2, Cards({{kAxe, 1}, {kSword, 1}}), kAxe)), IsOk());
  EXPECT_THAT(state.position().favor,
              ElementsAre(kSword, kScroll, kAxe, kFeather, kPotion, kCrown));
}

TEST(VillageFavorTest, TokensStopAtTheEnds) {
  Position p = Table(2);
  p.hands[0] = Cards({{kCrown, 2}, {kAxe, 5}});
  p.hands[1] = Cards({{kSword, 3}});
  p.deck = DeckTopFirst({kWild, kWild, kWild});
  p.market[3] = Cards({{kPotion, 1}});
  VillageState state(Rules{}, p);
  // The crown is already on the rightmost space: it does not move.
  ASSERT_THAT(state.Apply(0, BribeAction(kCrown, 2)), IsOk());
  EXPECT_EQ(state.position().favor[5], kCrown);
  // Cursing the leftmost sword leaves it where it is.
  ASSERT_THAT(state.Apply(1, Buy(3, Cards({{kSword, 3}}), kSword)), IsOk());
  EXPECT_EQ(state.position().favor[0], kSword);
  // Five cards from space 4 reach space 5 and no further.
  ASSERT_THAT(state.Apply(0, BribeAction(kAxe, 5)), IsOk());
  EXPECT_THAT(state.position().favor,
              ElementsAre(kSword, kScroll, kFeather, kPotion, kCrown, kAxe));
}

// ------------------------------------------------------------- refilling

TEST(VillageRefillTest, StartsAtStallThreeAndCyclesUntilAMatch) {
  Position p = Table(2);
  p.hands[0] = Cards({{kSword, 1}});
  p.deck = DeckTopFirst({kScroll, kFeather, kPotion, kAxe, kCrown, kSword, kWild});
  VillageState state(Rules{}, p);
  ASSERT_THAT(state.Apply(0, BribeAction(kSword, 1)), IsOk());
  const Position& after = state.position();
  EXPECT_EQ(after.market[3], Cards({{kScroll, 1}, {kCrown, 1}}));
  EXPECT_EQ(after.market[2], Cards({{kFeather, 1}, {kSword, 1}}));
  EXPECT_EQ(after.market[1], Cards({{kPotion, 1}}));
  EXPECT_EQ(after.market[0], Cards({{kAxe, 1}}));
  EXPECT_EQ(after.deck, std::vector<int>{kWild});
  EXPECT_FALSE(state.IsOver());
}

TEST(VillageRefillTest, StopsOnAWild) {
  Position p = Table(2);
  p.hands[0] = Cards({{kSword, 1}});
  p.deck = DeckTopFirst({kScroll, kWild, kSword});
  VillageState state(Rules{}, p);
  ASSERT_THAT(state.Apply(0, BribeAction(kSword, 1)), IsOk());
  EXPECT_EQ(state.position().market[3], Cards({{kScroll, 1}}));
  EXPECT_EQ(state.position().market[2], Cards({{kWild, 1}}));
  EXPECT_EQ(state.position().deck, std::vector<int>{kSword});
}

TEST(VillageEndTest, ARefillThatRunsTheDeckOutEndsTheMatch) {
  Position p = Table(2);
  p.hands[0] = Cards({{kSword, 1}});
  p.deck = DeckTopFirst({kScroll, kFeather});
  VillageState state(Rules{}, p);
  ASSERT_THAT(state.Apply(0, BribeAction(kSword, 1)), IsOk());
  EXPECT_TRUE(state.IsOver());
  EXPECT_EQ(state.position().end, EndReason::kRefillRanOut);
  EXPECT_TRUE(state.SeatsToAct().empty());
  EXPECT_THAT(state.Apply(1, kDraw),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("over")));
}

TEST(VillageEndTest, ARefillWhoseLastCardMatchesDoesNotEndIt) {
  Position p = Table(2);
  p.hands[0] = Cards({{kSword, 1}});
  p.deck = DeckTopFirst({kScroll, kSword});
  VillageState state(Rules{}, p);
  ASSERT_THAT(state.Apply(0, BribeAction(kSword, 1)), IsOk());
  EXPECT_FALSE(state.IsOver());
  EXPECT_TRUE(state.position().deck.empty());
}

TEST(VillageEndTest, DrawingTheLastCardDoesNotEndItDrawingFromNothingDoes) {
  Position p = Table(2);
  p.deck = DeckTopFirst({kCrown});
  VillageState state(Rules{}, p);
  ASSERT_THAT(state.Apply(0, kDraw), IsOk());
  EXPECT_EQ(state.position().hands[0], Cards({{kCrown, 1}}));
  EXPECT_FALSE(state.IsOver());
  ASSERT_THAT(state.Apply(1, kDraw), IsOk());
  EXPECT_TRUE(state.IsOver());
  EXPECT_EQ(state.position().end, EndReason::kEmptyDeckDraw);
}

TEST(VillageEndTest, UnderDeckEmptyTakingTheLastCardEndsTheMatch) {
  Position p = Table(2);
  p.deck = DeckTopFirst({kCrown});
  VillageState state(Rules{.end = EndRule::kDeckEmpty}, p);
  ASSERT_THAT(state.Apply(0, kDraw), IsOk());
  EXPECT_EQ(state.position().hands[0], Cards({{kCrown, 1}}));
  EXPECT_TRUE(state.IsOver());
  EXPECT_EQ(state.position().end, EndReason::kDeckEmptied);
  EXPECT_THAT(state.ViewFor(1)->ToString(), HasSubstr("the deck was emptied"));
}

TEST(VillageEndTest, UnderDeckEmptyARefillThatTakesTheLastCardEndsTheMatch) {
  Position p = Table(2);
  p.hands[0] = Cards({{kSword, 1}});
  p.deck = DeckTopFirst({kScroll, kSword});
  VillageState state(Rules{.end = EndRule::kDeckEmpty}, p);
  ASSERT_THAT(state.Apply(0, BribeAction(kSword, 1)), IsOk());
  // The refill succeeded (its last card is a sword), but the deck is empty.
  EXPECT_EQ(state.position().market[2], Cards({{kSword, 1}}));
  EXPECT_TRUE(state.IsOver());
  EXPECT_EQ(state.position().end, EndReason::kDeckEmptied);
}

TEST(VillageEndTest, UnderDeckEmptyNoMatchReachesADrawFromNothing) {
  const Game& game = **FindGame("village");
  Rng rng(3);
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::unique_ptr<State> state =
        *game.NewMatch({.num_players = 3, .seed = seed, .options = {{"end", "deck_empty"}}});
    while (!state->IsOver()) {
      const Seat seat = state->SeatsToAct()[0];
      const std::vector<Action> legal = state->LegalActions(seat);
      ASSERT_THAT(state->Apply(seat, legal[rng.Uniform(legal.size())]), IsOk());
    }
    const Position& p = static_cast<const VillageState&>(*state).position();
    EXPECT_TRUE(p.deck.empty()) << seed;
    EXPECT_NE(p.end, EndReason::kEmptyDeckDraw) << seed;
  }
}

// ------------------------------------------------------------- buying

TEST(VillageBuyTest, PaysExactlyTheCost) {
  Position p = Table(2);
  p.hands[0] = Cards({{kSword, 3}});
  p.market[2] = Cards({{kCrown, 2}});
  VillageState state(Rules{}, p);
  EXPECT_THAT(state.Apply(0, Buy(2, Cards({{kSword, 1}}), kSword)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("costs exactly 2 card(s), but the payment has 1")));
  EXPECT_THAT(state.Apply(0, Buy(2, Cards({{kSword, 3}}), kSword)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has 3")));
  ASSERT_THAT(state.Apply(0, Buy(2, Cards({{kSword, 2}}), kSword)), IsOk());
  EXPECT_EQ(state.position().hands[0], Cards({{kSword, 1}, {kCrown, 2}}));
  EXPECT_EQ(state.position().market[2], Counts{});
  EXPECT_EQ(state.position().discard, Cards({{kSword, 2}}));
}

TEST(VillageBuyTest, APaymentNeedsATreasure) {
  Position p = Table(2);
  p.hands[0] = Cards({{kWild, 3}, {kAxe, 1}});
  p.market[1] = Cards({{kCrown, 1}});
  VillageState state(Rules{}, p);
  EXPECT_THAT(state.Apply(0, Buy(1, Cards({{kWild, 1}}), kNoTreasure)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("wilds only is not allowed")));
  Position p3 = p;
  p3.market[3] = Cards({{kCrown, 1}});
  VillageState state3(Rules{}, p3);
  ASSERT_THAT(state3.Apply(0, Buy(3, Cards({{kWild, 2}, {kAxe, 1}}), kAxe)), IsOk());
  EXPECT_EQ(state3.position().favor[1], kAxe);  // from space 4, three left
}

TEST(VillageBuyTest, TheFreeStallCursesNothing) {
  Position p = Table(2);
  p.market[0] = Cards({{kPotion, 1}, {kWild, 1}});
  VillageState state(Rules{}, p);
  EXPECT_THAT(state.Apply(0, Buy(0, Counts{}, kPotion)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("curses nothing")));
  const auto favor = state.position().favor;
  ASSERT_THAT(state.Apply(0, Buy(0, Counts{}, kNoTreasure)), IsOk());
  EXPECT_EQ(state.position().hands[0], Cards({{kPotion, 1}, {kWild, 1}}));
  EXPECT_EQ(state.position().favor, favor);
}

TEST(VillageBuyTest, AnEmptyStallCannotBeBought) {
  Position p = Table(2);
  p.hands[0] = Cards({{kSword, 1}});
  VillageState state(Rules{}, p);
  EXPECT_THAT(state.Apply(0, Buy(1, Cards({{kSword, 1}}), kSword)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("stall 1 is empty")));
  EXPECT_THAT(state.Apply(0, Buy(0, Counts{}, kNoTreasure)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("stall 0 is empty")));
}

TEST(VillageBuyTest, TheBuyerChoosesWhichPaidTypeIsCursed) {
  Position p = Table(2);
  p.favor = {kSword, kScroll, kFeather, kPotion, kAxe, kCrown};
  p.hands[0] = Cards({{kAxe, 1}, {kCrown, 1}});
  p.market[2] = Cards({{kSword, 1}});
  VillageState state(Rules{}, p);
  EXPECT_THAT(state.Apply(0, Buy(2, Cards({{kAxe, 1}, {kCrown, 1}}), kSword)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no sword was discarded")));
  EXPECT_THAT(state.Apply(0, Buy(2, Cards({{kAxe, 1}, {kCrown, 1}}), kNoTreasure)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("name it")));
  ASSERT_THAT(state.Apply(0, Buy(2, Cards({{kAxe, 1}, {kCrown, 1}}), kCrown)), IsOk());
  EXPECT_THAT(state.position().favor,
              ElementsAre(kSword, kScroll, kFeather, kCrown, kPotion, kAxe));
}

TEST(VillageBuyTest, LegalActionsListEveryPaymentAndCurse) {
  Position p = Table(2);
  p.hands[0] = Cards({{kSword, 1}, {kWild, 1}});
  p.market[1] = Cards({{kCrown, 1}});
  p.market[2] = Cards({{kAxe, 1}});
  VillageState state(Rules{}, p);
  std::vector<std::string> texts;
  for (Action action : state.LegalActions(0)) {
    texts.push_back(state.ActionToString(0, action));
  }
  EXPECT_THAT(
      texts, ::testing::UnorderedElementsAre("draw a card", "bribe swords with 1 sword",
                                             "bribe swords with 1 sword, 1 wild",
                                             "buy stall 1 paying 1 sword, cursing swords",
                                             "buy stall 2 paying 1 sword, 1 wild, cursing swords"));
}

// The legal actions as the rules list them, built move by move: a draw;
// bribes by type, then treasures, then wilds, ascending; the free stall;
// then for each stall that costs cards, every payment of exactly its cost
// with a treasure in it, more of an earlier kind first, once per treasure
// type paid (the curse) in type order.
std::vector<Action> ListedByTheRules(const VillageState& state) {
  const Seat seat = state.position().current;
  const Counts& hand = state.position().hands[seat];
  std::vector<Action> list = {Move::Draw().Encode()};
  for (int t = 0; t < kNumTreasureTypes; ++t) {
    for (int treasures = 0; treasures <= hand[t]; ++treasures) {
      if (treasures == 0 && state.position().bribes[seat][t].treasures == 0) continue;
      for (int wilds = 0; wilds <= hand[kWild]; ++wilds) {
        if (treasures + wilds > 0) list.push_back(Move::MakeBribe(t, treasures, wilds).Encode());
      }
    }
  }
  const auto& market = state.position().market;
  auto empty = [](const Counts& stall) {
    return std::all_of(stall.begin(), stall.end(), [](int n) { return n == 0; });
  };
  if (!empty(market[0])) list.push_back(Move::Buy(0, Counts{}, kNoTreasure).Encode());
  for (int stall = 1; stall < kNumStalls; ++stall) {
    if (empty(market[stall])) continue;
    std::vector<Counts> payments;
    for (int code = 1; code < 1 << (2 * kNumTreasureTypes); ++code) {  // 0-3 of each type
      Counts payment{};
      for (int t = 0; t < kNumTreasureTypes; ++t) payment[t] = (code >> (2 * t)) & 3;
      const int treasures = std::accumulate(payment.begin(), payment.end(), 0);
      if (treasures > stall) continue;
      payment[kWild] = stall - treasures;
      bool held = true;
      for (int kind = 0; kind < kNumCardKinds; ++kind) held = held && payment[kind] <= hand[kind];
      if (held) payments.push_back(payment);
    }
    std::sort(payments.begin(), payments.end(), std::greater<Counts>());
    for (const Counts& payment : payments) {
      for (int t = 0; t < kNumTreasureTypes; ++t) {
        if (payment[t] > 0) list.push_back(Move::Buy(stall, payment, t).Encode());
      }
    }
  }
  return list;
}

TEST(VillageBuyTest, LegalActionsComeInTheRulesOrderAtEveryStepOfRandomMatches) {
  const Game& game = **FindGame("village");
  Rng rng(2024);
  int steps = 0;
  int longest = 0;
  for (int players = 2; players <= 5; ++players) {
    for (int match = 0; match < 25; ++match) {
      std::unique_ptr<State> state = *game.NewMatch({.num_players = players, .seed = rng.Fork()});
      while (!state->IsOver()) {
        const auto& village = static_cast<const VillageState&>(*state);
        const Seat seat = state->SeatsToAct()[0];
        const std::vector<Action> legal = state->LegalActions(seat);
        ASSERT_EQ(legal, ListedByTheRules(village)) << state->ToString();
        longest = std::max(longest, static_cast<int>(legal.size()));
        ASSERT_THAT(state->Apply(seat, legal[rng.Uniform(legal.size())]), IsOk());
        ++steps;
      }
    }
  }
  EXPECT_GT(steps, 2000);
  EXPECT_GT(longest, 100);  // large hands were reached
}

TEST(VillageBuyTest, ALargeHandListsEveryPaymentInTheRulesOrder) {
  Position p = Table(2);
  p.hands[0] = Cards({{kSword, 3}, {kScroll, 2}, {kPotion, 1}, {kCrown, 4}, {kWild, 5}});
  p.bribes[0][kAxe].treasures = 1;
  for (int stall = 0; stall < kNumStalls; ++stall) p.market[stall] = Cards({{kFeather, 1}});
  VillageState state(Rules{}, p);
  EXPECT_EQ(state.LegalActions(0), ListedByTheRules(state));
}

// ------------------------------------------------------------- turns

TEST(VillageTurnTest, OnlyTheCurrentSeatMayAct) {
  Position p = Table(3);
  p.deck = DeckTopFirst({kSword, kSword});
  VillageState state(Rules{}, p);
  EXPECT_THAT(state.Apply(1, kDraw), StatusIs(absl::StatusCode::kFailedPrecondition,
                                              HasSubstr("it is seat 0's turn, not seat 1's")));
  EXPECT_THAT(state.Apply(0, Action(3)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a village action")));
  EXPECT_TRUE(state.LegalActions(1).empty());
  ASSERT_THAT(state.Apply(0, kDraw), IsOk());
  EXPECT_THAT(state.SeatsToAct(), ElementsAre(1));
}

// ------------------------------------------------------------- end and scoring

TEST(VillageScoreTest, TheEndMergesMatchingTreasuresIntoBribes) {
  Position p = Table(2);
  p.hands[0] = Cards({{kCrown, 2}, {kSword, 1}, {kWild, 1}});
  p.bribes[0][kCrown] = {1, 1};
  VillageState state(Rules{}, p);
  ASSERT_THAT(state.Apply(0, kDraw), IsOk());  // the deck is empty: it ends
  ASSERT_TRUE(state.IsOver());
  EXPECT_EQ(state.position().bribes[0][kCrown], (Bribe{3, 1}));
  EXPECT_EQ(state.position().hands[0], Cards({{kSword, 1}, {kWild, 1}}));
  // 4 crowns at 4, less a sword at 1 and a wild at 2.
  EXPECT_THAT(state.Scores(), ElementsAre(16 - 1 - 2, 0));
}

// The rulebook's scoring example, with blue = swords (1), yellow = scrolls
// (1), purple = feathers (2) and green = axes (3), scored as it is shown:
// the example keeps three blue treasures in hand beside a blue bribe.
Position RulebookExample() {
  Position p = Table(2);
  p.end = EndReason::kEmptyDeckDraw;
  p.bribes[0][kScroll] = {4, 0};
  p.bribes[0][kAxe] = {5, 0};
  p.hands[0] = Cards({{kFeather, 1}});
  p.bribes[1][kAxe] = {2, 0};
  p.bribes[1][kFeather] = {4, 0};
  p.bribes[1][kSword] = {8, 0};
  p.hands[1] = Cards({{kScroll, 3}, {kSword, 3}});
  return p;
}

TEST(VillageScoreTest, TheRulebookExampleScores17And16) {
  VillageState state(Rules{}, RulebookExample());
  EXPECT_THAT(state.Scores(), ElementsAre(17, 16));
  EXPECT_THAT(state.Ranks(), ElementsAre(1, 2));
}

TEST(VillageScoreTest, PlayedToItsEndTheExampleMergesTheBlueCards) {
  Position p = RulebookExample();
  p.end = EndReason::kNotOver;
  VillageState state(Rules{}, p);
  ASSERT_THAT(state.Apply(0, kDraw), IsOk());
  // Seat 1's three swords join its sword bribe: 6 + 8 + 11 - 3.
  EXPECT_THAT(state.Scores(), ElementsAre(17, 22));
  EXPECT_THAT(state.Ranks(), ElementsAre(2, 1));
}

TEST(VillageScoreTest, UnderMergeNoneTheExamplePlayedToItsEndScores17And16) {
  Position p = RulebookExample();
  p.end = EndReason::kNotOver;
  VillageState state(Rules{.merge = MergeRule::kNone}, p);
  ASSERT_THAT(state.Apply(0, kDraw), IsOk());
  ASSERT_TRUE(state.IsOver());
  // Seat 1's three swords stay in hand and cost 1 each, as in the rulebook.
  EXPECT_EQ(state.position().hands[1], Cards({{kScroll, 3}, {kSword, 3}}));
  EXPECT_EQ(state.position().bribes[1][kSword], (Bribe{8, 0}));
  EXPECT_THAT(state.Scores(), ElementsAre(17, 16));
  EXPECT_THAT(state.Ranks(), ElementsAre(1, 2));
}

// Three players on 4 points: 1, 0 and 0 bribe cards under the crown on the
// rightmost space; then 0, 1 and 0 under the axe on the next space.
Position ThreeEqualScores() {
  Position p = Table(3);
  p.end = EndReason::kEmptyDeckDraw;
  p.bribes[0][kCrown] = {1, 0};  // 4 points, one card on space 5
  p.bribes[1][kAxe] = {1, 0};    // 3 + 1 points, none on space 5
  p.bribes[1][kSword] = {1, 0};
  p.bribes[2][kScroll] = {2, 2};  // 4 points, none on spaces 5 to 2
  return p;
}

TEST(VillageScoreTest, UnderTieBreakNoneEqualScoresShareTheRank) {
  VillageState state(Rules{.tie_break = TieBreak::kNone}, ThreeEqualScores());
  EXPECT_THAT(state.Scores(), ElementsAre(4, 4, 4));
  EXPECT_THAT(state.Ranks(), ElementsAre(1, 1, 1));
}

TEST(VillageScoreTest, TiesGoToMoreCardsUnderTheRightmostTokens) {
  VillageState state(Rules{}, ThreeEqualScores());
  EXPECT_THAT(state.Scores(), ElementsAre(4, 4, 4));
  EXPECT_THAT(state.Ranks(), ElementsAre(1, 2, 3));
}

TEST(VillageScoreTest, PlayersStillTiedShareTheRank) {
  Position p = Table(3);
  p.end = EndReason::kEmptyDeckDraw;
  p.bribes[0][kAxe] = {1, 0};
  p.bribes[1][kAxe] = {1, 0};
  p.bribes[2][kSword] = {1, 0};
  VillageState state(Rules{}, p);
  EXPECT_THAT(state.Ranks(), ElementsAre(1, 1, 3));
}

// ------------------------------------------------------------- setup

int CountInZones(const State& state, const std::string& card) {
  int n = 0;
  for (const Zone& zone : state.Zones()) {
    if (zone.name == "favor") continue;  // tokens, not cards
    n += std::count(zone.cards.begin(), zone.cards.end(), card);
  }
  return n;
}

TEST(VillageSetupTest, WildsByPlayerCountAndTheDeal) {
  const Game& game = **FindGame("village");
  const std::map<int, int> wilds = {{2, 11}, {3, 13}, {4, 18}, {5, 20}};
  for (auto [players, expected_wilds] : wilds) {
    std::unique_ptr<State> state = *game.NewMatch({.num_players = players, .seed = 5});
    const auto& village = static_cast<const VillageState&>(*state);
    EXPECT_EQ(CountInZones(*state, "wild"), expected_wilds) << players;
    EXPECT_EQ(CountInZones(*state, "crown"), 14);
    for (const Counts& hand : village.position().hands) {
      EXPECT_EQ(std::accumulate(hand.begin(), hand.end(), 0), 7);
    }
    for (const Counts& stall : village.position().market) {
      EXPECT_EQ(std::accumulate(stall.begin(), stall.end(), 0), 1);
    }
    EXPECT_EQ(village.position().deck.size(), 84u + expected_wilds - 7 * players - 4);
    EXPECT_THAT(state->SeatsToAct(), ElementsAre(0));
  }
}

TEST(VillageSetupTest, OptionsChangeTheRulesAndBadOnesAreNamed) {
  const Game& game = **FindGame("village");
  std::unique_ptr<State> state = *game.NewMatch(
      {.num_players = 2,
       .options = {{"wilds", "0"}, {"hand_size", "5"}, {"favor_values", "0,1,2,3,4,5"}}});
  EXPECT_EQ(CountInZones(*state, "wild"), 0);
  EXPECT_EQ(static_cast<const VillageState&>(*state).rules().favor_values[5], 5);
  EXPECT_THAT(game.NewMatch({.num_players = 2, .options = {{"favor_values", "1,2"}}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("favor_values")));
  EXPECT_THAT(game.NewMatch({.num_players = 2, .options = {{"wilds", "many"}}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not 'many'")));
  EXPECT_THAT(game.NewMatch({.num_players = 2, .options = {{"hand_size", "13"}}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("1 to 12")));
}

TEST(VillageSetupTest, TheEndMergeAndTieBreakOptionsSetTheRules) {
  const Game& game = **FindGame("village");
  const auto rules = [&](const std::string& name, const std::string& value) {
    std::unique_ptr<State> state = *game.NewMatch({.num_players = 2, .options = {{name, value}}});
    return static_cast<const VillageState&>(*state).rules();
  };
  const Rules two_players{.wilds = kDefaultWilds[0]};
  EXPECT_EQ(rules("end", "draw_fails"), two_players);
  EXPECT_EQ(rules("end", "deck_empty").end, EndRule::kDeckEmpty);
  EXPECT_EQ(rules("merge", "none").merge, MergeRule::kNone);
  EXPECT_EQ(rules("tie_break", "none").tie_break, TieBreak::kNone);
  // The defaults are the ruleset's rules: fingerprints name only the others.
  std::unique_ptr<State> plain = *game.NewMatch({.num_players = 2});
  EXPECT_EQ(static_cast<const VillageState&>(*plain).rules(), two_players);
  EXPECT_THAT(plain->ToString(), Not(HasSubstr("deck_empty")));
  std::unique_ptr<State> varied =
      *game.NewMatch({.num_players = 2, .options = {{"end", "deck_empty"}, {"merge", "none"}}});
  EXPECT_THAT(varied->ToString(), HasSubstr("end deck_empty merge none;"));
}

TEST(VillageSetupTest, BadEndMergeAndTieBreakValuesAreRefused) {
  const Game& game = **FindGame("village");
  EXPECT_THAT(game.NewMatch({.num_players = 2, .options = {{"end", "never"}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("end must be 'draw_fails' or 'deck_empty', not 'never'")));
  EXPECT_THAT(game.NewMatch({.num_players = 2, .options = {{"merge", "yes"}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("merge must be 'auto' or 'none', not 'yes'")));
  EXPECT_THAT(game.NewMatch({.num_players = 2, .options = {{"tie_break", ""}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tie_break must be 'favor' or 'none', not ''")));
}

// ------------------------------------------------------------- views

TEST(VillageViewTest, ASeatSeesItsOwnHandOnlyUntilTheEnd) {
  Position p = Table(3);
  p.hands[0] = Cards({{kSword, 2}});
  p.hands[1] = Cards({{kCrown, 1}});
  VillageState state(Rules{}, p);
  auto view = [&](Seat seat) { return static_cast<const VillageView&>(*state.ViewFor(seat)); };
  EXPECT_EQ(view(0).hands[0], Cards({{kSword, 2}}));
  EXPECT_FALSE(view(0).hands[1].has_value());
  EXPECT_EQ(view(0).hand_sizes, (std::vector<int>{2, 1, 0}));
  EXPECT_FALSE(view(kSpectator).hands[0].has_value());
  ASSERT_THAT(state.Apply(0, kDraw), IsOk());  // empty deck: over
  EXPECT_EQ(view(kSpectator).hands[1], Cards({{kCrown, 1}}));
}

// Three seats: seat 0 buys a sword and a wild face up, seat 1 takes the free
// axe, seat 2 draws, seat 0 bribes one sword, seat 1 buys a feather.
VillageState KnownHandsTable() {
  Position p = Table(3);
  p.hands[0] = Cards({{kSword, 2}, {kAxe, 1}, {kWild, 1}});
  p.hands[1] = Cards({{kPotion, 1}, {kScroll, 1}});
  p.hands[2] = Cards({{kCrown, 2}});
  p.bribes[1][kFeather] = {1, 0};
  p.market[3] = Cards({{kCrown, 1}});
  p.market[2] = Cards({{kSword, 1}, {kWild, 1}});
  p.market[1] = Cards({{kFeather, 1}});
  p.market[0] = Cards({{kAxe, 1}});
  p.deck = DeckTopFirst({kSword, kWild, kPotion});
  VillageState state(Rules{}, p);
  for (auto [seat, action] :
       std::vector<std::pair<Seat, Action>>{{0, Buy(2, Cards({{kSword, 1}, {kAxe, 1}}), kSword)},
                                            {1, Buy(0, Counts{}, kNoTreasure)},
                                            {2, kDraw},
                                            {0, BribeAction(kSword, 1)},
                                            {1, Buy(1, Cards({{kPotion, 1}}), kPotion)}}) {
    EXPECT_THAT(state.Apply(seat, action), IsOk()) << state.ActionToString(seat, action);
  }
  return state;
}

TEST(VillageViewTest, EverySeatKnowsTheCardsTakenFromTheMarketUntilTheyLeave) {
  VillageState state = KnownHandsTable();
  // Seat 0 holds two swords and two wilds; the table saw one of each come
  // from the market, then a sword go into a bribe: which one, nobody can
  // tell, so only the wild is still known. Seat 1's potion went out as a
  // payment; its axe and feather came from the market.
  ASSERT_EQ(state.position().hands[0], Cards({{kSword, 1}, {kWild, 2}}));
  const std::vector<Counts> known = {Cards({{kWild, 1}}), Cards({{kAxe, 1}, {kFeather, 1}}),
                                     Counts{}};
  for (Seat observer = kSpectator; observer < 3; ++observer) {
    EXPECT_EQ(static_cast<const VillageView&>(*state.ViewFor(observer)).known, known)
        << "observer " << observer;
  }
  EXPECT_THAT(state.ViewFor(2)->ToString(), HasSubstr("seat 1 is known to hold 1 feather, 1 axe"));

  // The record is history beside the position: it changes no fingerprint,
  // and a clone keeps it.
  EXPECT_EQ(VillageState(Rules{}, state.position()).ToString(), state.ToString());
  EXPECT_EQ(static_cast<const VillageState&>(*state.Clone()).known(), known);

  // At the end seat 1's feather joins its bribe and leaves the hand.
  ASSERT_THAT(state.Apply(2, kDraw), IsOk());
  ASSERT_THAT(state.Apply(0, kDraw), IsOk());  // the deck is empty: over
  ASSERT_TRUE(state.IsOver());
  EXPECT_EQ(static_cast<const VillageView&>(*state.ViewFor(kSpectator)).known[1],
            Cards({{kAxe, 1}}));
}

TEST(VillageViewTest, TheDealPutsTheKnownCardsInTheirHands) {
  // A real match in which every seat buys whenever it can, so each hand
  // holds cards the table saw come from the market.
  std::unique_ptr<State> match = *MakeGame()->NewMatch({.num_players = 3, .seed = 4});
  for (int turn = 0; turn < 9; ++turn) {
    const Seat seat = match->SeatsToAct()[0];
    const std::vector<Action> legal = match->LegalActions(seat);
    const auto buy = std::find_if(legal.begin(), legal.end(), [](Action action) {
      return Move::Decode(action)->kind == Move::Kind::kBuy;
    });
    ASSERT_THAT(match->Apply(seat, buy != legal.end() ? *buy : legal[0]), IsOk());
  }
  const auto& state = static_cast<const VillageState&>(*match);
  for (Seat seat = 0; seat < 3; ++seat) {
    ASSERT_GT(std::accumulate(state.known()[seat].begin(), state.known()[seat].end(), 0), 0)
        << "seat " << seat;
  }
  const std::unique_ptr<Sampler> deal = MakeSampler();
  Rng rng(9);
  for (Seat observer = 0; observer < 3; ++observer) {
    const std::unique_ptr<View> view = state.ViewFor(observer);
    for (int i = 0; i < 100; ++i) {
      absl::StatusOr<std::unique_ptr<State>> sample = deal->Sample(*view, rng);
      ASSERT_THAT(sample, IsOk());
      const auto& dealt = static_cast<const VillageState&>(**sample);
      ASSERT_TRUE(dealt.ViewFor(observer)->Equals(*view));
      EXPECT_EQ(dealt.known(), state.known());
      for (Seat seat = 0; seat < 3; ++seat) {
        for (int kind = 0; kind < kNumCardKinds; ++kind) {
          ASSERT_GE(dealt.position().hands[seat][kind], state.known()[seat][kind])
              << "seat " << seat << " dealt without its known " << CardNamePlural(kind);
        }
      }
    }
  }
  // More known than the hand can hold is no match's view.
  VillageView forged = static_cast<const VillageView&>(*state.ViewFor(2));
  forged.known[1][kCrown] = 20;
  EXPECT_THAT(deal->Sample(forged, rng),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("known to hold")));
}

TEST(VillageActionTest, EncodingRoundTripsAndRejectsStrayBits) {
  const Move buy = Move::Buy(3, Cards({{kWild, 1}, {kAxe, 2}}), kAxe);
  EXPECT_EQ(Move::Decode(buy.Encode()), buy);
  EXPECT_EQ(Move::Decode(Move::Draw().Encode()), Move::Draw());
  EXPECT_FALSE(Move::Decode(Action(buy.Encode().code() | (1ULL << 60))));
  EXPECT_FALSE(Move::Decode(Action(buy.Encode().code() | (1ULL << 49))));  // past the wilds
  EXPECT_FALSE(Move::Decode(Action(3)));                                   // kind 3
}

}  // namespace
}  // namespace hoard::engine::village
