// hoard bot: a built-in strategy playing as a bot over gRPC.

#include <signal.h>

#include <atomic>
#include <iostream>
#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "bots/client.h"
#include "grpcpp/grpcpp.h"
#include "service/cli/channel.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"

namespace hoard::cli {
namespace {

const std::vector<FlagSpec>& BotFlags() {
  static const auto* specs = new std::vector<FlagSpec>{
      {"server", "HOST:PORT", kServerHelp},
      {"name", "NAME", "register as this bot (default $HOARD_BOT_NAME)..."},
      {"key", "KEY", "...with this key (default $HOARD_BOT_KEY; the first registration sets it)"},
      {"max-matches", "N", "matches to play at once (default $HOARD_MAX_MATCHES, else 1)"},
      {"match", "ID", "or join one seat of this match..."},
      {"token", "TOKEN", "...with this seat token"},
      {"strategy", "NAME", "random (default) or first"},
      {"seed", "N", "seed of the random strategy (default 1)"},
      {"matches", "N", "stop after N matches have ended (default: never)"},
      {"quiet", "", "print nothing but errors"},
      {"help", "", "show this help"},
  };
  return *specs;
}

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
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, BotFlags());
  if (!parsed.ok()) return Fail(kExitUsage, std::string(parsed.status().message()));
  if (parsed->Has("help")) {
    std::cout << "usage: hoard bot --name NAME --key KEY [flags]\n"
                 "       hoard bot --match ID --token TOKEN [flags]\n\n"
                 "Connects to a Hoard server and plays every match it is seated in; SIGTERM\n"
                 "or SIGINT stops it (exit status 0).\n\n"
              << FlagsHelp(BotFlags());
    return kExitOk;
  }
  bots::ClientOptions options;
  options.match_id = parsed->Get("match", "");
  options.seat_token = parsed->Get("token", "");
  // A bot that a tournament launches finds its server and credentials in
  // the environment.
  if (options.seat_token.empty() && options.match_id.empty()) {
    options.name = FlagOrEnv(*parsed, "name", "HOARD_BOT_NAME", "");
    options.key = FlagOrEnv(*parsed, "key", "HOARD_BOT_KEY", "");
    if (!parsed->Has("max-matches")) {
      parsed->flags["max-matches"] = {FlagOrEnv(*parsed, "max-matches", "HOARD_MAX_MATCHES", "1")};
    }
  } else {
    options.name = parsed->Get("name", "");
    options.key = parsed->Get("key", "");
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
  for (const auto& [flag, target] : std::vector<std::pair<std::string, int*>>{
           {"max-matches", &options.max_matches}, {"matches", &options.stop_after_matches}}) {
    if (absl::Status status = ReadIntFlag(*parsed, flag, 1, 1000000, target); !status.ok()) {
      return Fail(kExitUsage, std::string(status.message()));
    }
  }
  std::uint64_t seed = 1;
  if (!absl::SimpleAtoi(parsed->Get("seed", "1"), &seed)) {
    return Fail(kExitUsage, "--seed needs a whole number");
  }
  absl::StatusOr<std::unique_ptr<bots::Strategy>> strategy =
      bots::MakeStrategy(parsed->Get("strategy", "random"), seed);
  if (!strategy.ok()) return Fail(kExitUsage, std::string(strategy.status().message()));
  const std::string server = ServerAddress(*parsed);
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = ServerChannel(server);
  if (!channel.ok()) return Fail(kExitUsage, std::string(channel.status().message()));
  if (!parsed->Has("quiet")) {
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
  if (!parsed->Has("quiet")) {
    std::cout << "hoard bot: " << stats.matches_finished << " match(es) played, " << stats.decisions
              << " decisions, " << stats.refused_answers << " refused answers, " << stats.reconnects
              << " reconnects" << std::endl;
  }
  return kExitOk;
}

}  // namespace hoard::cli
