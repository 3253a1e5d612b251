// hoard serve: the arena server.

#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "service/event_log.h"
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
      {"tls-cert", "FILE", "serve TLS with this certificate (PEM; with --tls-key)"},
      {"tls-key", "FILE", "the certificate's private key (PEM)"},
      {"max-matches", "N", "matches running at once (default 20000)"},
      {"max-matches-per-bot", "N", "matches one registered bot plays at once (default 1000)"},
      {"max-message-bytes", "N", "largest message a client may send (default 1048576)"},
      {"shutdown-grace-ms", "MS",
       "on SIGTERM/SIGINT, time running matches get to finish before they are aborted "
       "(default 10000)"},
      {"log-format", "FORMAT", "event log on stderr: text (default) or json"},
      {"help", "", "show this help"},
  };
  return *specs;
}

// HOARD_SERVE_MAX_MATCHES for --max-matches, and so on.
std::string EnvironmentName(const std::string& flag) {
  std::string name = "HOARD_SERVE_";
  for (const char c : flag) name.push_back(c == '-' ? '_' : absl::ascii_toupper(c));
  return name;
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
                 "On SIGTERM or SIGINT it stops gracefully: no new matches start, running\n"
                 "matches get --shutdown-grace-ms to finish, the rest are aborted (stored as\n"
                 "aborted), tournaments stop to resume at the next start, and the database\n"
                 "is closed.\n\n"
                 "Every flag may come from the environment instead: HOARD_SERVE_ and the\n"
                 "flag's name in capitals, '-' as '_' (HOARD_SERVE_LISTEN=0.0.0.0:50051,\n"
                 "HOARD_SERVE_DB=/data/hoard.db). A flag on the command line wins.\n\n"
              << FlagsHelp(ServeFlags());
    return kExitOk;
  }
  if (!parsed->positionals.empty()) {
    return Fail(kExitUsage, "serve takes no arguments besides flags, got '" +
                                parsed->positionals[0] + "'");
  }
  for (const FlagSpec& spec : ServeFlags()) {
    if (spec.value_name.empty() || parsed->Has(spec.name)) continue;
    if (const char* value = std::getenv(EnvironmentName(spec.name).c_str());
        value != nullptr && *value != '\0') {
      parsed->flags[spec.name] = {value};
    }
  }
  absl::StatusOr<service::LogFormat> log_format =
      service::ParseLogFormat(parsed->Get("log-format", "text"));
  if (!log_format.ok()) return Fail(kExitUsage, std::string(log_format.status().message()));
  int grace_ms = 10000;
  if (absl::Status status = ReadIntFlag(*parsed, "shutdown-grace-ms", 0, 3600000, &grace_ms);
      !status.ok()) {
    return Fail(kExitUsage, std::string(status.message()));
  }
  service::EventLog log(*log_format, &std::cerr);

  service::ServerOptions options;
  options.events = log.Sink();
  options.listen = parsed->Get("listen", options.listen);
  options.db_path = parsed->Get("db", "");
  options.tls_cert_path = parsed->Get("tls-cert", "");
  options.tls_key_path = parsed->Get("tls-key", "");
  if (options.tls_cert_path.empty() != options.tls_key_path.empty()) {
    return Fail(kExitUsage, "TLS needs both --tls-cert and --tls-key");
  }
  options.tournament_runner.bot_log_dir = parsed->Get("bot-logs", "");
  options.tournament_runner.on_warning = [&log](const std::string& line) {
    log.Write("tournament_warning", {{"message", line}});
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
  const std::string address = absl::StrCat(host, ":", (*server)->port());
  std::cout << "hoard: serving on " << address << std::endl;
  log.Write("server_started", {{"listen", address},
                               {"db", options.db_path.empty() ? "none" : options.db_path}});

  std::thread stopper([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    log.Write("server_stopping", {{"signal", signal == SIGTERM ? "SIGTERM" : "SIGINT"},
                                  {"running_matches",
                                   absl::StrCat((*server)->arena().running_matches())},
                                  {"grace_ms", absl::StrCat(grace_ms)}});
    const service::ArenaServer::StopReport report =
        (*server)->Stop(absl::Milliseconds(grace_ms));
    log.Write("server_stopped",
              {{"finished_in_grace", absl::StrCat(report.running_at_stop - report.aborted)},
               {"aborted", absl::StrCat(report.aborted)}});
  });
  (*server)->Wait();
  stopper.join();
  server->reset();  // closes the database
  std::cout << "hoard: stopped" << std::endl;
  return kExitOk;
}

}  // namespace hoard::cli
