#ifndef HOARD_TOURNAMENT_TESTING_RANDOM_RESULTS_H_
#define HOARD_TOURNAMENT_TESTING_RANDOM_RESULTS_H_

// Synthetic match results for the tests and benchmarks of the ratings.

#include <cstdint>
#include <span>
#include <vector>

#include "engine/rng.h"
#include "tournament/ratings.h"

namespace hoard::tournament::testing {

// `matches` matches (each its own unit) of `players` seats, taken by bots
// drawn at random from 0..n-1, n = strengths.size(). Bot b performs at
// strengths[b] plus a noise uniform in [0, 3): the best performance takes
// first place (equal performances tie). Bots 3 or more apart never lose to
// the weaker; a gap g < 3 leaves the weaker a chance (3 − g)²/18 per meeting.
// REQUIRES: 2 <= players <= n.
inline std::vector<MatchResult> ResultsOfStrengths(const std::vector<double>& strengths,
                                                   int matches, int players, std::uint64_t seed) {
  const int bots = static_cast<int>(strengths.size());
  engine::Rng rng(seed);
  std::vector<MatchResult> results;
  results.reserve(matches);
  std::vector<int> pool(bots);
  std::vector<double> performance(players);
  for (int m = 0; m < matches; ++m) {
    for (int b = 0; b < bots; ++b) pool[b] = b;
    rng.Shuffle(std::span<int>(pool));
    for (int s = 0; s < players; ++s) {
      performance[s] = strengths[pool[s]] + 3.0 * static_cast<double>(rng.Uniform(1000)) / 1000;
    }
    MatchResult result;
    result.unit = m;
    for (int s = 0; s < players; ++s) {
      int place = 1;
      for (int o = 0; o < players; ++o) place += performance[o] > performance[s] ? 1 : 0;
      result.placings.push_back({pool[s], place});
    }
    results.push_back(std::move(result));
  }
  return results;
}

// ResultsOfStrengths with bot b at `step`·b: higher numbers are stronger,
// and a larger `step` spreads them further apart.
// REQUIRES: 2 <= players <= bots.
inline std::vector<MatchResult> RandomResults(int bots, int matches, int players,
                                              std::uint64_t seed, double step = 1.0) {
  std::vector<double> strengths(bots);
  for (int b = 0; b < bots; ++b) strengths[b] = step * b;
  return ResultsOfStrengths(strengths, matches, players, seed);
}

}  // namespace hoard::tournament::testing

#endif  // HOARD_TOURNAMENT_TESTING_RANDOM_RESULTS_H_
