#include "tournament/sprt.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>
#include <vector>

#include "engine/rng.h"
#include "gtest/gtest.h"

namespace hoard::tournament {
namespace {

using Result = hoard::v1::SprtState::Result;

TEST(SprtTest, ScoresAndEloAgree) {
  EXPECT_DOUBLE_EQ(ExpectedScore(0), 0.5);
  EXPECT_NEAR(ExpectedScore(400), 10.0 / 11, 1e-12);
  EXPECT_NEAR(EloOfScore(ExpectedScore(123.4)), 123.4, 1e-9);
  EXPECT_TRUE(std::isinf(EloOfScore(1)));
  // Three opponents: beaten, tied, lost to.
  EXPECT_DOUBLE_EQ(PairwiseScore({2, 1, 2, 3}, 0), 0.5);
  EXPECT_DOUBLE_EQ(PairwiseScore({1, 2, 3}, 0), 1.0);
  EXPECT_DOUBLE_EQ(PairwiseScore({3, 1, 2}, 0), 0.0);
}

TEST(SprtTest, TheBoundsAreWaldsAndTheRatioFollowsTheScores) {
  const SprtParameters params{.elo0 = 0, .elo1 = 20, .alpha = 0.05, .beta = 0.1};
  hoard::v1::SprtState none = Sprt({}, params, false);
  EXPECT_NEAR(none.lower_bound(), std::log(0.1 / 0.95), 1e-12);
  EXPECT_NEAR(none.upper_bound(), std::log(0.9 / 0.05), 1e-12);
  EXPECT_EQ(none.llr(), 0);
  EXPECT_EQ(none.result(), hoard::v1::SprtState::RESULT_UNSPECIFIED);
  // Scores between the hypotheses' move the ratio little; strong ones up,
  // weak ones down.
  std::vector<double> strong(200, 0.75), weak(200, 0.25), mixed;
  for (int i = 0; i < 200; ++i) mixed.push_back(i % 2 == 0 ? 0.4 : 0.6);
  EXPECT_EQ(Sprt(strong, params, false).result(), hoard::v1::SprtState::RESULT_H1);
  EXPECT_EQ(Sprt(weak, params, false).result(), hoard::v1::SprtState::RESULT_H0);
  EXPECT_LT(Sprt(mixed, params, false).llr(), 0);  // 0.5 is H0's score
  EXPECT_EQ(Sprt(mixed, params, true).result(), hoard::v1::SprtState::RESULT_H0);
  // A couple of perfect blocks do not decide at once (the prior block).
  EXPECT_EQ(Sprt({1.0, 1.0}, params, false).result(), hoard::v1::SprtState::RESULT_UNSPECIFIED);
}

// One duplicate block of a k-player game between a candidate `elo` points
// stronger than each of its k-1 equal opponents: k matches, each ranked by
// Plackett-Luce (under which the candidate beats each opponent with
// probability ExpectedScore(elo), whatever k).
double SimulatedBlock(int k, double elo, engine::Rng& rng) {
  double total = 0;
  for (int match = 0; match < k; ++match) {
    std::vector<double> strength(k, 1.0);
    strength[0] = std::pow(10.0, elo / 400);
    std::vector<int> left(k);
    std::iota(left.begin(), left.end(), 0);
    std::vector<int> places(k);
    for (int place = 1; !left.empty(); ++place) {
      double sum = 0;
      for (int p : left) sum += strength[p];
      double pick = sum * (static_cast<double>(rng.Next() >> 11) * 0x1.0p-53);
      std::size_t i = 0;
      while (i + 1 < left.size() && pick >= strength[left[i]]) pick -= strength[left[i++]];
      places[left[i]] = place;
      left.erase(left.begin() + static_cast<std::ptrdiff_t>(i));
    }
    total += PairwiseScore(places, 0);
  }
  return total / k;
}

// Runs `tests` sequential tests of a candidate `elo` stronger; how many
// accepted H1 and H0.
std::pair<int, int> Simulate(int tests, int k, double elo, const SprtParameters& params,
                             std::uint64_t seed) {
  engine::Rng rng(seed);
  int h1 = 0, h0 = 0;
  for (int t = 0; t < tests; ++t) {
    std::vector<double> blocks;
    for (int b = 0; b < 20000; ++b) {
      blocks.push_back(SimulatedBlock(k, elo, rng));
      const Result result = Sprt(blocks, params, false).result();
      if (result == hoard::v1::SprtState::RESULT_H1) {
        ++h1;
        break;
      }
      if (result == hoard::v1::SprtState::RESULT_H0) {
        ++h0;
        break;
      }
    }
  }
  return {h1, h0};
}

// The error rates stay within what was asked: 1,000 tests each, the bound
// allowing three standard errors of the simulation.
TEST(SprtTest, ErrorRatesStayWithinAlphaAndBeta) {
  const SprtParameters params{.elo0 = 0, .elo1 = 20, .alpha = 0.05, .beta = 0.05};
  const int tests = 1000;
  const double slack = 3 * std::sqrt(0.05 * 0.95 / tests);
  for (int k : {2, 4}) {
    // H0 true: accepting H1 is the error.
    auto [false_h1, true_h0] = Simulate(tests, k, params.elo0, params, 7 + k);
    EXPECT_LE(false_h1, (params.alpha + slack) * tests) << k << " players";
    EXPECT_GT(true_h0, 0.9 * tests) << k << " players";
    // H1 true: accepting H0 is the error.
    auto [true_h1, false_h0] = Simulate(tests, k, params.elo1, params, 70 + k);
    std::cout << k << " players, " << tests << " tests each: H1 accepted at elo0 " << false_h1
              << " times, H0 accepted at elo1 " << false_h0 << " times\n";
    EXPECT_LE(false_h0, (params.beta + slack) * tests) << k << " players";
    EXPECT_GT(true_h1, 0.9 * tests) << k << " players";
  }
}

}  // namespace
}  // namespace hoard::tournament
