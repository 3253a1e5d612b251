// hoard bot: a built-in strategy playing as a bot over gRPC.

#include <signal.h>

#include <atomic>
#include <iostream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "bots/client.h"
#include "grpcpp/grpcpp.h"
#include "service/cli/channel.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"

namespace hoard::cli {
namespace {

// Set by SIGTERM and SIGINT; the client notices it and stops.
std::atomic<bool> stop_requested{false};

extern "C" void RequestStop(int) { stop_requested.store(true); }

// SIGTERM and SIGINT set stop_requested and nothing more: the client stops,
// and the bot exits with status 0. SA_RESETHAND gives a second signal the
// default action, which ends the process at once.
void StopOnSignals() {
  struct sigaction action = {};
  action.sa_handler = RequestStop;
  action.sa_flags = SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
}

}  // namespace

int RunBot(const std::vector<std::string>& args) {
  bots::ClientOptions options;
  std::string server;
  std::string strategy_name = "random";
  std::uint64_t seed = 1;
  bool quiet = false;
  CommandLine command("bot",
                      "usage: hoard bot --name NAME --key KEY [flags]\n"
                      "       hoard bot --match ID --token TOKEN [flags]\n\n"
                      "Connects to a Hoard server and plays every match it is seated in; SIGTERM\n"
                      "or SIGINT stops it (exit status 0).");
  CLI::App& app = command.app();
  app.add_option("--server", server, kServerHelp)->type_name("HOST:PORT");
  app.add_option("--name", options.name, "register as this bot (default $HOARD_BOT_NAME)...")
      ->type_name("NAME");
  app.add_option("--key", options.key,
                 "...with this key (default $HOARD_BOT_KEY; the first registration sets it)")
      ->type_name("KEY");
  app.add_option("--max-matches", options.max_matches,
                 "matches to play at once (default $HOARD_MAX_MATCHES, else 1)")
      ->type_name("N")
      ->envname("HOARD_MAX_MATCHES")
      ->transform(InRange(1, 1000000));
  app.add_option("--ladder", options.ladders,
                 "join this ladder (repeat for several; default $HOARD_LADDER): play its matches "
                 "while connected")
      ->type_name("NAME")
      ->envname("HOARD_LADDER");
  app.add_option_function<std::string>(
         "--challenges",
         [&options](const std::string& policy) { options.accept_challenges = policy == "accept"; },
         "answer other bots' challenges: accept while a match slot is free (default) or decline")
      ->type_name("WHAT")
      ->check(CLI::IsMember({"accept", "decline"}));
  app.add_option("--match", options.match_id, "or join one seat of this match...")->type_name("ID");
  app.add_option("--token", options.seat_token, "...with this seat token")->type_name("TOKEN");
  app.add_option("--strategy", strategy_name, "random (default) or first")->type_name("NAME");
  app.add_option("--seed", seed, "seed of the random strategy (default 1)")
      ->type_name("N")
      ->transform(Seed());
  app.add_option("--matches", options.stop_after_matches,
                 "stop after N matches have ended (default: never)")
      ->type_name("N")
      ->transform(InRange(1, 1000000));
  app.add_flag("--quiet", quiet, "print nothing but errors");
  if (std::optional<int> exit = command.ParseOrExit(args)) return *exit;
  // A bot that a tournament launches finds its server and credentials in
  // the environment.
  if (options.seat_token.empty() && options.match_id.empty()) {
    options.name = ValueOrEnv(options.name, "HOARD_BOT_NAME", "");
    options.key = ValueOrEnv(options.key, "HOARD_BOT_KEY", "");
  }
  const bool registers = !options.name.empty() || !options.key.empty();
  const bool joins = !options.seat_token.empty() || !options.match_id.empty();
  if (registers == joins) {
    return Fail(kExitUsage, "give either --name and --key, or --match and --token");
  }
  if (joins && (options.seat_token.empty() || options.match_id.empty())) {
    return Fail(kExitUsage, "joining a seat needs both --match and --token");
  }
  if (registers && (options.name.empty() || options.key.empty())) {
    return Fail(kExitUsage, "registering needs both --name and --key");
  }
  absl::StatusOr<std::unique_ptr<bots::Strategy>> strategy =
      bots::MakeStrategy(strategy_name, seed);
  if (!strategy.ok()) return Fail(kExitUsage, std::string(strategy.status().message()));
  server = ServerAddress(server);
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = ServerChannel(server);
  if (!channel.ok()) return Fail(kExitUsage, std::string(channel.status().message()));
  if (!quiet) {
    // The bot waits for a server that does not answer: that is said once,
    // not at each retry.
    auto said_unanswered = std::make_shared<std::atomic<bool>>(false);
    options.log = [server, said_unanswered, bot_channel = *channel](const std::string& line) {
      if (NoServerAnswers(grpc::StatusCode::UNAVAILABLE, line, *bot_channel)) {
        if (!said_unanswered->exchange(true)) {
          std::cout << "hoard bot: " << NoServerHint(server) << "; waiting for it" << std::endl;
        }
        return;
      }
      said_unanswered->store(false);
      std::cout << "hoard bot: " << line << std::endl;
    };
  }
  // Its strategies read only the request: the play-by-play would be wasted.
  options.events = hoard::v1::EVENT_DELIVERY_NONE;
  options.stop_flag = &stop_requested;
  StopOnSignals();
  bots::BotClient client(*channel, options, *std::move(strategy));
  if (absl::Status status = client.Run(); !status.ok()) {
    if (NoServerAnswers(static_cast<int>(status.code()), status.message(), **channel)) {
      return Fail(kExitFailure, NoServerHint(server));
    }
    return Fail(kExitFailure, absl::StrCat(server, ": ", status.message()));
  }
  const bots::ClientStats stats = client.stats();
  if (!quiet) {
    std::cout << "hoard bot: " << stats.matches_finished << " match(es) played, " << stats.decisions
              << " decisions, " << stats.refused_answers << " refused answers, " << stats.reconnects
              << " reconnects" << std::endl;
  }
  return kExitOk;
}

}  // namespace hoard::cli
