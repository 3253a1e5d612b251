#ifndef HOARD_BOTS_STATISTICS_H_
#define HOARD_BOTS_STATISTICS_H_

// How a game plays: many matches between built-in bots, summed up.
//
// `hoard stats` prints a StatsReport. Every game gets the figures every game
// has (length, win rate per seat, shared ranks, score spread); a game that
// registered counters (engine/match_stats.h) adds its own.
//
// Match i is played with seed MatchSeed(seed, i) and the bots rotated i seats
// (seat s gets bots[(s + i) % n]), so `hoard play --seed <that seed> --bots
// <rotated list>` replays any one of them. With the same flags the report is
// the same, whatever the number of threads.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game.h"

namespace hoard::bots {

struct StatsConfig {
  const engine::Game* game = nullptr;
  // Players, options, and the seed every match's seed derives from.
  engine::MatchConfig match;
  // A built-in bot name per seat (bots/bot.h: MakeBot), rotated as above.
  std::vector<std::string> bots;
  int matches = 100;
  int threads = 1;
  // Called from the playing threads (serialised) with the matches done so far.
  std::function<void(int done)> progress;
};

// A sample of numbers, summed up.
struct Summary {
  double mean = 0;
  double min = 0;
  double median = 0;
  double p90 = 0;
  double max = 0;
};
Summary Summarize(std::vector<double> values);

struct CounterTotal {
  double total = 0;
  int matches = 0;  // matches where it was not zero
};

struct StatsReport {
  int matches = 0;
  Summary actions;  // actions per match, all seats together
  // Per seat: first places, a first place shared by k players counting 1/k.
  std::vector<double> wins;
  std::vector<double> mean_score;
  std::vector<double> mean_rank;
  // Per bot name, when the bots differ: first places and seats played.
  std::map<std::string, std::pair<double, int>> bot_wins;
  int shared_rank = 0;   // matches where some rank is shared
  int shared_first = 0;  // matches where the first place is shared
  Summary spread;        // best score minus worst score
  Summary margin;        // best score minus the second best
  std::map<std::string, CounterTotal> counters;
  std::vector<std::pair<std::string, double>> ratios;  // NaN when 0/0
};

// The seed of match `index` of a run seeded with `seed`.
std::uint64_t MatchSeed(std::uint64_t seed, int index);

// Plays config.matches matches; an error names the match (its seed) that
// could not be played, or the option or bot that is wrong.
absl::StatusOr<StatsReport> CollectStats(const StatsConfig& config);

}  // namespace hoard::bots

#endif  // HOARD_BOTS_STATISTICS_H_
