// hoard play: one match between built-in bots, printed as it goes.

#include <cstdio>
#include <iostream>
#include <memory>

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
  std::string game_id = "village";
  int players = 4;
  engine::MatchConfig config;
  config.seed = 1;
  std::string bots;
  std::string record_path;
  bool quiet = false;
  CommandLine command("play",
                      "usage: hoard play [flags]\n\n"
                      "Plays one match in-process between built-in bots.");
  CLI::App& app = command.app();
  app.add_option("--game", game_id, "the game to play (default village; see 'hoard games')")
      ->type_name("ID");
  app.add_option("--players", players, "number of seats (default 4)")
      ->type_name("N")
      ->transform(WholeNumber());
  app.add_option("--seed", config.seed, "the match seed: same seed, same match (default 1)")
      ->type_name("N")
      ->transform(Seed());
  app.add_option("--bots", bots, "built-in bots, one per seat or one for all (default random)")
      ->type_name("A,B,...");
  AddGameOptionFlag(app, &config.options, "set a game option (repeatable)");
  app.add_option("--record", record_path, "write the match record (JSON) to FILE")
      ->type_name("FILE");
  app.add_flag("--quiet", quiet, "print only the final table");
  if (std::optional<int> exit = command.ParseOrExit(args)) return *exit;

  absl::StatusOr<const engine::Game*> game = engine::FindGame(game_id);
  if (!game.ok()) return Fail(kExitUsage, std::string(game.status().message()));
  const engine::GameInfo& info = (*game)->info();
  if (players < info.min_players || players > info.max_players) {
    return Fail(kExitUsage, absl::StrCat(info.id, " is played by ", info.min_players, " to ",
                                         info.max_players, " players, not ", players));
  }
  config.num_players = players;

  std::vector<std::string> names = !bots.empty()
                                       ? std::vector<std::string>(absl::StrSplit(bots, ','))
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

  std::vector<std::string> labels;
  for (std::size_t s = 0; s < names.size(); ++s) {
    labels.push_back(absl::StrCat("seat ", s, ": ", names[s]));
  }
  std::cout << info.name << " (" << info.id << ", ruleset " << info.ruleset_version << "), "
            << config.num_players << " players, seed " << config.seed << "\n"
            << absl::StrJoin(labels, ", ") << "\n";
  // A recorded match commits to its deal before the first move; its record
  // carries the salt (a fresh one each time, so only then).
  const bool recorded = !record_path.empty();
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
    played->record.seed_commitment = commitment;
    played->record.seed_salt = salt;
    if (absl::Status status = engine::WriteRecordFile(record_path, played->record); !status.ok()) {
      return Fail(kExitFailure, std::string(status.message()));
    }
    std::cout << "\nrecord written to " << record_path << "\n";
  }
  return kExitOk;
}

int Fail(int exit_code, const std::string& message) {
  std::cerr << "hoard: " << message << "\n";
  return exit_code;
}

}  // namespace hoard::cli
