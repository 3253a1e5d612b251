#include "engine/games/dragons_gold/dragons_gold.h"

#include <array>
#include <memory>
#include <numeric>
#include <variant>

#include "engine/registry.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::engine::dragons_gold {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;

const Game& DragonsGold() { return **FindGame("dragons_gold"); }

TEST(DragonsGoldTest, RandomMatchesEnd) {
  for (int players = 3; players <= 6; ++players) {
    for (std::uint64_t seed = 1; seed <= 50; ++seed) {
      std::unique_ptr<State> state =
          *DragonsGold().NewMatch({.num_players = players, .seed = seed});
      Rng rng(seed);
      std::vector<Action> legal;
      int steps = 0;
      while (!state->IsOver()) {
        const Seats seats = state->SeatsToAct();
        ASSERT_FALSE(seats.empty());
        const Seat seat = seats[rng.Uniform(seats.size())];
        state->LegalActions(seat, &legal);
        ASSERT_FALSE(legal.empty()) << state->ToString();
        ASSERT_THAT(state->Apply(seat, legal[rng.Uniform(legal.size())]), IsOk());
        ASSERT_LT(++steps, DragonsGold().info().max_actions);
      }
    }
  }
}

}  // namespace
}  // namespace hoard::engine::dragons_gold

namespace hoard::engine::dragons_gold {
namespace {

// A table to start tests from: three players, empty slots, the bag holding
// `bag` (drawn from the back), nobody holding anything, seat 0 to play.
Position Table(int players = 3, std::vector<int> bag = {}) {
  Position p;
  p.holdings.assign(players, TokenCounts{});
  p.adventurers.assign(players, {});
  p.objects.assign(players, ObjectCounts{});
  p.bag = std::move(bag);
  p.market_done = true;
  p.turns = 1;
  return p;
}

// Puts dragon `card` in `slot` with `tokens` on it.
void Lay(Position& p, int slot, int card, TokenCounts tokens = {}) {
  p.dragons[slot].card = card;
  p.dragons[slot].tokens = tokens;
}

Action Attack(int slot, int adventurer, int second = -1) {
  return Move{.kind = Move::Kind::kAttack, .slot = slot, .adventurer = adventurer, .second = second}
      .Encode();
}
Action Use(int object, int a = 0, int b = 0) {
  return Move{.kind = Move::Kind::kUseObject, .object = object, .a = a, .b = b}.Encode();
}
Action Simple(Move::Kind kind) { return Move{.kind = kind}.Encode(); }

TokenCounts Of(std::initializer_list<std::pair<int, int>> kinds) {
  TokenCounts counts{};
  for (auto [kind, n] : kinds) counts[kind] = n;
  return counts;
}

TEST(DragonsGoldRulesTest, TheDealRevealsFourDragonsAndDealsAnObjectEach) {
  std::unique_ptr<State> state = *DragonsGold().NewMatch({.num_players = 4, .seed = 9});
  const Position& p = static_cast<DragonsGoldState&>(*state).position();
  int on_table = 0;
  for (const FaceUpDragon& d : p.dragons) {
    ASSERT_GE(d.card, 0);
    int tokens = 0;
    for (int n : d.tokens) tokens += n;
    EXPECT_EQ(tokens, kDragons[d.card].known);
    on_table += tokens;
  }
  EXPECT_EQ(static_cast<int>(p.bag.size()) + on_table, 126);
  EXPECT_EQ(p.pile.size(), 14u);
  EXPECT_EQ(p.object_deck.size(), 22u - 4u) << "24 cards less the Invisible Hands, one dealt each";
  for (const ObjectCounts& hand : p.objects) {
    int cards = 0;
    for (int n : hand) cards += n;
    EXPECT_EQ(cards, 1);
  }
}

TEST(DragonsGoldRulesTest, TheFirstPlayerIsDrawnAtRandomFromTheSeed) {
  // "First player: Last person who killed a dragon; otherwise, choose
  // randomly." Nobody has slain a dragon when a match begins.
  std::array<int, 4> starts{};
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    const Seats first = (*DragonsGold().NewMatch({.num_players = 4, .seed = seed}))->SeatsToAct();
    ASSERT_EQ(first.size(), 1u);
    ++starts[first[0]];
    EXPECT_EQ((*DragonsGold().NewMatch({.num_players = 4, .seed = seed}))->SeatsToAct(), first)
        << "a seed always picks the same first player";
    EXPECT_EQ((*DragonsGold().NewMatch(
                   {.num_players = 4, .seed = seed, .options = {{"first_player", "seat0"}}}))
                  ->SeatsToAct(),
              Seats{0});
  }
  for (int count : starts) EXPECT_GT(count, 30) << "every seat starts about a quarter of matches";
}

TEST(DragonsGoldRulesTest, AnAttackBelowStrengthLeavesTheDragonAndPassesTheTurn) {
  Position p = Table();
  Lay(p, 0, /*card=*/0);  // strength 5
  DragonsGoldState state({}, p);
  ASSERT_THAT(state.Apply(0, Attack(0, kKnight4)), IsOk());
  EXPECT_EQ(state.position().dragons[0].attackers, (std::vector<Attacker>{{0, kKnight4}}));
  EXPECT_EQ(state.position().adventurers[0][kKnight4], AdventurerState::kAttacking);
  EXPECT_EQ(state.SeatsToAct(), Seats{1});
  EXPECT_THAT(state.Apply(1, Attack(1, kKnight4)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no dragon lies in slot 1")));
  EXPECT_THAT(state.Apply(0, Attack(0, kKnight3)),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not to act")));
}

TEST(DragonsGoldRulesTest, ALoneSlayerTakesKnownAndHiddenTreasureAndANewDragonComes) {
  // Dragon 0 (strength 5, 2 known, 2 hidden). The bag's back is drawn first.
  Position p = Table(3, {kSilver, kSilver, kSilver, kSilver, kBlue, kGold, kRed});
  Lay(p, 0, 0, Of({{kWhite, 2}}));
  p.pile = {5};  // dragon 5: strength 7, 4 known
  p.adventurers[0][kKnight4] = AdventurerState::kAttacking;
  p.dragons[0].attackers = {{0, kKnight4}};
  DragonsGoldState state({}, p);
  ASSERT_THAT(state.Apply(0, Attack(0, kWizard)), IsOk());  // 4 + 1 = 5: slain
  const Position& after = state.position();
  EXPECT_EQ(after.holdings[0], Of({{kWhite, 2}, {kRed, 1}, {kGold, 1}}));
  EXPECT_EQ(after.adventurers[0][kKnight4], AdventurerState::kResting);
  EXPECT_EQ(after.adventurers[0][kWizard], AdventurerState::kResting);
  EXPECT_EQ(after.dragons[0].card, 5);
  EXPECT_EQ(after.dragons[0].tokens, Of({{kBlue, 1}, {kSilver, 3}}));
  EXPECT_TRUE(after.bag.size() == 1u);
  EXPECT_EQ(after.phase, Phase::kTurn);
  EXPECT_EQ(after.current, 1);
}

// Seats 0 and 1 slay dragon 0 (strength 5) together: 3 + 2 by seat 1's thief.
DragonsGoldState SharedSlaying(Rules rules = {}) {
  Position p = Table(3, {kGold, kGold});
  Lay(p, 0, 0, Of({{kSilver, 2}}));
  p.adventurers[0][kKnight3] = AdventurerState::kAttacking;
  p.dragons[0].attackers = {{0, kKnight3}};
  p.current = 1;
  DragonsGoldState state(rules, p);
  EXPECT_THAT(state.Apply(1, Attack(0, kThief)), IsOk());
  return state;
}

TEST(DragonsGoldRulesTest, PartnersNegotiateAndAUnanimousProposalDividesTheTreasure) {
  DragonsGoldState state = SharedSlaying();
  const Negotiation& n = state.position().negotiation;
  EXPECT_EQ(state.position().phase, Phase::kPropose);
  EXPECT_EQ(n.contributors, (std::vector<Seat>{0, 1}));
  EXPECT_EQ(n.proposer, 1) << "the slayer proposes first";
  EXPECT_EQ(n.tokens, Of({{kSilver, 2}, {kGold, 2}}));
  EXPECT_FALSE(state.LegalActionsComplete(1));
  EXPECT_THAT(state.LegalActionsHint(1), HasSubstr("4 tokens"));
  // Seat 1 offers seat 0 both silver and keeps the gold; seat 0 refuses.
  ASSERT_THAT(state.Apply(1, Proposal({Of({{kSilver, 2}}), Of({{kGold, 2}})}).Encode()), IsOk());
  EXPECT_EQ(state.SeatsToAct(), Seats{0});
  ASSERT_THAT(state.Apply(0, Simple(Move::Kind::kReject)), IsOk());
  EXPECT_EQ(state.position().negotiation.proposer, 0) << "the next contributor proposes";
  ASSERT_THAT(
      state.Apply(
          0, Proposal({Of({{kGold, 1}, {kSilver, 1}}), Of({{kGold, 1}, {kSilver, 1}})}).Encode()),
      IsOk());
  ASSERT_THAT(state.Apply(1, Simple(Move::Kind::kAccept)), IsOk());
  // Divided; then seat 1's thief robs seat 0 of one token at random.
  const Position& p = state.position();
  int zero = 0, one = 0;
  for (int k = 0; k < kNumTokenKinds; ++k) {
    zero += p.holdings[0][k];
    one += p.holdings[1][k];
  }
  EXPECT_EQ(zero, 1);
  EXPECT_EQ(one, 3);
  EXPECT_EQ(p.adventurers[1][kThief], AdventurerState::kResting);
  EXPECT_EQ(p.phase, Phase::kOver) << "bag and pile empty, table clear";
}

TEST(DragonsGoldRulesTest, WithoutAgreementTheTreasureLeavesTheGame) {
  Rules rules;
  rules.negotiation_proposals = 2;
  DragonsGoldState state = SharedSlaying(rules);
  const Action all_to_me = Proposal({TokenCounts{}, Of({{kSilver, 2}, {kGold, 2}})}).Encode();
  ASSERT_THAT(state.Apply(1, all_to_me), IsOk());
  ASSERT_THAT(state.Apply(0, Simple(Move::Kind::kReject)), IsOk());
  ASSERT_THAT(state.Apply(0, Proposal({Of({{kSilver, 2}, {kGold, 2}}), TokenCounts{}}).Encode()),
              IsOk());
  ASSERT_THAT(state.Apply(1, Simple(Move::Kind::kReject)), IsOk());
  EXPECT_EQ(state.position().removed, Of({{kSilver, 2}, {kGold, 2}}));
  EXPECT_EQ(state.position().holdings[0], TokenCounts{});
  EXPECT_EQ(state.position().holdings[1], TokenCounts{});
}

TEST(DragonsGoldRulesTest, ProposalsMustAssignEveryTokenCanonically) {
  DragonsGoldState state = SharedSlaying();
  Move bad = Proposal({TokenCounts{}, Of({{kSilver, 2}, {kGold, 2}})});
  bad.assignment = {1, 0, 1, 1};  // silver to 1 then 0: out of order
  EXPECT_THAT(state.Apply(1, bad.Encode()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("in contributor order")));
  bad.assignment = {2, 2, 2, 2};
  EXPECT_THAT(state.Apply(1, bad.Encode()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("only 2 took part")));
  bad.assignment = {1, 1, 1, 1, 1};
  EXPECT_THAT(state.Apply(1, bad.Encode()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("holds 4 tokens")));
}

TEST(DragonsGoldRulesTest, VotesAreSealedUntilAllAreIn) {
  Position p = Table(3, {kGold});
  Lay(p, 0, 1, Of({{kSilver, 3}}));  // strength 5, 1 hidden
  p.adventurers[0][kKnight3] = AdventurerState::kAttacking;
  p.adventurers[1][kWizard] = AdventurerState::kAttacking;
  p.dragons[0].attackers = {{0, kKnight3}, {1, kWizard}};
  p.current = 2;
  DragonsGoldState state({}, p);
  ASSERT_THAT(state.Apply(2, Attack(0, kWizard)), IsOk());  // 3 + 1 + 1 = 5
  ASSERT_THAT(state.Apply(2, Proposal({Of({{kSilver, 1}}), Of({{kSilver, 1}}),
                                       Of({{kSilver, 1}, {kGold, 1}})})
                                 .Encode()),
              IsOk());
  EXPECT_EQ(state.SeatsToAct(), (Seats{0, 1}));
  ASSERT_THAT(state.Apply(0, Simple(Move::Kind::kReject)), IsOk());
  for (Seat observer : {kSpectator, Seat{1}, Seat{2}}) {
    const auto view = state.ViewFor(observer);
    const auto& v = static_cast<const DragonsGoldView&>(*view);
    EXPECT_EQ(v.negotiation.votes[0], 1) << "seat 0 has voted, how is sealed";
  }
  ASSERT_THAT(state.Apply(1, Simple(Move::Kind::kAccept)), IsOk());
  EXPECT_EQ(state.position().negotiation.last_votes, (std::vector<int>{2, 1, 0}));
}

// Seat 0's knight 4 stands on dragon 1 (strength 5, no treasure), with
// dragon 17 beside it to keep the table from clearing; seat 1 is to play,
// and its thief will slay the dragon and rob seat 0, who holds `victim`.
// With `wizard`, seat 1's wizard is already on the dragon: its owner chooses.
// The dragon holds nothing, so its thief finds nothing in a share: these
// raids play thief_steals=screen, the thief robbing the victim's screen.
Position ThiefRaid(TokenCounts victim, bool wizard = false) {
  Position p = Table(3);
  Lay(p, 0, 1);
  Lay(p, 1, 17);
  p.holdings[0] = victim;
  p.adventurers[0][kKnight4] = AdventurerState::kAttacking;
  p.dragons[0].attackers = {{0, kKnight4}};
  if (wizard) {
    p.adventurers[1][kWizard] = AdventurerState::kAttacking;
    p.dragons[0].attackers.push_back({1, kWizard});
  }
  p.current = 1;
  return p;
}

const Rules kFromScreens{.thieves_steal_from_share = false};

TEST(DragonsGoldRulesTest, AThiefWithItsWizardChoosesTheToken) {
  // Seat 1 adds its thief: 4 + 1 + 2 >= 5, and its wizard is there.
  DragonsGoldState turn(kFromScreens, ThiefRaid(Of({{kGold, 1}, {kSilver, 3}}), /*wizard=*/true));
  ASSERT_THAT(turn.Apply(1, Attack(0, kThief)), IsOk());
  EXPECT_EQ(turn.position().phase, Phase::kThiefChoice);
  EXPECT_EQ(turn.SeatsToAct(), Seats{1});
  ASSERT_THAT(turn.Apply(1, Move{.kind = Move::Kind::kSteal, .token = kGold}.Encode()), IsOk());
  EXPECT_EQ(turn.position().holdings[0], Of({{kSilver, 3}}));
  EXPECT_EQ(turn.position().holdings[1], Of({{kGold, 1}}));
}

TEST(DragonsGoldRulesTest, ADecoyPurseLetsTheRobbedPlayerChoose) {
  Position p = ThiefRaid(Of({{kGold, 1}, {kSilver, 3}}));
  p.objects[0][kDecoyPurse] = 1;
  DragonsGoldState state(kFromScreens, p);
  ASSERT_THAT(state.Apply(1, Attack(0, kThief)), IsOk());
  EXPECT_EQ(state.position().phase, Phase::kDecoy);
  EXPECT_EQ(state.SeatsToAct(), Seats{0});
  EXPECT_THAT(state.Apply(0, Move{.kind = Move::Kind::kDecoyGive, .token = kBlue}.Encode()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("you hold no blue")));
  ASSERT_THAT(state.Apply(0, Move{.kind = Move::Kind::kDecoyGive, .token = kSilver}.Encode()),
              IsOk());
  EXPECT_EQ(state.position().holdings[0], Of({{kGold, 1}, {kSilver, 2}}));
  EXPECT_EQ(state.position().holdings[1], Of({{kSilver, 1}}));
  EXPECT_EQ(state.position().objects[0][kDecoyPurse], 0);
}

// Dragon 0 (strength 5, 2 silver on it, 2 hidden: gold) with seat 0's
// knight 3 under it, and dragon 17 beside it to keep the table from
// clearing. Seat 0 already holds 5 blue behind its screen. Seat 1 (with its
// wizard already on the dragon if `wizard`) is to play its thief.
Position ShareRaid(bool wizard) {
  Position p = Table(3, {kGold, kGold});
  Lay(p, 0, 0, Of({{kSilver, 2}}));
  Lay(p, 1, 17);
  p.holdings[0] = Of({{kBlue, 5}});
  p.adventurers[0][kKnight3] = AdventurerState::kAttacking;
  p.dragons[0].attackers = {{0, kKnight3}};
  if (wizard) {
    p.adventurers[1][kWizard] = AdventurerState::kAttacking;
    p.dragons[0].attackers.push_back({1, kWizard});
  }
  p.current = 1;
  return p;
}

// Slays ShareRaid's dragon with seat 1's thief and divides it: `zero` to
// seat 0, the rest to seat 1.
void SlayAndDivide(DragonsGoldState& state, const TokenCounts& zero) {
  ASSERT_THAT(state.Apply(1, Attack(0, kThief)), IsOk());
  TokenCounts rest = Of({{kSilver, 2}, {kGold, 2}});
  for (int k = 0; k < kNumTokenKinds; ++k) rest[k] -= zero[k];
  ASSERT_THAT(state.Apply(1, Proposal({zero, rest}).Encode()), IsOk());
  ASSERT_THAT(state.Apply(0, Simple(Move::Kind::kAccept)), IsOk());
}

TEST(DragonsGoldRulesTest, AThiefStealsFromTheVictimsShareInFullView) {
  // "After negotiation, each thief steals one random treasure token from
  // each other player who helped slay the dragon": from what the victim
  // has just received, in front of everyone, not from behind a screen.
  DragonsGoldState state({}, ShareRaid(/*wizard=*/false));
  SlayAndDivide(state, Of({{kSilver, 2}}));
  EXPECT_EQ(state.position().holdings[0], Of({{kSilver, 1}, {kBlue, 5}}))
      << "the only kind in seat 0's share is silver";
  EXPECT_EQ(state.position().holdings[1], Of({{kSilver, 1}, {kGold, 2}}));
  // The table watched the token leave the share: its kind is public.
  for (Seat observer : {kSpectator, Seat{2}}) {
    const auto view = state.ViewFor(observer);
    const auto& v = static_cast<const DragonsGoldView&>(*view);
    const auto* theft = std::get_if<Theft>(&v.record.back());
    ASSERT_NE(theft, nullptr);
    EXPECT_EQ(theft->how, TheftKind::kRandom);
    EXPECT_EQ(theft->token, kSilver);
    EXPECT_EQ(KnownTokens(v, 0), Of({{kSilver, 1}}));
  }
}

TEST(DragonsGoldRulesTest, AChoosingThiefNamesAKindInTheVictimsShare) {
  // "If same player has both, they may choose (not random) which token to
  // steal": the share lies in plain view, so the choice is a real one.
  DragonsGoldState state({}, ShareRaid(/*wizard=*/true));
  SlayAndDivide(state, Of({{kSilver, 2}, {kGold, 1}}));
  ASSERT_EQ(state.position().phase, Phase::kThiefChoice);
  EXPECT_EQ(state.LegalActions(1),
            (std::vector<Action>{Move{.kind = Move::Kind::kSteal, .token = kSilver}.Encode(),
                                 Move{.kind = Move::Kind::kSteal, .token = kGold}.Encode()}));
  EXPECT_THAT(state.Apply(1, Move{.kind = Move::Kind::kSteal, .token = kBlue}.Encode()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("share holds no blue")));
  ASSERT_THAT(state.Apply(1, Move{.kind = Move::Kind::kSteal, .token = kGold}.Encode()), IsOk());
  EXPECT_EQ(state.position().holdings[0], Of({{kSilver, 2}, {kBlue, 5}}));
  EXPECT_EQ(state.position().holdings[1], Of({{kGold, 2}}));
  EXPECT_EQ(state.record().back(), (RecordEntry{Theft{.thief_owner = 1,
                                                      .victim = 0,
                                                      .how = TheftKind::kChosen,
                                                      .named = kGold,
                                                      .token = kGold}}));
}

TEST(DragonsGoldRulesTest, AThiefFindsNothingInAnEmptyShare) {
  // The victim received nothing from this dragon: their screen stays shut.
  DragonsGoldState state({}, ShareRaid(/*wizard=*/false));
  SlayAndDivide(state, TokenCounts{});
  EXPECT_EQ(state.position().holdings[0], Of({{kBlue, 5}}));
  EXPECT_EQ(state.position().holdings[1], Of({{kSilver, 2}, {kGold, 2}}));
  EXPECT_FALSE(std::holds_alternative<Theft>(state.record().back()));
  // Nor after a failed negotiation, when nobody received anything.
  DragonsGoldState lost({.negotiation_proposals = 1}, ShareRaid(/*wizard=*/false));
  ASSERT_THAT(lost.Apply(1, Attack(0, kThief)), IsOk());
  ASSERT_THAT(lost.Apply(1, Proposal({TokenCounts{}, Of({{kSilver, 2}, {kGold, 2}})}).Encode()),
              IsOk());
  ASSERT_THAT(lost.Apply(0, Simple(Move::Kind::kReject)), IsOk());
  EXPECT_EQ(lost.position().holdings[0], Of({{kBlue, 5}}));
  EXPECT_EQ(lost.position().holdings[1], TokenCounts{});
}

TEST(DragonsGoldRulesTest, AWizardDrawsAnObjectPerRedTokenReceived) {
  Position p = Table(3, {kRed, kRed});
  Lay(p, 0, 0);  // strength 5, 2 hidden: both red
  Lay(p, 1, 17);
  p.object_deck = {kRecall, kRetreat, kTreasureMap};
  p.adventurers[0][kKnight4] = AdventurerState::kAttacking;
  p.dragons[0].attackers = {{0, kKnight4}};
  DragonsGoldState state({}, p);
  ASSERT_THAT(state.Apply(0, Attack(0, kWizard)), IsOk());
  EXPECT_EQ(state.position().holdings[0], Of({{kRed, 2}}));
  EXPECT_EQ(state.position().objects[0][kTreasureMap], 1);
  EXPECT_EQ(state.position().objects[0][kRetreat], 1);
  EXPECT_EQ(state.position().object_deck, std::vector<int>{kRecall});
}

TEST(DragonsGoldRulesTest, RestingAdventurersGetReadyWhenNoneIsAndAllAttackingSkips) {
  Position p = Table(3);
  Lay(p, 0, 17);  // strength 10
  Lay(p, 1, 16);
  for (int adv = 0; adv < kNumAdventurers; ++adv) {
    p.adventurers[1][adv] = AdventurerState::kAttacking;
    p.adventurers[2][adv] = AdventurerState::kResting;
  }
  p.dragons[1].attackers = {{1, kKnight4}, {1, kKnight3}, {1, kThief}};
  p.dragons[0].attackers = {{1, kWizard}};
  DragonsGoldState state({}, p);
  ASSERT_THAT(state.Apply(0, Attack(0, kThief)), IsOk());
  // Seat 1 has everything attacking: skipped. Seat 2's resting team gets ready.
  EXPECT_EQ(state.SeatsToAct(), Seats{2});
  EXPECT_EQ(state.position().adventurers[2][kKnight4], AdventurerState::kReady);
  EXPECT_EQ(state.position().turns, 3);
}

// Three players, every adventurer under one of four dragons none of which
// falls: 10 + 10 + 9 + 9 strength against 9 + 9 + 8 + 4 attack.
Position Deadlock() {
  Position p = Table(3);
  Lay(p, 0, 17, Of({{kGold, 2}}));  // strength 10
  Lay(p, 1, 16);                    // 10
  Lay(p, 2, 13);                    // 9
  Lay(p, 3, 12);                    // 9
  for (Seat s = 0; s < 3; ++s) p.adventurers[s].fill(AdventurerState::kAttacking);
  p.adventurers[0][kWizard] = AdventurerState::kReady;
  p.dragons[0].attackers = {{0, kKnight4}, {1, kKnight4}, {2, kWizard}};  // 9
  p.dragons[1].attackers = {{2, kKnight4}, {0, kKnight3}, {1, kWizard}};  // 8, 9 with a wizard
  p.dragons[2].attackers = {{1, kKnight3}, {2, kKnight3}, {0, kThief}};   // 8
  p.dragons[3].attackers = {{1, kThief}, {2, kThief}};                    // 4
  return p;
}

TEST(DragonsGoldRulesTest, WhenNobodyCanActEveryAttackerComesBackReady) {
  DragonsGoldState state({}, Deadlock());
  ASSERT_THAT(state.Apply(0, Attack(1, kWizard)), IsOk());  // 9 of 10: nobody can act
  ASSERT_FALSE(state.IsOver());
  EXPECT_EQ(state.position().stalemate_retreats, 1);
  for (Seat s = 0; s < 3; ++s) {
    for (AdventurerState a : state.position().adventurers[s]) EXPECT_EQ(a, AdventurerState::kReady);
  }
  for (const FaceUpDragon& dragon : state.position().dragons) {
    EXPECT_TRUE(dragon.attackers.empty());
  }
  EXPECT_EQ(state.position().dragons[0].tokens, Of({{kGold, 2}}))
      << "the dragons keep their treasure";
  EXPECT_EQ(state.SeatsToAct(), Seats{1}) << "play goes on after the player who attacked";
  EXPECT_EQ(state.position().turns, 2);
}

TEST(DragonsGoldRulesTest, WithStalemateEndTheMatchEndsWhenNobodyCanAct) {
  DragonsGoldState state({.stalemate_retreat = false}, Deadlock());
  ASSERT_THAT(state.Apply(0, Attack(1, kWizard)), IsOk());
  EXPECT_TRUE(state.IsOver());
  EXPECT_EQ(state.position().end, EndReason::kStalemate);
  EXPECT_EQ(state.position().removed, Of({{kGold, 2}})) << "unslain treasure leaves the game";
}

TEST(DragonsGoldRulesTest, TheTurnCapEndsTheMatch) {
  Rules rules;
  rules.max_turns = 30;
  Position p = Table(3);
  Lay(p, 0, 17);
  p.turns = 30;
  DragonsGoldState state(rules, p);
  ASSERT_THAT(state.Apply(0, Attack(0, kWizard)), IsOk());
  EXPECT_TRUE(state.IsOver());
  EXPECT_EQ(state.position().end, EndReason::kTurnCap);
  // The table at the end counts the 30 turns played, not the one the cap
  // stopped before it began.
  const std::unique_ptr<View> end = state.ViewFor(kSpectator);
  EXPECT_EQ(static_cast<const DragonsGoldView&>(*end).turns, 30);
  EXPECT_THAT(end->ToString(), HasSubstr(", turn 30\n"));
}

Action Offer(Seat to, TokenCounts give, TokenCounts get) {
  return Move{.kind = Move::Kind::kMarketOffer, .target = to, .give = give, .get = get}.Encode();
}

// The rule text's market: "players have 60 seconds to trade any treasure
// tokens". An offer gives any bundle of tokens for any bundle.
TEST(DragonsGoldRulesTest, TheMarketOpensBeforeTheEighthDragonAndTradesBundles) {
  Position p = Table(3, {kSilver, kSilver, kSilver, kSilver, kSilver, kSilver});
  p.market_done = false;
  p.drawn_from_pile = 7;
  p.pile = {3};
  Lay(p, 0, 0);  // strength 5, 2 hidden silver
  Lay(p, 1, 17);
  p.holdings[0] = Of({{kSilver, 1}});
  p.holdings[1] = Of({{kGold, 1}, {kBlue, 2}});
  p.adventurers[0][kKnight4] = AdventurerState::kAttacking;
  p.dragons[0].attackers = {{0, kKnight4}};
  Rules rules;
  rules.market_rounds = 1;
  DragonsGoldState state(rules, p);
  ASSERT_THAT(state.Apply(0, Attack(0, kWizard)), IsOk());  // 2 hidden silver: seat 0 has 3
  EXPECT_EQ(state.position().phase, Phase::kMarketOffer);
  EXPECT_EQ(state.SeatsToAct(), Seats{1}) << "the player after the slayer offers first";
  EXPECT_EQ(state.position().dragons[0].card, -1) << "the 8th dragon waits for the market";
  EXPECT_FALSE(state.LegalActionsComplete(1)) << "bundles are too many to list";
  EXPECT_THAT(state.Apply(1, Offer(0, Of({{kGold, 2}}), Of({{kSilver, 1}}))),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("do not hold 2 gold")));
  EXPECT_THAT(state.Apply(1, Offer(0, Of({{kGold, 1}}), {})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at least one token")));
  EXPECT_THAT(state.Apply(1, Offer(0, Of({{kGold, 1}}), Of({{kGold, 1}, {kSilver, 1}}))),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("both give and ask")));
  ASSERT_THAT(state.Apply(1, Offer(0, Of({{kGold, 1}, {kBlue, 1}}), Of({{kSilver, 3}}))), IsOk());
  EXPECT_EQ(state.SeatsToAct(), Seats{0});
  ASSERT_THAT(state.Apply(0, Simple(Move::Kind::kMarketAccept)), IsOk());
  EXPECT_EQ(state.position().holdings[0], Of({{kGold, 1}, {kBlue, 1}}));
  EXPECT_EQ(state.position().holdings[1], Of({{kSilver, 3}, {kBlue, 1}}));
  EXPECT_EQ(
      std::get<MarketSwap>(state.record().back()),
      (MarketSwap{
          .from = 1, .to = 0, .give = Of({{kGold, 1}, {kBlue, 1}}), .get = Of({{kSilver, 3}})}));
  EXPECT_EQ(state.SeatsToAct(), Seats{2});
  ASSERT_THAT(state.Apply(2, Simple(Move::Kind::kMarketPass)), IsOk());
  ASSERT_THAT(state.Apply(0, Simple(Move::Kind::kMarketPass)), IsOk());
  EXPECT_EQ(state.position().phase, Phase::kTurn);
  EXPECT_EQ(state.position().dragons[0].card, 3) << "then the 8th dragon comes";
  EXPECT_EQ(state.SeatsToAct(), Seats{1});
}

TEST(DragonsGoldRulesTest, NoNewDragonOnceTheBagIsEmpty) {
  Position p = Table(3, {});
  p.pile = {4, 5};
  Lay(p, 0, 0);
  Lay(p, 1, 17);
  p.adventurers[0][kKnight4] = AdventurerState::kAttacking;
  p.dragons[0].attackers = {{0, kKnight4}};
  DragonsGoldState state({}, p);
  ASSERT_THAT(state.Apply(0, Attack(0, kWizard)), IsOk());
  EXPECT_EQ(state.position().dragons[0].card, -1);
  EXPECT_FALSE(state.IsOver()) << "dragon 17 is still on the table";
}

TEST(DragonsGoldRulesTest, ObjectsDoWhatTheySay) {
  Position p = Table(3, {kBlue});
  Lay(p, 0, 0, Of({{kSilver, 1}}));  // strength 5
  Lay(p, 1, 17, Of({{kGold, 4}}));   // strength 10
  p.adventurers[0][kKnight4] = AdventurerState::kAttacking;
  p.adventurers[0][kKnight3] = AdventurerState::kResting;
  p.dragons[0].attackers = {{0, kKnight4}};
  p.holdings[1] = Of({{kGold, 1}});
  p.objects[0] = ObjectCounts{1, 1, 1, 1, 1, 1, 1, 0, 1};
  DragonsGoldState state({.invisible_hand = true}, p);
  // Dragon Swap: the strong dragon (and its gold) moves under the knight.
  ASSERT_THAT(state.Apply(0, Use(kDragonSwap, 0, 1)), IsOk());
  EXPECT_EQ(state.position().dragons[0].card, 17);
  EXPECT_EQ(state.position().dragons[0].tokens, Of({{kGold, 4}}));
  EXPECT_EQ(state.position().dragons[0].attackers, (std::vector<Attacker>{{0, kKnight4}}));
  // Sleeping Potion: strength 10 -> 8.
  ASSERT_THAT(state.Apply(0, Use(kSleepingPotion, 0)), IsOk());
  EXPECT_EQ(state.position().dragons[0].strength(), 8);
  // Recall: the resting knight gets ready.
  ASSERT_THAT(state.Apply(0, Use(kRecall)), IsOk());
  EXPECT_EQ(state.position().adventurers[0][kKnight3], AdventurerState::kReady);
  // Retreat: the attacking knight comes back.
  ASSERT_THAT(state.Apply(0, Use(kRetreat, kKnight4)), IsOk());
  EXPECT_TRUE(state.position().dragons[0].attackers.empty());
  EXPECT_EQ(state.position().adventurers[0][kKnight4], AdventurerState::kReady);
  // Treasure Map: the bag's next token, in secret.
  ASSERT_THAT(state.Apply(0, Use(kTreasureMap)), IsOk());
  EXPECT_EQ(state.position().holdings[0], Of({{kBlue, 1}}));
  // Invisible Hand: seat 1's only token.
  ASSERT_THAT(state.Apply(0, Use(kInvisibleHand, 1)), IsOk());
  EXPECT_EQ(state.position().holdings[0], Of({{kBlue, 1}, {kGold, 1}}));
  // Second Strike: both knights at once (4 + 3 = 7 < 8).
  ASSERT_THAT(state.Apply(0, Attack(0, kKnight4, kKnight3)), IsOk());
  EXPECT_EQ(state.position().dragons[0].attackers.size(), 2u);
  EXPECT_EQ(state.position().object_discard, (ObjectCounts{1, 1, 1, 1, 1, 1, 0, 0, 1}));
  EXPECT_EQ(state.SeatsToAct(), Seats{1});
}

TEST(DragonsGoldRulesTest, ObjectsAreRefusedOutsideTheirMoment) {
  Position p = Table(3);
  Lay(p, 0, 0);
  Lay(p, 1, 1);
  p.adventurers[0][kKnight4] = AdventurerState::kAttacking;
  p.dragons[0].attackers = {{0, kKnight4}};
  p.objects[0] = ObjectCounts{1, 0, 1, 0, 0, 1, 1, 0, 0};
  DragonsGoldState state({}, p);
  EXPECT_THAT(state.Apply(0, Use(kSilverTongue)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("propose a division")));
  EXPECT_THAT(state.Apply(0, Use(kRecall)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs a resting")));
  EXPECT_THAT(state.Apply(0, Use(kSleepingPotion, 0)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("without its attackers")));
  EXPECT_THAT(state.Apply(0, Use(kTreasureMap)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("hold no Treasure Map")));
}

TEST(DragonsGoldRulesTest, SilverTongueAddsTwoProposals) {
  DragonsGoldState state = [] {
    Position p = Table(3, {kGold, kGold});
    Lay(p, 0, 0, Of({{kSilver, 2}}));
    p.adventurers[0][kKnight3] = AdventurerState::kAttacking;
    p.dragons[0].attackers = {{0, kKnight3}};
    p.objects[1][kSilverTongue] = 1;
    p.current = 1;
    DragonsGoldState s({}, p);
    EXPECT_THAT(s.Apply(1, Attack(0, kThief)), IsOk());
    return s;
  }();
  ASSERT_THAT(state.Apply(1, Use(kSilverTongue)), IsOk());
  EXPECT_EQ(state.position().negotiation.proposals_allowed, 8);
  EXPECT_EQ(state.position().phase, Phase::kPropose);
}

// Scoring, worked by hand. Four players: majority 10, a 2-way tie 5 each.
TEST(DragonsGoldScoringTest, AdvancedScoringByHand) {
  Position p = Table(4);
  p.phase = Phase::kOver;
  // Seat 0: 2 silver, 1 gold, 1 red = 6; blue 3 (sole majority +10);
  //   one of each gem = a straight +5; green 1, purple 1, yellow 1, white 1.
  p.holdings[0] = Of({{kSilver, 2},
                      {kGold, 1},
                      {kRed, 1},
                      {kBlue, 3},
                      {kGreen, 1},
                      {kPurple, 1},
                      {kYellow, 1},
                      {kWhite, 1}});
  // Seat 1: green 2 tie with seat 2 (5); purple 2 tie with seat 2 and 3 (0).
  p.holdings[1] = Of({{kGreen, 2}, {kPurple, 2}});
  p.holdings[2] = Of({{kGreen, 2}, {kPurple, 2}, {kGold, 2}});
  // Seat 3: the black diamond (19), sole yellow majority: cursed, so nobody
  //   scores yellow; purple 2 ties three ways (0); white 3 - cursed: no
  //   majority for seat 3 and nobody else leads white alone... seat 3 is
  //   the sole white leader, so white scores for nobody either.
  p.holdings[3] = Of({{kBlack, 1}, {kYellow, 4}, {kPurple, 2}, {kWhite, 3}});
  DragonsGoldState state({}, p);
  EXPECT_EQ(state.Scores(), (std::vector<double>{6 + 10 + 5, 5, 6 + 5, 19}));
  EXPECT_EQ(state.Ranks(), (std::vector<int>{1, 4, 3, 2}));
}

TEST(DragonsGoldScoringTest, ACursedPlayerInATwoWayTieLeavesTheOtherHalf) {
  Position p = Table(3);
  p.phase = Phase::kOver;
  p.holdings[0] =
      Of({{kBlack, 1}, {kBlue, 2}, {kGreen, 1}, {kPurple, 1}, {kYellow, 1}, {kWhite, 1}});
  p.holdings[1] = Of({{kBlue, 2}});
  DragonsGoldState state({}, p);
  // 3 players: majority 12, half 6. Seat 0: 19, no straight, no majority
  // (green..white are its alone: cursed sole leader, nobody scores them).
  EXPECT_EQ(state.Scores(), (std::vector<double>{19, 6, 0}));
}

TEST(DragonsGoldScoringTest, BasicScoringByHand) {
  Position p = Table(6);
  p.phase = Phase::kOver;
  p.holdings[0] = Of(
      {{kBlack, 1}, {kBlue, 2}, {kGreen, 1}, {kPurple, 1}, {kYellow, 1}, {kWhite, 1}, {kGold, 1}});
  p.holdings[1] = Of({{kBlue, 2}, {kSilver, 3}});
  DragonsGoldState state({.advanced_scoring = false}, p);
  // 6 players, basic: majority 10 to everyone tied, black 7, no straights.
  // Seat 0: 7 + 3 + blue 10 + green, purple, yellow, white 40 = 60.
  EXPECT_EQ(state.Scores(), (std::vector<double>{60, 13, 0, 0, 0, 0}));
}

TEST(DragonsGoldRulesTest, AChoosingThiefTakesARandomTokenWhenTheKindIsMissing) {
  DragonsGoldState state(kFromScreens, ThiefRaid(Of({{kSilver, 3}}), /*wizard=*/true));
  ASSERT_THAT(state.Apply(1, Attack(0, kThief)), IsOk());
  ASSERT_THAT(state.Apply(1, Move{.kind = Move::Kind::kSteal, .token = kGold}.Encode()), IsOk());
  EXPECT_EQ(state.position().holdings[0], Of({{kSilver, 2}}));
  EXPECT_EQ(state.position().holdings[1], Of({{kSilver, 1}}));
}

TEST(DragonsGoldRulesTest, KeepingTheDecoyPurseLetsTheThiefTakeAtRandom) {
  Position p = ThiefRaid(Of({{kGold, 2}}));
  p.objects[0][kDecoyPurse] = 1;
  DragonsGoldState state(kFromScreens, p);
  ASSERT_THAT(state.Apply(1, Attack(0, kThief)), IsOk());
  ASSERT_THAT(state.Apply(0, Simple(Move::Kind::kDecoyKeep)), IsOk());
  EXPECT_EQ(state.position().holdings[1], Of({{kGold, 1}}));
  EXPECT_EQ(state.position().objects[0][kDecoyPurse], 1) << "kept for a later thief";
}

TEST(DragonsGoldRulesTest, ThievesStealFromScreensEvenWhenTheNegotiationFails) {
  Rules rules;
  rules.negotiation_proposals = 1;
  rules.thieves_steal_from_share = false;
  Position p = Table(3, {kGold, kGold});
  Lay(p, 0, 0, Of({{kSilver, 2}}));
  Lay(p, 1, 17);
  p.holdings[0] = Of({{kBlue, 1}});
  p.adventurers[0][kKnight3] = AdventurerState::kAttacking;
  p.dragons[0].attackers = {{0, kKnight3}};
  p.current = 1;
  DragonsGoldState state(rules, p);
  ASSERT_THAT(state.Apply(1, Attack(0, kThief)), IsOk());
  ASSERT_THAT(state.Apply(1, Proposal({TokenCounts{}, Of({{kSilver, 2}, {kGold, 2}})}).Encode()),
              IsOk());
  ASSERT_THAT(state.Apply(0, Simple(Move::Kind::kReject)), IsOk());
  EXPECT_EQ(state.position().removed, Of({{kSilver, 2}, {kGold, 2}}));
  EXPECT_EQ(state.position().holdings[1], Of({{kBlue, 1}})) << "the thief still robs";
}

TEST(DragonsGoldRulesTest, DragonSwapAndSleepingPotionNeverSlayAndPotionsStopAtOne) {
  Position p = Table(3);
  Lay(p, 0, 0);   // strength 5
  Lay(p, 1, 17);  // strength 10
  p.adventurers[1][kKnight4] = AdventurerState::kAttacking;
  p.adventurers[1][kKnight3] = AdventurerState::kAttacking;
  p.dragons[1].attackers = {{1, kKnight4}, {1, kKnight3}};  // 7
  p.objects[0] = ObjectCounts{1, 0, 0, 0, 0, 3, 0, 0, 0};
  DragonsGoldState state({}, p);
  EXPECT_THAT(state.Apply(0, Use(kDragonSwap, 0, 1)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("would slay it")));
  ASSERT_THAT(state.Apply(0, Use(kSleepingPotion, 0)), IsOk());  // 5 -> 3
  ASSERT_THAT(state.Apply(0, Use(kSleepingPotion, 0)), IsOk());  // 3 -> 1
  EXPECT_EQ(state.position().dragons[0].strength(), kMinDragonStrength);
  EXPECT_THAT(state.Apply(0, Use(kSleepingPotion, 0)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must weaken")));
}

TEST(DragonsGoldRulesTest, AnEmptyObjectDeckIsTheDiscardShuffled) {
  Position p = Table(3, {kRed, kRed});
  Lay(p, 0, 0);
  Lay(p, 1, 17);
  p.object_discard[kRecall] = 2;
  p.adventurers[0][kKnight4] = AdventurerState::kAttacking;
  p.dragons[0].attackers = {{0, kKnight4}};
  DragonsGoldState state({}, p);
  ASSERT_THAT(state.Apply(0, Attack(0, kWizard)), IsOk());
  EXPECT_EQ(state.position().objects[0][kRecall], 2);
  EXPECT_EQ(state.position().object_discard[kRecall], 0);
}

TEST(DragonsGoldScoringTest, EveryCompleteSetOfGemsIsAStraight) {
  Position p = Table(3);
  p.phase = Phase::kOver;
  p.holdings[0] = Of({{kBlue, 2}, {kGreen, 2}, {kPurple, 2}, {kYellow, 2}, {kWhite, 3}});
  p.holdings[1] = Of({{kBlue, 2}, {kGreen, 2}, {kPurple, 2}, {kYellow, 2}, {kWhite, 2}});
  DragonsGoldState state({}, p);
  // Both: two straights (10); blue..yellow tie two ways (6 each, 24);
  // seat 0 alone leads white (12).
  EXPECT_EQ(state.Scores(), (std::vector<double>{10 + 24 + 12, 10 + 24, 0}));
}

TEST(DragonsGoldScoringTest, BasicScoringGivesFullMajorityToEveryoneTied) {
  Position p = Table(3);
  p.phase = Phase::kOver;
  p.holdings[0] = Of({{kBlue, 1}, {kBlack, 1}});
  p.holdings[1] = Of({{kBlue, 1}});
  p.holdings[2] = Of({{kBlue, 1}});
  DragonsGoldState state({.advanced_scoring = false}, p);
  EXPECT_EQ(state.Scores(), (std::vector<double>{15 + 7, 15, 15}));
}

TEST(DragonsGoldRulesTest, EveryRobbedPlayerHoldingObjectsIsAskedPurseOrNot) {
  Position p = ThiefRaid(Of({{kGold, 2}}));
  p.objects[0][kRecall] = 1;  // an object, but no purse
  DragonsGoldState state(kFromScreens, p);
  ASSERT_THAT(state.Apply(1, Attack(0, kThief)), IsOk());
  EXPECT_EQ(state.position().phase, Phase::kDecoy) << "asked, so nobody learns who has a purse";
  EXPECT_EQ(state.LegalActions(0), std::vector<Action>{Simple(Move::Kind::kDecoyKeep)});
  EXPECT_THAT(state.Apply(0, Move{.kind = Move::Kind::kDecoyGive, .token = kGold}.Encode()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no Decoy Purse")));
  ASSERT_THAT(state.Apply(0, Simple(Move::Kind::kDecoyKeep)), IsOk());
  EXPECT_EQ(state.position().holdings[1], Of({{kGold, 1}}));
}

TEST(DragonsGoldTest, ViewsHideOtherScreensAndObjects) {
  std::unique_ptr<State> state = *DragonsGold().NewMatch({.num_players = 4, .seed = 3});
  const auto view = state->ViewFor(2);
  const auto& v = static_cast<const DragonsGoldView&>(*view);
  for (Seat s = 0; s < 4; ++s) {
    EXPECT_EQ(v.players[s].tokens.has_value(), s == 2);
    EXPECT_EQ(v.players[s].objects.has_value(), s == 2);
    EXPECT_EQ(v.players[s].object_count, 1);
  }
  const auto spectator = state->ViewFor(kSpectator);
  for (const PlayerView& player : static_cast<const DragonsGoldView&>(*spectator).players) {
    EXPECT_FALSE(player.tokens.has_value());
  }
}

TEST(DragonsGoldTest, MovesRoundTripThroughTheirCodes) {
  const std::vector<Move> moves = {
      {.kind = Move::Kind::kAttack, .slot = 3, .adventurer = kThief},
      {.kind = Move::Kind::kAttack, .slot = 1, .adventurer = kKnight4, .second = kWizard},
      {.kind = Move::Kind::kUseObject, .object = kDragonSwap, .a = 1, .b = 3},
      Proposal({Of({{kGold, 2}}), Of({{kSilver, 1}, {kGold, 1}}), Of({{kBlack, 1}})}),
      {.kind = Move::Kind::kAccept},
      {.kind = Move::Kind::kSteal, .token = kBlack},
      {.kind = Move::Kind::kMarketOffer,
       .target = 5,
       .give = Of({{kGold, 7}, {kSilver, 1}}),
       .get = Of({{kBlue, 2}, {kBlack, 1}})},
      {.kind = Move::Kind::kMarketRefuse},
  };
  for (const Move& move : moves) {
    const std::optional<Move> back = Move::Decode(move.Encode());
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, move);
  }
  EXPECT_FALSE(Move::Decode(Action(15)).has_value());
  EXPECT_FALSE(Move::Decode(Action(3 | (1u << 9))).has_value()) << "stray bits";
}

// ---- The public record ------------------------------------------------

const DragonsGoldView& AsView(const std::unique_ptr<View>& view) {
  return static_cast<const DragonsGoldView&>(*view);
}

// `p` with the tokens and objects it lacks of a whole game put under its bag
// and its object deck (drawn last), so that a deal can read its views.
Position Complete(Position p) {
  TokenCounts tokens = kBagContents;
  auto take = [&](const TokenCounts& shown) {
    for (int kind = 0; kind < kNumTokenKinds; ++kind) tokens[kind] -= shown[kind];
  };
  for (int token : p.bag) --tokens[token];
  for (const FaceUpDragon& dragon : p.dragons) take(dragon.tokens);
  for (const TokenCounts& screen : p.holdings) take(screen);
  take(p.removed);
  std::vector<int> under;
  for (int kind = 0; kind < kNumTokenKinds; ++kind) under.insert(under.end(), tokens[kind], kind);
  p.bag.insert(p.bag.begin(), under.begin(), under.end());
  ObjectCounts objects = kObjectDeck;
  objects[kInvisibleHand] = 0;  // the option is off
  for (int object : p.object_deck) --objects[object];
  for (const ObjectCounts& hand : p.objects) {
    for (int kind = 0; kind < kNumObjectKinds; ++kind) objects[kind] -= hand[kind];
  }
  under.clear();
  for (int kind = 0; kind < kNumObjectKinds; ++kind) under.insert(under.end(), objects[kind], kind);
  p.object_deck.insert(p.object_deck.begin(), under.begin(), under.end());
  return p;
}

// Three seats, nobody holding a token: seat 0 plays a Treasure Map and slays
// dragon 0 alone; seats 1 and 2 slay dragon 1 together and divide it, seat
// 2's thief (its wizard there too) names gold and seat 1's thief robs seat 2
// at random; the market opens and seat 0 swaps a white diamond for seat 1's
// blue.
DragonsGoldState PublicRecordMatch() {
  // Drawn from the back: the map's blue, dragon 0's hidden gold and yellow,
  // dragon 5's four silver, dragon 1's hidden green, then dragon 6's five.
  Position p = Table(3, {kSilver, kSilver, kSilver, kSilver, kSilver, kSilver, kGreen, kSilver,
                         kSilver, kSilver, kSilver, kYellow, kGold, kBlue});
  p.pile = {6, 5};
  p.drawn_from_pile = 6;  // the market comes before the 8th dragon
  p.market_done = false;
  Lay(p, 0, 0, Of({{kWhite, 2}}));                           // strength 5
  Lay(p, 1, 1, Of({{kGold, 1}, {kBlue, 1}, {kPurple, 1}}));  // strength 5
  Lay(p, 2, 17);
  p.adventurers[0][kKnight4] = AdventurerState::kAttacking;
  p.dragons[0].attackers = {{0, kKnight4}};
  p.adventurers[2][kWizard] = AdventurerState::kAttacking;
  p.adventurers[2][kThief] = AdventurerState::kAttacking;
  p.dragons[1].attackers = {{2, kWizard}, {2, kThief}};
  p.objects[0][kTreasureMap] = 1;
  Rules rules;
  rules.market_rounds = 1;
  DragonsGoldState state(rules, Complete(p));
  EXPECT_THAT(state.Apply(0, Use(kTreasureMap)), IsOk());
  EXPECT_THAT(state.Apply(0, Attack(0, kWizard)), IsOk());  // 4 + 1: slain, alone
  EXPECT_THAT(state.Apply(1, Attack(1, kThief)), IsOk());   // 1 + 2 + 2: slain, shared
  EXPECT_THAT(
      state.Apply(
          1, Proposal({Of({{kGold, 1}, {kBlue, 1}}), Of({{kPurple, 1}, {kGreen, 1}})}).Encode()),
      IsOk());
  EXPECT_THAT(state.Apply(2, Simple(Move::Kind::kAccept)), IsOk());
  EXPECT_THAT(state.Apply(2, Move{.kind = Move::Kind::kSteal, .token = kGold}.Encode()), IsOk());
  // Seat 1's thief has robbed seat 2 at random; the market is open.
  EXPECT_THAT(state.Apply(2, Simple(Move::Kind::kMarketPass)), IsOk());
  EXPECT_THAT(state.Apply(0, Offer(1, Of({{kWhite, 1}}), Of({{kBlue, 1}}))), IsOk());
  EXPECT_THAT(state.Apply(1, Simple(Move::Kind::kMarketAccept)), IsOk());
  EXPECT_THAT(state.Apply(1, Simple(Move::Kind::kMarketPass)), IsOk());
  return state;
}

TEST(DragonsGoldRecordTest, EachObserverSeesThePublicRecordAndOnlyItsOwnSecrets) {
  const DragonsGoldState state = PublicRecordMatch();
  ASSERT_EQ(state.position().phase, Phase::kTurn);
  ASSERT_EQ(state.record().size(), 6u);
  const int random = std::get<Theft>(state.record()[4]).token;
  ASSERT_TRUE(random == kGold || random == kPurple || random == kGreen);
  EXPECT_EQ(state.position().holdings[1], Of({{random, 1}, {kWhite, 1}}));

  const Slaying lone{.card = 0,
                     .slot = 0,
                     .slayer = 0,
                     .attackers = {{0, kKnight4}, {0, kWizard}},
                     .treasure = Of({{kWhite, 2}, {kGold, 1}, {kYellow, 1}}),
                     .drawn = Of({{kGold, 1}, {kYellow, 1}}),
                     .outcome = Slaying::Outcome::kDivided,
                     .shares = {{0, Of({{kWhite, 2}, {kGold, 1}, {kYellow, 1}})}}};
  const Slaying shared{
      .card = 1,
      .slot = 1,
      .slayer = 1,
      .attackers = {{2, kWizard}, {2, kThief}, {1, kThief}},
      .treasure = Of({{kGold, 1}, {kBlue, 1}, {kPurple, 1}, {kGreen, 1}}),
      .drawn = Of({{kGreen, 1}}),
      .outcome = Slaying::Outcome::kDivided,
      .shares = {{1, Of({{kGold, 1}, {kBlue, 1}})}, {2, Of({{kPurple, 1}, {kGreen, 1}})}}};
  const Theft chosen{
      .thief_owner = 2, .victim = 1, .how = TheftKind::kChosen, .named = kGold, .token = kGold};
  const MarketSwap swap{.from = 0, .to = 1, .give = Of({{kWhite, 1}}), .get = Of({{kBlue, 1}})};
  // Who sees the kind of the map's draw and of the random theft.
  auto expected = [&](int map_kind, int random_kind) {
    return Record{TreasureMapDraw{.seat = 0, .token = map_kind},
                  lone,
                  shared,
                  chosen,
                  Theft{.thief_owner = 1, .victim = 2, .token = random_kind},
                  swap};
  };
  EXPECT_EQ(state.record(), expected(kBlue, random));
  // The random theft took from seat 2's share, in view of the table.
  EXPECT_EQ(AsView(state.ViewFor(0)).record, expected(kBlue, random));
  EXPECT_EQ(AsView(state.ViewFor(1)).record, expected(kHiddenToken, random));
  EXPECT_EQ(AsView(state.ViewFor(2)).record, expected(kHiddenToken, random));
  EXPECT_EQ(AsView(state.ViewFor(kSpectator)).record, expected(kHiddenToken, random))
      << "the lone slayer's draw is public; the map's draw is nobody else's";
}

TEST(DragonsGoldRecordTest, TheRecordTellsWhatIsSurelyBehindEachScreen) {
  const DragonsGoldState state = PublicRecordMatch();
  const Position& truth = state.position();
  // Seat 0 saw seat 1 divide, lose its gold, take a token from seat 2's
  // share and swap its blue for a white diamond; seat 2 gain purple, green
  // and gold and lose that token.
  const auto seat0 = state.ViewFor(0);
  EXPECT_EQ(KnownTokens(AsView(seat0), 1), truth.holdings[1]);
  EXPECT_EQ(KnownTokens(AsView(seat0), 2), truth.holdings[2]);
  EXPECT_EQ(KnownTokens(AsView(seat0), 0), truth.holdings[0]) << "its own screen";
  // The thief's owner knows what it took: seat 1 knows seat 2's screen.
  EXPECT_EQ(KnownTokens(AsView(state.ViewFor(1)), 2), truth.holdings[2]);
  // A state dealt from seat 0's view is one seat 0 may be in, with the white
  // diamond where the record says it is.
  const Sampler& deal = *DealFor(DragonsGold());
  Rng rng(7);
  for (int i = 0; i < 50; ++i) {
    absl::StatusOr<std::unique_ptr<State>> dealt = deal.Sample(*seat0, rng);
    ASSERT_THAT(dealt.status(), IsOk());
    EXPECT_TRUE((*dealt)->ViewFor(0)->Equals(*seat0));
    EXPECT_TRUE((*dealt)->ViewFor(kSpectator)->Equals(*state.ViewFor(kSpectator)));
    const auto& sample = static_cast<const DragonsGoldState&>(**dealt);
    EXPECT_GE(sample.position().holdings[1][kWhite], 1);
  }
}

// What the record of `observer` shows moving into and out of `seat`'s
// screen: known kinds as a net count per kind, and hidden ones counted.
struct Ledger {
  TokenCounts known_net{};
  int hidden_in = 0;
  int hidden_out = 0;
};

Ledger LedgerOf(const DragonsGoldView& view, Seat seat) {
  Ledger ledger;
  auto move = [&](Seat from, Seat to, int kind) {
    const int sign = (to == seat) - (from == seat);
    if (sign == 0) return;
    if (kind != kHiddenToken) {
      ledger.known_net[kind] += sign;
    } else {
      (sign > 0 ? ledger.hidden_in : ledger.hidden_out) += 1;
    }
  };
  constexpr Seat kNowhere = -2;  // the bag, a dragon, the removed tokens
  for (const RecordEntry& entry : view.record) {
    if (const auto* slaying = std::get_if<Slaying>(&entry)) {
      for (const Share& share : slaying->shares) {
        for (int kind = 0; kind < kNumTokenKinds; ++kind) {
          for (int i = 0; i < share.tokens[kind]; ++i) move(kNowhere, share.seat, kind);
        }
      }
    } else if (const auto* swap = std::get_if<MarketSwap>(&entry)) {
      for (int kind = 0; kind < kNumTokenKinds; ++kind) {
        for (int i = 0; i < swap->give[kind]; ++i) move(swap->from, swap->to, kind);
        for (int i = 0; i < swap->get[kind]; ++i) move(swap->to, swap->from, kind);
      }
    } else if (const auto* theft = std::get_if<Theft>(&entry)) {
      move(theft->victim, theft->thief_owner, theft->token);
    } else if (const auto* map = std::get_if<TreasureMapDraw>(&entry)) {
      move(kNowhere, map->seat, map->token);
    }
  }
  return ledger;
}

TEST(DragonsGoldRecordTest, EveryObserversRecordReconcilesWithEveryScreen) {
  int hidden_seen = 0;
  for (int players = 3; players <= 6; ++players) {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      std::unique_ptr<State> state =
          *DragonsGold().NewMatch({.num_players = players,
                                   .seed = seed,
                                   .options = {{"invisible_hand", seed % 2 == 0 ? "on" : "off"}}});
      Rng rng(seed);
      while (!state->IsOver()) {
        const Seats seats = state->SeatsToAct();
        const Seat seat = seats[rng.Uniform(seats.size())];
        const std::vector<Action> legal = state->LegalActions(seat);
        ASSERT_THAT(state->Apply(seat, legal[rng.Uniform(legal.size())]), IsOk());
        // What a record proves behind a screen is there.
        const Seat observer = static_cast<Seat>(rng.Uniform(players + 1)) - 1;
        const auto& truth = static_cast<const DragonsGoldState&>(*state).position().holdings;
        const auto view = state->ViewFor(observer);
        for (Seat other = 0; other < players; ++other) {
          const TokenCounts known = KnownTokens(AsView(view), other);
          for (int kind = 0; kind < kNumTokenKinds; ++kind) {
            ASSERT_GE(truth[other][kind], known[kind]) << "seed " << seed << "\n"
                                                       << view->ToString();
          }
        }
      }
      const auto& truth = static_cast<const DragonsGoldState&>(*state).position().holdings;
      for (Seat observer = kSpectator; observer < players; ++observer) {
        const auto view = state->ViewFor(observer);
        for (Seat other = 0; other < players; ++other) {
          if (other == observer) continue;
          const Ledger ledger = LedgerOf(AsView(view), other);
          int count = ledger.hidden_in - ledger.hidden_out;
          for (int kind = 0; kind < kNumTokenKinds; ++kind) {
            count += ledger.known_net[kind];
            EXPECT_GE(truth[other][kind], ledger.known_net[kind] - ledger.hidden_out)
                << "seed " << seed << ", seat " << other << " seen by " << observer;
          }
          EXPECT_EQ(count, std::accumulate(truth[other].begin(), truth[other].end(), 0))
              << "seed " << seed << ", seat " << other << " seen by " << observer;
          hidden_seen += ledger.hidden_in;
        }
      }
    }
  }
  EXPECT_GT(hidden_seen, 0) << "the matches hid some kinds";
}

}  // namespace
}  // namespace hoard::engine::dragons_gold
