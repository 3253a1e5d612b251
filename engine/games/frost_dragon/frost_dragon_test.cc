#include "engine/games/frost_dragon/frost_dragon.h"

#include <array>
#include <bit>
#include <map>
#include <memory>
#include <set>

#include "engine/games/frost_dragon/frost_dragon_stats.h"
#include "engine/registry.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::engine::frost_dragon {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::DoubleEq;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const Game& FrostDragon() { return **FindGame("frost_dragon"); }

int C(int kingdom, int rank) { return KingdomCard(kingdom, rank); }

CardSet Cards(const std::vector<int>& cards) {
  CardSet set = 0;
  for (int card : cards) set |= Bit(card);
  return set;
}

// A quest in its challenges: seat s holds hands[s], stands on spaces[s]
// (0 if not given) and has boasted boasts[s]; trump is Glacier; the Fate
// is the last seat, so seat 0 boasted first; `leader` leads. The cards no
// one holds lie out of play.
Position Quest(const std::vector<std::vector<int>>& hands, const std::vector<int>& boasts,
               Seat leader = 0, const std::vector<int>& spaces = {}) {
  Position p;
  p.num_players = static_cast<int>(hands.size());
  p.fate = p.num_players - 1;
  p.trump = kGlacier;
  p.hand_size = static_cast<int>(hands[0].size());
  CardSet held = 0;
  for (Seat s = 0; s < p.num_players; ++s) {
    p.hands[s] = Cards(hands[s]);
    held |= p.hands[s];
    Adventurer& a = p.adventurers[s];
    a.space = spaces.empty() ? 0 : spaces[s];
    a.boast = boasts[s];
    a.marker = a.space + a.boast;
    a.reached_marker = a.boast == 0;
  }
  p.out_of_play = Rules{}.Deck() & ~held;
  p.phase = Phase::kPlay;
  p.to_act = leader;
  p.challenge.leader = leader;
  p.rng = Rng(7);
  return p;
}

Action Play(int card, int as = 0) { return Move::Play(card, as).Encode(); }

// Plays the first legal action of each seat to act until the quest under
// way is over (or the match).
void PlayOutQuest(FrostDragonState& state) {
  const int quest = state.position().quest;
  while (!state.IsOver() && state.position().quest == quest) {
    const Seat seat = state.SeatsToAct()[0];
    ASSERT_THAT(state.Apply(seat, state.LegalActions(seat)[0]), IsOk()) << state.ToString();
  }
}

const Adventurer& Of(const FrostDragonState& state, Seat seat) {
  return state.position().adventurers[seat];
}

// ---------------------------------------------------------------- Setup

TEST(FrostDragonTest, RandomMatchesEnd) {
  for (const std::map<std::string, std::string>& options :
       std::vector<std::map<std::string, std::string>>{
           {},
           {{"trump", "every_quest"},
            {"lead_kingdom", "first_card_or_ally"},
            {"catapult", "until_used"}},
           // The most dragons the player count allows (kMaxDragonJokers).
           {{"ally_jokers", "0"}, {"treasure_jokers", "4"}, {"dragon_jokers", "max"}},
           {{"ally_jokers", "4"}, {"treasure_jokers", "0"}, {"dragon_jokers", "0"}},
       }) {
    for (int players = 2; players <= 4; ++players) {
      std::map<std::string, std::string> these = options;
      if (these["dragon_jokers"] == "max") {
        these["dragon_jokers"] = std::to_string(kMaxDragonJokers[players]);
      } else if (these["dragon_jokers"].empty()) {
        these.erase("dragon_jokers");
      }
      for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        std::unique_ptr<State> state =
            *FrostDragon().NewMatch({.num_players = players, .seed = seed, .options = these});
        Rng rng(seed);
        std::vector<Action> legal;
        int steps = 0;
        while (!state->IsOver()) {
          const Seat seat = state->SeatsToAct()[0];
          state->LegalActions(seat, &legal);
          ASSERT_FALSE(legal.empty()) << state->ToString();
          ASSERT_THAT(state->Apply(seat, legal[rng.Uniform(legal.size())]), IsOk());
          ASSERT_LT(++steps, FrostDragon().info().max_actions);
        }
        EXPECT_NE(static_cast<FrostDragonState&>(*state).position().end, EndReason::kNotOver);
      }
    }
  }
}

TEST(FrostDragonTest, OptionsSetTheDeckAndBadValuesAreRefused) {
  std::unique_ptr<State> state = *FrostDragon().NewMatch(
      {.num_players = 2,
       .seed = 1,
       .options = {{"ally_jokers", "1"}, {"treasure_jokers", "0"}, {"dragon_jokers", "4"}}});
  const Rules& rules = static_cast<FrostDragonState&>(*state).rules();
  EXPECT_EQ(rules.Deck(), kAllKingdomCards | Bit(kLeprechaun) | Bit(kDragonJoker) |
                              Bit(kDragonJoker + 1) | Bit(kDragonJoker + 2) |
                              Bit(kDragonJoker + 3));
  EXPECT_THAT(FrostDragon().NewMatch({.num_players = 2, .options = {{"treasure_jokers", "5"}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("treasure_jokers must be a number from 0 to 4, not '5'")));
  EXPECT_THAT(FrostDragon().NewMatch({.num_players = 2, .options = {{"max_quests", "0"}}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("max_quests")));
  EXPECT_THAT(FrostDragon().NewMatch({.num_players = 2, .options = {{"trump", "never"}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("trump must be 'once' or 'every_quest', not 'never'")));
  EXPECT_THAT(FrostDragon().NewMatch({.num_players = 2, .options = {{"lead_kingdom", "ally"}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("lead_kingdom must be 'first_card' or 'first_card_or_ally'")));
  EXPECT_THAT(FrostDragon().NewMatch({.num_players = 2, .options = {{"catapult", "never"}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("catapult must be 'next_quest' or 'until_used'")));
  EXPECT_EQ(
      static_cast<FrostDragonState&>(
          **FrostDragon().NewMatch({.num_players = 2,
                                    .options = {{"trump", "every_quest"},
                                                {"lead_kingdom", "first_card_or_ally"},
                                                {"catapult", "until_used"}}}))
          .rules(),
      (Rules{.trump_every_quest = true, .ally_sets_lead = true, .catapult_until_used = true}));
  EXPECT_EQ(static_cast<FrostDragonState&>(**FrostDragon().NewMatch({.num_players = 2})).rules(),
            Rules{})
      << "the rulebook's rules are the defaults";
  EXPECT_THAT(FrostDragon().NewMatch({.num_players = 5}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("2 to 4 players")));
}

TEST(FrostDragonTest, TheFateNamesTrumpThenTheDealFollowsTheChart) {
  for (int players = 2; players <= 4; ++players) {
    std::unique_ptr<State> state = *FrostDragon().NewMatch({.num_players = players, .seed = 3});
    auto& frost = static_cast<FrostDragonState&>(*state);
    const Seat fate = frost.position().fate;
    EXPECT_EQ(frost.position().phase, Phase::kChooseTrump);
    EXPECT_EQ(state->SeatsToAct(), Seats{fate});
    EXPECT_EQ(frost.position().hands[fate], 0u) << "nothing is dealt before trump is named";
    ASSERT_THAT(state->Apply(fate, Move::ChooseTrump(kRiver).Encode()), IsOk());
    const Position& p = frost.position();
    EXPECT_EQ(p.trump, kRiver);
    CardSet all = p.out_of_play;
    for (Seat s = 0; s < players; ++s) {
      EXPECT_EQ(std::popcount(p.hands[s]), kHandSizeChart[players]);
      EXPECT_EQ(all & p.hands[s], 0u);
      all |= p.hands[s];
    }
    EXPECT_EQ(all, Rules{}.Deck());
    EXPECT_EQ(std::popcount(all), 59)
        << "52 kingdom cards, 4 ally jokers, 2 Treasure jokers, 1 Dragon joker";
    EXPECT_EQ(std::popcount(p.out_of_play),
              std::popcount(Rules{}.Deck()) - players * kHandSizeChart[players]);
    EXPECT_EQ(state->SeatsToAct(), Seats{(fate + 1) % players}) << "boasting starts left";
  }
}

TEST(FrostDragonTest, TheSpinPicksTheFirstFate) {
  std::set<Seat> fates;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    std::unique_ptr<State> state = *FrostDragon().NewMatch({.num_players = 4, .seed = seed});
    fates.insert(static_cast<FrostDragonState&>(*state).position().fate);
  }
  EXPECT_EQ(fates, (std::set<Seat>{0, 1, 2, 3}));
}

TEST(FrostDragonTest, BoastsGoClockwiseFromTheFatesLeftAndTheHighestLeads) {
  std::unique_ptr<State> state = *FrostDragon().NewMatch({.num_players = 3, .seed = 5});
  auto& frost = static_cast<FrostDragonState&>(*state);
  const Seat fate = frost.position().fate;
  ASSERT_THAT(state->Apply(fate, Move::ChooseTrump(kForest).Encode()), IsOk());
  const Seat first = (fate + 1) % 3, second = (fate + 2) % 3;
  EXPECT_THAT(state->Apply(second, Move::Boast(2).Encode()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not to act")));
  EXPECT_THAT(state->Apply(first, Move::Boast(19).Encode()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("the 18 challenges")));
  EXPECT_THAT(state->Apply(first, Play(C(kForest, 2))),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("time to boast")));
  EXPECT_EQ(state->LegalActions(first).size(), 19u) << "0 to 18";
  ASSERT_THAT(state->Apply(first, Move::Boast(4).Encode()), IsOk());
  ASSERT_THAT(state->Apply(second, Move::Boast(6).Encode()), IsOk());
  ASSERT_THAT(state->Apply(fate, Move::Boast(6).Encode()), IsOk());
  EXPECT_EQ(frost.position().phase, Phase::kPlay);
  EXPECT_EQ(state->SeatsToAct(), Seats{second}) << "the first of the two highest boasters";
  EXPECT_EQ(Of(frost, second).marker, 6);
  EXPECT_FALSE(Of(frost, second).reached_marker);
}

TEST(FrostDragonTest, ABoastStopsAtTheLastTreasureSpace) {
  Position p = Quest({{C(kMountain, 2)}, {C(kMountain, 3)}}, {0, 0}, 0, {28, 0});
  p.hand_size = 13;
  p.phase = Phase::kBoast;
  p.adventurers[0].boast = p.adventurers[1].boast = -1;
  FrostDragonState state(Rules{}, p);
  EXPECT_EQ(state.LegalActions(0),
            (std::vector<Action>{Move::Boast(0).Encode(), Move::Boast(1).Encode(),
                                 Move::Boast(2).Encode()}));
  EXPECT_THAT(state.Apply(0, Move::Boast(3).Encode()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("past the last treasure")));
}

// ---------------------------------------------------------------- Challenges

TEST(FrostDragonTest, FollowersFollowTheLeadKingdomButMayAlwaysPlayAJoker) {
  FrostDragonState state(Rules{}, Quest({{C(kForest, 9), C(kMountain, 2)},
                                         {C(kForest, 5), C(kMountain, 14), kTreasureJoker},
                                         {C(kMountain, 13), C(kRiver, 3)}},
                                        {2, 2, 2}));
  ASSERT_THAT(state.Apply(0, Play(C(kForest, 9))), IsOk());
  EXPECT_EQ(state.LegalActions(1),
            (std::vector<Action>{Play(C(kForest, 5)), Play(kTreasureJoker)}));
  const std::string before = state.ToString();
  EXPECT_THAT(
      state.Apply(1, Play(C(kMountain, 14))),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("follow the lead kingdom (Forest)")));
  EXPECT_EQ(state.ToString(), before);
  EXPECT_THAT(state.Apply(1, Play(C(kRiver, 3))),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("do not hold")));
  ASSERT_THAT(state.Apply(1, Play(kTreasureJoker)), IsOk());
  EXPECT_EQ(state.LegalActions(2).size(), 2u) << "no Forest: anything goes";
  ASSERT_THAT(state.Apply(2, Play(C(kMountain, 13))), IsOk());
  EXPECT_EQ(state.position().last_challenge.winner, 0) << "the king is not of the lead kingdom";
  EXPECT_EQ(Of(state, 0).space, 1);
  EXPECT_EQ(Of(state, 0).treasures, 1) << "the Treasure joker goes with the challenge";
  EXPECT_EQ(state.SeatsToAct(), Seats{0}) << "the winner leads";
}

TEST(FrostDragonTest, TrumpMayNotBeLedUntilATrumpLeadUnlessTheLeaderHasNothingElse) {
  FrostDragonState state(
      Rules{}, Quest({{C(kGlacier, 14), C(kGlacier, 12), C(kMountain, 4), C(kMountain, 2)},
                      {C(kMountain, 9), C(kGlacier, 3), C(kGlacier, 5), C(kGlacier, 6)}},
                     {2, 2}));
  // Seat 0 holds Mountains: its trumps may not lead.
  EXPECT_EQ(state.LegalActions(0),
            (std::vector<Action>{Play(C(kMountain, 2)), Play(C(kMountain, 4))}));
  const std::string before = state.ToString();
  EXPECT_THAT(state.Apply(0, Play(C(kGlacier, 14))),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("trump (Glacier) may not be led until a challenge has been led "
                                 "in trump")));
  EXPECT_EQ(state.ToString(), before);
  ASSERT_THAT(state.Apply(0, Play(C(kMountain, 4))), IsOk());
  ASSERT_THAT(state.Apply(1, Play(C(kMountain, 9))), IsOk());
  // Seat 1 holds nothing but trump: it may lead one, and trump is led.
  EXPECT_EQ(state.LegalActions(1).size(), 3u);
  ASSERT_THAT(state.Apply(1, Play(C(kGlacier, 3))), IsOk());
  EXPECT_TRUE(state.position().trump_led);
  ASSERT_THAT(state.Apply(0, Play(C(kGlacier, 12))), IsOk());
  // Now seat 0 may lead trump though it holds a Mountain.
  EXPECT_EQ(state.LegalActions(0),
            (std::vector<Action>{Play(C(kMountain, 2)), Play(C(kGlacier, 14))}));
  ASSERT_THAT(state.Apply(0, Play(C(kGlacier, 14))), IsOk());
  ASSERT_THAT(state.Apply(1, Play(C(kGlacier, 5))), IsOk());
  ASSERT_THAT(state.Apply(0, Play(C(kMountain, 2))), IsOk());
  ASSERT_THAT(state.Apply(1, Play(C(kGlacier, 6))), IsOk());
  EXPECT_EQ(state.position().last_challenge.winner, 1) << "a trump beats the lead kingdom";
  // Two wins each on boasts of 2: both on space 2 after the resolution.
  EXPECT_EQ(state.position().quest, 2);
  EXPECT_EQ(Of(state, 0).space, 2);
  EXPECT_EQ(Of(state, 1).space, 2);
}

TEST(FrostDragonTest, AnAllyMayNotBeLedAsTrumpEither) {
  FrostDragonState state(
      Rules{}, Quest({{kLeprechaun, C(kMountain, 4)}, {C(kMountain, 9), C(kRiver, 2)}}, {1, 1}));
  // The 4 of Mountain, and the Leprechaun as any of the 39 cards not trump.
  EXPECT_EQ(state.LegalActions(0).size(), 40u);
  EXPECT_THAT(state.Apply(0, Play(kLeprechaun, C(kGlacier, 14))),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("may not be led as")));
  ASSERT_THAT(state.Apply(0, Play(kLeprechaun, C(kRiver, 14))), IsOk());
  EXPECT_EQ(state.position().challenge.lead_kingdom, kNoKingdom) << "an ally is a joker";
  EXPECT_EQ(state.LegalActions(1).size(), 2u);
}

// "If the lead adventurer starts a challenge with a Joker, the first played
// non-Joker card determines the lead kingdom for the challenge": an ally is
// a joker, so it does not set it, led or played after another joker.
TEST(FrostDragonTest, TheFirstCardThatIsNotAJokerSetsTheLeadKingdomNotAnAlly) {
  const Position p = Quest({{kLeprechaun, C(kMountain, 2)},
                            {C(kRiver, 5), C(kMountain, 13)},
                            {C(kMountain, 3), C(kRiver, 9)}},
                           {1, 1, 1});
  FrostDragonState state(Rules{}, p);
  ASSERT_THAT(state.Apply(0, Play(kLeprechaun, C(kRiver, kAce))), IsOk());
  EXPECT_EQ(state.position().challenge.lead_kingdom, kNoKingdom);
  EXPECT_EQ(state.LegalActions(1).size(), 2u) << "no lead kingdom yet: either card";
  ASSERT_THAT(state.Apply(1, Play(C(kMountain, 13))), IsOk());
  EXPECT_EQ(state.position().challenge.lead_kingdom, kMountain);
  EXPECT_EQ(state.LegalActions(2), (std::vector<Action>{Play(C(kMountain, 3))}))
      << "seat 2 follows the king's kingdom, not the ally's";
  // Seat 1 owed River nothing, so the search bots' deal may give it a River.
  const std::unique_ptr<View> view = state.ViewFor(2);
  const std::unique_ptr<Sampler> deal = MakeSampler();
  Rng rng(5);
  bool river = false;
  for (int i = 0; i < 200 && !river; ++i) {
    absl::StatusOr<std::unique_ptr<State>> sample = deal->Sample(*view, rng);
    ASSERT_THAT(sample, IsOk());
    river = (static_cast<const FrostDragonState&>(**sample).position().hands[1] &
             KingdomCards(kRiver)) != 0;
  }
  EXPECT_TRUE(river);
  ASSERT_THAT(state.Apply(2, Play(C(kMountain, 3))), IsOk());
  EXPECT_EQ(state.position().last_challenge.lead_kingdom, kMountain);
  EXPECT_EQ(state.position().last_challenge.winner, 1) << "the ace of River is off the lead";
  EXPECT_EQ(Of(state, 1).space, 1);

  // An ally after a Treasure joker lead does not set it either.
  FrostDragonState after_treasure(Rules{}, Quest({{kTreasureJoker, C(kMountain, 2)},
                                                  {kRogue, C(kMountain, 13)},
                                                  {C(kMountain, 3), C(kForest, 9)}},
                                                 {1, 1, 1}));
  ASSERT_THAT(after_treasure.Apply(0, Play(kTreasureJoker)), IsOk());
  ASSERT_THAT(after_treasure.Apply(1, Play(kRogue, C(kForest, kAce))), IsOk());
  EXPECT_EQ(after_treasure.LegalActions(2).size(), 2u) << "still no lead kingdom";
  ASSERT_THAT(after_treasure.Apply(2, Play(C(kMountain, 3))), IsOk());
  EXPECT_EQ(after_treasure.position().last_challenge.winner, 2);
  EXPECT_EQ(Of(after_treasure, 2).treasures, 1);

  // The option lead_kingdom=first_card_or_ally lets the ally set it.
  FrostDragonState ally_leads(Rules{.ally_sets_lead = true}, p);
  ASSERT_THAT(ally_leads.Apply(0, Play(kLeprechaun, C(kRiver, kAce))), IsOk());
  EXPECT_EQ(ally_leads.position().challenge.lead_kingdom, kRiver);
  EXPECT_EQ(ally_leads.LegalActions(1), (std::vector<Action>{Play(C(kRiver, 5))}));
  ASSERT_THAT(ally_leads.Apply(1, Play(C(kRiver, 5))), IsOk());
  ASSERT_THAT(ally_leads.Apply(2, Play(C(kRiver, 9))), IsOk());
  EXPECT_EQ(ally_leads.position().last_challenge.winner, 0);
}

// The rulebook is silent on a challenge of jokers alone: the first ally's
// named kingdom decides it, as if that ally had set the lead kingdom.
TEST(FrostDragonTest, AChallengeOfJokersAloneTakesTheFirstAllysKingdom) {
  FrostDragonState state(Rules{}, Quest({{kTreasureJoker, C(kMountain, 2)},
                                         {kLeprechaun, C(kMountain, 13)},
                                         {kRogue, C(kMountain, 3)}},
                                        {1, 1, 1}));
  ASSERT_THAT(state.Apply(0, Play(kTreasureJoker)), IsOk());
  ASSERT_THAT(state.Apply(1, Play(kLeprechaun, C(kForest, 3))), IsOk());
  ASSERT_THAT(state.Apply(2, Play(kRogue, C(kRiver, kAce))), IsOk());
  const Challenge& c = state.position().last_challenge;
  EXPECT_EQ(c.lead_kingdom, kForest);
  EXPECT_EQ(c.winner, 1) << "the 3 of Forest follows the first ally; the ace of River does not";
  EXPECT_EQ(Of(state, 1).treasures, 1);
  EXPECT_FALSE(state.position().trump_led);
}

TEST(FrostDragonTest, AJokerLedChallengeTakesItsKingdomFromTheFirstKingdomCard) {
  FrostDragonState state(Rules{}, Quest({{kTreasureJoker, C(kMountain, 2)},
                                         {C(kRiver, 5), C(kMountain, 13)},
                                         {C(kRiver, 9), C(kMountain, 14)}},
                                        {1, 1, 1}));
  ASSERT_THAT(state.Apply(0, Play(kTreasureJoker)), IsOk());
  EXPECT_EQ(state.LegalActions(1).size(), 2u) << "no lead kingdom yet";
  ASSERT_THAT(state.Apply(1, Play(C(kRiver, 5))), IsOk());
  EXPECT_EQ(state.position().challenge.lead_kingdom, kRiver);
  EXPECT_EQ(state.LegalActions(2), (std::vector<Action>{Play(C(kRiver, 9))}));
  ASSERT_THAT(state.Apply(2, Play(C(kRiver, 9))), IsOk());
  EXPECT_EQ(state.position().last_challenge.winner, 2);
  EXPECT_EQ(Of(state, 2).treasures, 1);
}

TEST(FrostDragonTest, AnAllyCountsAsTheCardNamedAndTheLaterCopyWins) {
  FrostDragonState state(Rules{}, Quest({{C(kForest, 14), C(kMountain, 3)},
                                         {kLeprechaun, C(kMountain, 4)},
                                         {C(kForest, 2), C(kMountain, 5)}},
                                        {1, 1, 1}));
  ASSERT_THAT(state.Apply(0, Play(C(kForest, 14))), IsOk());
  EXPECT_EQ(state.LegalActions(1).size(), 52u + 1u) << "any of the 52 cards, or the Mountain";
  ASSERT_THAT(state.Apply(1, Play(kLeprechaun, C(kForest, 14))), IsOk());
  ASSERT_THAT(state.Apply(2, Play(C(kForest, 2))), IsOk());
  EXPECT_EQ(state.position().last_challenge.winner, 1);
  EXPECT_EQ(state.position().last_challenge.cards[1].as, C(kForest, 14));
  EXPECT_EQ(Of(state, 1).space, 1);

  // The other way round: the copy played first loses to the real card.
  FrostDragonState again(
      Rules{}, Quest({{kRogue, C(kMountain, 3)}, {C(kMountain, 13), C(kRiver, 2)}}, {1, 1}));
  ASSERT_THAT(again.Apply(0, Play(kRogue, C(kMountain, 13))), IsOk());
  ASSERT_THAT(again.Apply(1, Play(C(kMountain, 13))), IsOk());
  EXPECT_EQ(again.position().last_challenge.winner, 1);
}

TEST(FrostDragonTest, ATreasureJokerCannotWinButPaysItsWinnerThreeSpaces) {
  // Seat 1 on space 5 boasts 2 and wins both challenges, one with the
  // Treasure joker in it: 5 + 2 + 3 = 10 after the resolution.
  FrostDragonState state(
      Rules{}, Quest({{kTreasureJoker, C(kMountain, 2)}, {C(kMountain, 3), C(kMountain, 4)}},
                     {0, 2}, 0, {0, 5}));
  ASSERT_THAT(state.Apply(0, Play(kTreasureJoker)), IsOk());
  ASSERT_THAT(state.Apply(1, Play(C(kMountain, 3))), IsOk());
  EXPECT_EQ(state.position().last_challenge.winner, 1);
  EXPECT_EQ(Of(state, 1).treasures, 1);
  EXPECT_EQ(Of(state, 1).space, 6) << "the bonus waits for the resolution";
  ASSERT_THAT(state.Apply(1, Play(C(kMountain, 4))), IsOk());
  ASSERT_THAT(state.Apply(0, Play(C(kMountain, 2))), IsOk());
  EXPECT_EQ(state.position().quest, 2);
  EXPECT_EQ(Of(state, 1).space, 10);
  EXPECT_EQ(Of(state, 0).space, 0);
}

TEST(FrostDragonTest, AChallengeOfTreasureJokersAloneHasNoWinner) {
  FrostDragonState state(
      Rules{},
      Quest({{kTreasureJoker, C(kMountain, 5)}, {kTreasureJoker + 1, C(kMountain, 6)}}, {1, 1}));
  ASSERT_THAT(state.Apply(0, Play(kTreasureJoker)), IsOk());
  ASSERT_THAT(state.Apply(1, Play(kTreasureJoker + 1)), IsOk());
  EXPECT_EQ(state.position().last_challenge.winner, -1);
  EXPECT_EQ(state.SeatsToAct(), Seats{0}) << "its leader leads again";
  EXPECT_EQ(Of(state, 0).won + Of(state, 1).won, 0);
  EXPECT_EQ(Of(state, 0).treasures + Of(state, 1).treasures, 0) << "the bonuses are lost";
}

TEST(FrostDragonTest, ADragonWinsMovesNobodyAndRemovesTheOtherCardsFromTheMatch) {
  // Seat 1 boasted 0: an ordinary win would earn it threat, the dragon's
  // earns nothing, but the Treasure joker in its challenge is still paid.
  FrostDragonState state(Rules{}, Quest({{C(kMountain, 14), C(kRiver, 2)},
                                         {kDragonJoker, C(kRiver, 3)},
                                         {kTreasureJoker, C(kRiver, 4)}},
                                        {1, 0, 1}, 0, {0, 10, 0}));
  ASSERT_THAT(state.Apply(0, Play(C(kMountain, 14))), IsOk());
  ASSERT_THAT(state.Apply(1, Play(kDragonJoker)), IsOk());
  ASSERT_THAT(state.Apply(2, Play(kTreasureJoker)), IsOk());
  const Position& p = state.position();
  EXPECT_EQ(p.last_challenge.winner, 1);
  EXPECT_EQ(p.removed, Cards({C(kMountain, 14), kTreasureJoker}));
  EXPECT_EQ(Of(state, 1).space, 10);
  EXPECT_EQ(Of(state, 1).threat, 0);
  EXPECT_EQ(Of(state, 1).treasures, 1);
  EXPECT_EQ(state.SeatsToAct(), Seats{1}) << "the dragon's player leads";
  ASSERT_THAT(state.Apply(1, Play(C(kRiver, 3))), IsOk());
  ASSERT_THAT(state.Apply(2, Play(C(kRiver, 4))), IsOk());
  ASSERT_THAT(state.Apply(0, Play(C(kRiver, 2))), IsOk());
  // The resolution: seat 1 gets its 3 spaces; seat 0 fell short by 1 but
  // cannot go below the start.
  EXPECT_EQ(p.quest, 2);
  EXPECT_EQ(Of(state, 1).space, 13);
  EXPECT_EQ(Of(state, 2).space, 1);
  EXPECT_EQ(Of(state, 0).space, 0);
  // The next deal (at once: trump holds for the adventure) is made without
  // the removed cards; the dragon is back.
  ASSERT_EQ(p.phase, Phase::kBoast);
  CardSet dealt = p.out_of_play;
  for (Seat s = 0; s < 3; ++s) dealt |= p.hands[s];
  EXPECT_EQ(dealt, Rules{}.Deck() & ~Cards({C(kMountain, 14), kTreasureJoker}));
  EXPECT_EQ(std::popcount(p.hands[0]), 18) << "57 cards still make 18 each";
  EXPECT_EQ(static_cast<FrostDragonView&>(*state.ViewFor(0)).cards_in_match, 57);
}

TEST(FrostDragonTest, OfTwoDragonsTheLaterWinsAndBothGoBack) {
  FrostDragonState state(
      Rules{},
      Quest({{kDragonJoker, C(kMountain, 2)}, {kDragonJoker + 1, C(kMountain, 3)}}, {1, 1}));
  ASSERT_THAT(state.Apply(0, Play(kDragonJoker)), IsOk());
  ASSERT_THAT(state.Apply(1, Play(kDragonJoker + 1)), IsOk());
  EXPECT_EQ(state.position().last_challenge.winner, 1);
  EXPECT_EQ(state.position().removed, 0u);
}

// ---------------------------------------------------------------- Movement

TEST(FrostDragonTest, TheRulebooksExampleBoastFiveWinSeven) {
  // Seat 0 holds the seven highest Mountains and boasts 5; seat 1 follows
  // with lower ones.
  std::vector<int> high, low;
  for (int rank = 8; rank <= 14; ++rank) high.push_back(C(kMountain, rank));
  for (int rank = 2; rank <= 7; ++rank) low.push_back(C(kMountain, rank));
  low.push_back(C(kRiver, 2));
  FrostDragonState state(Rules{}, Quest({high, low}, {5, 0}));
  for (int won = 1; won <= 7; ++won) {
    ASSERT_THAT(state.Apply(0, state.LegalActions(0)[0]), IsOk());
    ASSERT_THAT(state.Apply(1, state.LegalActions(1)[0]), IsOk());
    if (won == 5) {
      EXPECT_EQ(Of(state, 0).space, 5);
      EXPECT_TRUE(Of(state, 0).reached_marker);
      EXPECT_EQ(Of(state, 0).threat, 0);
    }
  }
  EXPECT_EQ(state.position().quest, 2);
  EXPECT_EQ(Of(state, 0).space, 5);
  EXPECT_EQ(Of(state, 0).threat, 2);
  EXPECT_EQ(Of(state, 1).space, 0);
}

TEST(FrostDragonTest, ThreatReachingTenThrowsAnAdventurerBackTenSpaces) {
  for (const auto& [from, to] : {std::pair{17, 7}, std::pair{6, 0}}) {
    Position p = Quest({{C(kMountain, 14)}, {C(kMountain, 2)}}, {0, 0}, 0, {from, 0});
    p.adventurers[0].threat = 9;
    FrostDragonState state(Rules{}, p);
    ASSERT_THAT(state.Apply(0, Play(C(kMountain, 14))), IsOk());
    ASSERT_THAT(state.Apply(1, Play(C(kMountain, 2))), IsOk());
    EXPECT_EQ(Of(state, 0).space, to) << "from " << from;
    EXPECT_EQ(Of(state, 0).threat, 0);
  }
}

// Two adventurers: seat 0 on `space` boasts `boast` and wins the first
// `wins` of `cards` challenges; seat 1, on `other`, boasts 0 and wins the
// rest. Glacier is trump; nobody holds one.
FrostDragonState Duel(int space, int boast, int wins, int cards, int other = 0) {
  std::vector<int> mine, theirs;
  for (int i = 0; i < wins; ++i) {
    mine.push_back(C(kMountain, kAce - i));
    theirs.push_back(C(kMountain, 2 + i));
  }
  for (int i = 0; i < cards - wins; ++i) {
    mine.push_back(C(kRiver, 2 + i));
    theirs.push_back(C(kRiver, kAce - i));
  }
  return FrostDragonState(Rules{}, Quest({mine, theirs}, {boast, 0}, 0, {space, other}));
}

TEST(FrostDragonTest, FallingShortMovesBackByTheShortfall) {
  FrostDragonState state = Duel(/*space=*/10, /*boast=*/3, /*wins=*/1, /*cards=*/2);
  PlayOutQuest(state);
  EXPECT_EQ(Of(state, 0).space, 9) << "10 + 1, then back 2";
  EXPECT_EQ(Of(state, 0).threat, 0);
  EXPECT_EQ(Of(state, 1).threat, 1) << "seat 1 boasted 0 and won 1";
}

struct ActionSpaceCase {
  std::string name;
  int space, boast, wins, cards, other;
  int expected_space, expected_jump, expected_other;
};

TEST(FrostDragonTest, EachActionSpaceActsAtTheEndOfTheQuest) {
  const std::vector<ActionSpaceCase> cases = {
      {"Slippery Bridge, boast made", 6, 2, 2, 2, 0, 5, -1, 0},
      {"Slippery Bridge, fell short onto it", 9, 1, 0, 1, 0, 5, -1, 0},
      {"Mind the Gap, boast made", 17, 2, 2, 2, 0, 16, -1, 0},
      {"Mind the Gap, fell short onto it", 20, 1, 0, 1, 0, 16, -1, 0},
      {"Sleeping Orc, boast made", 1, 2, 2, 2, 0, 4, 9, 0},
      {"Sleeping Orc, fell short onto it", 4, 1, 0, 1, 0, 3, -1, 0},
      {"Catapult, boast made", 13, 2, 2, 2, 0, 14, 21, 0},
      {"Catapult, fell short onto it", 16, 1, 0, 1, 0, 15, -1, 0},
      {"Leprechaun's Treasure, boast made", 21, 2, 2, 2, 24, 24, -1, 23},
      {"Leprechaun's Treasure, fell short onto it", 24, 1, 0, 1, 24, 23, -1, 24},
      {"Leprechaun's Treasure, nobody ahead", 21, 2, 2, 2, 5, 23, -1, 5},
  };
  for (const ActionSpaceCase& c : cases) {
    FrostDragonState state = Duel(c.space, c.boast, c.wins, c.cards, c.other);
    PlayOutQuest(state);
    EXPECT_EQ(Of(state, 0).space, c.expected_space) << c.name;
    EXPECT_EQ(Of(state, 0).jump_to, c.expected_jump) << c.name;
    EXPECT_EQ(Of(state, 1).space, c.expected_other) << c.name;
  }
}

TEST(FrostDragonTest, ALaunchCarriesTheNextWinThatMovesToTheJumpSpace) {
  // On the Sleeping Orc's B space (4), boasting 3: the first win jumps to 9,
  // past the marker (7), so the second earns threat.
  Position p = Duel(4, 3, 2, 2).position();
  p.adventurers[0].jump_to = 9;
  FrostDragonState state(Rules{}, p);
  ASSERT_THAT(state.Apply(0, state.LegalActions(0)[0]), IsOk());
  ASSERT_THAT(state.Apply(1, state.LegalActions(1)[0]), IsOk());
  EXPECT_EQ(Of(state, 0).space, 9);
  EXPECT_TRUE(Of(state, 0).reached_marker);
  EXPECT_EQ(Of(state, 0).jump_to, -1);
  PlayOutQuest(state);
  EXPECT_EQ(Of(state, 0).space, 9);
  EXPECT_EQ(Of(state, 0).threat, 1);
}

TEST(FrostDragonTest, ALaunchWaitsForAWinThatMovesAndIsLostOffTheBSpace) {
  Position p = Duel(4, 0, 1, 1).position();  // boast 0: the win earns threat
  p.adventurers[0].jump_to = 9;
  FrostDragonState waiting(Rules{}, p);
  PlayOutQuest(waiting);
  EXPECT_EQ(Of(waiting, 0).space, 4);
  EXPECT_EQ(Of(waiting, 0).threat, 1);
  EXPECT_EQ(Of(waiting, 0).jump_to, 9) << "the Sleeping Orc's jump waits for the next quest";

  p = Duel(14, 2, 0, 1).position();  // falls back 2 from the bucket
  p.adventurers[0].jump_to = 21;
  FrostDragonState lost(Rules{}, p);
  PlayOutQuest(lost);
  EXPECT_EQ(Of(lost, 0).space, 12);
  EXPECT_EQ(Of(lost, 0).jump_to, -1);
}

// "You gain the ability to launch yourself during the next quest": a
// Catapult launch that no win of the next quest spends is lost with it.
TEST(FrostDragonTest, TheCatapultsLaunchLastsTheNextQuestOnly) {
  // Launched in the last quest: in the bucket (14), ready to jump to 21.
  // Boasting 0, the quest's one win earns threat and spends nothing.
  Position p = Duel(14, 0, 1, 1).position();
  p.adventurers[0].jump_to = 21;
  FrostDragonState state(Rules{}, p);
  PlayOutQuest(state);
  EXPECT_EQ(state.position().quest, 2);
  EXPECT_EQ(Of(state, 0).space, 14);
  EXPECT_EQ(Of(state, 0).threat, 1);
  EXPECT_EQ(Of(state, 0).jump_to, -1) << "the next quest is over: the launch is lost";

  // No win at all in that quest: lost the same way.
  p = Duel(14, 0, 0, 1).position();
  p.adventurers[0].jump_to = 21;
  FrostDragonState no_win(Rules{}, p);
  PlayOutQuest(no_win);
  EXPECT_EQ(Of(no_win, 0).space, 14);
  EXPECT_EQ(Of(no_win, 0).jump_to, -1);

  // A launch given at the end of a quest is ready for the next one.
  FrostDragonState given = Duel(13, 2, 2, 2);
  PlayOutQuest(given);
  EXPECT_EQ(Of(given, 0).space, 14);
  EXPECT_EQ(Of(given, 0).jump_to, 21);

  // The option catapult=until_used keeps it until a win spends it.
  p = Duel(14, 0, 1, 1).position();
  p.adventurers[0].jump_to = 21;
  FrostDragonState until_used(Rules{.catapult_until_used = true}, p);
  PlayOutQuest(until_used);
  EXPECT_EQ(Of(until_used, 0).jump_to, 21);
}

// A helpful space acts only on a boast of at least one that was made
// (kHelpfulSpaceMinBoast): a boast of 0 is made before the first card, and
// sitting on the Leprechaun's Treasure boasting 0 swapped with the leader
// every quest.
TEST(FrostDragonTest, AHelpfulSpaceNeedsABoastOfAtLeastOne) {
  // On the Leprechaun's Treasure (23), the leader on 24: boasting 0 and
  // winning nothing, the boast is made but nothing is swapped.
  FrostDragonState sitting = Duel(/*space=*/23, /*boast=*/0, /*wins=*/0, /*cards=*/1, 24);
  PlayOutQuest(sitting);
  EXPECT_EQ(Of(sitting, 0).space, 23);
  EXPECT_EQ(Of(sitting, 1).space, 24);
  // Boasting 1 from 22 and winning it lands there with the boast made: swap.
  FrostDragonState landing = Duel(/*space=*/22, /*boast=*/1, /*wins=*/1, /*cards=*/1, 24);
  PlayOutQuest(landing);
  EXPECT_EQ(Of(landing, 0).space, 24);
  EXPECT_EQ(Of(landing, 1).space, 23);
  // The same on the Sleeping Orc (3): boasting 0 there launches nobody.
  FrostDragonState orc = Duel(/*space=*/3, /*boast=*/0, /*wins=*/0, /*cards=*/1);
  PlayOutQuest(orc);
  EXPECT_EQ(Of(orc, 0).space, 3);
  EXPECT_EQ(Of(orc, 0).jump_to, -1);
  // The penalty spaces catch a boast of 0 as before: Mind the Gap (19).
  FrostDragonState gap = Duel(/*space=*/19, /*boast=*/0, /*wins=*/0, /*cards=*/1);
  PlayOutQuest(gap);
  EXPECT_EQ(Of(gap, 0).space, 16);
}

TEST(FrostDragonTest, TheLeprechaunSwapsWithTheMostThreateningOfTiedLeaders) {
  Position p =
      Quest({{C(kMountain, 14)}, {C(kMountain, 2)}, {C(kMountain, 3)}}, {1, 0, 0}, 0, {22, 24, 24});
  p.adventurers[1].threat = 1;
  p.adventurers[2].threat = 3;
  FrostDragonState state(Rules{}, p);
  PlayOutQuest(state);
  EXPECT_EQ(Of(state, 0).space, 24);
  EXPECT_EQ(Of(state, 1).space, 24);
  EXPECT_EQ(Of(state, 2).space, 23);
}

// ---------------------------------------------------------------- Quests

TEST(FrostDragonTest, WithTrumpEveryQuestTheFateMovesLeftAndNamesANewTrump) {
  FrostDragonState state(Rules{.trump_every_quest = true},
                         Quest({{C(kMountain, 14)}, {C(kMountain, 2)}}, {1, 0}));
  ASSERT_EQ(state.position().fate, 1);
  PlayOutQuest(state);
  const Position& p = state.position();
  EXPECT_EQ(p.quest, 2);
  EXPECT_EQ(p.fate, 0);
  EXPECT_EQ(p.phase, Phase::kChooseTrump);
  EXPECT_EQ(p.trump, kNoKingdom);
  EXPECT_EQ(state.SeatsToAct(), Seats{0});
  EXPECT_EQ(p.adventurers[0].boast, -1) << "the boasts are cleared";
}

// "The trump suit (kingdom) for the adventure is chosen by the Fate": once,
// at the start of the adventure; later Fates only shuffle and deal.
TEST(FrostDragonTest, TheFirstFateNamesTrumpForTheWholeAdventure) {
  FrostDragonState state(Rules{}, Quest({{C(kMountain, 14)}, {C(kMountain, 2)}}, {1, 0}));
  PlayOutQuest(state);
  const Position& p = state.position();
  EXPECT_EQ(p.quest, 2);
  EXPECT_EQ(p.fate, 0);
  EXPECT_EQ(p.phase, Phase::kBoast) << "no trump to name: the new Fate deals at once";
  EXPECT_EQ(p.trump, kGlacier);
  EXPECT_EQ(std::popcount(p.hands[0]), 14);
  EXPECT_EQ(state.SeatsToAct(), Seats{1}) << "the new Fate is seat 0";
  PlayOutQuest(state);
  ASSERT_EQ(state.position().quest, 3);
  EXPECT_EQ(state.position().fate, 1);
  EXPECT_EQ(state.position().phase, Phase::kBoast);
  EXPECT_EQ(state.position().trump, kGlacier) << "the adventure's trump holds";
}

TEST(FrostDragonTest, TooFewCardsForTheChartDealAsManyAsDivideEvenly) {
  EXPECT_EQ(HandSize(3, 60), 18);
  EXPECT_EQ(HandSize(3, 53), 17);
  EXPECT_EQ(HandSize(4, 50), 12);
  EXPECT_EQ(HandSize(2, 60), 14);
  EXPECT_EQ(HandSize(4, 3), 0);

  // Six of the 59 cards removed leave 53: 17 each for three, 2 out of play.
  Position p = Quest({{C(kMountain, 14)}, {C(kMountain, 2)}, {C(kMountain, 3)}}, {1, 0, 0});
  p.removed = Cards(
      {C(kForest, 2), C(kForest, 3), C(kForest, 4), C(kForest, 5), C(kForest, 6), C(kForest, 7)});
  FrostDragonState state(Rules{}, p);
  PlayOutQuest(state);
  EXPECT_EQ(state.position().hand_size, 17);
  ASSERT_EQ(state.position().phase, Phase::kBoast);
  for (Seat s = 0; s < 3; ++s) EXPECT_EQ(std::popcount(state.position().hands[s]), 17);
  EXPECT_EQ(std::popcount(state.position().out_of_play), 2);

  // One card left for two: the match is over.
  p = Quest({{C(kMountain, 14)}, {C(kMountain, 2)}}, {1, 0});
  p.removed = Rules{}.Deck() & ~Bit(kDragonJoker);
  FrostDragonState exhausted(Rules{}, p);
  PlayOutQuest(exhausted);
  EXPECT_TRUE(exhausted.IsOver());
  EXPECT_EQ(exhausted.position().end, EndReason::kDeckExhausted);
  EXPECT_EQ(exhausted.Ranks(), (std::vector<int>{1, 2}));

  // The end tells what happened: quest 2 was never dealt, so no text of the
  // match names it as a quest played, with no cards in anyone's hand.
  const std::unique_ptr<View> end = exhausted.ViewFor(kSpectator);
  EXPECT_THAT(end->ToString(),
              HasSubstr("the deck ran out before quest 2 could begin (1 card left for 2 "
                        "adventurers), trump Glacier, over\n"));
  EXPECT_THAT(end->ToString(), Not(HasSubstr("quest 2,")));
  EXPECT_THAT(end->ToString(), Not(HasSubstr("0 cards each")));
  EXPECT_THAT(end->Summary(),
              StartsWith("the deck ran out before quest 2 could begin (1 card left for 2 "
                         "adventurers), trump Glacier | spaces "));
}

// The options' ranges keep every accepted value playable: the dragons by
// player count (each removes the other players' cards), the quest cap no
// lower than 20 (docs/rules/frost_dragon.md, "How the game plays").
TEST(FrostDragonTest, TheOptionsRangesFollowThePlayerCount) {
  EXPECT_THAT(FrostDragon().NewMatch({.num_players = 2, .options = {{"dragon_jokers", "4"}}}),
              IsOk());
  EXPECT_THAT(FrostDragon().NewMatch({.num_players = 3, .options = {{"dragon_jokers", "2"}}}),
              IsOk());
  EXPECT_THAT(FrostDragon().NewMatch({.num_players = 3, .options = {{"dragon_jokers", "3"}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("dragon_jokers may be at most 2 with 3 players")));
  EXPECT_THAT(FrostDragon().NewMatch({.num_players = 4, .options = {{"dragon_jokers", "2"}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("dragon_jokers may be at most 1 with 4 players")));
  EXPECT_THAT(FrostDragon().NewMatch({.num_players = 4, .options = {{"max_quests", "19"}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("max_quests must be a number from 20 to 100, not '19'")));
  EXPECT_THAT(FrostDragon().NewMatch({.num_players = 4, .options = {{"max_quests", "20"}}}),
              IsOk());
  const std::unique_ptr<State> state = *FrostDragon().NewMatch({.num_players = 4});
  EXPECT_EQ(static_cast<FrostDragonState&>(*state).rules().Deck(),
            kAllKingdomCards | (CardSet{0xf} << kFirstAlly) | Bit(kTreasureJoker) |
                Bit(kTreasureJoker + 1) | Bit(kDragonJoker))
      << "one Dragon joker by default";
}

TEST(FrostDragonTest, TheQuestCapEndsTheMatchAndTheFurthestWins) {
  // The match's twentieth quest, the last the default cap allows.
  std::unique_ptr<State> fresh = *FrostDragon().NewMatch({.num_players = 3, .seed = 4});
  Position start = static_cast<FrostDragonState&>(*fresh).position();
  start.quest = 20;
  std::unique_ptr<State> state = std::make_unique<FrostDragonState>(Rules{}, start);
  while (!state->IsOver()) {
    const Seat seat = state->SeatsToAct()[0];
    ASSERT_THAT(state->Apply(seat, state->LegalActions(seat).back()), IsOk());
  }
  const auto& frost = static_cast<FrostDragonState&>(*state);
  EXPECT_EQ(frost.position().end, EndReason::kQuestCap);
  EXPECT_EQ(frost.position().quest, 20);
  const std::vector<double> scores = state->Scores();
  const std::vector<int> ranks = state->Ranks();
  for (Seat s = 0; s < 3; ++s) {
    EXPECT_DOUBLE_EQ(scores[s], Of(frost, s).space + Of(frost, s).threat / 10.0);
    for (Seat t = 0; t < 3; ++t) {
      if (Of(frost, s).space > Of(frost, t).space) {
        EXPECT_LT(ranks[s], ranks[t]);
      }
    }
  }
}

// ---------------------------------------------------------------- The end

TEST(FrostDragonTest, ReachingTheFinishMakesTheQuestTheLast) {
  FrostDragonState state = Duel(/*space=*/24, /*boast=*/2, /*wins=*/2, /*cards=*/3);
  ASSERT_THAT(state.Apply(0, state.LegalActions(0)[0]), IsOk());
  ASSERT_THAT(state.Apply(1, state.LegalActions(1)[0]), IsOk());
  EXPECT_EQ(Of(state, 0).space, kFinishSpace);
  EXPECT_TRUE(state.position().final_quest);
  EXPECT_FALSE(state.IsOver()) << "the quest is played out";
  PlayOutQuest(state);
  ASSERT_TRUE(state.IsOver());
  EXPECT_EQ(state.position().end, EndReason::kTreasureReached);
  EXPECT_EQ(Of(state, 0).space, 26);
  EXPECT_EQ(state.Ranks(), (std::vector<int>{1, 2}));
  EXPECT_THAT(state.Scores(), ElementsAre(DoubleEq(26.0), DoubleEq(0.1)));
  EXPECT_THAT(state.Apply(0, Move::Boast(0).Encode()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("over")));
}

TEST(FrostDragonTest, WhoFallsBackFromTheFinishLeavesTheAdventureGoingOn) {
  FrostDragonState state = Duel(/*space=*/24, /*boast=*/3, /*wins=*/1, /*cards=*/2);
  ASSERT_THAT(state.Apply(0, state.LegalActions(0)[0]), IsOk());
  ASSERT_THAT(state.Apply(1, state.LegalActions(1)[0]), IsOk());
  EXPECT_TRUE(state.position().final_quest);
  PlayOutQuest(state);
  EXPECT_FALSE(state.IsOver());
  EXPECT_EQ(Of(state, 0).space, 23) << "25, then back the 2 it fell short";
  EXPECT_EQ(state.position().quest, 2);
  EXPECT_FALSE(state.position().final_quest);
}

TEST(FrostDragonTest, TiedOnSpaceTheMostThreateningWins) {
  // Seat 0 wins the first challenge, seat 1 the second: both reach 25.
  Position p = Quest({{C(kMountain, 14), C(kRiver, 2)}, {C(kMountain, 2), C(kRiver, 14)}}, {1, 1},
                     0, {24, 24});
  p.adventurers[0].threat = 2;
  p.adventurers[1].threat = 5;
  FrostDragonState state(Rules{}, p);
  PlayOutQuest(state);
  ASSERT_TRUE(state.IsOver());
  EXPECT_EQ(Of(state, 0).space, 25);
  EXPECT_EQ(Of(state, 1).space, 25);
  EXPECT_EQ(state.Ranks(), (std::vector<int>{2, 1}));
  EXPECT_THAT(state.Scores(), ElementsAre(DoubleEq(25.2), DoubleEq(25.5)));
}

TEST(FrostDragonTest, ATieInTheLairFeedsTheFrostDragon) {
  // Seats 0 and 1 share the lead in the lair (27, threat 3); seat 2 reaches
  // the finish. The dragon eats the two, and seat 2 wins.
  Position p =
      Quest({{C(kMountain, 2)}, {C(kMountain, 3)}, {C(kMountain, 14)}}, {0, 0, 1}, 2, {27, 27, 24});
  p.adventurers[0].threat = p.adventurers[1].threat = 3;
  FrostDragonState state(Rules{}, p);
  PlayOutQuest(state);
  ASSERT_TRUE(state.IsOver());
  EXPECT_TRUE(state.Eaten(0));
  EXPECT_TRUE(state.Eaten(1));
  EXPECT_FALSE(state.Eaten(2));
  EXPECT_EQ(state.Ranks(), (std::vector<int>{2, 2, 1}));
  EXPECT_THAT(state.Scores(), ElementsAre(DoubleEq(-72.7), DoubleEq(-72.7), DoubleEq(25.0)));
}

TEST(FrostDragonTest, ATieOutsideTheLairIsShared) {
  Position p =
      Quest({{C(kMountain, 14)}, {C(kMountain, 2)}, {C(kMountain, 3)}}, {1, 0, 0}, 0, {24, 25, 10});
  FrostDragonState state(Rules{}, p);
  PlayOutQuest(state);
  ASSERT_TRUE(state.IsOver());
  EXPECT_FALSE(state.Eaten(0));
  EXPECT_EQ(state.Ranks(), (std::vector<int>{1, 1, 3}));
}

// ---------------------------------------------------------------- Views

TEST(FrostDragonTest, ASeatSeesItsOwnHandAndNoOneSeesTheLeftovers) {
  std::unique_ptr<State> state = *FrostDragon().NewMatch({.num_players = 3, .seed = 8});
  const Seat fate = static_cast<FrostDragonState&>(*state).position().fate;
  ASSERT_THAT(state->Apply(fate, Move::ChooseTrump(kForest).Encode()), IsOk());
  const Position& p = static_cast<FrostDragonState&>(*state).position();
  for (Seat observer = kSpectator; observer < 3; ++observer) {
    const std::unique_ptr<View> seen = state->ViewFor(observer);
    const auto& view = static_cast<const FrostDragonView&>(*seen);
    EXPECT_EQ(view.out_of_play, 5) << "59 cards, 18 each";
    for (Seat s = 0; s < 3; ++s) {
      EXPECT_EQ(view.players[s].hand_size, 18);
      EXPECT_EQ(view.players[s].hand.has_value(), s == observer);
      if (s == observer) {
        EXPECT_EQ(*view.players[s].hand, p.hands[s]);
      }
    }
  }
}

// Four challenges of three seats, Glacier trump, played with
// lead_kingdom=first_card_or_ally (AllyLeads()), so the Leprechaun led as
// the ace of River sets River: seat 2 shows it has no Mountain, then no
// River, then leads trump before trump was led (so it holds no card of
// another kingdom).
Rules AllyLeads() { return Rules{.ally_sets_lead = true}; }

Position RecordedQuest() {
  return Quest({{C(kMountain, 10), C(kMountain, 5), C(kRiver, 3), C(kRiver, 6)},
                {C(kMountain, 12), C(kForest, 4), kLeprechaun, C(kForest, 7)},
                {C(kForest, 9), C(kGlacier, 2), C(kGlacier, 7), C(kGlacier, 9)}},
               {1, 1, 1});
}

TEST(FrostDragonTest, EverySeatSeesEachChallengeOfTheQuestInOrder) {
  FrostDragonState state(AllyLeads(), RecordedQuest());
  auto challenges_seen_by = [&](Seat observer) {
    return static_cast<const FrostDragonView&>(*state.ViewFor(observer)).challenges;
  };
  for (Seat observer = kSpectator; observer < 3; ++observer) {
    EXPECT_TRUE(challenges_seen_by(observer).empty());
  }
  for (auto [seat, card, as] : std::vector<std::array<int, 3>>{{0, C(kMountain, 10), 0},
                                                               {1, C(kMountain, 12), 0},
                                                               {2, C(kForest, 9), 0},
                                                               {1, kLeprechaun, C(kRiver, kAce)},
                                                               {2, C(kGlacier, 7), 0},
                                                               {0, C(kRiver, 3), 0}}) {
    ASSERT_THAT(state.Apply(seat, Play(card, as)), IsOk()) << CardName(card);
  }
  const Challenge first{.leader = 0,
                        .size = 3,
                        .cards = {{{0, C(kMountain, 10), C(kMountain, 10)},
                                   {1, C(kMountain, 12), C(kMountain, 12)},
                                   {2, C(kForest, 9), C(kForest, 9)}}},
                        .lead_kingdom = kMountain,
                        .winner = 1};
  const Challenge second{.leader = 1,
                         .size = 3,
                         .cards = {{{1, kLeprechaun, C(kRiver, kAce)},
                                    {2, C(kGlacier, 7), C(kGlacier, 7)},
                                    {0, C(kRiver, 3), C(kRiver, 3)}}},
                         .lead_kingdom = kRiver,
                         .winner = 2};
  // Seat 2 leads trump: the challenge under way is not in the record yet.
  ASSERT_THAT(state.Apply(2, Play(C(kGlacier, 2))), IsOk());
  for (Seat observer = kSpectator; observer < 3; ++observer) {
    EXPECT_THAT(challenges_seen_by(observer), ElementsAre(first, second))
        << "observer " << observer;
  }
  EXPECT_THAT(state.ViewFor(kSpectator)->ToString(),
              HasSubstr("challenge 2 of this quest led by seat 1 [1:Lep=AR 2:7G 0:3R], won by "
                        "seat 2"));

  // The record is history beside the position: it changes no fingerprint,
  // and a clone keeps it.
  EXPECT_EQ(FrostDragonState(AllyLeads(), state.position()).ToString(), state.ToString());
  EXPECT_THAT(static_cast<const FrostDragonState&>(*state.Clone()).challenges(),
              ElementsAre(first, second));

  // The next quest starts a new record; last_challenge still shows the
  // quest's last.
  for (auto [seat, card] : std::vector<std::pair<Seat, int>>{{0, C(kMountain, 5)},
                                                             {1, C(kForest, 4)},
                                                             {2, C(kGlacier, 9)},
                                                             {0, C(kRiver, 6)},
                                                             {1, C(kForest, 7)}}) {
    ASSERT_THAT(state.Apply(seat, Play(card)), IsOk()) << CardName(card);
  }
  ASSERT_EQ(state.position().quest, 2);
  const std::unique_ptr<View> view = state.ViewFor(0);
  const auto& next = static_cast<const FrostDragonView&>(*view);
  EXPECT_TRUE(next.challenges.empty());
  EXPECT_EQ(next.last_challenge.cards[0].card, C(kGlacier, 9));
}

TEST(FrostDragonTest, TheDealKeepsTheRecordAndEveryKingdomASeatShowedItLacks) {
  FrostDragonState state(AllyLeads(), RecordedQuest());
  for (auto [seat, card, as] : std::vector<std::array<int, 3>>{{0, C(kMountain, 10), 0},
                                                               {1, C(kMountain, 12), 0},
                                                               {2, C(kForest, 9), 0},
                                                               {1, kLeprechaun, C(kRiver, kAce)},
                                                               {2, C(kGlacier, 7), 0},
                                                               {0, C(kRiver, 3), 0},
                                                               {2, C(kGlacier, 2), 0}}) {
    ASSERT_THAT(state.Apply(seat, Play(card, as)), IsOk()) << CardName(card);
  }
  // Seat 2 followed Mountain with a Forest card and River with trump, then
  // led trump before anyone had: its last card is trump or a joker.
  const CardSet others = KingdomCards(kMountain) | KingdomCards(kForest) | KingdomCards(kRiver);
  const std::unique_ptr<Sampler> deal = MakeSampler();
  Rng rng(3);
  for (Seat observer : {0, 1}) {
    const std::unique_ptr<View> view = state.ViewFor(observer);
    for (int i = 0; i < 200; ++i) {
      absl::StatusOr<std::unique_ptr<State>> sample = deal->Sample(*view, rng);
      ASSERT_THAT(sample, IsOk());
      const auto& dealt = static_cast<const FrostDragonState&>(**sample);
      ASSERT_TRUE(dealt.ViewFor(observer)->Equals(*view));
      EXPECT_EQ(dealt.challenges(), state.challenges());
      ASSERT_EQ(dealt.position().hands[2] & others, 0u) << dealt.ToString();
    }
  }
  // A record that no match could make is refused.
  FrostDragonView forged = static_cast<const FrostDragonView&>(*state.ViewFor(0));
  forged.challenges[0].cards[1].card = C(kRiver, 11);  // never played
  EXPECT_THAT(deal->Sample(forged, rng),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not played this quest")));
}

TEST(FrostDragonTest, MovesEncodeOneCodeEach) {
  std::set<std::uint64_t> codes;
  std::vector<Move> moves;
  for (int k = 0; k < kNumKingdoms; ++k) moves.push_back(Move::ChooseTrump(k));
  for (int b = 0; b <= kMaxHandSize; ++b) moves.push_back(Move::Boast(b));
  for (int card = 0; card < kNumCardIds; ++card) {
    if (KindOf(card) != CardKind::kAlly) {
      moves.push_back(Move::Play(card));
      continue;
    }
    for (int as = 0; as < kNumKingdomCards; ++as) moves.push_back(Move::Play(card, as));
  }
  for (const Move& move : moves) {
    const Action code = move.Encode();
    EXPECT_TRUE(codes.insert(code.code()).second);
    EXPECT_EQ(Move::Decode(code), move);
  }
  EXPECT_EQ(Move::Decode(Action(3)), std::nullopt) << "no fourth kind";
  EXPECT_EQ(Move::Decode(Action(Move::Play(C(kMountain, 2)).Encode().code() | (5 << 8))),
            std::nullopt)
      << "only an ally names a card";
  EXPECT_EQ(Move::Decode(Action(Move::Play(kImp).Encode().code() | (52 << 8))), std::nullopt);
}

TEST(FrostDragonTest, ActionsReadAsAPlayerWouldSayThem) {
  FrostDragonState state(Rules{}, Quest({{kFairy}, {C(kMountain, 2)}}, {1, 0}));
  EXPECT_EQ(state.ActionToString(0, Move::ChooseTrump(kGlacier).Encode()), "name Glacier trump");
  EXPECT_EQ(state.ActionToString(0, Move::Boast(4).Encode()), "boast 4");
  EXPECT_EQ(state.ActionToString(0, Play(C(kRiver, 12))), "play the Q of River");
  EXPECT_EQ(state.ActionToString(0, Play(kFairy, C(kForest, 10))),
            "play the Fairy as the 10 of Forest");
  EXPECT_EQ(state.ActionToString(0, Play(kDragonJoker + 1)), "play the Dragon joker");
}

// ---------------------------------------------------------------- Statistics

// Plays `state` out with each seat's first legal action, counting.
MatchCounts CountPlayedOut(FrostDragonState& state) {
  std::unique_ptr<MatchCounter> counter = MakeStatistics().make_counter();
  while (!state.IsOver()) {
    const Seat seat = state.SeatsToAct()[0];
    const Action action = state.LegalActions(seat)[0];
    const std::unique_ptr<State> before = state.Clone();
    EXPECT_THAT(state.Apply(seat, action), IsOk());
    counter->OnAction(*before, seat, action, state);
  }
  MatchCounts counts;
  counter->OnEnd(state, &counts);
  return counts;
}

// "Decided by": what last made the winner the sole leader.
TEST(FrostDragonStatsTest, ASwapThatPutsTheWinnerInTheLeadDecidesTheMatch) {
  // Seat 0 on 22 boasts 1 and wins it, onto the Leprechaun's Treasure (23),
  // and swaps with seat 1 in the lair (26): seat 0 wins there.
  FrostDragonState swap = Duel(/*space=*/22, /*boast=*/1, /*wins=*/1, /*cards=*/1, 26);
  MatchCounts counts = CountPlayedOut(swap);
  EXPECT_EQ(Of(swap, 0).space, 26);
  EXPECT_EQ(counts["ended: someone at the treasure"], 1);
  EXPECT_EQ(counts["quests: played"], 1);
  EXPECT_EQ(counts["action spaces: Leprechaun's Treasure"], 1);
  EXPECT_EQ(counts["decided by: Leprechaun's Treasure"], 1);
  EXPECT_EQ(counts["won: the first Fate"] + counts["won: 1 left of the first Fate"], 1);

  // Seat 0 on 24 wins its way onto the finish, leading all along.
  FrostDragonState step = Duel(/*space=*/24, /*boast=*/1, /*wins=*/1, /*cards=*/1);
  counts = CountPlayedOut(step);
  EXPECT_EQ(counts["decided by: a challenge won"], 1);
  EXPECT_EQ(counts["action spaces: Leprechaun's Treasure"], 0);
}

}  // namespace
}  // namespace hoard::engine::frost_dragon
