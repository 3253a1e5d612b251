// How fast a ladder's matchmaking (tournament/matchmaker.h) learns the
// ranking, against a round-robin and a Swiss on the same entrants.
//
//   build/tournament/ladder_benchmark --entrants 16 --players 2 --trials 20
//
// The entrants have known strengths, `--spacing` Elo apart, dealt to the
// entrant numbers at random in each trial; a match's order is drawn from
// the Plackett–Luce model of the strengths (Bradley–Terry for two players),
// the model the ratings fit, from a generator seeded by the trial. Each
// scheduler plays one table at a time with every entrant available:
//  - ladder: Matchmaker::Next, told every result (Matchmaker::Add);
//  - round-robin: Schedule's round-robin (every k-subset in every seat
//    rotation), its rounds repeated in schedule order (an entrant's
//    matches come together, so a partial round is lopsided);
//  - shuffled r-r: the same rounds, each in an order shuffled by the trial
//    (a partial round is a random part of it);
//  - swiss: Swiss rounds, each paired from the results before it.
// Every `--every` matches (default: a round of entrants / players tables)
// the same fit for all four, MlRatings without bootstrap or profile over
// every result so far, is compared with the true order by Kendall's τ; the
// count is the matches played at the first comparison with τ ≥
// `--tau` (first passage: each scheduler is read the same way). A trial that
// does not get there within `--max-matches` counts that many (and is
// reported). The table gives each scheduler's median and mean over the
// trials and its median over the two round-robins'.
//
// With --timing N, it also times the matchmaker at N entrants after
// --timing-results results: one refit with Next, and one Next without a
// refit.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "engine/rng.h"
#include "tournament/matchmaker.h"
#include "tournament/ratings.h"
#include "tournament/schedule.h"
#include "tournament/swiss.h"

namespace hoard::tournament {
namespace {

struct Settings {
  int entrants = 16;
  int players = 2;
  int trials = 10;
  double spacing = 30;  // Elo between neighbours
  int every = 0;        // 0: entrants / players
  double tau = 0.9;
  int max_matches = 0;  // 0: 400 · entrants
  std::uint64_t seed = 1;
  int timing_entrants = 0;
  int timing_results = 3000;
};

double Uniform(engine::Rng& rng) {
  return (static_cast<double>(rng.Next() >> 11) + 0.5) * 0x1.0p-53;
}

// The ranks of a Plackett–Luce draw of the entrants at `table`: first place
// drawn with probability proportional to γ = e^(strength), then the next
// from those left, and so on.
std::vector<int> PlayTable(const std::vector<int>& table, const std::vector<double>& gamma,
                           engine::Rng& rng) {
  const int k = static_cast<int>(table.size());
  std::vector<int> ranks(k, 0);
  for (int place = 1; place <= k; ++place) {
    double total = 0;
    for (int s = 0; s < k; ++s) total += ranks[s] == 0 ? gamma[table[s]] : 0;
    double u = Uniform(rng) * total;
    int pick = -1;
    for (int s = 0; s < k; ++s) {
      if (ranks[s] != 0) continue;
      pick = s;
      u -= gamma[table[s]];
      if (u <= 0) break;
    }
    ranks[pick] = place;
  }
  return ranks;
}

// Kendall's τ (τ-a) of `fitted` against `truth`: concordant minus
// discordant pairs over all pairs (a tie in the fit counts neither).
double KendallTau(const std::vector<double>& fitted, const std::vector<double>& truth) {
  const int n = static_cast<int>(fitted.size());
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      const double a = fitted[i] - fitted[j], b = truth[i] - truth[j];
      sum += a * b > 0 ? 1 : (a * b < 0 ? -1 : 0);
    }
  }
  return 2 * sum / (static_cast<double>(n) * (n - 1));
}

// A scheduler: the next table, and what it is told of its result.
struct Scheduler {
  std::function<std::vector<int>()> next;
  std::function<void(const std::vector<int>& seats, const std::vector<int>& ranks)> add;
};

Scheduler LadderScheduler(const Settings& s, std::uint64_t seed) {
  auto matchmaker =
      std::make_shared<Matchmaker>(MatchmakerOptions{.players = s.players, .seed = seed});
  matchmaker->Grow(s.entrants);
  std::vector<int> everyone(s.entrants);
  for (int e = 0; e < s.entrants; ++e) everyone[e] = e;
  return {[matchmaker, everyone] { return matchmaker->Next(everyone); },
          [matchmaker](const std::vector<int>& seats, const std::vector<int>& ranks) {
            matchmaker->Add(seats, ranks);
          }};
}

// With `shuffled`, each round in an order of its own.
Scheduler RoundRobinScheduler(const Settings& s, std::uint64_t seed, bool shuffled) {
  auto schedule = std::make_shared<std::vector<ScheduledMatch>>(
      *Schedule({.participants = s.entrants, .players_per_match = s.players, .seed = seed}));
  auto index = std::make_shared<std::size_t>(0);
  auto rng = std::make_shared<engine::Rng>(seed);
  return {[schedule, index, rng, shuffled] {
            const std::size_t at = (*index)++ % schedule->size();
            if (at == 0 && shuffled) rng->Shuffle(std::span<ScheduledMatch>(*schedule));
            return (*schedule)[at].seats;
          },
          [](const std::vector<int>&, const std::vector<int>&) {}};
}

Scheduler SwissScheduler(const Settings& s) {
  auto swiss = std::make_shared<Swiss>(s.entrants, s.players);
  auto pending = std::make_shared<std::deque<std::vector<int>>>();
  return {[swiss, pending] {
            if (pending->empty()) {
              const SwissRound paired = swiss->PairNext();
              pending->assign(paired.tables.begin(), paired.tables.end());
            }
            std::vector<int> table = pending->front();
            pending->pop_front();
            return table;
          },
          [swiss](const std::vector<int>& seats, const std::vector<int>& ranks) {
            swiss->Add({.round = swiss->rounds() - 1, .seats = seats, .ranks = ranks});
          }};
}

// Matches until τ first reaches the target (max_matches if it does not).
int MatchesToOrder(const Settings& s, Scheduler scheduler, const std::vector<double>& strength,
                   std::uint64_t seed) {
  std::vector<double> gamma(strength.size());
  for (std::size_t i = 0; i < strength.size(); ++i) gamma[i] = std::exp(strength[i]);
  engine::Rng rng(seed);
  std::vector<MatchResult> results;
  const int every = s.every > 0 ? s.every : std::max(1, s.entrants / s.players);
  const int limit = s.max_matches > 0 ? s.max_matches : 400 * s.entrants;
  for (int played = 1; played <= limit; ++played) {
    const std::vector<int> table = scheduler.next();
    const std::vector<int> ranks = PlayTable(table, gamma, rng);
    scheduler.add(table, ranks);
    MatchResult result;
    result.unit = played;
    for (std::size_t seat = 0; seat < table.size(); ++seat) {
      result.placings.push_back({table[seat], ranks[seat]});
    }
    results.push_back(std::move(result));
    if (played % every != 0) continue;
    const std::vector<MlRating> fit =
        MlRatings(s.entrants, results, {.bootstrap_samples = 0, .profile_likelihood = false});
    std::vector<double> fitted;
    for (const MlRating& r : fit) fitted.push_back(r.rating);
    if (KendallTau(fitted, strength) >= s.tau) return played;
  }
  return limit;
}

double Median(std::vector<int> values) {
  std::sort(values.begin(), values.end());
  const std::size_t m = values.size() / 2;
  return values.size() % 2 == 1 ? values[m] : (values[m - 1] + values[m]) / 2.0;
}

void CompareSchedulers(const Settings& s) {
  constexpr int kSchedulers = 4;
  const char* names[kSchedulers] = {"ladder", "round-robin", "shuffled r-r", "swiss"};
  std::vector<std::vector<int>> counts(kSchedulers);
  int censored[kSchedulers] = {0, 0, 0, 0};
  const int limit = s.max_matches > 0 ? s.max_matches : 400 * s.entrants;
  for (int trial = 0; trial < s.trials; ++trial) {
    engine::Rng dealer(s.seed * 1000003 + static_cast<std::uint64_t>(trial));
    std::vector<double> strength(s.entrants);
    for (int e = 0; e < s.entrants; ++e) strength[e] = e * s.spacing / kMlPointsPerLogUnit;
    dealer.Shuffle(std::span<double>(strength));
    const std::uint64_t games = dealer.Fork(), seed = dealer.Fork();
    for (int k = 0; k < kSchedulers; ++k) {
      Scheduler scheduler = k == 0   ? LadderScheduler(s, seed)
                            : k == 3 ? SwissScheduler(s)
                                     : RoundRobinScheduler(s, seed, k == 2);
      const int matches = MatchesToOrder(s, std::move(scheduler), strength, games);
      counts[k].push_back(matches);
      if (matches >= limit) ++censored[k];
    }
  }
  std::printf(
      "%d entrants %.0f Elo apart, %d players a table, %d trials: matches until "
      "Kendall's tau >= %.2f\n",
      s.entrants, s.spacing, s.players, s.trials, s.tau);
  std::printf("%-12s %8s %8s %10s %12s\n", "scheduler", "median", "mean", "vs r-robin",
              "vs shuffled");
  const double base = Median(counts[1]), shuffled = Median(counts[2]);
  for (int k = 0; k < kSchedulers; ++k) {
    double mean = 0;
    for (int c : counts[k]) mean += c;
    mean /= static_cast<double>(counts[k].size());
    std::printf("%-12s %8.1f %8.1f %10.2f %12.2f", names[k], Median(counts[k]), mean,
                Median(counts[k]) / base, Median(counts[k]) / shuffled);
    if (censored[k] > 0) std::printf("  (%d trials not there by %d)", censored[k], limit);
    std::printf("\n");
  }
}

// Milliseconds of one call of `f`, the least of a few runs.
template <typename F>
double Milliseconds(F f) {
  double best = 1e300;
  for (int run = 0; run < 5; ++run) {
    const auto start = std::chrono::steady_clock::now();
    f(run);
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count());
  }
  return best;
}

void TimeMatchmaker(const Settings& s) {
  const int n = s.timing_entrants;
  std::vector<double> gamma(n);
  for (int e = 0; e < n; ++e) gamma[e] = std::exp(e * s.spacing / kMlPointsPerLogUnit);
  Matchmaker matchmaker({.players = s.players, .seed = s.seed});
  matchmaker.Grow(n);
  std::vector<int> everyone(n);
  for (int e = 0; e < n; ++e) everyone[e] = e;
  engine::Rng rng(s.seed);
  std::vector<int> table;
  for (int r = 0; r < s.timing_results; ++r) {
    table = matchmaker.Next(everyone);
    matchmaker.Add(table, PlayTable(table, gamma, rng));
  }
  const double refit = Milliseconds([&](int) {
    matchmaker.Add(table, PlayTable(table, gamma, rng));
    table = matchmaker.Next(everyone);
  });
  const double score = Milliseconds([&](int) { table = matchmaker.Next(everyone); });
  std::printf(
      "matchmaker, %d entrants, %d players, %d results: Add + Next (a refit) %.2f ms; "
      "Next alone %.3f ms\n",
      n, s.players, s.timing_results, refit, score);
}

}  // namespace
}  // namespace hoard::tournament

int main(int argc, char** argv) {
  hoard::tournament::Settings s;
  CLI::App app("How fast a ladder's matchmaking learns the ranking");
  app.add_option("--entrants", s.entrants, "entrants")->check(CLI::Range(2, 200));
  app.add_option("--players", s.players, "players a table")->check(CLI::Range(2, 6));
  app.add_option("--trials", s.trials, "seeded trials")->check(CLI::Range(1, 100000));
  app.add_option("--spacing", s.spacing, "Elo between neighbours")->check(CLI::Range(1.0, 1000.0));
  app.add_option("--every", s.every, "matches between fits (0: entrants / players)")
      ->check(CLI::Range(0, 100000));
  app.add_option("--tau", s.tau, "the Kendall tau to reach")->check(CLI::Range(0.0, 1.0));
  app.add_option("--max-matches", s.max_matches, "a trial's limit (0: 400 per entrant)")
      ->check(CLI::Range(0, 100000000));
  app.add_option("--seed", s.seed, "seed");
  app.add_option("--timing", s.timing_entrants, "also time the matchmaker at this many entrants")
      ->check(CLI::Range(0, 200));
  app.add_option("--timing-results", s.timing_results, "results before timing")
      ->check(CLI::Range(1, 1000000));
  CLI11_PARSE(app, argc, argv);
  if (s.players > s.entrants) {
    std::fprintf(stderr, "--players %d: more than the %d entrants\n", s.players, s.entrants);
    return 2;
  }
  hoard::tournament::CompareSchedulers(s);
  if (s.timing_entrants > 0) hoard::tournament::TimeMatchmaker(s);
  return 0;
}
