#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "engine/games/village/village.h"
#include "engine/games/village/village_heuristic.h"
#include "engine/registry.h"
#include "engine/sampler.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::engine::village {
namespace {

using ::hoard::engine::Action;
using ::hoard::engine::Rng;
using ::hoard::engine::Seat;
using ::hoard::engine::village::Bribe;
using ::hoard::engine::village::Bribes;
using ::hoard::engine::village::Counts;
using ::hoard::engine::village::kAxe;
using ::hoard::engine::village::kCardsPerTreasureType;
using ::hoard::engine::village::kCrown;
using ::hoard::engine::village::kFeather;
using ::hoard::engine::village::kNumCardKinds;
using ::hoard::engine::village::kNumTreasureTypes;
using ::hoard::engine::village::kPotion;
using ::hoard::engine::village::kScroll;
using ::hoard::engine::village::kSword;
using ::hoard::engine::village::kWild;
using ::hoard::engine::village::Move;
using ::hoard::engine::village::Position;
using ::hoard::engine::village::Rules;
using ::hoard::engine::village::VillageState;
using ::hoard::engine::village::VillageView;
using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;

Counts Cards(std::initializer_list<std::pair<int, int>> kinds) {
  Counts counts{};
  for (auto [kind, n] : kinds) counts[kind] += n;
  return counts;
}

int Total(const Counts& counts) {
  int total = 0;
  for (int c : counts) total += c;
  return total;
}

// A table of `players` with the favor row sword scroll feather potion axe
// crown (worth 1 1 2 2 3 4), seat 0 to act.
Position Table(int players) {
  Position p;
  p.favor = {kSword, kScroll, kFeather, kPotion, kAxe, kCrown};
  p.hands.assign(players, Counts{});
  p.bribes.assign(players, Bribes{});
  return p;
}

// Completes `p` into a real match: of the cards it does not place yet,
// shuffled by a fixed seed, `extra[s]` more go to seat s's hand and the rest
// make the deck.
VillageState Complete(Position p, const Rules& rules, const std::vector<int>& extra) {
  Counts left{};
  for (int t = 0; t < kNumTreasureTypes; ++t) left[t] = kCardsPerTreasureType;
  left[kWild] = rules.wilds;
  auto take = [&left](const Counts& c) {
    for (int k = 0; k < kNumCardKinds; ++k) left[k] -= c[k];
  };
  for (const Counts& stall : p.market) take(stall);
  take(p.discard);
  for (const Counts& hand : p.hands) take(hand);
  for (const Bribes& bribes : p.bribes) {
    for (int t = 0; t < kNumTreasureTypes; ++t) {
      left[t] -= bribes[t].treasures;
      left[kWild] -= bribes[t].wilds;
    }
  }
  std::vector<int> pool;
  for (int k = 0; k < kNumCardKinds; ++k) {
    EXPECT_GE(left[k], 0) << "the position uses too many of kind " << k;
    pool.insert(pool.end(), std::max(0, left[k]), k);
  }
  // Interleave kinds so hands and deck get a mix.
  Rng rng(7);
  rng.Shuffle(std::span<int>(pool));
  for (std::size_t s = 0; s < extra.size(); ++s) {
    for (int i = 0; i < extra[s]; ++i) {
      ++p.hands[s][pool.back()];
      pool.pop_back();
    }
  }
  p.deck = std::move(pool);
  return VillageState(rules, std::move(p));
}

const VillageView& AsVillage(const engine::View& view) {
  return dynamic_cast<const VillageView&>(view);
}

// ------------------------------------------------------------- sampler

TEST(VillageSamplerTest, SeenCardsNeverGoWhereTheSeatCannotSee) {
  // Seat 0 has seen all 14 crowns (its hand, the discard, a stall) and all
  // 14 axes (its hand, the discard, seat 1's bribe).
  Position p = Table(3);
  p.hands[0] = Cards({{kCrown, 5}, {kAxe, 7}, {kWild, 1}});
  p.discard = Cards({{kCrown, 4}, {kAxe, 3}});
  p.market[2] = Cards({{kCrown, 5}});
  p.market[0] = Cards({{kSword, 1}});
  p.bribes[1][kAxe] = Bribe{4, 2};
  const Rules rules;
  const VillageState state = Complete(p, rules, {0, 6, 9});
  const std::unique_ptr<engine::View> view = state.ViewFor(0);
  const VillageView& seen = AsVillage(*view);
  const std::unique_ptr<Sampler> sampler = MakeSampler();
  ASSERT_THAT(sampler->Observer(*view), IsOk());
  EXPECT_EQ(*sampler->Observer(*view), 0);

  Rng rng(11);
  int differs = 0;
  for (int i = 0; i < 1000; ++i) {
    absl::StatusOr<std::unique_ptr<engine::State>> sample = sampler->Sample(*view, rng);
    ASSERT_THAT(sample, IsOk());
    const auto& s = dynamic_cast<const VillageState&>(**sample);
    ASSERT_TRUE(s.ViewFor(0)->Equals(*view));
    const Position& q = s.position();
    EXPECT_EQ(static_cast<int>(q.deck.size()), seen.deck_size);
    for (int card : q.deck) {
      ASSERT_NE(card, kCrown);
      ASSERT_NE(card, kAxe);
    }
    for (Seat seat : {1, 2}) {
      EXPECT_EQ(Total(q.hands[seat]), seen.hand_sizes[seat]);
      EXPECT_EQ(q.hands[seat][kCrown], 0);
      EXPECT_EQ(q.hands[seat][kAxe], 0);
    }
    if (q.hands[1] != state.position().hands[1]) ++differs;
  }
  EXPECT_GT(differs, 900);
}

TEST(VillageSamplerTest, AFinishedMatchIsItsOwnSample) {
  const engine::Game& game = **engine::FindGame("village");
  std::unique_ptr<engine::State> state = *game.NewMatch({.num_players = 4, .seed = 3});
  Rng rng(5);
  while (!state->IsOver()) {
    const Seat seat = state->SeatsToAct()[0];
    const std::vector<Action> legal = state->LegalActions(seat);
    ASSERT_THAT(state->Apply(seat, legal[rng.Uniform(legal.size())]), IsOk());
  }
  absl::StatusOr<std::unique_ptr<engine::State>> sample =
      MakeSampler()->Sample(*state->ViewFor(2), rng);
  ASSERT_THAT(sample, IsOk());
  EXPECT_EQ((*sample)->ToString(), state->ToString());
}

TEST(VillageSamplerTest, RefusesViewsNoMatchCanShow) {
  const VillageState state = Complete(Table(3), Rules{}, {7, 7, 7});
  const std::unique_ptr<Sampler> sampler = MakeSampler();
  Rng rng(1);
  auto refused = [&](void (*spoil)(VillageView&), const char* why) {
    VillageView view = AsVillage(*state.ViewFor(1));
    spoil(view);
    EXPECT_THAT(sampler->Sample(view, rng),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(why)));
  };
  refused([](VillageView& v) { v.discard[kCrown] = 15; }, "crowns");
  refused([](VillageView& v) { v.discard[kWild] = -1; }, "negative");
  refused([](VillageView& v) { v.deck_size = -3; }, "deck");
  refused([](VillageView& v) { v.deck_size += 1; }, "unseen");
  refused([](VillageView& v) { v.hand_sizes[0] = -1; }, "hand");
  refused([](VillageView& v) { v.hands[1].reset(); }, "seat 1's hand");
  refused([](VillageView& v) { ++v.hand_sizes[1]; }, "size");
  refused([](VillageView& v) { v.favor[0] = v.favor[1]; }, "favor");
  refused([](VillageView& v) { v.bribes.pop_back(); }, "bribe rows");
  refused([](VillageView& v) { v.bribes[2][kSword].wilds = 1; }, "wilds alone");
  refused([](VillageView& v) { v.current = 5; }, "to act");
  refused([](VillageView& v) { v.rules.wilds = 99; }, "wilds");
  refused([](VillageView& v) { v.observer = 3; }, "observer");
}

// ------------------------------------------------------------- heuristic

// What the heuristic plays as seat 0 in `state`, from its full legal list.
Move Decide(const VillageState& state, std::uint64_t seed = 1) {
  const std::unique_ptr<Bot> bot = MakeHeuristicBot(seed);
  const std::vector<Action> legal = state.LegalActions(0);
  const Action action = bot->Choose(*state.ViewFor(0), legal);
  EXPECT_NE(std::find(legal.begin(), legal.end(), action), legal.end());
  return *Move::Decode(action);
}

TEST(VillageHeuristicTest, StartsABribeOfTheValuableTypeItHolds) {
  // Four crowns (worth 4) and nothing bribed: laying them down turns a
  // liability into the best-paid bribe.
  Position p = Table(3);
  p.hands[0] = Cards({{kCrown, 4}, {kSword, 1}, {kScroll, 1}});
  const Move move = Decide(Complete(p, Rules{}, {0, 7, 7}));
  EXPECT_EQ(move.kind, Move::Kind::kBribe);
  EXPECT_EQ(move.treasure, kCrown);
}

TEST(VillageHeuristicTest, RaisesItsOwnTypeRatherThanAnOpponents) {
  // Seat 0 bribed potions, seat 1 feathers; raising feathers (3 to 4) would
  // pay seat 1, raising potions (2 to 3) pays seat 0 and pushes feathers down.
  Position p = Table(3);
  p.favor = {kSword, kScroll, kAxe, kPotion, kFeather, kCrown};
  p.hands[0] = Cards({{kPotion, 1}, {kFeather, 1}});
  p.bribes[0][kPotion] = Bribe{3, 0};
  p.bribes[0][kFeather] = Bribe{1, 0};
  p.bribes[1][kFeather] = Bribe{6, 0};
  const Move move = Decide(Complete(p, Rules{}, {0, 5, 5}));
  EXPECT_EQ(move.kind, Move::Kind::kBribe);
  EXPECT_EQ(move.treasure, kPotion);
}

TEST(VillageHeuristicTest, CursesWhatTheOpponentsHold) {
  // The same purchase may curse swords (seat 0's bribe) or scrolls (seat
  // 1's big bribe): it curses scrolls.
  Position p = Table(3);
  p.favor = {kFeather, kPotion, kAxe, kSword, kScroll, kCrown};
  p.hands[0] = Cards({{kSword, 1}, {kScroll, 1}, {kAxe, 1}});
  p.market[2] = Cards({{kWild, 1}});
  p.bribes[0][kSword] = Bribe{4, 0};
  p.bribes[1][kScroll] = Bribe{5, 1};
  const VillageState state = Complete(p, Rules{}, {0, 6, 6});
  const Counts payment = Cards({{kSword, 1}, {kScroll, 1}});
  const std::vector<Action> legal = {Move::Buy(2, payment, kSword).Encode(),
                                     Move::Buy(2, payment, kScroll).Encode()};
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    EXPECT_EQ(MakeHeuristicBot(seed)->Choose(*state.ViewFor(0), legal), legal[1]);
  }
}

TEST(VillageHeuristicTest, PlacesItsWildsBeforeTheDeckRunsOut) {
  // Two cards left in the deck: wilds still in hand at the end cost 2 each,
  // in the crown bribe they score 4.
  Position p = Table(3);
  p.hands[0] = Cards({{kWild, 3}});
  p.bribes[0][kCrown] = Bribe{2, 0};
  p.discard = Cards({{kSword, 12},
                     {kScroll, 12},
                     {kFeather, 12},
                     {kPotion, 12},
                     {kAxe, 12},
                     {kCrown, 10},
                     {kWild, 15}});
  const VillageState state = Complete(p, Rules{}, {0, 5, 5});
  ASSERT_EQ(state.position().deck.size(), 2u);
  const Move move = Decide(state);
  EXPECT_EQ(move.kind, Move::Kind::kBribe);
  EXPECT_EQ(move.treasure, kCrown);
  EXPECT_EQ(move.cards[kWild], 3);
}

TEST(VillageHeuristicTest, EndsTheMatchWhenItLeads) {
  // The deck is empty and seat 0 leads: drawing ends the match now, while
  // taking the free stall's wild would only cost 2.
  Position p = Table(3);
  p.bribes[0][kCrown] = Bribe{6, 0};
  p.bribes[1][kSword] = Bribe{3, 0};
  p.market[0] = Cards({{kWild, 1}});
  VillageState state = Complete(p, Rules{}, {0, 0, 0});
  Position full = state.position();
  // Every card not yet placed goes to the discard, leaving the deck empty.
  for (int card : full.deck) ++full.discard[card];
  full.deck.clear();
  const Move move = Decide(VillageState(Rules{}, full));
  EXPECT_EQ(move.kind, Move::Kind::kDraw);
}

TEST(VillageHeuristicTest, ChoosesOnlyListedActionsAndRepeatsItself) {
  const engine::Game& game = **engine::FindGame("village");
  Rng rng(2026);
  int decisions = 0;
  for (int players = 2; players <= 5; ++players) {
    for (int m = 0; m < 10; ++m) {
      std::unique_ptr<engine::State> state =
          *game.NewMatch({.num_players = players, .seed = rng.Next()});
      std::vector<std::unique_ptr<Bot>> bots, twins;
      for (Seat s = 0; s < players; ++s) {
        bots.push_back(MakeHeuristicBot(100 + s));
        twins.push_back(MakeHeuristicBot(100 + s));
      }
      while (!state->IsOver()) {
        const Seat seat = state->SeatsToAct()[0];
        std::vector<Action> legal = state->LegalActions(seat);
        // Sometimes only part of the list is offered: the bot keeps to it.
        if (rng.Uniform(3) == 0) {
          rng.Shuffle(std::span<Action>(legal));
          legal.resize(1 + rng.Uniform(legal.size()));
        }
        const std::unique_ptr<engine::View> view = state->ViewFor(seat);
        const Action action = bots[seat]->Choose(*view, legal);
        ASSERT_NE(std::find(legal.begin(), legal.end(), action), legal.end());
        ASSERT_EQ(twins[seat]->Choose(*view, legal), action);
        ASSERT_THAT(state->Apply(seat, action), IsOk());
        ++decisions;
      }
    }
  }
  EXPECT_GT(decisions, 1000);
}

TEST(VillageHeuristicTest, AnotherGamesViewGetsTheDefaultAction) {
  const engine::Game& other = **engine::FindGame("hedonia");
  std::unique_ptr<engine::State> state = *other.NewMatch({.num_players = 3, .seed = 1});
  const std::vector<Action> legal = state->LegalActions(state->SeatsToAct()[0]);
  EXPECT_EQ(MakeHeuristicBot(1)->Choose(*state->ViewFor(state->SeatsToAct()[0]), legal), legal[0]);
}

}  // namespace
}  // namespace hoard::engine::village
