// hoard play: one match between built-in bots, printed as it goes.

#include <cstdio>
#include <iostream>
#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bots/bot.h"
#include "bots/local_match.h"
#include "engine/record_json.h"
#include "engine/registry.h"
#include "engine/seed_commitment.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"

namespace hoard::cli {
namespace {

const std::vector<FlagSpec>& PlayFlags() {
  static const auto* specs = new std::vector<FlagSpec>{
      {"game", "ID", "the game to play (default village; see 'hoard games')"},
      {"players", "N", "number of seats (default 4)"},
      {"seed", "N", "the match seed: same seed, same match (default 1)"},
      {"bots", "A,B,...", "built-in bots, one per seat or one for all (default random)"},
      {"option", "NAME=VALUE", "set a game option (repeatable)", true},
      {"record", "FILE", "write the match record (JSON) to FILE"},
      {"quiet", "", "print only the final table"},
      {"help", "", "show this help"},
  };
  return *specs;
}

void PrintTable(const engine::State& state, const std::vector<std::string>& names) {
  const std::vector<double> scores = state.Scores();
  const std::vector<int> ranks = state.Ranks();
  std::vector<int> order(names.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return ranks[a] < ranks[b]; });
  std::cout << "\nrank  seat  bot           score\n";
  for (int seat : order) {
    std::cout << absl::StrFormat("%4d  %4d  %-12s %6g\n", ranks[seat], seat, names[seat],
                                 scores[seat]);
  }
}

}  // namespace

int RunPlay(const std::vector<std::string>& args) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, PlayFlags());
  if (!parsed.ok()) return Fail(kExitUsage, std::string(parsed.status().message()));
  if (parsed->Has("help")) {
    std::cout << "usage: hoard play [flags]\n\nPlays one match in-process "
                 "between built-in bots.\n\n"
              << FlagsHelp(PlayFlags());
    return kExitOk;
  }
  if (!parsed->positionals.empty()) {
    return Fail(kExitUsage,
                "play takes no arguments besides flags, got '" + parsed->positionals[0] + "'");
  }
  absl::StatusOr<const engine::Game*> game = engine::FindGame(parsed->Get("game", "village"));
  if (!game.ok()) return Fail(kExitUsage, std::string(game.status().message()));
  const engine::GameInfo& info = (*game)->info();

  engine::MatchConfig config;
  absl::StatusOr<long long> players = ParseInt("players", parsed->Get("players", "4"));
  if (!players.ok()) return Fail(kExitUsage, std::string(players.status().message()));
  if (*players < info.min_players || *players > info.max_players) {
    return Fail(kExitUsage, absl::StrCat(info.id, " is played by ", info.min_players, " to ",
                                         info.max_players, " players, not ", *players));
  }
  config.num_players = static_cast<int>(*players);
  absl::StatusOr<std::uint64_t> seed = ReadSeedFlag(*parsed, 1);
  if (!seed.ok()) return Fail(kExitUsage, std::string(seed.status().message()));
  config.seed = *seed;
  if (absl::Status s = ReadOptionFlags(*parsed, &config.options); !s.ok()) {
    return Fail(kExitUsage, std::string(s.message()));
  }

  std::vector<std::string> names =
      parsed->Has("bots") ? std::vector<std::string>(absl::StrSplit(parsed->Get("bots", ""), ','))
                          : std::vector<std::string>(config.num_players, "random");
  // One name is the bot of every seat, as in hoard stats.
  if (names.size() == 1) names.assign(config.num_players, names[0]);
  if (static_cast<int>(names.size()) != config.num_players) {
    return Fail(kExitUsage,
                absl::StrCat("--bots names ", names.size(), " bots for ", config.num_players,
                             " players: give one per seat or one for all"));
  }
  engine::Rng bot_seeds(config.seed ^ 0x5eed5eed5eed5eedULL);
  std::vector<std::unique_ptr<bots::Bot>> owned;
  std::vector<bots::Bot*> seats;
  for (const std::string& name : names) {
    absl::StatusOr<std::unique_ptr<bots::Bot>> bot = bots::MakeBot(name, **game, bot_seeds.Fork());
    if (!bot.ok()) return Fail(kExitUsage, std::string(bot.status().message()));
    seats.push_back(bot->get());
    owned.push_back(*std::move(bot));
  }

  // Starting the match here checks the options before anything is printed.
  absl::StatusOr<std::unique_ptr<engine::State>> start = (*game)->NewMatch(config);
  if (!start.ok()) return Fail(kExitUsage, std::string(start.status().message()));

  const bool quiet = parsed->Has("quiet");
  std::vector<std::string> labels;
  for (std::size_t s = 0; s < names.size(); ++s) {
    labels.push_back(absl::StrCat("seat ", s, ": ", names[s]));
  }
  std::cout << info.name << " (" << info.id << ", ruleset " << info.ruleset_version << "), "
            << config.num_players << " players, seed " << config.seed << "\n"
            << absl::StrJoin(labels, ", ") << "\n";
  // A recorded match commits to its deal before the first move; its record
  // carries the salt (a fresh one each time, so only then).
  const bool recorded = parsed->Has("record");
  const std::string salt = recorded ? engine::NewSeedSalt() : "";
  const std::string commitment = recorded ? engine::SeedCommitment(config.seed, salt) : "";
  if (recorded) std::cout << "deal commitment " << commitment << "\n";
  if (!quiet) {
    std::cout << "start: " << (*start)->ViewFor(engine::kSpectator)->Summary() << "\n";
  }
  auto on_step = [&](const bots::Step& step) {
    if (quiet) return;
    std::cout << absl::StrFormat("%4d. seat %d (%s): %s\n      %s\n", step.number, step.seat,
                                 names[step.seat], step.text,
                                 step.after->ViewFor(engine::kSpectator)->Summary());
  };
  absl::StatusOr<bots::PlayedMatch> played =
      bots::PlayLocalMatch(**game, config, seats, names, on_step);
  if (!played.ok()) return Fail(kExitFailure, std::string(played.status().message()));
  const engine::State& final_state = *played->final_state;
  std::cout << "\nmatch over after " << played->record.actions.size() << " actions\n"
            << final_state.ViewFor(engine::kSpectator)->ToString();
  PrintTable(final_state, names);

  if (recorded) {
    const std::string path = parsed->Get("record", "");
    played->record.seed_commitment = commitment;
    played->record.seed_salt = salt;
    if (absl::Status status = engine::WriteRecordFile(path, played->record); !status.ok()) {
      return Fail(kExitFailure, std::string(status.message()));
    }
    std::cout << "\nrecord written to " << path << "\n";
  }
  return kExitOk;
}

int Fail(int exit_code, const std::string& message) {
  std::cerr << "hoard: " << message << "\n";
  return exit_code;
}

}  // namespace hoard::cli
