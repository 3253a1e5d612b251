#include "tournament/swiss.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::tournament {
namespace {

using ::testing::ElementsAre;

// A table's result when participant p plays with strength n - p plus noise:
// the seeding is right on average, and upsets happen.
std::vector<int> PlayTable(const std::vector<int>& table, int n, std::mt19937_64& rng) {
  std::normal_distribution<double> noise(0, n / 8.0);
  std::vector<double> performance;
  for (int p : table) performance.push_back(n - p + noise(rng));
  std::vector<int> ranks;
  for (double mine : performance) {
    ranks.push_back(1 +
                    static_cast<int>(std::count_if(performance.begin(), performance.end(),
                                                   [&](double other) { return other > mine; })));
  }
  return ranks;
}

struct Played {
  std::vector<SwissRound> rounds;
  Swiss swiss;
};

// Plays `rounds` rounds of a Swiss of n participants at tables of k.
Played PlaySwiss(int n, int k, int rounds, std::uint64_t seed) {
  Played played{.rounds = {}, .swiss = Swiss(n, k)};
  std::mt19937_64 rng(seed);
  for (int r = 0; r < rounds; ++r) {
    SwissRound round = played.swiss.PairNext();
    for (const std::vector<int>& table : round.tables) {
      played.swiss.Add({.round = r, .seats = table, .ranks = PlayTable(table, n, rng)});
    }
    played.rounds.push_back(std::move(round));
  }
  return played;
}

TEST(SwissTest, AMatchGivesTheShareOfOpponentsFinishedAhead) {
  EXPECT_EQ(SwissPoints({1, 2}, 0), 1);
  EXPECT_EQ(SwissPoints({1, 2}, 1), 0);
  EXPECT_EQ(SwissPoints({1, 1}, 0), 0.5);
  EXPECT_EQ(SwissPoints({1, 2, 2, 4}, 0), 1);
  EXPECT_EQ(SwissPoints({1, 2, 2, 4}, 1), 0.5);  // beat one, tied one, of three
  EXPECT_EQ(SwissPoints({1, 2, 2, 4}, 3), 0);
}

TEST(SwissTest, SixtyFourBotsNeverMeetTwiceAtAnyTableSize) {
  // Rounds: at least log2(64) = 6 for every table size, up to where each
  // participant has met about half the field, so that late rounds must
  // search round the pairs that already met.
  for (const auto& [k, rounds] : std::map<int, int>{{2, 20}, {3, 16}, {4, 14}, {5, 9}, {6, 6}}) {
    SCOPED_TRACE(::testing::Message() << k << " players a table");
    const int n = 64;
    const Played played = PlaySwiss(n, k, rounds, 7);
    std::set<std::pair<int, int>> met;
    std::vector<int> byes(n, 0);
    for (int r = 0; r < rounds; ++r) {
      const SwissRound& round = played.rounds[r];
      EXPECT_EQ(round.repeats, 0) << "round " << r + 1;
      ASSERT_EQ(static_cast<int>(round.tables.size()), n / k);
      ASSERT_EQ(static_cast<int>(round.byes.size()), n % k);
      std::set<int> seated(round.byes.begin(), round.byes.end());
      for (int p : round.byes) ++byes[p];
      for (const std::vector<int>& table : round.tables) {
        ASSERT_EQ(static_cast<int>(table.size()), k);
        for (std::size_t i = 0; i < table.size(); ++i) {
          EXPECT_TRUE(seated.insert(table[i]).second) << table[i] << " seated twice";
          for (std::size_t j = i + 1; j < table.size(); ++j) {
            const auto pair = std::minmax(table[i], table[j]);
            EXPECT_TRUE(met.insert(pair).second)
                << pair.first << " and " << pair.second << " met again in round " << r + 1;
          }
        }
      }
      EXPECT_EQ(static_cast<int>(seated.size()), n);
    }
    // No second bye while anyone has had none.
    EXPECT_LE(*std::max_element(byes.begin(), byes.end()), 1);
  }
}

TEST(SwissTest, AThousandBotsPairWithoutRepeatsAtTwoAndSixATable) {
  for (const int k : {2, 6}) {
    const Played played = PlaySwiss(1000, k, 12, 13);
    for (int r = 0; r < 12; ++r) {
      EXPECT_EQ(played.rounds[r].repeats, 0) << k << " a table, round " << r + 1;
      EXPECT_EQ(static_cast<int>(played.rounds[r].tables.size()), 1000 / k);
      EXPECT_EQ(static_cast<int>(played.rounds[r].byes.size()), 1000 % k);
    }
  }
}

TEST(SwissTest, LeadersMeetLeaders) {
  const int n = 64;
  const Played played = PlaySwiss(n, 2, 6, 11);
  Swiss swiss(n, 2);
  std::mt19937_64 rng(11);
  for (int r = 0; r < 6; ++r) {
    const SwissRound round = swiss.PairNext();
    EXPECT_EQ(round.tables, played.rounds[r].tables) << "round " << r + 1;
    // The top table holds the two best of the standings before the round
    // (or the best and the best it had not met).
    if (r > 0) {
      const std::vector<SwissRow> before = swiss.Standings();
      std::map<int, double> points;
      for (const SwissRow& row : before) points[row.participant] = row.points;
      const double top = before.front().points;
      for (int p : round.tables.front()) EXPECT_GE(points[p], top - 1) << "round " << r + 1;
    }
    for (const std::vector<int>& table : round.tables) {
      swiss.Add({.round = r, .seats = table, .ranks = PlayTable(table, n, rng)});
    }
  }
  // The strongest seeds end high: the seeding is right on average.
  const std::vector<SwissRow> standings = swiss.Standings();
  int top_seeds_in_top_eight = 0;
  for (int i = 0; i < 8; ++i) top_seeds_in_top_eight += standings[i].participant < 16 ? 1 : 0;
  EXPECT_GE(top_seeds_in_top_eight, 5);
}

TEST(SwissTest, RoundOneSeatsOneOfEachBandAtEveryTable) {
  Swiss swiss(12, 3);
  const SwissRound round = swiss.PairNext();
  ASSERT_EQ(round.tables.size(), 4u);
  for (int t = 0; t < 4; ++t) {
    std::vector<int> table = round.tables[t];
    std::sort(table.begin(), table.end());
    EXPECT_THAT(table, ElementsAre(t, t + 4, t + 8));
  }
  EXPECT_TRUE(round.byes.empty());
}

TEST(SwissTest, ThePairingDoesNotDependOnTheOrderResultsArrive) {
  const int n = 40, k = 4;
  Swiss in_order(n, k), reversed(n, k);
  std::mt19937_64 rng(3);
  for (int r = 0; r < 6; ++r) {
    const SwissRound a = in_order.PairNext();
    const SwissRound b = reversed.PairNext();
    ASSERT_EQ(a.tables, b.tables) << "round " << r + 1;
    std::vector<SwissResult> results;
    for (const std::vector<int>& table : a.tables) {
      results.push_back({.round = r, .seats = table, .ranks = PlayTable(table, n, rng)});
    }
    for (const SwissResult& result : results) in_order.Add(result);
    for (auto it = results.rbegin(); it != results.rend(); ++it) reversed.Add(*it);
  }
  const std::vector<SwissRow> a = in_order.Standings(), b = reversed.Standings();
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].participant, b[i].participant);
    EXPECT_EQ(a[i].points, b[i].points);
    EXPECT_EQ(a[i].buchholz, b[i].buchholz);
  }
}

TEST(SwissTest, ByesGoToTheLowestPlacedWithTheFewestByes) {
  // 17 players at tables of 2: one bye a round, never twice to one player
  // in 17 rounds, and in round 2 to a player who lost round 1.
  const int n = 17;
  const Played played = PlaySwiss(n, 2, n, 5);
  std::set<int> had;
  for (const SwissRound& round : played.rounds) {
    ASSERT_EQ(round.byes.size(), 1u);
    EXPECT_TRUE(had.insert(round.byes[0]).second) << round.byes[0] << " had a second bye";
  }
  EXPECT_EQ(static_cast<int>(had.size()), n);
  for (const SwissRow& row : played.swiss.Standings()) {
    EXPECT_EQ(row.byes, 1);
    EXPECT_EQ(row.matches, n - 1);
  }
}

TEST(SwissTest, MoreRoundsThanOpponentsStillSeatEveryone) {
  // 8 players, 2 a table, 12 rounds: after 7 everyone has met everyone, and
  // each later table repeats a pair; the pairing still seats every player
  // once a round, and spreads the repeats (no pair a fourth time).
  const int n = 8;
  const Played played = PlaySwiss(n, 2, 12, 9);
  for (int r = 0; r < 12; ++r) {
    const SwissRound& round = played.rounds[r];
    std::set<int> seated;
    for (const std::vector<int>& table : round.tables) seated.insert(table.begin(), table.end());
    EXPECT_EQ(static_cast<int>(seated.size()), n) << "round " << r + 1;
    EXPECT_EQ(round.repeats, r < 7 ? 0 : 4) << "round " << r + 1;
  }
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      EXPECT_GE(played.swiss.Met(a, b), 1) << a << " and " << b;
      EXPECT_LE(played.swiss.Met(a, b), 3) << a << " and " << b;
    }
  }
}

TEST(SwissTest, StandingsBreakTiesByBuchholzThenSeeding) {
  // Round 1: 0 beats 1, 3 beats 2. Round 2: 0 beats 3, 2 beats 1.
  Swiss swiss(4, 2);
  swiss.Add({.round = 0, .seats = {0, 1}, .ranks = {1, 2}});
  swiss.Add({.round = 0, .seats = {2, 3}, .ranks = {2, 1}});
  swiss.Add({.round = 1, .seats = {0, 3}, .ranks = {1, 2}});
  swiss.Add({.round = 1, .seats = {1, 2}, .ranks = {2, 1}});
  const std::vector<SwissRow> rows = swiss.Standings();
  std::vector<int> order;
  for (const SwissRow& row : rows) order.push_back(row.participant);
  // 3 and 2 have a point each; 3 met 0 (2 points) and 2 (1), 2 met 3 (1)
  // and 1 (0): Buchholz 3 against 1 puts 3 ahead of the better seed.
  EXPECT_THAT(order, ElementsAre(0, 3, 2, 1));
  EXPECT_EQ(rows[1].points, 1);
  EXPECT_EQ(rows[1].buchholz, 3);
  EXPECT_EQ(rows[2].buchholz, 1);

  // Equal on everything: the seeding decides.
  Swiss even(4, 2);
  even.Add({.round = 0, .seats = {3, 2}, .ranks = {1, 1}});
  even.Add({.round = 0, .seats = {1, 0}, .ranks = {1, 1}});
  order.clear();
  for (const SwissRow& row : even.Standings()) order.push_back(row.participant);
  EXPECT_THAT(order, ElementsAre(0, 1, 2, 3));
}

}  // namespace
}  // namespace hoard::tournament
