#include "engine/games/hedonia/hedonia.h"

#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "engine/registry.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::engine::hedonia {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const Game& Hedonia() { return **FindGame("hedonia"); }

AssetCounts Of(std::initializer_list<std::pair<int, int>> kinds) {
  AssetCounts counts{};
  for (auto [kind, n] : kinds) counts[kind] = static_cast<std::int8_t>(n);
  return counts;
}

// An empty table: nothing dealt, seat `active` to offer first, clockwise.
Position Table(int players, Seat active = 0) {
  Position p;
  p.num_players = players;
  p.active = active;
  return p;
}

const Position& PositionOf(const State& state) {
  return static_cast<const HedoniaState&>(state).position();
}

const HedoniaView& AsHedonia(const View& view) { return static_cast<const HedoniaView&>(view); }

// Plays one round: each seat, when its turn to offer comes, offers
// `offers[seat]`; then every seat claims `claims[seat]`, in seat order.
void PlayRound(HedoniaState& state, const std::vector<int>& offers,
               const std::vector<Side>& claims) {
  for (int i = 0; i < state.num_players(); ++i) {
    const Seat seat = state.Offerer();
    ASSERT_THAT(state.Apply(seat, OfferAction(offers[seat])), IsOk()) << "seat " << seat;
  }
  for (Seat seat = 0; seat < state.num_players(); ++seat) {
    ASSERT_THAT(state.Apply(seat, ClaimAction(claims[seat])), IsOk()) << "seat " << seat;
  }
}

constexpr Side L = Side::kLeft;
constexpr Side R = Side::kRight;

// ---------------------------------------------------------------- The deal

TEST(HedoniaDealTest, FiveCardsEachTheRestInTheDeckAndASeededFirstPlayer) {
  std::set<Seat> first_players;
  for (int players = 3; players <= 6; ++players) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      std::unique_ptr<State> state = *Hedonia().NewMatch({.num_players = players, .seed = seed});
      const Position& p = PositionOf(*state);
      AssetCounts all = Of({});
      for (int i = 0; i < p.deck_size; ++i) ++all[p.deck[i]];
      for (Seat s = 0; s < players; ++s) {
        EXPECT_EQ(Total(p.hands[s]), kHandSize);
        for (int kind = 0; kind < kNumAssetKinds; ++kind) all[kind] += p.hands[s][kind];
      }
      EXPECT_EQ(p.deck_size, kNumAssets - kHandSize * players);
      EXPECT_EQ(p.deck_size % players, 0) << "every draw gives each player a card";
      for (int kind = 0; kind < kNumAssetKinds; ++kind) EXPECT_EQ(all[kind], kAssetCounts[kind]);
      EXPECT_EQ(p.direction, kClockwise);
      EXPECT_EQ(state->SeatsToAct(), Seats{p.active});
      if (players == 4) first_players.insert(p.active);
    }
  }
  EXPECT_EQ(first_players.size(), 4u) << "the seed picks the first active player";
}

TEST(HedoniaDealTest, TheAssetTableHoldsSixtyCards) {
  int cards = 0;
  for (int count : kAssetCounts) cards += count;
  EXPECT_EQ(cards, kNumAssets);
}

// ---------------------------------------------------------------- The end

// Plays a match with the first legal action everywhere; returns the actions.
int PlayOut(State& state) {
  std::vector<Action> legal;
  int actions = 0;
  while (!state.IsOver()) {
    const Seat seat = state.SeatsToAct()[0];
    state.LegalActions(seat, &legal);
    EXPECT_THAT(state.Apply(seat, legal[actions % legal.size()]), IsOk());
    ++actions;
  }
  return actions;
}

TEST(HedoniaEndTest, EveryCardIsOfferedBeforeTheMatchEnds) {
  for (int players = 3; players <= 6; ++players) {
    std::unique_ptr<State> state = *Hedonia().NewMatch({.num_players = players, .seed = 11});
    EXPECT_EQ(PlayOut(*state), 2 * kNumAssets) << "one offer and one claim per card";
    EXPECT_LE(2 * kNumAssets, Hedonia().info().max_actions);
    const Position& p = PositionOf(*state);
    EXPECT_EQ(p.round, kNumAssets / players);
    EXPECT_EQ(p.deck_size, 0);
    int placed = Total(p.king);
    for (Seat s = 0; s < players; ++s) {
      EXPECT_EQ(Total(p.hands[s]), 0);
      placed += Total(p.treasuries[s]) + Total(p.shared[s]);
    }
    EXPECT_EQ(placed, kNumAssets);
  }
}

TEST(HedoniaEndTest, UnderDeckEmptyTheMatchEndsWhenTheDeckCannotRefillTheHands) {
  std::unique_ptr<State> state =
      *Hedonia().NewMatch({.num_players = 4, .seed = 11, .options = {{"end", "deck_empty"}}});
  // 40 cards in the deck: ten rounds with a draw, then one more round.
  EXPECT_EQ(PlayOut(*state), 11 * 8);
  const Position& p = PositionOf(*state);
  EXPECT_EQ(p.round, 11);
  EXPECT_EQ(p.deck_size, 0);
  for (Seat s = 0; s < 4; ++s) EXPECT_EQ(Total(p.hands[s]), 4) << "left in hand, unscored";
  const std::unique_ptr<View> seen = state->ViewFor(kSpectator);
  const HedoniaView& view = AsHedonia(*seen);
  EXPECT_EQ(view.rounds, 11);
  ASSERT_TRUE(view.players[1].hand.has_value()) << "every hand is shown at the end";
}

TEST(HedoniaEndTest, TheOptionsAreReadAndBadValuesRefused) {
  std::unique_ptr<State> state = *Hedonia().NewMatch(
      {.num_players = 3, .options = {{"offers", "onward"}, {"tie_break", "none"}}});
  EXPECT_EQ(AsHedonia(*state->ViewFor(0)).rules,
            (Rules{.offers = OfferRule::kOnward, .tie_break = TieBreak::kNone}));
  EXPECT_EQ(AsHedonia(*(*Hedonia().NewMatch({.num_players = 3}))->ViewFor(0)).rules, Rules{});
  EXPECT_THAT(Hedonia().NewMatch({.num_players = 3, .options = {{"offers", "right"}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("offers must be 'left' or 'onward', not 'right'")));
  EXPECT_THAT(Hedonia().NewMatch({.num_players = 3, .options = {{"tie_break", "seat"}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tie_break must be 'treasury' or 'none', not "
                                 "'seat'")));
  EXPECT_THAT(Hedonia().NewMatch({.num_players = 3, .options = {{"end", "never"}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("end must be 'hands_empty' or 'deck_empty', not 'never'")));
  EXPECT_THAT(Hedonia().NewMatch({.num_players = 7}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("3 to 6 players")));
}

// ---------------------------------------------------------------- Offers

TEST(HedoniaOfferTest, OffersGoOneByOneFromTheActivePlayerAndAreFaceUp) {
  Position p = Table(4, /*active=*/2);
  for (Seat s = 0; s < 4; ++s) p.hands[s] = Of({{kSnorkelPig, 1}, {kGrungle, 1}});
  auto state = HedoniaState::ForTesting(p);
  EXPECT_EQ(state->SeatsToAct(), Seats{2});
  EXPECT_THAT(state->LegalActions(2), ElementsAre(OfferAction(kSnorkelPig), OfferAction(kGrungle)));
  EXPECT_TRUE(state->LegalActions(3).empty());
  EXPECT_THAT(state->Apply(3, OfferAction(kGrungle)),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("seat 2 offers")));
  EXPECT_THAT(state->Apply(2, OfferAction(kDeathslayer)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no Deathslayer")));
  EXPECT_THAT(state->Apply(2, ClaimAction(L)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("offer a card")));
  EXPECT_EQ(state->position(), p) << "refusals change nothing";

  ASSERT_THAT(state->Apply(2, OfferAction(kGrungle)), IsOk());
  // Clockwise: into the gap on seat 2's left, between seats 2 and 3.
  EXPECT_EQ(state->position().table[2], kGrungle);
  EXPECT_EQ(Total(state->position().hands[2]), 1);
  // The next offerer sees it.
  EXPECT_EQ(state->SeatsToAct(), Seats{3});
  EXPECT_EQ(AsHedonia(*state->ViewFor(3)).table[2], kGrungle);
  for (Seat next : {3, 0, 1}) {
    EXPECT_EQ(state->SeatsToAct(), Seats{next});
    ASSERT_THAT(state->Apply(next, OfferAction(kSnorkelPig)), IsOk());
  }
  EXPECT_EQ(state->position().phase, Phase::kClaim);
  EXPECT_EQ(state->SeatsToAct(), (Seats{0, 1, 2, 3})) << "every seat claims at once";
}

// ---------------------------------------------------------------- Claims

TEST(HedoniaClaimTest, BothSidesShareOneSideTakesNeitherLeavesItToTheKing) {
  Position p = Table(3);
  p.hands[0] = Of({{kSnorkelPig, 1}});
  p.hands[1] = Of({{kBeardedHopper, 1}});
  p.hands[2] = Of({{kVeryRareEgg, 1}});
  auto state = HedoniaState::ForTesting(p);
  // Gap 0 (seats 0|1): the pig, claimed by seat 0 (left) and seat 1 (right).
  // Gap 1 (seats 1|2): the hopper, claimed by nobody.
  // Gap 2 (seats 2|0): the egg, claimed by seat 2 (left) alone.
  PlayRound(*state, {kSnorkelPig, kBeardedHopper, kVeryRareEgg}, {L, R, L});
  const Position& after = state->position();
  EXPECT_EQ(after.shared[0], Of({{kSnorkelPig, 1}}));
  EXPECT_EQ(after.king, Of({{kBeardedHopper, 1}}));
  EXPECT_EQ(after.treasuries[2], Of({{kVeryRareEgg, 1}}));
  EXPECT_EQ(after.treasuries[0], Of({}));
  EXPECT_EQ(after.treasuries[1], Of({}));
  ASSERT_TRUE(state->IsOver());
  // The shared pig: half a point to each side. The lone egg: 1 + 1 * 2.
  EXPECT_THAT(state->Scores(), ElementsAre(0.5, 0.5, 3.0));
  EXPECT_THAT(state->Ranks(), ElementsAre(2, 2, 1)) << "equal scores share a rank";
}

TEST(HedoniaClaimTest, SharedCardsScoreHalfTheirValueToEachNeighbourAndNoPower) {
  Position p = Table(4);
  p.shared[0] = Of({{kCursedSushi, 3}});  // seats 0 and 1: 3 / 2 each
  p.shared[1] = Of({{kGrungle, 1}});      // seats 1 and 2: 2 / 2 each
  p.shared[3] = Of({{kVeryRareEgg, 1}});  // seats 3 and 0: 1 / 2 each
  p.treasuries[2] = Of({{kSnorkelPig, 1}});
  p.phase = Phase::kOver;
  auto state = HedoniaState::ForTesting(p);
  // Three shared sushi carry no curse, the shared grungle grabs nothing and
  // the shared egg earns no rarity.
  EXPECT_THAT(state->Scores(), ElementsAre(2.0, 2.5, 2.0, 0.5));
  EXPECT_EQ(state->Reckon().treasuries[2], Of({{kSnorkelPig, 1}}));
}

TEST(HedoniaClaimTest, ClaimsAreSealedUntilEveryClaimIsIn) {
  std::unique_ptr<State> state = *Hedonia().NewMatch({.num_players = 4, .seed = 3});
  for (int i = 0; i < 4; ++i) {
    const Seat seat = state->SeatsToAct()[0];
    ASSERT_THAT(state->Apply(seat, state->LegalActions(seat)[0]), IsOk());
  }
  std::vector<std::unique_ptr<View>> before;
  for (Seat s = kSpectator; s < 4; ++s) before.push_back(state->ViewFor(s));

  ASSERT_THAT(state->Apply(2, ClaimAction(R)), IsOk());
  EXPECT_EQ(state->SeatsToAct(), (Seats{0, 1, 3}));
  EXPECT_THAT(state->Apply(2, ClaimAction(L)),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("claimed already")));
  for (Seat s = kSpectator; s < 4; ++s) {
    const std::unique_ptr<View> now = state->ViewFor(s);
    if (s == 2) {
      EXPECT_EQ(AsHedonia(*now).own_claim, R) << "a seat sees its own claim";
    } else {
      EXPECT_TRUE(now->Equals(*before[s + 1])) << "seat " << s << " learns nothing";
    }
  }
  // The state itself differs: the claim is in it.
  ASSERT_THAT(state->Apply(0, ClaimAction(L)), IsOk());
  ASSERT_THAT(state->Apply(1, ClaimAction(L)), IsOk());
  EXPECT_EQ(AsHedonia(*state->ViewFor(3)).last_claims, (std::vector<Side>(4, Side::kNone)));
  ASSERT_THAT(state->Apply(3, ClaimAction(R)), IsOk());
  // Revealed to everyone.
  for (Seat s = kSpectator; s < 4; ++s) {
    EXPECT_EQ(AsHedonia(*state->ViewFor(s)).last_claims, (std::vector<Side>{L, L, R, R}));
    EXPECT_EQ(AsHedonia(*state->ViewFor(s)).own_claim, Side::kNone);
  }
}

TEST(HedoniaClaimTest, ViewsShowOnlyTheObserversHandUntilTheEnd) {
  std::unique_ptr<State> state = *Hedonia().NewMatch({.num_players = 5, .seed = 8});
  for (Seat observer = kSpectator; observer < 5; ++observer) {
    const std::unique_ptr<View> seen = state->ViewFor(observer);
    const HedoniaView& view = AsHedonia(*seen);
    for (Seat s = 0; s < 5; ++s) {
      EXPECT_EQ(view.players[s].hand_size, kHandSize);
      EXPECT_EQ(view.players[s].hand.has_value(), s == observer);
    }
    EXPECT_EQ(view.deck_size, 35);
    EXPECT_TRUE(view.scores.empty());
  }
  PlayOut(*state);
  const std::unique_ptr<View> seen = state->ViewFor(kSpectator);
  const HedoniaView& view = AsHedonia(*seen);
  for (Seat s = 0; s < 5; ++s) EXPECT_TRUE(view.players[s].hand.has_value());
  EXPECT_EQ(view.scores, state->Scores());
}

TEST(HedoniaClaimTest, TheDealKeepsWhatTheObserverSeesAndLeavesOtherClaimsPending) {
  std::unique_ptr<State> state = *Hedonia().NewMatch({.num_players = 3, .seed = 5});
  for (int i = 0; i < 3; ++i) {
    const Seat seat = state->SeatsToAct()[0];
    ASSERT_THAT(state->Apply(seat, state->LegalActions(seat)[0]), IsOk());
  }
  ASSERT_THAT(state->Apply(0, ClaimAction(L)), IsOk());
  ASSERT_THAT(state->Apply(1, ClaimAction(L)), IsOk());
  const std::unique_ptr<Sampler> deal = MakeSampler();
  const std::unique_ptr<View> view = state->ViewFor(2);
  Rng rng(1);
  bool moved = false;
  for (int i = 0; i < 20; ++i) {
    absl::StatusOr<std::unique_ptr<State>> sample = deal->Sample(*view, rng);
    ASSERT_THAT(sample, IsOk());
    EXPECT_TRUE((*sample)->ViewFor(2)->Equals(*view));
    EXPECT_EQ(PositionOf(**sample).hands[2], PositionOf(*state).hands[2]);
    // Seat 2 cannot tell whether the others have claimed: in the deal they
    // have not, and the search chooses their claims.
    EXPECT_EQ((*sample)->SeatsToAct(), (Seats{0, 1, 2}));
    moved = moved || PositionOf(**sample).hands[0] != PositionOf(*state).hands[0];
  }
  EXPECT_TRUE(moved) << "other hands are dealt anew";
}

// ---------------------------------------------------------------- The record

TEST(HedoniaRecordTest, EverySeatSeesEveryPastRevealButNoSealedClaim) {
  Position p = Table(3);
  p.hands[0] = Of({{kRedSnatcher, 1}, {kSnorkelPig, 1}});
  p.hands[1] = Of({{kCursedSushi, 1}, {kMisdirection, 1}});
  p.hands[2] = Of({{kSnorkelPig, 1}, {kGrungle, 1}});
  auto state = HedoniaState::ForTesting(p);
  for (Seat s = kSpectator; s < 3; ++s) EXPECT_TRUE(AsHedonia(*state->ViewFor(s)).reveals.empty());

  // Round 1, seat 0 first: each takes its own card; seat 0's Red Snatcher
  // snatches the sushi seat 1 just took.
  PlayRound(*state, {kRedSnatcher, kCursedSushi, kSnorkelPig}, {L, L, L});
  const PastReveal first{.active = 0,
                         .direction = kClockwise,
                         .cards = {kRedSnatcher, kCursedSushi, kSnorkelPig, -1, -1, -1},
                         .claims = {L, L, L},
                         .snatched = {kCursedSushi, -1, -1, -1, -1, -1}};
  // Round 2, seat 1 first: seat 1 takes its Misdirection alone (play turns),
  // seats 0 and 2 share the Grungle, and the pig goes to the King.
  ASSERT_THAT(state->Apply(1, OfferAction(kMisdirection)), IsOk());
  ASSERT_THAT(state->Apply(2, OfferAction(kGrungle)), IsOk());
  ASSERT_THAT(state->Apply(0, OfferAction(kSnorkelPig)), IsOk());
  ASSERT_THAT(state->Apply(0, ClaimAction(R)), IsOk());
  for (Seat s = kSpectator; s < 3; ++s) {
    EXPECT_THAT(AsHedonia(*state->ViewFor(s)).reveals, ElementsAre(first))
        << "seat " << s << " sees round 1 and nothing of seat 0's claim";
  }
  ASSERT_THAT(state->Apply(1, ClaimAction(L)), IsOk());
  ASSERT_THAT(state->Apply(2, ClaimAction(L)), IsOk());
  ASSERT_TRUE(state->IsOver());
  const PastReveal second{.active = 1,
                          .direction = kClockwise,
                          .cards = {kSnorkelPig, kMisdirection, kGrungle, -1, -1, -1},
                          .claims = {R, L, L}};
  for (Seat s = kSpectator; s < 3; ++s) {
    EXPECT_THAT(AsHedonia(*state->ViewFor(s)).reveals, ElementsAre(first, second));
  }
  EXPECT_EQ(state->position().direction, kCounterclockwise);
  EXPECT_EQ(state->position().treasuries[0], Of({{kRedSnatcher, 1}, {kCursedSushi, 1}}));
  EXPECT_THAT(state->ViewFor(kSpectator)->ToString(),
              HasSubstr("round 1 reveal (seat 0 first, clockwise): cards by "
                        "gap Red Snatcher, Cursed Sushi, Snorkel Pig; claims "
                        "by seat left, left, left; gap 0 snatched Cursed "
                        "Sushi"));

  // The record is history beside the position: it changes no fingerprint,
  // and a clone keeps it.
  EXPECT_EQ(HedoniaState::ForTesting(state->position())->ToString(), state->ToString());
  EXPECT_THAT(static_cast<const HedoniaState&>(*state->Clone()).reveals(),
              ElementsAre(first, second));
}

TEST(HedoniaRecordTest, TheDealKeepsThePastReveals) {
  std::unique_ptr<State> state = *Hedonia().NewMatch({.num_players = 4, .seed = 21});
  // Three rounds and one offer into the fourth.
  for (int i = 0; i < 3 * 8 + 1; ++i) {
    const Seat seat = state->SeatsToAct()[0];
    const std::vector<Action> legal = state->LegalActions(seat);
    ASSERT_THAT(state->Apply(seat, legal[i % legal.size()]), IsOk());
  }
  const auto& played = static_cast<const HedoniaState&>(*state);
  ASSERT_EQ(played.reveals().size(), 3u);
  const std::unique_ptr<Sampler> deal = MakeSampler();
  Rng rng(4);
  for (Seat observer = 0; observer < 4; ++observer) {
    const std::unique_ptr<View> view = state->ViewFor(observer);
    absl::StatusOr<std::unique_ptr<State>> sample = deal->Sample(*view, rng);
    ASSERT_THAT(sample, IsOk());
    EXPECT_EQ(static_cast<const HedoniaState&>(**sample).reveals(), played.reveals());
    EXPECT_TRUE((*sample)->ViewFor(observer)->Equals(*view));
  }
}

TEST(HedoniaRecordTest, TheDealRefusesARecordNoMatchMakes) {
  std::unique_ptr<State> state = *Hedonia().NewMatch({.num_players = 3, .seed = 2});
  HedoniaView view = AsHedonia(*state->ViewFor(0));
  view.reveals.push_back({.active = 7});
  Rng rng(1);
  EXPECT_THAT(MakeSampler()->Sample(view, rng),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no Hedonia match")));
}

// ---------------------------------------------------------------- At once

TEST(HedoniaAtOnceTest, ARedSnatcherTakesTheBestCardOfTheOtherPlayerBesideIt) {
  Position p = Table(3);
  p.hands[0] = Of({{kRedSnatcher, 1}});
  p.hands[1] = Of({{kGrungle, 1}});
  p.hands[2] = Of({{kSnorkelPig, 1}});
  p.treasuries[1] = Of({{kSnorkelPig, 1}, {kVeryRareEgg, 1}});
  auto state = HedoniaState::ForTesting(p);
  // Seat 0 claims the Red Snatcher it offered (gap 0, alone). Seat 1 claims
  // gap 1 (its own Grungle, worth 2) alone; seat 2 its own pig. The cards
  // are placed first, so the snatcher takes the Grungle just claimed.
  PlayRound(*state, {kRedSnatcher, kGrungle, kSnorkelPig}, {L, L, L});
  EXPECT_EQ(state->position().treasuries[0], Of({{kRedSnatcher, 1}, {kGrungle, 1}}));
  EXPECT_EQ(state->position().treasuries[1], Of({{kSnorkelPig, 1}, {kVeryRareEgg, 1}}));
}

TEST(HedoniaAtOnceTest, ARedSnatcherClaimedByItsReceiverRobsItsOfferer) {
  Position p = Table(3);
  p.hands[0] = Of({{kRedSnatcher, 1}});
  p.hands[1] = Of({{kSnorkelPig, 1}});
  p.hands[2] = Of({{kSnorkelPig, 1}});
  p.treasuries[0] = Of({{kVeryRareEgg, 1}, {kDeathslayer, 1}});
  auto state = HedoniaState::ForTesting(p);
  PlayRound(*state, {kRedSnatcher, kSnorkelPig, kSnorkelPig}, {R, R, R});
  // Seat 1 took the snatcher from gap 0 and robs seat 0; seat 0 took seat
  // 2's pig, seat 2 seat 1's.
  EXPECT_EQ(state->position().treasuries[1], Of({{kRedSnatcher, 1}, {kDeathslayer, 1}}));
  EXPECT_EQ(state->position().treasuries[0], Of({{kVeryRareEgg, 1}, {kSnorkelPig, 1}}));
}

TEST(HedoniaAtOnceTest, ASharedOrUnclaimedRedSnatcherSnatchesNothing) {
  for (const std::vector<Side>& claims : {std::vector<Side>{L, R, L}, {R, L, L}}) {
    Position p = Table(3);
    p.hands[0] = Of({{kRedSnatcher, 1}});
    p.hands[1] = Of({{kSnorkelPig, 1}});
    p.hands[2] = Of({{kSnorkelPig, 1}});
    p.treasuries[0] = Of({{kGrungle, 1}});
    p.treasuries[1] = Of({{kGrungle, 1}});
    auto state = HedoniaState::ForTesting(p);
    PlayRound(*state, {kRedSnatcher, kSnorkelPig, kSnorkelPig}, claims);
    const Position& after = state->position();
    EXPECT_EQ(after.treasuries[0][kGrungle], 1);
    EXPECT_EQ(after.treasuries[1][kGrungle], 1);
    EXPECT_EQ(after.shared[0][kRedSnatcher] + after.king[kRedSnatcher], 1);
  }
}

// Four players, each with two cards; seat 1 is active and offers first.
Position MisdirectionTable() {
  Position p = Table(4, /*active=*/1);
  for (Seat s = 0; s < 4; ++s) p.hands[s] = Of({{kSnorkelPig, 2}});
  p.hands[1] = Of({{kSnorkelPig, 1}, {kMisdirection, 1}});
  p.hands[2] = Of({{kSnorkelPig, 1}, {kMisdirection, 1}});
  return p;
}

// Plays a round's offers, each seat its first legal card, expecting them
// in the order of `offers` (seat, gap) and each in its gap.
void ExpectOffers(HedoniaState& state, const std::vector<std::pair<Seat, int>>& offers) {
  for (auto [seat, gap] : offers) {
    EXPECT_EQ(state.SeatsToAct(), Seats{seat});
    ASSERT_THAT(state.Apply(seat, state.LegalActions(seat)[0]), IsOk());
    EXPECT_GE(state.position().table[gap], 0) << "seat " << seat << " offers into gap " << gap;
  }
}

TEST(HedoniaAtOnceTest, AfterAMisdirectionTheOrderTurnsButOffersStillGoToTheLeft) {
  auto state = HedoniaState::ForTesting(MisdirectionTable());
  // Seat 1 offers the Misdirection into gap 1 and claims it alone.
  PlayRound(*state, {kSnorkelPig, kMisdirection, kSnorkelPig, kSnorkelPig}, {L, L, L, L});
  EXPECT_EQ(state->position().treasuries[1][kMisdirection], 1);
  EXPECT_EQ(state->position().direction, kCounterclockwise);
  // "The active player in each round is the player to the left of the
  // active player from the previous round": seat 2.
  EXPECT_EQ(state->position().active, 2);
  // "Starting from the active player and moving in the direction of play"
  // — now counterclockwise — "each player chooses one of their available
  // asset cards to offer to their opponent to their left": into the gap on
  // the offerer's left, gap s.
  ExpectOffers(*state, {{2, 2}, {1, 1}, {0, 0}, {3, 3}});
  // Keeping the card you offered — still on your left — is the default.
  EXPECT_THAT(state->LegalActions(0), ElementsAre(ClaimAction(L), ClaimAction(R)));
}

TEST(HedoniaAtOnceTest, UnderOffersOnwardAMisdirectionTurnsTheOffersRight) {
  auto state = HedoniaState::ForTesting(MisdirectionTable(), {.offers = OfferRule::kOnward});
  PlayRound(*state, {kSnorkelPig, kMisdirection, kSnorkelPig, kSnorkelPig}, {L, L, L, L});
  EXPECT_EQ(state->position().direction, kCounterclockwise);
  // The next active player is one seat on the other way: seat 0, not seat 2.
  EXPECT_EQ(state->position().active, 0);
  // Offers go counterclockwise, each into the gap on the offerer's right.
  ExpectOffers(*state, {{0, 3}, {3, 2}, {2, 1}, {1, 0}});
  // Keeping the card you offered — now on your right — is the default.
  EXPECT_THAT(state->LegalActions(0), ElementsAre(ClaimAction(R), ClaimAction(L)));
  const std::unique_ptr<View> seen = state->ViewFor(0);
  EXPECT_EQ(AsHedonia(*seen).rules.offers, OfferRule::kOnward);
  EXPECT_FALSE(AsHedonia(*seen).direction == kClockwise);
}

TEST(HedoniaAtOnceTest, ASharedMisdirectionChangesNothingAndTwoCancelOut) {
  {
    auto state = HedoniaState::ForTesting(MisdirectionTable());
    // Seat 2 claims right: the Misdirection in gap 1 is shared.
    PlayRound(*state, {kSnorkelPig, kMisdirection, kSnorkelPig, kSnorkelPig}, {L, L, R, L});
    EXPECT_EQ(state->position().shared[1][kMisdirection], 1);
    EXPECT_EQ(state->position().direction, kClockwise);
    EXPECT_EQ(state->SeatsToAct(), Seats{2});
  }
  {
    auto state = HedoniaState::ForTesting(MisdirectionTable());
    PlayRound(*state, {kSnorkelPig, kMisdirection, kMisdirection, kSnorkelPig}, {L, L, L, L});
    EXPECT_EQ(state->position().direction, kClockwise);
    EXPECT_EQ(state->SeatsToAct(), Seats{2});
  }
}

// ---------------------------------------------------------------- Powers

// A finished table: `active` was the last active player, so scoring starts
// with the next seat in `direction`.
Position Finished(int players, Seat active = 2, int direction = kClockwise) {
  Position p = Table(players, active);
  p.direction = direction;
  p.phase = Phase::kOver;
  return p;
}

std::vector<double> ScoresOf(const Position& p) { return HedoniaState::ForTesting(p)->Scores(); }

TEST(HedoniaPowerTest, SnorkelPigsScoreAsAPack) {
  Position p = Finished(3);
  p.treasuries[0] = Of({{kSnorkelPig, 3}});
  p.treasuries[1] = Of({{kSnorkelPig, 1}});
  // Three pigs: 3, and each 1 more for each of the other two: 3 + 3 * 2.
  EXPECT_THAT(ScoresOf(p), ElementsAre(9, 1, 0));
}

TEST(HedoniaPowerTest, BeardedHoppersRaidOnlyTheNextPlayersCarrots) {
  Position p = Finished(3);  // seat 0 acts first
  p.treasuries[0] = Of({{kBeardedHopper, 1}});
  p.treasuries[1] = Of({{kMagicCarrot, 2}});
  p.treasuries[2] = Of({{kMagicCarrot, 1}});
  auto state = HedoniaState::ForTesting(p);
  EXPECT_EQ(state->Reckon().treasuries[0], Of({{kBeardedHopper, 1}, {kMagicCarrot, 1}}));
  EXPECT_EQ(state->Reckon().treasuries[1], Of({{kMagicCarrot, 1}}));
  // The raided carrot is fed: 1 + 1 + 2; the others score 1 + 1 alone.
  EXPECT_THAT(state->Scores(), ElementsAre(4, 2, 2));
}

TEST(HedoniaPowerTest, ABeardedHopperNeverRaidsThePreviousPlayer) {
  // Seat 0 acts first; its next player, seat 1, holds no carrot, its
  // previous player, seat 2, holds two. Both of seat 0's hoppers come home
  // empty-handed.
  Position p = Finished(3);
  p.treasuries[0] = Of({{kBeardedHopper, 2}});
  p.treasuries[2] = Of({{kMagicCarrot, 2}});
  auto state = HedoniaState::ForTesting(p);
  const Reckoning r = state->Reckon();
  EXPECT_EQ(r.treasuries[0], Of({{kBeardedHopper, 2}}));
  EXPECT_EQ(r.treasuries[2], Of({{kMagicCarrot, 2}}));
  EXPECT_THAT(state->Scores(), ElementsAre(2, 0, 2 * (1 + kCarrotBonus)));
  // Counterclockwise seat 2 is seat 0's next player: one hopper raids a
  // carrot each.
  p.direction = kCounterclockwise;
  EXPECT_EQ(HedoniaState::ForTesting(p)->Reckon().treasuries[0],
            Of({{kBeardedHopper, 2}, {kMagicCarrot, 2}}));
}

TEST(HedoniaPowerTest, MagicCarrotsScoreMoreWithABeardedHopper) {
  Position p = Finished(3);
  p.treasuries[0] = Of({{kMagicCarrot, 2}});
  p.treasuries[2] = Of({{kMagicCarrot, 1}, {kBeardedHopper, 1}});
  p.treasuries[1] = Of({{kMagicCarrot, 1}});
  // Seat 2's hopper raids seat 0 (next): seat 0 keeps one carrot, unfed.
  EXPECT_THAT(ScoresOf(p),
              ElementsAre(1 + kCarrotBonus, 1 + kCarrotBonus, 1 + 2 * (1 + kFedCarrotBonus)));
}

TEST(HedoniaPowerTest, AMagicCarrotWithoutAHopperScoresOneMore) {
  Position p = Finished(3);
  p.treasuries[0] = Of({{kMagicCarrot, 1}});
  p.treasuries[1] = Of({{kMagicCarrot, 3}});
  p.shared[1] = Of({{kMagicCarrot, 1}});  // seats 1 and 2: no power
  auto state = HedoniaState::ForTesting(p);
  EXPECT_EQ(kCarrotBonus, 1);
  EXPECT_EQ(state->Reckon().power_points[0], 1);
  EXPECT_EQ(state->Reckon().power_points[1], 3);
  EXPECT_THAT(state->Scores(), ElementsAre(2, 6.5, 0.5));
}

TEST(HedoniaPowerTest, DoomSnailsDestroyTheNextPlayersMostValuableCard) {
  Position p = Finished(3);
  p.treasuries[0] = Of({{kDoomSnail, 1}});
  p.treasuries[1] = Of({{kSnorkelPig, 1}, {kCursedSushi, 1}, {kDeathslayer, 1}});
  auto state = HedoniaState::ForTesting(p);
  EXPECT_EQ(state->Reckon().treasuries[1], Of({{kSnorkelPig, 1}, {kCursedSushi, 1}}));
  EXPECT_EQ(MostValuable(Of({{kMisdirection, 1}, {kRoyalPoofin, 1}})), kRoyalPoofin)
      << "equal values: the kind first in the table";
}

TEST(HedoniaPowerTest, ADoomSnailScoresAPointForEachCardItDestroys) {
  Position p = Finished(3);  // seat 0 acts first
  p.treasuries[0] = Of({{kDoomSnail, 3}});
  p.treasuries[1] = Of({{kSnorkelPig, 1}, {kGrungle, 1}});
  p.treasuries[2] = Of({{kDoomSnail, 1}});  // its next player: seat 0
  auto state = HedoniaState::ForTesting(p);
  const Reckoning r = state->Reckon();
  // Seat 0's three snails find two cards next door: 2 points, and the third
  // snail finds nothing and scores nothing. Seat 2's snail then destroys one
  // of seat 0's snails: 1 point, and seat 0's points stay.
  EXPECT_EQ(kDoomFeast, 1);
  EXPECT_EQ(r.treasuries[1], Of({}));
  EXPECT_EQ(r.treasuries[0], Of({{kDoomSnail, 2}}));
  EXPECT_THAT(r.power_points, ::testing::ElementsAreArray({2, 0, 1, 0, 0, 0}));
  EXPECT_EQ(r.points_by_power[kDoomSnail], 3);
  EXPECT_THAT(state->Scores(), ElementsAre(2 + 2, 0, 1 + 1));
}

TEST(HedoniaPowerTest, RoyalPoofinsFetchFromTheKingAndLaterKindsStillAct) {
  Position p = Finished(3);
  p.king = Of({{kSnorkelPig, 1}, {kGrungle, 1}});
  p.treasuries[0] = Of({{kRoyalPoofin, 1}});
  p.treasuries[2] = Of({{kDeathslayer, 1}});
  auto state = HedoniaState::ForTesting(p);
  const Reckoning r = state->Reckon();
  // The poofin brings the grungle, which then grabs seat 2's deathslayer,
  // which then slays nothing (no other player holds a monster).
  EXPECT_EQ(r.treasuries[0], Of({{kRoyalPoofin, 1}, {kGrungle, 1}, {kDeathslayer, 1}}));
  EXPECT_THAT(state->Scores(), ElementsAre(6, 0, 0));
}

TEST(HedoniaPowerTest, ACardArrivingAfterItsKindActedDoesNotAct) {
  Position p = Finished(3);
  p.king = Of({{kSnorkelPig, 1}});
  p.treasuries[0] = Of({{kSnorkelPig, 2}, {kRoyalPoofin, 1}});
  // Two pigs made a pack of two (2 more points); the third came too late.
  EXPECT_THAT(ScoresOf(p), ElementsAre(3 + 2 + 2, 0, 0));
}

TEST(HedoniaPowerTest, VeryRareEggsAreWorthMoreTheFewerAreInTreasuries) {
  Position p = Finished(3);
  p.treasuries[0] = Of({{kVeryRareEgg, 1}});
  p.treasuries[1] = Of({{kVeryRareEgg, 1}});
  p.shared[2] = Of({{kVeryRareEgg, 1}});
  // Two of the three eggs in treasuries, one not: each scores 1 + 1 * 1;
  // seat 2 and seat 0 also halve the shared one.
  EXPECT_THAT(ScoresOf(p), ElementsAre(2.5, 2, 0.5));
  // Seat 1's egg in the King's treasury instead: seat 0's is the only one
  // in a treasury, 1 + 1 * 2.
  p.treasuries[1] = Of({});
  p.king = Of({{kVeryRareEgg, 1}});
  EXPECT_THAT(ScoresOf(p), ElementsAre(3.5, 0, 0.5));
}

TEST(HedoniaPowerTest, GrunglesGrabThePreviousPlayersMostValuableCard) {
  Position p = Finished(3);
  p.treasuries[0] = Of({{kGrungle, 1}});
  p.treasuries[2] = Of({{kCursedSushi, 1}, {kMisdirection, 1}});
  // The Misdirection (2) before the sushi (1); seat 2's lone sushi scores
  // 1 + 1.
  EXPECT_THAT(ScoresOf(p), ElementsAre(4, 0, 2));
  // Counterclockwise, seat 0's previous player is seat 1.
  p.direction = kCounterclockwise;
  p.treasuries[1] = Of({{kSnorkelPig, 1}});
  p.active = 1;
  EXPECT_THAT(ScoresOf(p), ElementsAre(3, 0, 4));
}

TEST(HedoniaPowerTest, DeathslayersSlayTheNearestMonsterAGrungleFirst) {
  Position p = Finished(4, /*active=*/3);  // seat 0 acts first
  p.treasuries[0] = Of({{kDeathslayer, 1}});
  p.treasuries[1] = Of({{kSnorkelPig, 1}});
  p.treasuries[2] = Of({{kDoomSnail, 1}, {kGrungle, 1}});
  p.treasuries[3] = Of({{kGrungle, 1}});
  auto state = HedoniaState::ForTesting(p);
  const Reckoning r = state->Reckon();
  // Seat 2's snail eats seat 3's grungle (1 point); seat 2's grungle grabs
  // seat 1's pig; seat 0's deathslayer passes seat 1 and slays seat 2's
  // grungle.
  EXPECT_EQ(r.treasuries[2], Of({{kDoomSnail, 1}, {kSnorkelPig, 1}}));
  EXPECT_EQ(r.power_points[0], kSlayBonus);
  EXPECT_THAT(state->Scores(), ElementsAre(2 + 1, 0, 1 + 1 + 1, 0));
}

TEST(HedoniaPowerTest, OneCursedSushiIsAFeastTwoAreACurse) {
  Position p = Finished(3);
  p.treasuries[0] = Of({{kCursedSushi, 1}});
  p.treasuries[1] = Of({{kCursedSushi, 2}});
  EXPECT_THAT(ScoresOf(p), ElementsAre(1 + 1, 2 - 2, 0));
}

TEST(HedoniaPowerTest, ALoneCursedSushiScoresOneMoreAndThreeAreCursed) {
  Position p = Finished(4);
  p.treasuries[0] = Of({{kCursedSushi, 1}});
  p.treasuries[2] = Of({{kCursedSushi, 3}});
  p.shared[0] = Of({{kCursedSushi, 1}});  // seats 0 and 1: half a point each
  auto state = HedoniaState::ForTesting(p);
  const Reckoning r = state->Reckon();
  EXPECT_EQ(kSushiFeast, 1);
  EXPECT_EQ(r.power_points[0], kSushiFeast) << "a shared sushi is not owned";
  EXPECT_EQ(r.power_points[2], -3 * kSushiCurse);
  EXPECT_EQ(r.points_by_power[kCursedSushi], 1 - 3);
  EXPECT_THAT(state->Scores(), ElementsAre(2.5, 0.5, 3 - 3, 0));
}

TEST(HedoniaPowerTest, AGrungleCanBringTheCurse) {
  Position p = Finished(3);
  p.treasuries[0] = Of({{kGrungle, 1}, {kCursedSushi, 1}});
  p.treasuries[2] = Of({{kCursedSushi, 1}});
  // The grab brings seat 0 a second sushi: 2 + 2 - 2, not 2 + 1 + 1.
  EXPECT_THAT(ScoresOf(p), ElementsAre(2 + 2 - 2, 0, 0));
}

// ---------------------------------------------------------------- Order

TEST(HedoniaOrderTest, DoomSnailsActBeforeEggsSoTheSurvivorIsRarer) {
  Position p = Finished(3);
  p.treasuries[0] = Of({{kDoomSnail, 1}});
  p.treasuries[1] = Of({{kVeryRareEgg, 1}});
  p.treasuries[2] = Of({{kVeryRareEgg, 1}});
  // The snail destroys seat 1's egg (1 + 1 for seat 0); seat 2's is then
  // the only one in a treasury: 1 + 2. Were eggs counted first, it would
  // score 1 + 1 = 2.
  EXPECT_THAT(ScoresOf(p), ElementsAre(2, 0, 3));
}

TEST(HedoniaOrderTest, WithinAKindPlayersActFromTheNextActivePlayer) {
  Position p = Finished(3);
  p.treasuries[0] = Of({{kDoomSnail, 1}});
  p.treasuries[1] = Of({{kDoomSnail, 1}});
  p.treasuries[2] = Of({{kCursedSushi, 1}});
  // Seat 2 was active: seat 0 acts first and destroys seat 1's snail before
  // it can act, so seat 2 keeps its sushi (1 + 1).
  EXPECT_THAT(ScoresOf(p), ElementsAre(1 + 1, 0, 2));
  // Seat 0 was active: seat 1's snail acts first and destroys the sushi,
  // then seat 0's destroys it; its point stays.
  p.active = 0;
  EXPECT_THAT(ScoresOf(p), ElementsAre(1 + 1, 1, 0));
}

// Three players, one card each in hand, seat 2's a Misdirection; seats 1
// and 2 own a Doom Snail, seat 0 a Very Rare Egg. Seat 2 is active: it offers
// into gap 2, seat 0 into gap 0, seat 1 into gap 1; seats 0 and 1 share
// seat 0's pig, seat 1's pig goes to the King, and seat 2 takes its own
// Misdirection alone in the last round.
std::unique_ptr<HedoniaState> LastRoundMisdirection(Rules rules = {}) {
  Position p = Table(3, /*active=*/2);
  p.hands[0] = Of({{kSnorkelPig, 1}});
  p.hands[1] = Of({{kSnorkelPig, 1}});
  p.hands[2] = Of({{kMisdirection, 1}});
  p.treasuries[0] = Of({{kVeryRareEgg, 1}});
  p.treasuries[1] = Of({{kDoomSnail, 1}});
  p.treasuries[2] = Of({{kDoomSnail, 1}});
  auto state = HedoniaState::ForTesting(p, rules);
  PlayRound(*state, {kSnorkelPig, kSnorkelPig, kMisdirection}, {L, R, L});
  return state;
}

TEST(HedoniaOrderTest, AMisdirectionInTheLastRoundTurnsTheScoringOrder) {
  auto state = LastRoundMisdirection();
  ASSERT_TRUE(state->IsOver());
  ASSERT_EQ(state->position().direction, kCounterclockwise);
  // "Starting from the next active player in the current direction of
  // play": the next active player is seat 0, to the left of seat 2; then
  // counterclockwise, seat 2 before seat 1. Seat 2's snail destroys seat 1's
  // (the next player counterclockwise) before it acts, so seat 0's egg
  // survives: 1 + 1 * 2, and half the pig. Seat 2: its snail, its point and
  // its Misdirection.
  const Reckoning r = state->Reckon();
  EXPECT_EQ(r.treasuries[0], Of({{kVeryRareEgg, 1}}));
  EXPECT_EQ(r.treasuries[1], Of({}));
  EXPECT_THAT(state->Scores(), ElementsAre(3.5, 0.5, 1 + 1 + 2));
}

TEST(HedoniaOrderTest, UnderOffersOnwardScoringStartsOneSeatOnTheOtherWay) {
  auto state = LastRoundMisdirection({.offers = OfferRule::kOnward});
  ASSERT_TRUE(state->IsOver());
  // The next active player is seat 1, one seat on counterclockwise: its
  // snail destroys seat 0's egg before seat 2's snail destroys it; both
  // snails score their point.
  const Reckoning r = state->Reckon();
  EXPECT_EQ(r.treasuries[0], Of({}));
  EXPECT_EQ(r.treasuries[1], Of({}));
  EXPECT_THAT(state->Scores(), ElementsAre(0.5, 0.5 + 1, 1 + 1 + 2));
}

// ---------------------------------------------------------------- Ranks

// Four players on 3 points each, in different ways: seat 0 owns a
// Misdirection and a Red Snatcher; seat 1 two Red Snatchers and half a
// shared Misdirection; seat 2 a Red Snatcher and halves of two shared
// Misdirections; seat 3 a Misdirection and half a shared one.
Position FourOnThree() {
  Position p = Finished(4);
  p.treasuries[0] = Of({{kMisdirection, 1}, {kRedSnatcher, 1}});
  p.treasuries[1] = Of({{kRedSnatcher, 2}});
  p.treasuries[2] = Of({{kRedSnatcher, 1}});
  p.treasuries[3] = Of({{kMisdirection, 1}});
  p.shared[1] = Of({{kMisdirection, 1}});  // seats 1 and 2
  p.shared[2] = Of({{kMisdirection, 1}});  // seats 2 and 3
  return p;
}

TEST(HedoniaRankTest, EqualScoresGoToWhoOwnsMoreValueThenMoreCards) {
  auto state = HedoniaState::ForTesting(FourOnThree());
  ASSERT_THAT(state->Scores(), ElementsAre(3, 3, 3, 3));
  // Treasury value 3, 2, 1, 2; seats 1 and 3 own 2 cards and 1.
  EXPECT_THAT(state->Ranks(), ElementsAre(1, 2, 4, 3));
  // A higher score ranks first, whatever the treasury: half a shared pig
  // more puts seats 1 and 2 ahead.
  Position p = FourOnThree();
  ++p.shared[1][kSnorkelPig];
  auto richer = HedoniaState::ForTesting(p);
  ASSERT_THAT(richer->Scores(), ElementsAre(3, 3.5, 3.5, 3));
  EXPECT_THAT(richer->Ranks(), ElementsAre(3, 1, 2, 4));
}

TEST(HedoniaRankTest, UnderTieBreakNoneEqualScoresShareTheRank) {
  auto state = HedoniaState::ForTesting(FourOnThree(), {.tie_break = TieBreak::kNone});
  EXPECT_THAT(state->Ranks(), ElementsAre(1, 1, 1, 1));
}

// ---------------------------------------------------------------- Text

TEST(HedoniaTextTest, ActionsAndStatesReadWell) {
  Position p = Table(3);
  p.hands[0] = Of({{kVeryRareEgg, 1}});
  p.hands[1] = Of({{kGrungle, 1}});
  p.hands[2] = Of({{kGrungle, 1}});
  auto state = HedoniaState::ForTesting(p);
  EXPECT_EQ(state->ActionToString(0, OfferAction(kVeryRareEgg)), "offer a Very Rare Egg");
  ASSERT_THAT(state->Apply(0, OfferAction(kVeryRareEgg)), IsOk());
  EXPECT_EQ(state->ActionToString(0, ClaimAction(L)), "claim left (Very Rare Egg)");
  EXPECT_EQ(state->ActionToString(1, ClaimAction(R)), "claim right (Very Rare Egg)");
  EXPECT_EQ(state->ActionToString(1, ClaimAction(L)), "claim left");
  EXPECT_EQ(state->ActionToString(1, Action(99)), "(not an action)");
  EXPECT_THAT(state->Apply(1, Action(99)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("offer a card")));
  EXPECT_THAT(state->ViewFor(1)->ToString(), HasSubstr("gap 0-1: offered Very Rare Egg"));
  EXPECT_THAT(state->ViewFor(1)->Summary(), HasSubstr("round 1 offers"));
  // Canonical: a claim changes the string, and equal states give equal ones.
  ASSERT_THAT(state->Apply(1, OfferAction(kGrungle)), IsOk());
  ASSERT_THAT(state->Apply(2, OfferAction(kGrungle)), IsOk());
  std::unique_ptr<State> left = state->Clone();
  std::unique_ptr<State> right = state->Clone();
  ASSERT_THAT(left->Apply(0, ClaimAction(L)), IsOk());
  ASSERT_THAT(right->Apply(0, ClaimAction(R)), IsOk());
  EXPECT_NE(left->ToString(), right->ToString());
  EXPECT_EQ(left->ToString(), left->Clone()->ToString());
}

}  // namespace
}  // namespace hoard::engine::hedonia
