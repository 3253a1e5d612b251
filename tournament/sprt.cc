#include "tournament/sprt.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hoard::tournament {

SprtParameters SprtParametersOf(const hoard::v1::SprtSpec& spec) {
  return SprtParameters{.elo0 = spec.elo0(),
                        .elo1 = spec.elo1(),
                        .alpha = spec.alpha() > 0 ? spec.alpha() : 0.05,
                        .beta = spec.beta() > 0 ? spec.beta() : 0.05};
}

double ExpectedScore(double elo) { return 1 / (1 + std::pow(10.0, -elo / 400)); }

double EloOfScore(double score) {
  if (score <= 0) return -std::numeric_limits<double>::infinity();
  if (score >= 1) return std::numeric_limits<double>::infinity();
  return -400 * std::log10(1 / score - 1);
}

double PairwiseScore(const std::vector<int>& places, int candidate) {
  double total = 0;
  int opponents = 0;
  for (int seat = 0; seat < static_cast<int>(places.size()); ++seat) {
    if (seat == candidate) continue;
    ++opponents;
    if (places[candidate] < places[seat]) {
      total += 1;
    } else if (places[candidate] == places[seat]) {
      total += 0.5;
    }
  }
  return opponents == 0 ? 0.5 : total / opponents;
}

hoard::v1::SprtState Sprt(const std::vector<double>& block_scores, const SprtParameters& params,
                          bool all_played) {
  double sum = 0, sum_of_squares = 0;
  for (double x : block_scores) {
    sum += x;
    sum_of_squares += x * x;
  }
  return SprtFromSums(static_cast<int>(block_scores.size()), sum, sum_of_squares, params,
                      all_played);
}

hoard::v1::SprtState SprtFromSums(int n, double sum, double sum_of_squares,
                                  const SprtParameters& params, bool all_played) {
  hoard::v1::SprtState state;
  state.set_lower_bound(std::log(params.beta / (1 - params.alpha)));
  state.set_upper_bound(std::log((1 - params.beta) / params.alpha));
  state.set_blocks(n);
  if (n > 0) {
    const double mean = sum / n;
    const double squares = std::max(0.0, sum_of_squares - n * mean * mean);
    // One prior block of variance 1/4, the most a score in [0, 1] has.
    const double variance = (squares + 0.25) / (n + 1);
    const double s0 = ExpectedScore(params.elo0);
    const double s1 = ExpectedScore(params.elo1);
    state.set_llr(n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance));
    state.set_score(mean);
    const double elo = EloOfScore(mean);
    state.set_elo(std::abs(elo) < 1e-9 ? 0 : elo);
  }
  if (state.llr() >= state.upper_bound()) {
    state.set_result(hoard::v1::SprtState::RESULT_H1);
  } else if (state.llr() <= state.lower_bound()) {
    state.set_result(hoard::v1::SprtState::RESULT_H0);
  } else if (all_played) {
    state.set_result(hoard::v1::SprtState::RESULT_UNDECIDED);
  }
  return state;
}

}  // namespace hoard::tournament
