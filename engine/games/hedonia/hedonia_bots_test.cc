#include <algorithm>
#include <array>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include "engine/games/hedonia/hedonia.h"
#include "engine/games/hedonia/hedonia_heuristic.h"
#include "engine/registry.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::engine::hedonia {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;

using namespace ::hoard::engine::hedonia;  // the assets, by name
using engine::Action;
using engine::Seat;
using engine::State;

AssetCounts Of(std::initializer_list<std::pair<int, int>> kinds) {
  AssetCounts counts{};
  for (auto [kind, n] : kinds) counts[kind] = static_cast<std::int8_t>(n);
  return counts;
}

const Position& PositionOf(const State& state) {
  return static_cast<const HedoniaState&>(state).position();
}

// Three players in the claims of round 3, clockwise, seat 0 active: seat 0
// has seen every Cursed Sushi and every Very Rare Egg — in its hand, in the
// treasuries, shared, in the King's treasury and on the table. The other
// cards lie in the deck (39) and the other hands (4 each).
Position EverySushiAndEggSeen() {
  Position p;
  p.num_players = 3;
  p.round = 3;
  p.phase = Phase::kClaim;
  p.offers_made = 3;
  p.hands[0] = Of({{kCursedSushi, 2}, {kVeryRareEgg, 1}, {kSnorkelPig, 1}});
  p.treasuries[1] = Of({{kCursedSushi, 1}, {kSnorkelPig, 1}});
  p.treasuries[2] = Of({{kCursedSushi, 1}});
  p.shared[0] = Of({{kVeryRareEgg, 1}});
  p.king = Of({{kCursedSushi, 1}, {kSnorkelPig, 1}});
  p.table = {kCursedSushi, kVeryRareEgg, kSnorkelPig, -1, -1, -1};
  p.claims[1] = Side::kLeft;  // sealed: seat 0 cannot see it
  AssetCounts rest{};
  for (int kind = 0; kind < kNumAssetKinds; ++kind) {
    int seen = p.hands[0][kind] + p.treasuries[1][kind] + p.treasuries[2][kind] +
               p.shared[0][kind] + p.king[kind];
    for (int gap = 0; gap < 3; ++gap) seen += p.table[gap] == kind;
    rest[kind] = static_cast<std::int8_t>(kAssetCounts[kind] - seen);
  }
  for (int kind = 0; kind < kNumAssetKinds; ++kind) {
    for (; rest[kind] > 0; --rest[kind]) {
      if (Total(p.hands[1]) < 4) {
        ++p.hands[1][kind];
      } else if (Total(p.hands[2]) < 4) {
        ++p.hands[2][kind];
      } else {
        p.deck[p.deck_size++] = static_cast<std::int8_t>(kind);
      }
    }
  }
  return p;
}

// ---------------------------------------------------------------- Sampler

TEST(HedoniaSamplerTest, NeverDealsASeenCardIntoAHiddenPlace) {
  const Position position = EverySushiAndEggSeen();
  ASSERT_EQ(position.deck_size, 39);
  std::unique_ptr<HedoniaState> state = HedoniaState::ForTesting(position);
  const std::unique_ptr<engine::View> view = state->ViewFor(0);
  std::unique_ptr<Sampler> sampler = MakeSampler();
  engine::Rng rng(7);
  int moved = 0;
  for (int i = 0; i < 1000; ++i) {
    absl::StatusOr<std::unique_ptr<State>> sample = sampler->Sample(*view, rng);
    ASSERT_THAT(sample, IsOk());
    ASSERT_TRUE((*sample)->ViewFor(0)->Equals(*view));
    const Position& p = PositionOf(**sample);
    ASSERT_EQ(p.deck_size, 39);
    for (int i = 0; i < p.deck_size; ++i) {
      ASSERT_NE(p.deck[i], kCursedSushi);
      ASSERT_NE(p.deck[i], kVeryRareEgg);
    }
    for (Seat s : {1, 2}) {
      ASSERT_EQ(Total(p.hands[s]), 4);
      ASSERT_EQ(p.hands[s][kCursedSushi], 0);
      ASSERT_EQ(p.hands[s][kVeryRareEgg], 0);
    }
    // Seat 1's claim is not seen, so no sample claims for it.
    ASSERT_EQ(p.claims[1], Side::kNone);
    if (p.hands[1] != position.hands[1]) ++moved;
  }
  EXPECT_GT(moved, 900);
}

TEST(HedoniaSamplerTest, RefusesAViewShowingMoreCardsThanTheGameHas) {
  std::unique_ptr<HedoniaState> state = HedoniaState::ForTesting(EverySushiAndEggSeen());
  std::unique_ptr<engine::View> view = state->ViewFor(0);
  auto& seen = static_cast<HedoniaView&>(*view);
  std::unique_ptr<Sampler> sampler = MakeSampler();
  engine::Rng rng(1);

  HedoniaView seventh_sushi = seen;
  ++seventh_sushi.king[kCursedSushi];
  EXPECT_THAT(sampler->Sample(seventh_sushi, rng),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("7 Cursed Sushi")));

  HedoniaView negative = seen;
  negative.players[2].hand_size = -1;
  EXPECT_THAT(sampler->Sample(negative, rng),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("-1")));

  HedoniaView no_gaps = seen;
  no_gaps.table.clear();
  EXPECT_THAT(sampler->Sample(no_gaps, rng),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("gaps")));

  HedoniaView too_few = seen;
  too_few.deck_size = 36;
  EXPECT_THAT(sampler->Sample(too_few, rng),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unseen")));
  EXPECT_THAT(sampler->Observer(seen), IsOk());
}

// ---------------------------------------------------------------- Heuristic

// Three players, clockwise, in the claims: seat 0 offered `own` (on its
// left) and was offered `offered` (on its right).
Position Claims(int own, int offered) {
  Position p;
  p.num_players = 3;
  p.phase = Phase::kClaim;
  p.offers_made = 3;
  p.table = {
      static_cast<std::int8_t>(own), kMisdirection, static_cast<std::int8_t>(offered), -1, -1, -1};
  return p;
}

Action Decide(const HedoniaState& state, Seat seat, std::uint64_t seed = 1) {
  std::unique_ptr<Bot> bot = MakeHeuristicBot(seed);
  const std::vector<Action> legal = state.LegalActions(seat);
  return bot->Choose(*state.ViewFor(seat), legal);
}

TEST(HedoniaHeuristicTest, LeavesASecondCursedSushi) {
  Position p = Claims(kCursedSushi, kMagicCarrot);
  p.treasuries[0] = Of({{kCursedSushi, 1}});
  EXPECT_EQ(Decide(*HedoniaState::ForTesting(p), 0), ClaimAction(Side::kRight));
}

TEST(HedoniaHeuristicTest, GrowsItsPackOfPigs) {
  Position p = Claims(kGrungle, kSnorkelPig);
  p.treasuries[0] = Of({{kSnorkelPig, 3}});
  EXPECT_EQ(Decide(*HedoniaState::ForTesting(p), 0), ClaimAction(Side::kRight));
}

TEST(HedoniaHeuristicTest, SnatchesASushiFromTheSeatThatHasOne) {
  // The Red Snatcher offered to seat 0 robs seat 2 of its Cursed Sushi: a
  // feast for seat 0, which holds none.
  Position p = Claims(kSnorkelPig, kRedSnatcher);
  p.treasuries[2] = Of({{kCursedSushi, 1}});
  EXPECT_EQ(Decide(*HedoniaState::ForTesting(p), 0), ClaimAction(Side::kRight));
}

TEST(HedoniaHeuristicTest, OffersWhatItsNeighbourWillNotTakeWhenItWantsTheOther) {
  // Seat 2, active, offered seat 0 a fourth pig; seat 0 will claim it, so
  // it offers seat 1 the Cursed Sushi seat 1 cannot want (it holds one)
  // rather than give a pig away.
  Position p;
  p.num_players = 3;
  p.active = 2;
  p.offers_made = 1;
  p.table = {-1, -1, kSnorkelPig, -1, -1, -1};
  p.hands[0] = Of({{kSnorkelPig, 1}, {kCursedSushi, 1}});
  p.hands[1] = Of({{kGrungle, 2}});
  p.hands[2] = Of({{kGrungle, 1}});
  p.treasuries[0] = Of({{kSnorkelPig, 3}});
  p.treasuries[1] = Of({{kCursedSushi, 1}});
  std::unique_ptr<HedoniaState> state = HedoniaState::ForTesting(p);
  ASSERT_EQ(state->Offerer(), 0);
  EXPECT_EQ(Decide(*state, 0), OfferAction(kCursedSushi));
}

TEST(HedoniaHeuristicTest, PlaysOnlyListedActionsAndRepeatsItselfFromASeed) {
  const engine::Game& game = **engine::FindGame("hedonia");
  engine::Rng rng(99);
  for (int players = 3; players <= 6; ++players) {
    for (int match = 0; match < 10; ++match) {
      std::unique_ptr<State> state = *game.NewMatch({.num_players = players, .seed = rng.Next()});
      std::vector<std::unique_ptr<Bot>> bots, twins;
      for (Seat s = 0; s < players; ++s) {
        bots.push_back(MakeHeuristicBot(100 + s));
        twins.push_back(MakeHeuristicBot(100 + s));
      }
      while (!state->IsOver()) {
        const Seat seat = state->SeatsToAct()[rng.Uniform(state->SeatsToAct().size())];
        const std::vector<Action> legal = state->LegalActions(seat);
        const std::unique_ptr<engine::View> view = state->ViewFor(seat);
        const Action action = bots[seat]->Choose(*view, legal);
        ASSERT_NE(std::find(legal.begin(), legal.end(), action), legal.end());
        ASSERT_EQ(twins[seat]->Choose(*view, legal), action);
        ASSERT_THAT(state->Apply(seat, action), IsOk());
      }
    }
  }
}

TEST(HedoniaHeuristicTest, PlaysTheDefaultOnAnotherGamesView) {
  std::unique_ptr<State> village =
      *(*engine::FindGame("village"))->NewMatch({.num_players = 3, .seed = 1});
  const Seat seat = village->SeatsToAct()[0];
  const std::vector<Action> legal = village->LegalActions(seat);
  EXPECT_EQ(MakeHeuristicBot(1)->Choose(*village->ViewFor(seat), legal), legal[0]);
}

// ---------------------------------------------------------------- Ties

// How often six heuristic players end with a shared rank, and a shared first
// place, with the tie-break and without it (docs/rules/hedonia.md quotes
// these numbers). Run it alone to read them:
//   build/engine/games/hedonia_test --gtest_filter='HedoniaTieBreakTest.*'
TEST(HedoniaTieBreakTest, FewSixPlayerHeuristicMatchesShareFirstPlace) {
  constexpr int kPlayers = 6;
  constexpr int kMatches = 2000;
  const engine::Game& game = **engine::FindGame("hedonia");
  // By tie-break (treasury, none): matches with a shared rank, and with a
  // shared first place.
  std::array<int, 2> shared_rank{}, shared_first{};
  for (int match = 0; match < kMatches; ++match) {
    std::unique_ptr<State> state = *game.NewMatch({.num_players = kPlayers, .seed = 1000u + match});
    std::vector<std::unique_ptr<Bot>> bots;
    for (Seat s = 0; s < kPlayers; ++s) bots.push_back(MakeHeuristicBot(kPlayers * match + s));
    while (!state->IsOver()) {
      const Seat seat = state->SeatsToAct()[0];
      const std::vector<Action> legal = state->LegalActions(seat);
      ASSERT_THAT(state->Apply(seat, bots[seat]->Choose(*state->ViewFor(seat), legal)), IsOk());
    }
    const Position& end = PositionOf(*state);
    const std::array<std::vector<int>, 2> ranks = {
        state->Ranks(), HedoniaState::ForTesting(end, {.tie_break = TieBreak::kNone})->Ranks()};
    for (int rule = 0; rule < 2; ++rule) {
      std::vector<int> sorted = ranks[rule];
      std::sort(sorted.begin(), sorted.end());
      shared_rank[rule] += std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
      shared_first[rule] += sorted[1] == 1;
    }
  }
  for (int rule = 0; rule < 2; ++rule) {
    std::printf(
        "tie_break=%s: %d of %d six-player matches share a rank (%.1f%%), "
        "%d share first place (%.2f%%)\n",
        rule == 0 ? "treasury" : "none", shared_rank[rule], kMatches,
        100.0 * shared_rank[rule] / kMatches, shared_first[rule],
        100.0 * shared_first[rule] / kMatches);
  }
  EXPECT_LE(shared_first[0], kMatches * 2 / 100) << "at most 2%";
}

}  // namespace
}  // namespace hoard::engine::hedonia
