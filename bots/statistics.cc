#include "bots/statistics.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "bots/bot.h"
#include "engine/match_stats.h"
#include "engine/registry.h"

namespace hoard::bots {
namespace {

// What one match left behind.
struct MatchOutcome {
  int actions = 0;
  std::vector<double> scores;
  std::vector<int> ranks;
  std::vector<std::string> bots;  // by seat
  engine::MatchCounts counts;
};

absl::StatusOr<MatchOutcome> PlayOne(const StatsConfig& config, int index) {
  const engine::Game& game = *config.game;
  engine::MatchConfig match = config.match;
  match.seed = MatchSeed(config.match.seed, index);
  const int n = match.num_players;
  MatchOutcome outcome;
  // The same bot seeds as `hoard play --seed <match.seed>`.
  engine::Rng bot_seeds(match.seed ^ 0x5eed5eed5eed5eedULL);
  std::vector<std::unique_ptr<Bot>> bots;
  for (int seat = 0; seat < n; ++seat) {
    const std::string& name = config.bots[(seat + index) % config.bots.size()];
    absl::StatusOr<std::unique_ptr<Bot>> bot = MakeBot(name, game, bot_seeds.Fork());
    if (!bot.ok()) return bot.status();
    bots.push_back(*std::move(bot));
    outcome.bots.push_back(name);
  }
  absl::StatusOr<std::unique_ptr<engine::State>> state = game.NewMatch(match);
  if (!state.ok()) return state.status();
  const engine::MatchStatistics& statistics = engine::StatisticsFor(game);
  std::unique_ptr<engine::MatchCounter> counter =
      statistics.make_counter == nullptr ? nullptr : statistics.make_counter();
  std::vector<engine::Action> legal;
  while (!(*state)->IsOver()) {
    for (engine::Seat seat : (*state)->SeatsToAct()) {
      (*state)->LegalActions(seat, &legal);
      const engine::Action action = bots[seat]->Choose(*(*state)->ViewFor(seat), legal);
      std::unique_ptr<engine::State> before = counter ? (*state)->Clone() : nullptr;
      if (absl::Status refused = (*state)->Apply(seat, action); !refused.ok()) {
        return absl::InternalError(absl::StrCat("match ", index, " (seed ", match.seed, "): bot '",
                                                outcome.bots[seat], "' in seat ", seat,
                                                " chose an illegal action: ", refused.message()));
      }
      ++outcome.actions;
      if (counter) counter->OnAction(*before, seat, action, **state);
    }
  }
  outcome.scores = (*state)->Scores();
  outcome.ranks = (*state)->Ranks();
  if (counter) counter->OnEnd(**state, &outcome.counts);
  return outcome;
}

double Quantile(const std::vector<double>& sorted, double q) {
  const std::size_t i = static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(i, sorted.size() - 1)];
}

StatsReport Combine(const StatsConfig& config, const std::vector<MatchOutcome>& outcomes) {
  const int n = config.match.num_players;
  StatsReport report;
  report.matches = static_cast<int>(outcomes.size());
  report.wins.assign(n, 0);
  report.mean_score.assign(n, 0);
  report.mean_rank.assign(n, 0);
  const bool mixed = std::any_of(config.bots.begin(), config.bots.end(),
                                 [&](const std::string& b) { return b != config.bots[0]; });
  std::vector<double> actions, spread, margin;
  for (const MatchOutcome& outcome : outcomes) {
    actions.push_back(outcome.actions);
    const int firsts = static_cast<int>(std::count(outcome.ranks.begin(), outcome.ranks.end(), 1));
    for (int seat = 0; seat < n; ++seat) {
      const double win = outcome.ranks[seat] == 1 ? 1.0 / firsts : 0.0;
      report.wins[seat] += win;
      report.mean_score[seat] += outcome.scores[seat];
      report.mean_rank[seat] += outcome.ranks[seat];
      if (mixed) {
        auto& [wins, seats] = report.bot_wins[outcome.bots[seat]];
        wins += win;
        ++seats;
      }
    }
    if (firsts > 1) ++report.shared_first;
    std::vector<int> ranks = outcome.ranks;
    std::sort(ranks.begin(), ranks.end());
    if (std::adjacent_find(ranks.begin(), ranks.end()) != ranks.end()) ++report.shared_rank;
    std::vector<double> scores = outcome.scores;
    std::sort(scores.begin(), scores.end(), std::greater<>());
    spread.push_back(scores.front() - scores.back());
    margin.push_back(scores.size() > 1 ? scores[0] - scores[1] : 0);
    for (const auto& [name, amount] : outcome.counts) {
      CounterTotal& total = report.counters[name];
      total.total += amount;
      if (amount != 0) ++total.matches;
    }
  }
  for (int seat = 0; seat < n; ++seat) {
    report.mean_score[seat] /= report.matches;
    report.mean_rank[seat] /= report.matches;
  }
  report.actions = Summarize(std::move(actions));
  report.spread = Summarize(std::move(spread));
  report.margin = Summarize(std::move(margin));
  for (const engine::Ratio& ratio : engine::StatisticsFor(*config.game).ratios) {
    auto sum = [&](const std::string& name) {
      auto it = report.counters.find(name);
      return it == report.counters.end() ? 0.0 : it->second.total;
    };
    const double denominator = sum(ratio.denominator);
    report.ratios.emplace_back(ratio.name, denominator == 0
                                               ? std::numeric_limits<double>::quiet_NaN()
                                               : sum(ratio.numerator) / denominator);
  }
  return report;
}

}  // namespace

Summary Summarize(std::vector<double> values) {
  Summary summary;
  if (values.empty()) return summary;
  std::sort(values.begin(), values.end());
  double total = 0;
  for (double v : values) total += v;
  summary.mean = total / static_cast<double>(values.size());
  summary.min = values.front();
  summary.max = values.back();
  summary.median = Quantile(values, 0.5);
  summary.p90 = Quantile(values, 0.9);
  return summary;
}

std::uint64_t MatchSeed(std::uint64_t seed, int index) {
  // SplitMix64 of the seed advanced `index + 1` steps: independent streams.
  std::uint64_t z = seed + (static_cast<std::uint64_t>(index) + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

absl::StatusOr<StatsReport> CollectStats(const StatsConfig& config) {
  if (config.game == nullptr) return absl::InvalidArgumentError("no game");
  if (config.matches < 1) return absl::InvalidArgumentError("at least one match is needed");
  if (config.bots.empty()) return absl::InvalidArgumentError("no bots");
  // The options and the bots are checked once, before any thread starts.
  if (absl::StatusOr<std::unique_ptr<engine::State>> start = config.game->NewMatch(config.match);
      !start.ok()) {
    return start.status();
  }
  for (const std::string& name : config.bots) {
    if (absl::StatusOr<std::unique_ptr<Bot>> bot = MakeBot(name, *config.game, 0); !bot.ok()) {
      return bot.status();
    }
  }
  std::vector<std::optional<MatchOutcome>> outcomes(config.matches);
  std::atomic<int> next{0};
  absl::Mutex mu;
  int done = 0;
  std::optional<absl::Status> failure;
  auto work = [&] {
    for (int index = next++; index < config.matches; index = next++) {
      absl::StatusOr<MatchOutcome> outcome = PlayOne(config, index);
      absl::MutexLock lock(&mu);
      if (!outcome.ok()) {
        if (!failure) failure = outcome.status();
        next = config.matches;
        return;
      }
      outcomes[index] = *std::move(outcome);
      ++done;
      if (config.progress) config.progress(done);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < std::max(1, config.threads); ++t) threads.emplace_back(work);
  work();
  for (std::thread& thread : threads) thread.join();
  if (failure) return *failure;
  std::vector<MatchOutcome> played;
  played.reserve(outcomes.size());
  for (std::optional<MatchOutcome>& outcome : outcomes) played.push_back(*std::move(outcome));
  return Combine(config, played);
}

}  // namespace hoard::bots
