// hoard serve: the arena server.

#include <signal.h>

#include <iostream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"
#include "service/grpc_server.h"

namespace hoard::cli {
namespace {

const std::vector<FlagSpec>& ServeFlags() {
  static const auto* specs = new std::vector<FlagSpec>{
      {"listen", "HOST:PORT", "address to serve on (default 127.0.0.1:50051)"},
      {"db", "FILE",
       "SQLite database keeping finished matches and tournaments (default: none; "
       "tournaments need one)"},
      {"bot-logs", "DIR",
       "where bots that tournaments launch write their output (default: discarded)"},
      {"max-matches", "N", "matches running at once (default 20000)"},
      {"max-matches-per-bot", "N", "matches one registered bot plays at once (default 1000)"},
      {"max-message-bytes", "N", "largest message a client may send (default 1048576)"},
      {"help", "", "show this help"},
  };
  return *specs;
}

}  // namespace

int RunServe(const std::vector<std::string>& args) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, ServeFlags());
  if (!parsed.ok()) return Fail(kExitUsage, std::string(parsed.status().message()));
  if (parsed->Has("help")) {
    std::cout << "usage: hoard serve [flags]\n\nServes the Hoard arena over gRPC "
                 "(hoard.v1.Arena; with --db, hoard.v1.Tournaments\ntoo; plus the standard "
                 "health service and server reflection) until SIGINT\nor SIGTERM. Tournaments "
                 "the database holds as running resume at start.\n\n"
              << FlagsHelp(ServeFlags());
    return kExitOk;
  }
  if (!parsed->positionals.empty()) {
    return Fail(kExitUsage, "serve takes no arguments besides flags, got '" +
                                parsed->positionals[0] + "'");
  }
  service::ServerOptions options;
  options.listen = parsed->Get("listen", options.listen);
  options.db_path = parsed->Get("db", "");
  options.tournament_runner.bot_log_dir = parsed->Get("bot-logs", "");
  options.tournament_runner.on_warning = [](const std::string& line) {
    std::cerr << "hoard: " << line << std::endl;
  };
  for (const auto& [flag, target] :
       std::vector<std::pair<std::string, int*>>{
           {"max-matches", &options.limits.max_running_matches},
           {"max-matches-per-bot", &options.limits.max_matches_per_bot},
           {"max-message-bytes", &options.max_message_bytes}}) {
    if (absl::Status status = ReadIntFlag(*parsed, flag, 1, 1000000000, target); !status.ok()) {
      return Fail(kExitUsage, std::string(status.message()));
    }
  }

  // Block the stop signals in every thread; one thread waits for them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  absl::StatusOr<std::unique_ptr<service::ArenaServer>> server =
      service::ArenaServer::Start(options);
  if (!server.ok()) return Fail(kExitFailure, std::string(server.status().message()));
  const std::string host = options.listen.substr(0, options.listen.rfind(':'));
  std::cout << "hoard: serving on " << host << ":" << (*server)->port() << std::endl;

  std::thread stopper([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    std::cout << "hoard: stopping (signal " << signal << ")" << std::endl;
    (*server)->Shutdown();
  });
  (*server)->Wait();
  stopper.join();
  std::cout << "hoard: stopped" << std::endl;
  return kExitOk;
}

}  // namespace hoard::cli
