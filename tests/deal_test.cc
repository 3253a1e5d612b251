// Every game's deal, against the views of real matches: a dealt state looks
// exactly like the match to its observer, holds exactly the game's cards
// (so it never invents a card the observer has seen elsewhere), plays on to
// an end, and really varies what the observer cannot see.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/registry.h"
#include "engine/sampler.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::engine {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;

struct Case {
  std::string game;
  int players;
  friend void PrintTo(const Case& c, std::ostream* os) {
    *os << c.game << " with " << c.players << " players";
  }
};

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (const engine::Game* game : engine::AllGames()) {
    for (int n = game->info().min_players; n <= game->info().max_players; ++n) {
      cases.push_back({game->info().id, n});
    }
  }
  return cases;
}

// Every card of every place, sorted: what a state holds, wherever it is.
// Dragon's Gold's view does not list the dragons slain so far, so its
// sampler deals the pile from every dragon not face up: the pile is left out.
std::vector<std::string> AllCards(const engine::State& state) {
  std::vector<std::string> cards;
  for (const engine::Zone& zone : state.Zones()) {
    if (zone.name == "dragon pile") continue;
    cards.insert(cards.end(), zone.cards.begin(), zone.cards.end());
  }
  std::sort(cards.begin(), cards.end());
  return cards;
}

bool Contains(const engine::Seats& seats, engine::Seat seat) {
  return std::find(seats.begin(), seats.end(), seat) != seats.end();
}

class SamplerTest : public ::testing::TestWithParam<Case> {
 protected:
  const engine::Game& game() const { return **engine::FindGame(GetParam().game); }
};

constexpr int kMatches = 40;

TEST_P(SamplerTest, SamplesLookLikeTheMatchToTheirObserver) {
  const Sampler* sampler = DealFor(game());
  ASSERT_NE(sampler, nullptr);
  const int n = GetParam().players;
  engine::Rng rng(20261123);
  std::int64_t samples = 0, moved = 0, played_out = 0;
  std::vector<engine::Action> legal;
  for (int m = 0; m < kMatches; ++m) {
    const std::uint64_t seed = rng.Next();
    std::unique_ptr<engine::State> state = *game().NewMatch({.num_players = n, .seed = seed});
    for (int step = 0; !state->IsOver(); ++step) {
      const engine::Seats to_act = state->SeatsToAct();
      for (engine::Seat seat = 0; seat < n; ++seat) {
        const std::unique_ptr<engine::View> view = state->ViewFor(seat);
        const std::string where =
            absl::StrCat("match seed ", seed, ", step ", step, ", seat ", seat);
        ASSERT_THAT(sampler->Observer(*view), IsOk()) << where;
        ASSERT_EQ(*sampler->Observer(*view), seat) << where;
        absl::StatusOr<std::unique_ptr<engine::State>> sample = sampler->Sample(*view, rng);
        ASSERT_THAT(sample, IsOk()) << where;
        ++samples;
        const std::unique_ptr<engine::View> seen = (*sample)->ViewFor(seat);
        ASSERT_TRUE(seen->Equals(*view)) << where << "\nthe seat sees:\n"
                                         << view->ToString() << "\nin the sample it would see:\n"
                                         << seen->ToString();
        // Zones() may leave out cards gone from play (a slain dragon, this
        // quest's played cards); what it lists must be the match's own.
        ASSERT_EQ(AllCards(**sample), AllCards(*state)) << where;
        ASSERT_EQ(Contains((*sample)->SeatsToAct(), seat), Contains(to_act, seat)) << where;
        ASSERT_EQ((*sample)->LegalActions(seat), state->LegalActions(seat)) << where;
        if ((*sample)->ToString() != state->ToString()) ++moved;
        if (step % 16 == seat) {
          // The sample is a match that plays on to its end.
          engine::State& s = **sample;
          for (int guard = 0; !s.IsOver(); ++guard) {
            ASSERT_LT(guard, game().info().max_actions) << where;
            const engine::Seat next = s.SeatsToAct()[0];
            s.LegalActions(next, &legal);
            ASSERT_THAT(s.Apply(next, legal[rng.Uniform(legal.size())]), IsOk()) << where;
          }
          ++played_out;
        }
      }
      const engine::Seat actor = to_act[0];
      state->LegalActions(actor, &legal);
      ASSERT_THAT(state->Apply(actor, legal[rng.Uniform(legal.size())]), IsOk());
    }
  }
  EXPECT_GT(played_out, kMatches);
  // What the seats could not see was dealt anew in most samples.
  EXPECT_GT(moved, samples / 2) << moved << " of " << samples << " samples moved a card";
}

TEST_P(SamplerTest, RefusesSpectatorsAndOtherGamesViews) {
  const Sampler* sampler = DealFor(game());
  ASSERT_NE(sampler, nullptr);
  std::unique_ptr<engine::State> state =
      *game().NewMatch({.num_players = GetParam().players, .seed = 5});
  engine::Rng rng(1);
  const std::unique_ptr<engine::View> spectator = state->ViewFor(engine::kSpectator);
  EXPECT_THAT(sampler->Observer(*spectator),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  EXPECT_THAT(sampler->Sample(*spectator, rng),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  for (const engine::Game* other : engine::AllGames()) {
    if (other == &game()) continue;
    std::unique_ptr<engine::State> theirs =
        *other->NewMatch({.num_players = other->info().min_players, .seed = 5});
    const std::unique_ptr<engine::View> view = theirs->ViewFor(0);
    EXPECT_THAT(sampler->Observer(*view),
                StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_))
        << other->info().id;
    EXPECT_THAT(sampler->Sample(*view, rng),
                StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_))
        << other->info().id;
  }
}

INSTANTIATE_TEST_SUITE_P(AllGames, SamplerTest, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return absl::StrCat(info.param.game, "_", info.param.players, "p");
                         });

}  // namespace
}  // namespace hoard::engine
