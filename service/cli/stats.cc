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

const std::vector<FlagSpec>& StatsFlags() {
  static const auto* specs = new std::vector<FlagSpec>{
      {"game", "ID", "the game (required; see 'hoard games')"},
      {"players", "N", "number of seats (default: the game's fewest)"},
      {"bots", "A,B,...", "built-in bots, one per seat or one for all (default heuristic)"},
      {"matches", "M", "matches to play (default 1000)"},
      {"option", "NAME=VALUE", "set a game option (repeatable)", true},
      {"seed", "N", "the seed every match's seed derives from (default 1)"},
      {"threads", "T", "matches played at once (default: the machine's cores)"},
      {"quiet", "", "no progress lines on stderr"},
      {"help", "", "show this help"},
  };
  return *specs;
}

constexpr char kAbout[] =
    "Plays many matches between built-in bots in-process and prints how the game\n"
    "plays: match length, win rate per seat (fair is 1/players; a first place\n"
    "shared by k players counts 1/k to each), shared ranks, score spread, and the\n"
    "game's own counters (how matches ended, action spaces, card kinds, ...).\n"
    "Match i has its own seed and the bots rotated i seats, so results per bot\n"
    "are fair; the same flags give the same report on any number of threads.\n";

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
      std::cout << absl::StrFormat("  %-14s %s   (%d seats)\n", bot,
                                   Percent(wins_seats.first, wins_seats.second), wins_seats.second);
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
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, StatsFlags());
  if (!parsed.ok()) return Fail(kExitUsage, std::string(parsed.status().message()));
  if (parsed->Has("help")) {
    std::cout << "usage: hoard stats --game ID [flags]\n\n"
              << kAbout << "\n"
              << FlagsHelp(StatsFlags())
              << "\nexample: hoard stats --game frost_dragon --players 4 --bots heuristic "
                 "--matches 2000\n";
    return kExitOk;
  }
  if (!parsed->positionals.empty()) {
    return Fail(kExitUsage,
                "stats takes no arguments besides flags, got '" + parsed->positionals[0] + "'");
  }
  if (!parsed->Has("game")) return Fail(kExitUsage, "stats needs --game (see 'hoard games')");
  absl::StatusOr<const engine::Game*> game = engine::FindGame(parsed->Get("game", ""));
  if (!game.ok()) return Fail(kExitUsage, std::string(game.status().message()));
  const engine::GameInfo& info = (*game)->info();

  bots::StatsConfig config;
  config.game = *game;
  config.match.num_players = info.min_players;
  config.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (absl::Status s = ReadIntFlag(*parsed, "players", info.min_players, info.max_players,
                                   &config.match.num_players);
      !s.ok()) {
    return Fail(kExitUsage, absl::StrCat(s.message(), " (", info.id, " is played by ",
                                         info.min_players, " to ", info.max_players, ")"));
  }
  for (const auto& [flag, low, high, out] :
       {std::tuple<const char*, int, int, int*>{"matches", 1, 10'000'000, &config.matches},
        {"threads", 1, 256, &config.threads}}) {
    if (absl::Status s = ReadIntFlag(*parsed, flag, low, high, out); !s.ok()) {
      return Fail(kExitUsage, std::string(s.message()));
    }
  }
  absl::StatusOr<std::uint64_t> seed = ReadSeedFlag(*parsed, 1);
  if (!seed.ok()) return Fail(kExitUsage, std::string(seed.status().message()));
  config.match.seed = *seed;
  if (absl::Status s = ReadOptionFlags(*parsed, &config.match.options); !s.ok()) {
    return Fail(kExitUsage, std::string(s.message()));
  }
  config.bots = absl::StrSplit(parsed->Get("bots", "heuristic"), ',');
  const int n = config.match.num_players;
  if (config.bots.size() != 1 && static_cast<int>(config.bots.size()) != n) {
    return Fail(kExitUsage, absl::StrCat("--bots names ", config.bots.size(), " bots for ", n,
                                         " players: give one per seat or one for all"));
  }
  if (!parsed->Has("quiet")) {
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
