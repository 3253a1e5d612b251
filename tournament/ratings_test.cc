#include "tournament/ratings.h"

#include <cmath>
#include <limits>
#include <span>

#include "engine/rng.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tournament/testing/random_results.h"

namespace hoard::tournament {
namespace {

using ::hoard::tournament::testing::RandomResults;
using ::hoard::tournament::testing::ResultsOfStrengths;
using ::testing::DoubleNear;
using ::testing::ElementsAre;

// A two-player match that `winner` won against `loser`.
MatchResult Win(int winner, int loser, std::int64_t unit) {
  return {{{winner, 1}, {loser, 2}}, unit};
}

// Bot 0 against bot 1: the first `wins` matches won by bot 0, the rest by
// bot 1; each match its own unit.
std::vector<MatchResult> Series(int wins, int losses) {
  std::vector<MatchResult> results;
  for (int m = 0; m < wins + losses; ++m) {
    results.push_back(m < wins ? Win(0, 1, m) : Win(1, 0, m));
  }
  return results;
}

// ---- Elo --------------------------------------------------------------------

TEST(EloTest, TwoPlayerVector) {
  EXPECT_THAT(EloUpdate({1200, 1000}, {1, 2}),
              ElementsAre(DoubleNear(1207.6881, 1e-4), DoubleNear(992.3119, 1e-4)));
}

TEST(EloTest, EqualBotsMoveByHalfOfK) {
  EXPECT_THAT(EloRatings(2, {Win(1, 0, 0)}), ElementsAre(1484, 1516));
  EXPECT_THAT(EloRatings(2, {Win(1, 0, 0)}, {.k = 16, .initial = 1000}), ElementsAre(992, 1008));
}

TEST(EloTest, TiedPlayersGetEqualUpdates) {
  // Tied for first in a three-player match: each scores the average of the
  // first and second places' scores, 1/2, against an expectation of 1/2.
  EXPECT_THAT(EloUpdate({1500, 1500, 1500}, {1, 1, 3}),
              ElementsAre(1500 + 32.0 / 3, 1500 + 32.0 / 3, 1500 - 64.0 / 3));
  // Only the order of the places counts.
  EXPECT_EQ(EloUpdate({1600, 1500, 1400}, {1, 1, 2}), EloUpdate({1600, 1500, 1400}, {1, 1, 3}));
  // A drawn game between equals changes nothing; a draw with a stronger
  // player gains the weaker exactly what the stronger loses.
  EXPECT_THAT(EloUpdate({1500, 1500}, {1, 1}), ElementsAre(1500, 1500));
  const std::vector<double> draw = EloUpdate({1700, 1500}, {2, 2});
  EXPECT_LT(draw[0], 1700);
  EXPECT_DOUBLE_EQ(draw[0] + draw[1], 3200);
}

TEST(EloTest, DependsOnTheOrderOfTheMatches) {
  const std::vector<MatchResult> results = {Win(0, 1, 0), Win(0, 1, 1), Win(1, 0, 2)};
  const std::vector<MatchResult> reordered = {Win(1, 0, 2), Win(0, 1, 0), Win(0, 1, 1)};
  EXPECT_NE(EloRatings(2, results), EloRatings(2, reordered));
}

TEST(EloTest, BotsOutsideAMatchKeepTheirRating) {
  const std::vector<double> ratings = EloRatings(4, {{{{2, 1}, {0, 2}, {3, 3}}, 0}});
  EXPECT_EQ(ratings[1], 1500);
  EXPECT_GT(ratings[2], 1500);
  EXPECT_LT(ratings[3], 1500);
  EXPECT_DOUBLE_EQ(ratings[0] + ratings[2] + ratings[3], 3 * 1500);
}

// ---- Maximum likelihood -----------------------------------------------------

// Bot `bot`'s points in `results` plus 1/2 for each of its virtual ties,
// less the points Bradley–Terry expects of it with strengths `gamma` (the
// virtual player's strength 1): zero at the maximum of the penalized
// likelihood.
double ExcessPoints(const std::vector<MatchResult>& results, const std::vector<double>& gamma,
                    int bot) {
  double excess = kMlPriorTies * (0.5 - gamma[bot] / (gamma[bot] + 1));
  for (const MatchResult& match : results) {
    for (const Placing& a : match.placings) {
      if (a.bot != bot) continue;
      for (const Placing& b : match.placings) {
        if (b.bot == bot) continue;
        excess += a.place < b.place ? 1 : a.place == b.place ? 0.5 : 0;
        excess -= gamma[bot] / (gamma[bot] + gamma[b.bot]);
      }
    }
  }
  return excess;
}

// Expects `ml` to solve the likelihood equations of `results`: every bot's
// excess points zero.
void ExpectSolvesTheLikelihoodEquations(const std::vector<MatchResult>& results,
                                        const std::vector<MlRating>& ml) {
  // The ratings are shifted to mean 0; find the common factor that puts the
  // virtual player back at strength 1 from the sum of every bot's equation,
  // in which the real meetings cancel: the virtual ties score as expected,
  // Σ 1/2 − γ/(γ + 1) = 0 (its left side falls as the factor rises).
  auto strengths = [&](double log_factor) {
    std::vector<double> gamma;
    for (const MlRating& r : ml) gamma.push_back(std::pow(10.0, r.rating / 400 + log_factor));
    return gamma;
  };
  auto virtual_excess = [&](double log_factor) {
    double excess = 0;
    for (double g : strengths(log_factor)) excess += 0.5 - g / (g + 1);
    return excess;
  };
  double low = -30, high = 30;
  for (int step = 0; step < 100; ++step) {
    const double mid = (low + high) / 2;
    (virtual_excess(mid) > 0 ? low : high) = mid;
  }
  const std::vector<double> gamma = strengths(low);
  for (int bot = 0; bot < static_cast<int>(ml.size()); ++bot) {
    EXPECT_NEAR(ExcessPoints(results, gamma, bot), 0, 1e-6) << "bot " << bot;
  }
}

TEST(MlTest, Vector) {
  // tests/ratings_ml_vectors.csv, bots numbered by name (alpha, beta, gamma,
  // solo); tests/ratings_ml_reference.py computes the same numbers
  // independently (docs/ratings.md, "Test vectors").
  const std::vector<MatchResult> results = {
      {{{0, 1}, {1, 2}}, 1},        {{{1, 1}, {2, 2}}, 2},         {{{2, 1}, {0, 2}}, 3},
      {{{0, 1}, {2, 2}}, 4},        {{{0, 1}, {1, 2}, {2, 3}}, 5}, {{{1, 1}, {0, 1}, {2, 3}}, 6},
      {{{3, 1}, {0, 2}, {1, 3}}, 7}};
  const std::vector<MlRating> ml = MlRatings(4, results, {.bootstrap_samples = 0});
  const double expected[4][3] = {{101.62, -48.00, 278.46},
                                 {-18.94, -192.80, 150.84},
                                 {-175.29, -422.78, 12.91},
                                 {232.02, -126.20, 730.54}};
  for (int bot = 0; bot < 4; ++bot) {
    EXPECT_NEAR(ml[bot].rating, expected[bot][0], 0.005) << "bot " << bot;
    EXPECT_NEAR(ml[bot].low, expected[bot][1], 0.005) << "bot " << bot;
    EXPECT_NEAR(ml[bot].high, expected[bot][2], 0.005) << "bot " << bot;
  }
  EXPECT_THAT(
      ml, ElementsAre(::testing::Field(&MlRating::tier, 1), ::testing::Field(&MlRating::tier, 1),
                      ::testing::Field(&MlRating::tier, 1), ::testing::Field(&MlRating::tier, 0)));
}

TEST(MlTest, RatingsSolveTheLikelihoodEquations) {
  const std::vector<MatchResult> results = RandomResults(5, 300, 3, 11);
  ExpectSolvesTheLikelihoodEquations(results, MlRatings(5, results, {.bootstrap_samples = 0}));
}

TEST(MlTest, LopsidedRatingsSolveTheLikelihoodEquations) {
  // 10,000 four-player matches like those of two random bots against two
  // that always take the first action: bots 0 and 1 never lose a meeting to
  // bots 2 and 3, so only the prior bounds the gap, where the likelihood is
  // nearly flat; then the same where they win about 99% of them.
  const std::vector<MatchResult> separated = ResultsOfStrengths({3, 3, 0, 0}, 10000, 4, 1);
  const std::vector<MlRating> ml = MlRatings(4, separated, {.bootstrap_samples = 0});
  ExpectSolvesTheLikelihoodEquations(separated, ml);
  EXPECT_THAT(
      ml, ElementsAre(::testing::Field(&MlRating::tier, 0), ::testing::Field(&MlRating::tier, 0),
                      ::testing::Field(&MlRating::tier, 1), ::testing::Field(&MlRating::tier, 1)));
  EXPECT_GT(ml[1].rating - ml[2].rating, 1500);
  EXPECT_NEAR(ml[0].rating, ml[1].rating, 20);
  const std::vector<MatchResult> near_miss = ResultsOfStrengths({2.6, 2.6, 0, 0}, 10000, 4, 1);
  const std::vector<MlRating> close = MlRatings(4, near_miss, {.bootstrap_samples = 0});
  ExpectSolvesTheLikelihoodEquations(near_miss, close);
  EXPECT_FALSE(Separated(close));
}

TEST(MlTest, ManyBotsSolveTheLikelihoodEquations) {
  // 300 bots, past the size where each Newton step solves its system
  // directly: close strengths, then four tiers of 75 that never lose to a
  // tier below.
  std::vector<double> tiers;
  for (int bot = 0; bot < 300; ++bot) tiers.push_back(3.0 * (bot / 75));
  for (const std::vector<MatchResult>& results :
       {RandomResults(300, 6000, 4, 7, 0.01), ResultsOfStrengths(tiers, 6000, 4, 7)}) {
    ExpectSolvesTheLikelihoodEquations(results, MlRatings(300, results, {.bootstrap_samples = 0}));
  }
}

TEST(MlTest, RatingsHaveMeanZeroOverMeetingsAndFollowStrength) {
  // The mean weighted by each bot's meetings is 0; a bot of few matches
  // (bot 6, in 3 of 2000) leaves the others' ratings nearly where they were.
  std::vector<MatchResult> results = RandomResults(6, 2000, 4, 5);
  const std::vector<MlRating> field = MlRatings(6, results, {.bootstrap_samples = 0});
  results.push_back({{{6, 1}, {0, 2}}, 5000});
  results.push_back({{{6, 1}, {1, 2}, {2, 3}}, 5001});
  const std::vector<MlRating> ml = MlRatings(7, results, {.bootstrap_samples = 0});
  std::vector<double> meetings(7, 0);
  for (const MatchResult& m : results) {
    for (const Placing& p : m.placings) meetings[p.bot] += m.placings.size() - 1;
  }
  double sum = 0, total = 0;
  for (int bot = 0; bot < 7; ++bot) {
    sum += meetings[bot] * ml[bot].rating;
    total += meetings[bot];
    if (bot > 0 && bot < 6) {
      EXPECT_GT(ml[bot].rating, ml[bot - 1].rating) << "bot " << bot;
    }
    if (bot < 6) {
      EXPECT_NEAR(ml[bot].rating, field[bot].rating, 1) << "bot " << bot;
    }
  }
  EXPECT_NEAR(sum / total, 0, 1e-9);
}

TEST(MlTest, TheOrderOfTheMatchesDoesNotMatter) {
  // Shuffled matches, shuffled seats, units renumbered: every number the
  // same, bit for bit, the intervals included, with a sixth bot unbeaten in
  // its one match (so the results are separated).
  std::vector<MatchResult> results = RandomResults(5, 500, 4, 3);
  results.push_back({{{5, 1}, {0, 2}, {1, 3}}, 500});
  const std::vector<std::pair<int, int>> pairs = {{5, 0}, {4, 3}, {1, 2}};
  const std::vector<MlRating> before = MlRatings(6, results, {.bootstrap_samples = 200});
  const std::vector<MlDifference> before_pairs =
      MlDifferences(6, results, pairs, {.bootstrap_samples = 200});
  ASSERT_TRUE(Separated(before));
  engine::Rng rng(99);
  rng.Shuffle(std::span<MatchResult>(results));
  for (MatchResult& m : results) {
    rng.Shuffle(std::span<Placing>(m.placings));
    m.unit = 7919 * m.unit + 13;
  }
  const std::vector<MlRating> after = MlRatings(6, results, {.bootstrap_samples = 200});
  for (int bot = 0; bot < 6; ++bot) {
    EXPECT_EQ(after[bot].rating, before[bot].rating);
    EXPECT_EQ(after[bot].low, before[bot].low);
    EXPECT_EQ(after[bot].high, before[bot].high);
    EXPECT_LT(before[bot].low, before[bot].rating);
    EXPECT_GT(before[bot].high, before[bot].rating);
  }
  const std::vector<MlDifference> after_pairs =
      MlDifferences(6, results, pairs, {.bootstrap_samples = 200});
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    EXPECT_EQ(after_pairs[p].difference, before_pairs[p].difference) << p;
    EXPECT_EQ(after_pairs[p].low, before_pairs[p].low) << p;
    EXPECT_EQ(after_pairs[p].high, before_pairs[p].high) << p;
  }
}

TEST(MlTest, TheStrongerBotRatesHigherAndItsIntervalExcludesTheOther) {
  // Bot 0 wins 70% of 200 matches: 400·log10(140/60) = 147 points apart,
  // a little less for the prior.
  const std::vector<MlRating> ml = MlRatings(2, Series(140, 60));
  EXPECT_NEAR(ml[0].rating - ml[1].rating, 147, 3);
  EXPECT_NEAR(ml[0].rating, -ml[1].rating, 1e-9);
  EXPECT_GT(ml[0].low, ml[1].high);
}

TEST(MlTest, AnUnbeatenBotHasAFiniteRatingAndAFiniteInterval) {
  const std::vector<MlRating> ml = MlRatings(3, Series(50, 0));
  for (const MlRating& r : ml) {
    EXPECT_TRUE(std::isfinite(r.rating) && std::isfinite(r.low) && std::isfinite(r.high));
    EXPECT_LT(r.low, r.rating);
    EXPECT_GT(r.high, r.rating);
  }
  EXPECT_GT(ml[0].rating, ml[1].rating);
  // A bot that never played stays at the virtual player's strength, between
  // the two, in a group of its own.
  EXPECT_LT(ml[2].rating, ml[0].rating);
  EXPECT_GT(ml[2].rating, ml[1].rating);
  EXPECT_EQ(ml[0].group, 0);
  EXPECT_EQ(ml[1].group, 0);
  EXPECT_EQ(ml[2].group, 1);
  EXPECT_TRUE(Disconnected(ml));
  EXPECT_TRUE(Separated(ml));
}

TEST(MlTest, APerfectRecordIsBoundedAboveByThePrior) {
  // A first in all of 1,000 matches: the data say only that the gap is
  // large, at least about 1,000 points (where 1,000 straight wins become as
  // unlikely as 1 in 7: 400·log10(1000/1.92) = 1087); the prior's virtual
  // ties bound it from above. Every end finite, the estimate inside.
  const std::vector<MlRating> ml = MlRatings(2, Series(1000, 0));
  const std::vector<MlDifference> gap = MlDifferences(2, Series(1000, 0), {{0, 1}});
  ASSERT_EQ(gap.size(), 1u);
  EXPECT_NEAR(gap[0].difference, ml[0].rating - ml[1].rating, 1e-9);
  EXPECT_GT(gap[0].low, 800);
  EXPECT_LT(gap[0].low, gap[0].difference);
  EXPECT_GT(gap[0].high, gap[0].difference);
  EXPECT_LT(gap[0].high, 3000);
  EXPECT_NEAR(ml[0].low, -ml[1].high, 1e-6);
  EXPECT_NEAR(ml[0].high, -ml[1].low, 1e-6);
  EXPECT_EQ(ml[0].tier, 0);
  EXPECT_EQ(ml[1].tier, 1);
  EXPECT_TRUE(Separated(ml));
  EXPECT_FALSE(Disconnected(ml));
  // One loss in the 1,000 joins the tiers.
  EXPECT_FALSE(Separated(MlRatings(2, Series(999, 1), {.bootstrap_samples = 0})));
}

TEST(MlTest, AOneMatchBotKeepsEveryIntervalFinite) {
  // A field of four bots with 200 matches among them, and a fifth that won
  // its only match: the field's intervals stay as narrow as without it, and
  // the newcomer's is finite and wide.
  std::vector<MatchResult> results = RandomResults(4, 200, 4, 5, 0.3);
  const std::vector<MlRating> before = MlRatings(4, results, {.bootstrap_samples = 200});
  results.push_back({{{4, 1}, {0, 2}, {1, 3}, {2, 4}}, 1000});
  const std::vector<MlRating> after = MlRatings(5, results, {.bootstrap_samples = 200});
  EXPECT_TRUE(Separated(after));
  for (int bot = 0; bot < 5; ++bot) {
    EXPECT_TRUE(std::isfinite(after[bot].low) && std::isfinite(after[bot].high)) << bot;
    EXPECT_LT(after[bot].low, after[bot].rating) << bot;
    EXPECT_GT(after[bot].high, after[bot].rating) << bot;
  }
  for (int bot = 0; bot < 4; ++bot) {
    EXPECT_LT(after[bot].high - after[bot].low, 1.3 * (before[bot].high - before[bot].low)) << bot;
  }
  EXPECT_GT(after[4].high - after[4].low, 2 * (after[0].high - after[0].low));
}

TEST(MlTest, DisconnectedGroupsAreFlagged) {
  // Bots 0 and 1 only ever met each other, and 2 and 3 likewise.
  std::vector<MatchResult> results;
  for (int m = 0; m < 20; ++m) {
    results.push_back(m % 3 == 0 ? Win(1, 0, m) : Win(0, 1, m));
    results.push_back(m % 4 == 0 ? Win(3, 2, 100 + m) : Win(2, 3, 100 + m));
  }
  const std::vector<MlRating> ml = MlRatings(4, results);
  EXPECT_TRUE(Disconnected(ml));
  EXPECT_FALSE(Separated(ml));
  EXPECT_EQ(ml[0].group, ml[1].group);
  EXPECT_EQ(ml[2].group, ml[3].group);
  EXPECT_NE(ml[0].group, ml[2].group);
  for (const MlRating& r : ml) EXPECT_TRUE(std::isfinite(r.low) && std::isfinite(r.high));
}

TEST(MlTest, TiesCountHalf) {
  std::vector<MatchResult> results;
  for (int m = 0; m < 10; ++m) results.push_back({{{0, 1}, {1, 1}}, m});
  EXPECT_THAT(MlRatings(2, results, {.bootstrap_samples = 0}),
              ElementsAre(::testing::Field(&MlRating::rating, DoubleNear(0, 1e-9)),
                          ::testing::Field(&MlRating::rating, DoubleNear(0, 1e-9))));
  // A win and a loss are worth two ties.
  EXPECT_NEAR(MlRatings(2, Series(1, 1), {.bootstrap_samples = 0})[0].rating, 0, 1e-9);
}

TEST(MlTest, LopsidedIntervalsAreFiniteAndRepeatWithTheSeed) {
  // Bots 0 and 1 never lose to bots 2 and 3: every interval is finite (the
  // prior bounds the gap), and the bootstrap (each resample solved from the
  // estimate) gives the same bits with the seed.
  const std::vector<MatchResult> results = ResultsOfStrengths({3, 3, 0, 0}, 2000, 4, 5);
  const std::vector<MlRating> a = MlRatings(4, results, {.bootstrap_samples = 300, .seed = 3});
  const std::vector<MlRating> b = MlRatings(4, results, {.bootstrap_samples = 300, .seed = 3});
  EXPECT_TRUE(Separated(a));
  for (int bot = 0; bot < 4; ++bot) {
    EXPECT_TRUE(std::isfinite(a[bot].low) && std::isfinite(a[bot].high)) << "bot " << bot;
    EXPECT_LT(a[bot].low, a[bot].rating);
    EXPECT_GT(a[bot].high, a[bot].rating);
    EXPECT_EQ(a[bot].rating, b[bot].rating);
    EXPECT_EQ(a[bot].low, b[bot].low);
    EXPECT_EQ(a[bot].high, b[bot].high);
  }
}

TEST(MlTest, IntervalsContainTheEstimateAndRepeatWithTheSeed) {
  const std::vector<MatchResult> results = RandomResults(4, 400, 3, 8);
  const std::vector<MlRating> a = MlRatings(4, results, {.bootstrap_samples = 300, .seed = 7});
  const std::vector<MlRating> b = MlRatings(4, results, {.bootstrap_samples = 300, .seed = 7});
  // The bootstrap alone, to see the seed at work (the profile likelihood
  // interval, often the wider, has no seed).
  const std::vector<MlRating> c =
      MlRatings(4, results, {.bootstrap_samples = 300, .seed = 8, .profile_likelihood = false});
  const std::vector<MlRating> d =
      MlRatings(4, results, {.bootstrap_samples = 300, .seed = 7, .profile_likelihood = false});
  for (int bot = 0; bot < 4; ++bot) {
    EXPECT_LT(a[bot].low, a[bot].rating);
    EXPECT_GT(a[bot].high, a[bot].rating);
    EXPECT_EQ(a[bot].low, b[bot].low);
    EXPECT_EQ(a[bot].high, b[bot].high);
    EXPECT_NE(d[bot].low, c[bot].low);
  }
}

TEST(MlTest, WithoutBootstrapOrProfileTheIntervalIsThePoint) {
  const std::vector<MlRating> ml =
      MlRatings(2, Series(3, 2), {.bootstrap_samples = 0, .profile_likelihood = false});
  EXPECT_EQ(ml[0].low, ml[0].rating);
  EXPECT_EQ(ml[0].high, ml[0].rating);
}

TEST(MlTest, MatchesOfOneUnitAreResampledTogether) {
  // Every match played four times with the same result, as seat rotations
  // of one deal might be: the four copies carry the information of one, so
  // their intervals must be about twice as wide as if they were independent.
  const std::vector<MatchResult> base = Series(60, 40);
  std::vector<MatchResult> blocks, independent;
  for (std::size_t m = 0; m < base.size(); ++m) {
    for (int copy = 0; copy < 4; ++copy) {
      MatchResult result = base[m];
      result.unit = static_cast<std::int64_t>(m);
      blocks.push_back(result);
      result.unit = static_cast<std::int64_t>(4 * m + copy);
      independent.push_back(result);
    }
  }
  const std::vector<MlRating> wide = MlRatings(2, blocks);
  const std::vector<MlRating> narrow = MlRatings(2, independent);
  EXPECT_DOUBLE_EQ(wide[0].rating, narrow[0].rating);
  const double ratio = (wide[0].high - wide[0].low) / (narrow[0].high - narrow[0].low);
  EXPECT_GT(ratio, 1.7);
  EXPECT_LT(ratio, 2.3);
}

TEST(MlTest, AlikeMatchesDrawnAtOnceSpreadAsManyDrawnOneByOne) {
  // 300 wins and 100 losses: two runs of alike units, each weighted by one
  // Poisson draw of its length. The log-odds of the resampled wins and
  // losses has a standard deviation of about sqrt(1/300 + 1/100), and bot
  // 0's rating (against the mean of the two) half of it: a draw of the
  // wrong spread (a unit's draw times the run's length, or none at all)
  // would be far off.
  const std::vector<MlRating> ml =
      MlRatings(2, Series(300, 100), {.bootstrap_samples = 4000, .profile_likelihood = false});
  const double expected = 1.96 * 0.5 * std::sqrt(1.0 / 300 + 1.0 / 100) * kMlPointsPerLogUnit;
  const double half_width = (ml[0].high - ml[0].low) / 2;
  EXPECT_GT(half_width, 0.85 * expected);
  EXPECT_LT(half_width, 1.15 * expected);
}

// ---- OpenSkill --------------------------------------------------------------

// ---- Who is likely best ------------------------------------------------------

// Two bots: the posterior of x_a − x_b is normal, so P(a first) is
// Φ(d / σ) with d the difference of the estimates and σ² its variance,
// 2 / (c·q + 2·w) here: by the symmetry of these results (x_b = −x_a), the
// information is [[c·q + w, −w], [−w, c·q + w]] with q = σ(x_a)σ(−x_a) (the
// prior's curvature, c virtual ties) and w = m·σ(d)σ(−d) (m meetings).
TEST(RankTest, TwoBotsFollowTheNormalPosteriorOfTheirDifference) {
  const std::vector<MatchResult> results = Series(7, 3);
  const std::vector<MlRating> ml = MlRatings(2, results, {.bootstrap_samples = 0});
  const double d = (ml[0].rating - ml[1].rating) / (400 / std::log(10.0));
  const auto logistic = [](double z) { return 1 / (1 + std::exp(-z)); };
  const double q = logistic(d / 2) * logistic(-d / 2);
  const double w = 10 * logistic(d) * logistic(-d);
  const double sigma = std::sqrt(2 / (kMlPriorTies * q + 2 * w));
  const double expected = 0.5 * std::erfc(-d / sigma / std::sqrt(2.0));
  const std::vector<std::vector<double>> p = RankProbabilities(2, results, {.samples = 40'000});
  // 40,000 draws: a standard error of at most 0.0025.
  EXPECT_NEAR(p[0][0], expected, 0.01);
  EXPECT_GT(p[0][0], 0.8);
  EXPECT_DOUBLE_EQ(p[0][0] + p[1][0], 1);
  EXPECT_DOUBLE_EQ(p[0][0], p[1][1]);
}

TEST(RankTest, RowsAndColumnsSumToOneAndStrengthOrdersFirstPlaces) {
  const std::vector<double> strengths = {0, 100, 200, 300, 400, 500};
  const std::vector<MatchResult> results = ResultsOfStrengths(strengths, 300, 4, 11);
  const std::vector<std::vector<double>> p = RankProbabilities(6, results);
  for (int i = 0; i < 6; ++i) {
    double row = 0, column = 0;
    for (int r = 0; r < 6; ++r) {
      row += p[i][r];
      column += p[r][i];
    }
    EXPECT_NEAR(row, 1, 1e-12);
    EXPECT_NEAR(column, 1, 1e-12);
  }
  // The strongest is most likely first, the weakest most likely last.
  for (int i = 0; i < 5; ++i) EXPECT_GT(p[5][0], p[i][0]) << i;
  for (int i = 1; i < 6; ++i) EXPECT_GT(p[0][5], p[i][5]) << i;
}

TEST(RankTest, EqualRecordsShareTheFirstPlaceAndOrderDoesNotMatter) {
  // Three bots, each beat each other as often as it lost.
  std::vector<MatchResult> results;
  for (int m = 0; m < 20; ++m) {
    results.push_back(Win(m % 3, (m + 1) % 3, m));
    results.push_back(Win((m + 1) % 3, m % 3, 100 + m));
  }
  const std::vector<std::vector<double>> p = RankProbabilities(3, results);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(p[i][0], 1.0 / 3, 0.02) << i;
  std::vector<MatchResult> reversed(results.rbegin(), results.rend());
  EXPECT_EQ(RankProbabilities(3, reversed), p);
  EXPECT_NE(RankProbabilities(3, results, {.seed = 2}), p);
}

TEST(RankTest, AnUnbeatenBotIsLikelyFirstButNotSurelyAfterOneMatch) {
  std::vector<MatchResult> results = Series(20, 20);  // bots 0 and 1, even
  for (int m = 0; m < 30; ++m) results.push_back(Win(2, m % 2, 40 + m));
  std::vector<std::vector<double>> p = RankProbabilities(3, results);
  EXPECT_GT(p[2][0], 0.99);
  // One more bot, one win: the prior keeps it from being sure.
  results.push_back(Win(3, 0, 100));
  p = RankProbabilities(4, results);
  EXPECT_GT(p[3][0], 0.0);
  EXPECT_LT(p[3][0], 0.5);
}

TEST(OpenSkillTest, ThreePlayerVector) {
  const std::vector<OpenSkillRating> after = OpenSkillUpdate({{}, {}, {}}, {1, 2, 3}, {.tau = 0});
  ASSERT_EQ(after.size(), 3u);
  const double expected[3][2] = {{27.8689, 8.2048}, {25.7172, 8.0578}, {21.4139, 8.0578}};
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(after[i].mu, expected[i][0], 1e-4) << "player " << i;
    EXPECT_NEAR(after[i].sigma, expected[i][1], 1e-4) << "player " << i;
  }
  EXPECT_NEAR(after[0].Ordinal(), 27.8689 - 3 * 8.2048, 1e-3);
}

TEST(OpenSkillTest, TiedPlayersGetEqualUpdates) {
  const std::vector<OpenSkillRating> after = OpenSkillUpdate({{}, {}, {}}, {2, 1, 2}, {.tau = 0});
  EXPECT_DOUBLE_EQ(after[0].mu, after[2].mu);
  EXPECT_DOUBLE_EQ(after[0].sigma, after[2].sigma);
  EXPECT_GT(after[1].mu, after[0].mu);
  // A draw between equals moves no one's mean.
  const std::vector<OpenSkillRating> draw = OpenSkillUpdate({{}, {}}, {1, 1}, {.tau = 0});
  EXPECT_DOUBLE_EQ(draw[0].mu, 25);
  EXPECT_DOUBLE_EQ(draw[1].mu, 25);
  EXPECT_DOUBLE_EQ(draw[0].sigma, draw[1].sigma);
  EXPECT_LT(draw[0].sigma, 25.0 / 3);
}

TEST(OpenSkillTest, TauWidensUncertaintyBeforeTheUpdate) {
  const OpenSkillRating settled{30, 1};
  const std::vector<OpenSkillRating> fixed =
      OpenSkillUpdate({settled, settled}, {1, 2}, {.tau = 0});
  const std::vector<OpenSkillRating> drifting = OpenSkillUpdate({settled, settled}, {1, 2});
  EXPECT_LT(fixed[0].sigma, 1);
  EXPECT_GT(drifting[0].sigma, fixed[0].sigma);
  EXPECT_GT(drifting[0].mu, fixed[0].mu);
}

TEST(OpenSkillTest, RatingsFollowStrengthOverManyMatches) {
  const std::vector<OpenSkillRating> ratings =
      OpenSkillRatings(4, RandomResults(4, 500, 4, 2), {.tau = 0});
  for (int bot = 1; bot < 4; ++bot) {
    EXPECT_GT(ratings[bot].Ordinal(), ratings[bot - 1].Ordinal()) << "bot " << bot;
    EXPECT_LT(ratings[bot].sigma, 2);
  }
}

// ---- Head to head -----------------------------------------------------------

TEST(HeadToHeadTest, Vector) {
  const HeadToHead h = HeadToHeadStats(120, 80, 200);
  EXPECT_TRUE(h.defined);
  EXPECT_DOUBLE_EQ(h.score, 0.55);
  EXPECT_NEAR(h.elo, 34.86, 0.005);
  EXPECT_NEAR(h.margin, 24.1, 0.05);
  EXPECT_NEAR(h.los, 0.9977, 0.00005);
}

TEST(HeadToHeadTest, ExtremesAreUndefinedButStillCounted) {
  const HeadToHead none = HeadToHeadStats(0, 0, 0);
  EXPECT_FALSE(none.defined);
  EXPECT_EQ(none.los, 0.5);
  const HeadToHead sweep = HeadToHeadStats(10, 0, 0);
  EXPECT_FALSE(sweep.defined);
  EXPECT_EQ(sweep.score, 1);
  EXPECT_GT(sweep.los, 0.99);
  const HeadToHead draws = HeadToHeadStats(0, 0, 5);
  EXPECT_TRUE(draws.defined);
  EXPECT_EQ(draws.elo, 0);
  EXPECT_EQ(draws.los, 0.5);
  // Two games cannot bound the difference: the interval reaches a score of 1.
  EXPECT_TRUE(std::isinf(HeadToHeadStats(1, 0, 1).margin));
}

// ---- Preconditions ----------------------------------------------------------

TEST(RatingsDeathTest, AMatchNeedsTwoPlayers) {
  EXPECT_DEATH(EloUpdate({1500}, {1}), "two or more players");
  EXPECT_DEATH(MlRatings(2, {{{{0, 1}}, 0}}), "two or more players");
  EXPECT_DEATH(OpenSkillRatings(2, {{{{0, 1}, {0, 2}}, 0}}), "twice in one match");
  EXPECT_DEATH(EloRatings(2, {{{{0, 1}, {2, 2}}, 0}}), "outside 0..n-1");
  EXPECT_DEATH(OpenSkillUpdate({{}, {}}, {0, 1}), "places start at 1");
}

}  // namespace
}  // namespace hoard::tournament
