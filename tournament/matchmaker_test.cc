#include "tournament/matchmaker.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "engine/rng.h"
#include "gtest/gtest.h"

namespace hoard::tournament {
namespace {

// A model game: each table's order drawn from the Plackett–Luce model of
// the entrants' strengths (Elo points), from a seeded generator.
class ModelGame {
 public:
  ModelGame(std::vector<double> elo, std::uint64_t seed) : elo_(std::move(elo)), rng_(seed) {}

  std::vector<int> Ranks(const std::vector<int>& table) {
    const int k = static_cast<int>(table.size());
    std::vector<int> ranks(k, 0);
    for (int place = 1; place <= k; ++place) {
      double total = 0;
      for (int s = 0; s < k; ++s) total += ranks[s] == 0 ? Gamma(table[s]) : 0;
      double u = (static_cast<double>(rng_.Next() >> 11) + 0.5) * 0x1.0p-53 * total;
      int pick = -1;
      for (int s = 0; s < k; ++s) {
        if (ranks[s] != 0) continue;
        pick = s;
        u -= Gamma(table[s]);
        if (u <= 0) break;
      }
      ranks[pick] = place;
    }
    return ranks;
  }

  // Next(available) then Add of its result; the table.
  std::vector<int> Play(Matchmaker& matchmaker, const std::vector<int>& available) {
    std::vector<int> table = matchmaker.Next(available);
    if (!table.empty()) matchmaker.Add(table, Ranks(table));
    return table;
  }

 private:
  double Gamma(int e) const { return std::exp(elo_[e] / kMlPointsPerLogUnit); }
  std::vector<double> elo_;
  engine::Rng rng_;
};

std::vector<int> Everyone(int n) {
  std::vector<int> all(n);
  for (int e = 0; e < n; ++e) all[e] = e;
  return all;
}

std::vector<double> Spaced(int n, double step) {
  std::vector<double> elo(n);
  for (int e = 0; e < n; ++e) elo[e] = step * e;
  return elo;
}

// Entrants by rating, best first.
std::vector<int> ByRating(Matchmaker& matchmaker) {
  const std::vector<MatchmakerRating> ratings = matchmaker.Ratings();
  std::vector<int> order = Everyone(static_cast<int>(ratings.size()));
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return ratings[a].rating > ratings[b].rating; });
  return order;
}

TEST(MatchmakerTest, NextIsEmptyWhenTooFewAreAvailable) {
  Matchmaker matchmaker({.players = 3});
  matchmaker.Grow(5);
  EXPECT_TRUE(matchmaker.Next({}).empty());
  EXPECT_TRUE(matchmaker.Next({0, 4}).empty());
  const std::vector<int> table = matchmaker.Next({0, 2, 4});
  std::vector<int> sorted = table;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int>{0, 2, 4}));
}

TEST(MatchmakerTest, ANewEntrantPlaysItsPlacementFirstAgainstASpreadOfTheField) {
  ModelGame game(Spaced(9, 80), 7);
  Matchmaker matchmaker({.players = 2, .placement_matches = 3});
  matchmaker.Grow(8);
  for (int m = 0; m < 300; ++m) game.Play(matchmaker, Everyone(8));
  const std::vector<int> field = ByRating(matchmaker);
  matchmaker.Grow(9);
  std::vector<int> places;  // the opponents' places in the field, 0 = best
  for (int m = 0; m < 3; ++m) {
    const std::vector<int> table = game.Play(matchmaker, Everyone(9));
    ASSERT_EQ(table.size(), 2u);
    ASSERT_TRUE(table[0] == 8 || table[1] == 8) << "placement match " << m;
    const int opponent = table[0] == 8 ? table[1] : table[0];
    places.push_back(
        static_cast<int>(std::find(field.begin(), field.end(), opponent) - field.begin()));
  }
  std::sort(places.begin(), places.end());
  EXPECT_TRUE(std::adjacent_find(places.begin(), places.end()) == places.end());
  // From the top half and the bottom half of the field.
  EXPECT_LT(places.front(), 4);
  EXPECT_GE(places.back(), 4);
  // Placed: the next table need not seat it.
  EXPECT_EQ(matchmaker.Ratings()[8].matches, 3);
}

TEST(MatchmakerTest, NobodyStarvesWhateverTheirRating) {
  // Far apart: the extremes' order is clear early, yet they keep playing.
  const int n = 12;
  ModelGame game(Spaced(n, 150), 3);
  Matchmaker matchmaker({.players = 2});
  matchmaker.Grow(n);
  std::vector<int> last_seated(n, -1), longest_wait(n, 0), tables(n, 0);
  const int calls = 1500;
  for (int call = 0; call < calls; ++call) {
    for (int e : game.Play(matchmaker, Everyone(n))) {
      longest_wait[e] = std::max(longest_wait[e], call - last_seated[e]);
      last_seated[e] = call;
      ++tables[e];
    }
  }
  for (int e = 0; e < n; ++e) {
    longest_wait[e] = std::max(longest_wait[e], calls - last_seated[e]);
    // Seated at least once in every n calls after placement.
    EXPECT_LE(longest_wait[e], n + 3 * n) << "entrant " << e;
    EXPECT_GE(tables[e], calls * 2 / n / 2) << "entrant " << e;
  }
}

TEST(MatchmakerTest, NoTableRepeatsWhileAnotherWouldDo) {
  ModelGame game({0, 0, 400, 800, 1200}, 5);
  Matchmaker matchmaker({.players = 2});
  matchmaker.Grow(5);
  std::vector<std::vector<int>> last(5);
  for (int call = 0; call < 400; ++call) {
    std::vector<int> table = game.Play(matchmaker, Everyone(5));
    std::sort(table.begin(), table.end());
    for (int e : table) EXPECT_NE(last[e], table) << "call " << call;
    for (int e : table) last[e] = table;
  }
  // With no other choice, the same pair plays again.
  const std::vector<int> pair = matchmaker.Next({0, 1});
  std::vector<int> again = matchmaker.Next({0, 1});
  std::sort(again.begin(), again.end());
  EXPECT_EQ(again, (std::vector<int>{0, 1}));
  EXPECT_EQ(pair.size(), 2u);
}

TEST(MatchmakerTest, SeatsRotate) {
  for (int players : {2, 3, 4}) {
    const int n = 9;
    ModelGame game(Spaced(n, 40), 11);
    Matchmaker matchmaker({.players = players});
    matchmaker.Grow(n);
    std::vector<int> balance(n, 0), tables(n, 0);
    for (int call = 0; call < 900; ++call) {
      const std::vector<int> table = game.Play(matchmaker, Everyone(n));
      for (int seat = 0; seat < players; ++seat) {
        balance[table[seat]] += 2 * seat - (players - 1);
        ++tables[table[seat]];
      }
    }
    for (int e = 0; e < n; ++e) {
      // The mean seat is the middle one, within a few seats over the run.
      EXPECT_LE(std::abs(balance[e]), 3 * (players - 1))
          << players << " players, entrant " << e << " of " << tables[e] << " tables";
    }
  }
}

TEST(MatchmakerTest, TheSameInputsGiveTheSameTables) {
  const auto tables = [](std::uint64_t seed) {
    ModelGame game(Spaced(10, 30), 1);
    Matchmaker matchmaker({.players = 3, .seed = seed});
    matchmaker.Grow(10);
    std::vector<std::vector<int>> out;
    for (int call = 0; call < 200; ++call) {
      std::vector<int> available = Everyone(10);
      available.erase(available.begin() + call % 10);  // one entrant busy
      out.push_back(game.Play(matchmaker, available));
    }
    return out;
  };
  EXPECT_EQ(tables(4), tables(4));
  EXPECT_NE(tables(4), tables(5));
}

TEST(MatchmakerTest, RatingsFollowTheStrengths) {
  const int n = 8;
  ModelGame game(Spaced(n, 100), 9);
  Matchmaker matchmaker({.players = 2});
  matchmaker.Grow(n);
  const double before = matchmaker.Ratings()[0].deviation;
  for (int m = 0; m < 1200; ++m) game.Play(matchmaker, Everyone(n));
  const std::vector<MatchmakerRating> ratings = matchmaker.Ratings();
  int matches = 0;
  for (int e = 0; e < n; ++e) {
    matches += ratings[e].matches;
    EXPECT_LT(ratings[e].deviation, before / 4) << e;
    if (e > 0) EXPECT_GT(ratings[e].rating, ratings[e - 1].rating) << e;
  }
  EXPECT_EQ(matches, 2 * 1200);
  // 700 points from the weakest to the strongest, within the error.
  EXPECT_NEAR(ratings[n - 1].rating - ratings[0].rating, 700, 120);
}

TEST(MatchmakerTest, RatingsAreTheMlRatingsOfEveryResult) {
  const int n = 6;
  ModelGame game(Spaced(n, 50), 12);
  Matchmaker matchmaker({.players = 3});
  matchmaker.Grow(n);
  std::vector<MatchResult> results;
  for (int m = 0; m < 150; ++m) {
    std::vector<int> available = Everyone(n);
    available.erase(available.begin() + m % n);
    const std::vector<int> table = matchmaker.Next(available);
    ASSERT_FALSE(std::find(table.begin(), table.end(), m % n) != table.end()) << "not free";
    const std::vector<int> ranks = game.Ranks(table);
    matchmaker.Add(table, ranks);
    MatchResult result;
    result.unit = m;
    for (std::size_t s = 0; s < table.size(); ++s) result.placings.push_back({table[s], ranks[s]});
    results.push_back(result);
  }
  const std::vector<MlRating> ml =
      MlRatings(n, results, {.bootstrap_samples = 0, .profile_likelihood = false});
  const std::vector<MatchmakerRating> ratings = matchmaker.Ratings();
  int seats = 0;
  for (int e = 0; e < n; ++e) {
    EXPECT_NEAR(ratings[e].rating, ml[e].rating, 1e-9) << e;
    seats += ratings[e].matches;
  }
  EXPECT_EQ(seats, 150 * 3);
}

TEST(MatchmakerTest, TopOrderConfidenceIsChanceWithoutResultsAndGrowsWithThem) {
  Matchmaker matchmaker({.players = 2});
  matchmaker.Grow(4);
  // Nothing known: any order of four as likely, 1/24; first alone 1/4.
  EXPECT_NEAR(matchmaker.TopOrderConfidence(4, 20'000), 1.0 / 24, 0.01);
  EXPECT_NEAR(matchmaker.TopOrderConfidence(1, 20'000), 1.0 / 4, 0.015);
  ModelGame game(Spaced(4, 200), 2);
  for (int m = 0; m < 20; ++m) game.Play(matchmaker, Everyone(4));
  const double early = matchmaker.TopOrderConfidence(2, 20'000);
  for (int m = 0; m < 400; ++m) game.Play(matchmaker, Everyone(4));
  const double late = matchmaker.TopOrderConfidence(2, 20'000);
  EXPECT_GT(early, 1.0 / 12);
  EXPECT_GT(late, early);
  EXPECT_GT(late, 0.9);
  EXPECT_EQ(ByRating(matchmaker)[0], 3);
}

TEST(MatchmakerTest, AFinalEvaluationPlaysForTheTop) {
  const int n = 10;
  ModelGame game(Spaced(n, 60), 4);
  Matchmaker matchmaker({.players = 2});
  matchmaker.Grow(n);
  for (int m = 0; m < 200; ++m) game.Play(matchmaker, Everyone(n));
  matchmaker.FocusOnTop(3);
  const double before = matchmaker.TopOrderConfidence(3, 10'000);
  int with_top = 0;
  const int calls = 300;
  for (int call = 0; call < calls; ++call) {
    const std::vector<int> top = ByRating(matchmaker);
    const std::vector<int> table = game.Play(matchmaker, Everyone(n));
    const bool seats_top = std::any_of(table.begin(), table.end(), [&](int e) {
      return e == top[0] || e == top[1] || e == top[2];
    });
    with_top += seats_top ? 1 : 0;
  }
  EXPECT_EQ(with_top, calls);
  const std::vector<int> top = ByRating(matchmaker);
  EXPECT_EQ(std::vector<int>(top.begin(), top.begin() + 3), (std::vector<int>{9, 8, 7}));
  EXPECT_GT(matchmaker.TopOrderConfidence(3, 10'000), before);
}

}  // namespace
}  // namespace hoard::tournament
