// hoard stats: how a game plays, from many matches between built-in bots.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bots/bot.h"
#include "bots/statistics.h"
#include "engine/registry.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"

namespace hoard::cli {
namespace {

constexpr char kAbout[] =
    "usage: hoard stats --game ID [flags]\n\n"
    "Plays many matches between built-in bots in-process and prints how the game\n"
    "plays: match length, win rate per seat (fair is 1/players; a first place\n"
    "shared by k players counts 1/k to each), shared ranks, score spread, and the\n"
    "game's own counters (how matches ended, action spaces, card kinds, ...).\n"
    "Match i has its own seed and the bots rotated i seats, so results per bot\n"
    "are fair; the same flags give the same report on any number of threads.";

// "12.3%" with the half-width of its 95% interval, in points.
std::string Percent(double part, int whole) {
  const double p = part / whole;
  const double half = 1.96 * std::sqrt(p * (1 - p) / whole);
  return absl::StrFormat("%5.1f%% ±%.1f", 100 * p, 100 * half);
}

std::string Line(const bots::Summary& s) {
  return absl::StrFormat("mean %.1f  min %g  median %g  p90 %g  max %g", s.mean, s.min, s.median,
                         s.p90, s.max);
}

void Print(const engine::GameInfo& info, const bots::StatsConfig& config,
           const bots::StatsReport& report) {
  const int n = config.match.num_players;
  std::vector<std::string> options;
  for (const auto& [name, value] : config.match.options) options.push_back(name + "=" + value);
  std::cout << info.name << " (" << info.id << ", ruleset " << info.ruleset_version << "), " << n
            << " players, " << report.matches << " matches, seed " << config.match.seed
            << "\nbots: " << absl::StrJoin(config.bots, ", ")
            << (config.bots.size() > 1 ? " (rotated one seat each match)" : "")
            << "\noptions: " << (options.empty() ? "the defaults" : absl::StrJoin(options, ", "))
            << "\n\n";
  std::cout << "length (actions)   " << Line(report.actions) << "\n\n";
  std::cout << absl::StrFormat("win rate by seat (fair %.1f%%; ±: 95%% interval)\n", 100.0 / n);
  double worst = 0;
  int worst_seat = 0;
  for (int seat = 0; seat < n; ++seat) {
    const double gap = 100 * (report.wins[seat] / report.matches - 1.0 / n);
    if (std::abs(gap) > std::abs(worst)) {
      worst = gap;
      worst_seat = seat;
    }
    std::cout << absl::StrFormat("  seat %d   %s   mean score %.2f   mean rank %.2f\n", seat,
                                 Percent(report.wins[seat], report.matches),
                                 report.mean_score[seat], report.mean_rank[seat]);
  }
  std::cout << absl::StrFormat("  largest gap from fair: %+.1f points (seat %d)\n", worst,
                               worst_seat);
  if (!report.bot_wins.empty()) {
    std::cout << "\nwin rate by bot (of the seats it played)\n";
    for (const auto& [bot, wins_seats] : report.bot_wins) {
      std::cout << absl::StrFormat("  %-14s %s   (%s)\n", bot,
                                   Percent(wins_seats.first, wins_seats.second),
                                   Counted(wins_seats.second, "seat", "seats"));
    }
  }
  std::cout << "\nshared ranks       " << Percent(report.shared_rank, report.matches)
            << " of matches\n"
            << "shared first place " << Percent(report.shared_first, report.matches)
            << " of matches\n"
            << "score spread (best − worst)        " << Line(report.spread) << "\n"
            << "winning margin (best − second)     " << Line(report.margin) << "\n";
  // Counters, grouped by the part of their name before ": ".
  auto split = [](const std::string& name) {
    std::pair<std::string, std::string> parts = absl::StrSplit(name, absl::MaxSplits(": ", 1));
    return parts.second.empty() ? std::pair<std::string, std::string>{"", name} : parts;
  };
  std::size_t width = 20;
  for (const auto& [name, total] : report.counters) {
    width = std::max(width, split(name).second.size());
  }
  std::string group = "\x01";
  for (const auto& [name, total] : report.counters) {
    const auto [this_group, item] = split(name);
    if (this_group != group) {
      group = this_group;
      std::cout << absl::StrFormat("\n%-*s      total   per match   in matches\n",
                                   static_cast<int>(width + 2), group.empty() ? "counters" : group);
    }
    std::cout << absl::StrFormat("  %-*s %10g   %9.2f   %s\n", static_cast<int>(width), item,
                                 total.total, total.total / report.matches,
                                 Percent(total.matches, report.matches));
  }
  if (!report.ratios.empty()) {
    std::cout << "\n";
    for (const auto& [name, value] : report.ratios) {
      std::cout << absl::StrFormat("%-*s %s\n", static_cast<int>(width + 4), name,
                                   std::isnan(value) ? "-" : absl::StrFormat("%.2f", value));
    }
  }
}

}  // namespace

int RunStats(const std::vector<std::string>& args) {
  std::string game_id;
  std::string players;
  std::string bots = "heuristic";
  bool quiet = false;
  bots::StatsConfig config;
  config.match.seed = 1;
  config.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  CommandLine command("stats", kAbout);
  CLI::App& app = command.app();
  app.add_option("--game", game_id, "the game (required; see 'hoard games')")->type_name("ID");
  // Its range is the game's: read once the game is known.
  app.add_option("--players", players, "number of seats (default: the game's fewest)")
      ->type_name("N");
  app.add_option("--bots", bots, "built-in bots, one per seat or one for all (default heuristic)")
      ->type_name("A,B,...");
  app.add_option("--matches", config.matches, "matches to play (default 100)")
      ->type_name("M")
      ->transform(InRange(1, 10'000'000));
  AddGameOptionFlag(app, &config.match.options, "set a game option (repeatable)");
  app.add_option("--seed", config.match.seed,
                 "the seed every match's seed derives from (default 1)")
      ->type_name("N")
      ->transform(Seed());
  app.add_option("--threads", config.threads,
                 "matches played at once (default: the machine's cores)")
      ->type_name("T")
      ->transform(InRange(1, 256));
  app.add_flag("--quiet", quiet, "no progress lines on stderr");
  app.footer(
      "example: hoard stats --game frost_dragon --players 4 --bots heuristic --matches 2000");
  if (std::optional<int> exit = command.ParseOrExit(args)) return *exit;
  if (game_id.empty()) return Fail(kExitUsage, "stats needs --game (see 'hoard games')");
  absl::StatusOr<const engine::Game*> game = engine::FindGame(game_id);
  if (!game.ok()) return Fail(kExitUsage, std::string(game.status().message()));
  const engine::GameInfo& info = (*game)->info();
  config.game = *game;
  config.match.num_players = info.min_players;
  if (!players.empty()) {
    long long number = 0;
    if (!absl::SimpleAtoi(players, &number) || number < info.min_players ||
        number > info.max_players) {
      return Fail(kExitUsage,
                  absl::StrCat("--players needs a number from ", info.min_players, " to ",
                               info.max_players, " (", info.id, " is played by ", info.min_players,
                               " to ", info.max_players, ")"));
    }
    config.match.num_players = static_cast<int>(number);
  }
  config.bots = absl::StrSplit(bots, ',');
  const int n = config.match.num_players;
  if (config.bots.size() != 1 && static_cast<int>(config.bots.size()) != n) {
    return Fail(kExitUsage, absl::StrCat("--bots names ", config.bots.size(), " bots for ", n,
                                         " players: give one per seat or one for all"));
  }
  if (!quiet) {
    const auto start = std::chrono::steady_clock::now();
    auto last = start;
    config.progress = [&, start, last](int done) mutable {
      const auto now = std::chrono::steady_clock::now();
      if (done < config.matches && now - last < std::chrono::seconds(2)) return;
      last = now;
      const double seconds = std::chrono::duration<double>(now - start).count();
      std::cerr << absl::StrFormat("stats: %d/%d matches, %.1f/s\n", done, config.matches,
                                   done / std::max(seconds, 1e-9));
    };
  }
  absl::StatusOr<bots::StatsReport> report = bots::CollectStats(config);
  if (!report.ok()) {
    const bool usage =
        absl::IsInvalidArgument(report.status()) || absl::IsNotFound(report.status());
    return Fail(usage ? kExitUsage : kExitFailure, std::string(report.status().message()));
  }
  Print(info, config, *report);
  return kExitOk;
}

}  // namespace hoard::cli
