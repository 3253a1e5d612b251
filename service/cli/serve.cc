// hoard serve: the arena server.

#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "db/store.h"
#include "engine/status_macros.h"
#include "service/auth.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"
#include "service/core.h"
#include "service/event_log.h"
#include "service/grpc_server.h"
#include "service/web/web_server.h"

namespace hoard::cli {
namespace {

const std::vector<FlagSpec>& ServeFlags() {
  static const auto* specs = new std::vector<FlagSpec>{
      {"listen", "HOST:PORT", "address to serve on (default 127.0.0.1:50051)"},
      {"http", "HOST:PORT",
       "also serve the read-only web API, live events and /metrics over HTTP here (off unless "
       "given; port 0 picks a free one)"},
      {"http-max-connections", "N", "HTTP connections open at once (default 4096)"},
      {"http-max-connections-per-address", "N",
       "HTTP connections open at once from one client address (an IPv6 /64) (default 64)"},
      {"http-max-streams", "N", "HTTP event streams open at once (default 2048)"},
      {"http-max-streams-per-address", "N",
       "HTTP event streams open at once from one client address (default 16)"},
      {"http-request-timeout-ms", "MS",
       "an HTTP request's headers and body must arrive within this time of its first byte, "
       "else 408 (default 10000)"},
      {"http-idle-timeout-ms", "MS",
       "an HTTP connection sending no request for this long is closed (default 5000)"},
      {"http-write-timeout-ms", "MS",
       "an HTTP response the client does not take within this time is dropped (default 10000)"},
      {"http-heartbeat-ms", "MS", "an idle event stream sends a comment this often (default 3000)"},
      {"http-max-stream-buffer-bytes", "N",
       "bytes an event stream may have waiting for a client that reads too slowly before it is "
       "dropped (default 262144)"},
      {"db", "FILE|URL",
       "database keeping finished matches and tournaments: a SQLite file, or postgresql://… "
       "shared by several servers (default: none; tournaments need one)"},
      {"bot-logs", "DIR",
       "where bots that tournaments launch write their output (default: discarded)"},
      {"tls-cert", "FILE", "serve TLS with this certificate (PEM; with --tls-key)"},
      {"tls-key", "FILE", "the certificate's private key (PEM)"},
      {"admin-token-file", "FILE",
       "admin tokens, one a line (default: one made in the state directory); re-read on "
       "SIGHUP"},
      {"state-dir", "DIR",
       "where a made admin (or read) token is kept (default $HOARD_STATE_DIR, else "
       "$XDG_STATE_HOME/hoard, else ~/.local/state/hoard)"},
      {"open-registration", "",
       "a bot registering under an unknown name gets an account (default: an admin adds "
       "accounts)"},
      {"private", "", "reads need a token too (a read token, a bot's or an admin's)"},
      {"read-token-file", "FILE",
       "read tokens, one a line (with --private; default: one made in the state directory)"},
      {"catalog", "FILE",
       "the bots server-side tournaments may launch (hoard.v1.BotCatalog, text format); "
       "re-read on SIGHUP"},
      {"max-matches", "N", "matches running at once (default 20000)"},
      {"max-matches-per-creator", "N",
       "running matches one admin token may have created (default 1000)"},
      {"max-tournaments-per-creator", "N",
       "running tournaments one admin token may have created (default 16)"},
      {"max-tournament-matches", "N", "matches in one tournament (default 100000)"},
      {"max-matches-per-bot", "N", "matches one registered bot plays at once (default 1000)"},
      {"max-bot-accounts", "N", "bot accounts the server keeps (default 10000)"},
      {"hello-timeout-ms", "MS",
       "a Play stream that has not said hello by then is closed (default 10000)"},
      {"max-queued-bytes", "N",
       "bytes queued for a stream that reads too slowly before it is ended (default 8388608)"},
      {"max-finished-in-memory", "N",
       "finished matches kept in memory without --db (default 1000)"},
      {"max-store-queue-bytes", "N",
       "finished matches waiting for the database, in bytes, past which no new match "
       "starts until they are stored (default 67108864)"},
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

// HOST:PORT with a port from 0 to 65535 (0: any free port).
absl::Status CheckListenAddress(const std::string& listen) {
  const std::size_t colon = listen.rfind(':');
  int port = -1;
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(listen.substr(colon + 1), &port) || port < 0 || port > 65535 ||
      listen.substr(colon + 1).find_first_not_of("0123456789") != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("--listen needs HOST:PORT with a port from 0 to 65535, not '", listen, "'"));
  }
  return absl::OkStatus();
}

constexpr char kServeHelp[] =
    "usage: hoard serve [flags]\n\nServes the Hoard arena over gRPC "
    "(hoard.v1.Arena; with --db, hoard.v1.Tournaments\ntoo; plus the standard "
    "health service and server reflection) until SIGINT\nor SIGTERM. Tournaments "
    "the database holds as running resume at start.\n\n"
    "On SIGTERM or SIGINT it stops gracefully: no new matches start, running\n"
    "matches get --shutdown-grace-ms to finish, the rest are aborted (stored as\n"
    "aborted), tournaments stop to resume at the next start (on a shared\n"
    "database the other servers go on with them), finished matches\n"
    "still waiting for the database get --shutdown-grace-ms more (the rest are\n"
    "kept in DB.unstored and stored at the next start), and the database is\n"
    "closed.\n\n"
    "Finished matches are stored on a thread of their own: play never waits on\n"
    "the database. While it cannot be written (another program holds a lock, the\n"
    "disk is full) they wait in memory and are retried; past\n"
    "--max-store-queue-bytes new matches are refused until they are stored.\n\n"
    "Several servers may share one PostgreSQL database (--db postgresql://...;\n"
    "its password from the file $HOARD_DB_PASSWORD_FILE names): each answers\n"
    "any read, and they share the tournaments it holds, each leasing the\n"
    "matches it plays; a server that dies has its matches played by the others\n"
    "(docs/operations.md, \"Several servers on one database\").\n\n"
    "Who may do what (docs/security.md): admins (a token from\n"
    "--admin-token-file, or one made in the state directory) create matches,\n"
    "tournaments and bot accounts; bots play with their account's name and key;\n"
    "anyone reads, unless --private. SIGHUP re-reads the token files and the\n"
    "catalog.\n\n"
    "Every flag may come from the environment instead: HOARD_SERVE_ and the\n"
    "flag's name in capitals, '-' as '_' (HOARD_SERVE_LISTEN=0.0.0.0:50051,\n"
    "HOARD_SERVE_DB=/data/hoard.db; a flag without a value takes true or\n"
    "false). A flag on the command line wins.\n\n";

// Flags the command line leaves unset, from HOARD_SERVE_* variables.
absl::Status FlagsFromEnvironment(ParsedArgs& parsed) {
  for (const FlagSpec& spec : ServeFlags()) {
    if (spec.name == "help" || parsed.Has(spec.name)) continue;
    const std::string variable = EnvironmentName(spec.name);
    const char* value = std::getenv(variable.c_str());
    if (value == nullptr || *value == '\0') continue;
    if (!spec.value_name.empty()) {
      parsed.flags[spec.name] = {value};
      continue;
    }
    const std::string yes = absl::AsciiStrToLower(value);
    if (yes == "1" || yes == "true" || yes == "yes") {
      parsed.flags[spec.name] = {};
    } else if (yes != "0" && yes != "false" && yes != "no") {
      return absl::InvalidArgumentError(
          absl::StrCat(variable, " is true, yes, 1, false, no or 0, not '", value, "'"));
    }
  }
  return absl::OkStatus();
}

// The server's options from its flags, but for its tokens; kInvalidArgument
// for a flag out of range or in conflict.
absl::Status OptionsFromFlags(const ParsedArgs& parsed, service::EventLog& log,
                              service::ServerOptions& options) {
  service::CoreOptions& core = options.core;
  service::GrpcOptions& grpc = options.grpc;
  core.events = log.Sink();
  grpc.listen = parsed.Get("listen", grpc.listen);
  RETURN_IF_ERROR(CheckListenAddress(grpc.listen));
  core.db_path = parsed.Get("db", "");
  grpc.tls_cert_path = parsed.Get("tls-cert", "");
  grpc.tls_key_path = parsed.Get("tls-key", "");
  if (grpc.tls_cert_path.empty() != grpc.tls_key_path.empty()) {
    return absl::InvalidArgumentError("TLS needs both --tls-cert and --tls-key");
  }
  core.tournament_runner.bot_log_dir = parsed.Get("bot-logs", "");
  core.tournament_runner.on_warning = [&log](const std::string& line) {
    log.Write("tournament_warning", {{"message", line}});
  };
  for (const auto& [flag, target] : std::vector<std::pair<std::string, int*>>{
           {"max-matches", &core.limits.max_running_matches},
           {"max-matches-per-creator", &core.limits.max_matches_per_creator},
           {"max-tournaments-per-creator", &core.tournament_policy.max_tournaments_per_creator},
           {"max-tournament-matches", &core.tournament_policy.max_tournament_matches},
           {"max-matches-per-bot", &core.limits.max_matches_per_bot},
           {"max-bot-accounts", &core.limits.max_bot_accounts},
           {"hello-timeout-ms", &core.limits.hello_timeout_ms},
           {"max-queued-bytes", &grpc.max_queued_bytes},
           {"max-finished-in-memory", &core.limits.max_finished_in_memory},
           {"max-message-bytes", &grpc.max_message_bytes}}) {
    RETURN_IF_ERROR(ReadIntFlag(parsed, flag, 1, 1000000000, target));
  }
  int store_queue = static_cast<int>(core.store_writer.max_queued_bytes);
  RETURN_IF_ERROR(ReadIntFlag(parsed, "max-store-queue-bytes", 1, 1000000000, &store_queue));
  core.store_writer.max_queued_bytes = static_cast<std::size_t>(store_queue);
  core.limits.open_registration = parsed.Has("open-registration");
  core.private_reads = parsed.Has("private");
  core.catalog_path = parsed.Get("catalog", "");
  return absl::OkStatus();
}

// The HTTP face's options from the --http flags.
absl::Status WebOptionsFromFlags(const ParsedArgs& parsed, service::WebOptions& web) {
  web.listen = parsed.Get("http", web.listen);
  service::HttpLimits& limits = web.limits;
  for (const auto& [flag, target] : std::vector<std::pair<std::string, int*>>{
           {"http-max-connections", &limits.max_connections},
           {"http-max-connections-per-address", &limits.max_connections_per_address},
           {"http-max-streams", &limits.max_event_streams},
           {"http-max-streams-per-address", &limits.max_event_streams_per_address},
           {"http-request-timeout-ms", &limits.request_timeout_ms},
           {"http-idle-timeout-ms", &limits.idle_timeout_ms},
           {"http-write-timeout-ms", &limits.write_timeout_ms},
           {"http-heartbeat-ms", &limits.heartbeat_ms},
           {"http-max-stream-buffer-bytes", &limits.max_stream_buffer_bytes}}) {
    RETURN_IF_ERROR(ReadIntFlag(parsed, flag, 1, 1000000000, target));
  }
  return absl::OkStatus();
}

// Who may do what: the operator's token files, or tokens made in the state
// directory (where clients on this machine find them).
struct TokenFiles {
  std::string state_dir;
  std::string admin_file;
  std::string read_file;
};

// Reads (or makes) the tokens into `options`; `made` gets the names of the
// files made in the state directory.
absl::Status LoadTokens(const TokenFiles& files, service::CoreOptions& options,
                        std::vector<std::string>& made) {
  if (!files.admin_file.empty()) {
    ASSIGN_OR_RETURN(options.admin_tokens, service::ReadTokenFile(files.admin_file));
  } else {
    ASSIGN_OR_RETURN(std::string token, service::EnsureTokenFile(files.state_dir, "admin-token"));
    options.admin_tokens = {token};
    made.push_back("admin-token");
  }
  options.read_tokens.clear();
  if (!files.read_file.empty()) {
    ASSIGN_OR_RETURN(options.read_tokens, service::ReadTokenFile(files.read_file));
  } else if (options.private_reads) {
    ASSIGN_OR_RETURN(std::string token, service::EnsureTokenFile(files.state_dir, "read-token"));
    options.read_tokens = {token};
    made.push_back("read-token");
  }
  return absl::OkStatus();
}

// SIGINT, SIGTERM and SIGHUP, blocked in every thread; one thread waits for
// them.
sigset_t BlockServeSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

// Waits for `signals`: SIGHUP re-reads the token files and the catalog; the
// others stop the server gracefully, within `grace_ms`.
void HandleSignals(sigset_t signals, service::ServerCore& core, service::GrpcFace& grpc,
                   const TokenFiles& files, service::CoreOptions& options, service::EventLog& log,
                   int grace_ms) {
  int signal = 0;
  while (sigwait(&signals, &signal) == 0 && signal == SIGHUP) {
    std::vector<std::string> made;
    if (absl::Status loaded = LoadTokens(files, options, made); !loaded.ok()) {
      log.Write("reload_failed", {{"error", std::string(loaded.message())}});
    } else {
      core.SetTokens(options.admin_tokens, options.read_tokens);
      log.Write("tokens_reloaded", {{"admin_tokens", absl::StrCat(options.admin_tokens.size())},
                                    {"read_tokens", absl::StrCat(options.read_tokens.size())}});
    }
    if (absl::Status catalog = core.ReloadCatalog(); !catalog.ok()) {
      log.Write("reload_failed", {{"error", std::string(catalog.message())}});
    }
  }
  log.Write("server_stopping", {{"signal", signal == SIGTERM ? "SIGTERM" : "SIGINT"},
                                {"running_matches", absl::StrCat(core.arena().running_matches())},
                                {"grace_ms", absl::StrCat(grace_ms)}});
  const service::ServerCore::StopReport report = core.Stop(absl::Milliseconds(grace_ms));
  grpc.Shutdown();
  log.Write("server_stopped",
            {{"finished_in_grace", absl::StrCat(report.running_at_stop - report.aborted)},
             {"aborted", absl::StrCat(report.aborted)},
             {"not_stored", absl::StrCat(report.not_stored)}});
}

}  // namespace

int RunServe(const std::vector<std::string>& args) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, ServeFlags());
  if (!parsed.ok()) return Fail(kExitUsage, std::string(parsed.status().message()));
  if (parsed->Has("help")) {
    std::cout << kServeHelp << FlagsHelp(ServeFlags());
    return kExitOk;
  }
  if (!parsed->positionals.empty()) {
    return Fail(kExitUsage,
                "serve takes no arguments besides flags, got '" + parsed->positionals[0] + "'");
  }
  if (absl::Status s = FlagsFromEnvironment(*parsed); !s.ok()) {
    return Fail(kExitUsage, std::string(s.message()));
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
  if (absl::Status s = OptionsFromFlags(*parsed, log, options); !s.ok()) {
    return Fail(kExitUsage, std::string(s.message()));
  }
  service::WebOptions web_options;
  if (absl::Status s = WebOptionsFromFlags(*parsed, web_options); !s.ok()) {
    return Fail(kExitUsage, std::string(s.message()));
  }
  const TokenFiles files{.state_dir = parsed->Get("state-dir", service::DefaultStateDir()),
                         .admin_file = parsed->Get("admin-token-file", ""),
                         .read_file = parsed->Get("read-token-file", "")};
  if (db::IsPostgresUrl(options.core.db_path)) {
    // Results the shared database cannot take yet wait in this server's own
    // state directory, stored at its next start.
    std::error_code ignored;
    std::filesystem::create_directories(files.state_dir, ignored);
    options.core.store_writer.spill_path = absl::StrCat(files.state_dir, "/unstored-results");
  }
  std::vector<std::string> made;  // log lines about made tokens
  if (absl::Status loaded = LoadTokens(files, options.core, made); !loaded.ok()) {
    return Fail(kExitFailure, std::string(loaded.message()));
  }

  // The core, its gRPC face, the tournaments (their bots connect to the
  // face), then the web face beside it.
  const sigset_t signals = BlockServeSignals();
  absl::StatusOr<std::unique_ptr<service::ServerCore>> core =
      service::ServerCore::Create(options.core);
  if (!core.ok()) return Fail(kExitFailure, std::string(core.status().message()));
  absl::StatusOr<std::unique_ptr<service::GrpcFace>> grpc =
      service::GrpcFace::Start(options.grpc, core->get());
  if (!grpc.ok()) return Fail(kExitFailure, std::string(grpc.status().message()));
  if (absl::Status s = (*core)->StartTournaments({.bots_address = (*grpc)->LocalAddress()});
      !s.ok()) {
    return Fail(kExitFailure, std::string(s.message()));
  }
  (*grpc)->UpdateHealth();
  const std::string host = options.grpc.listen.substr(0, options.grpc.listen.rfind(':'));
  const std::string address = absl::StrCat(host, ":", (*grpc)->port());
  std::cout << "hoard: serving on " << address << std::endl;
  log.Write(
      "server_started",
      {{"listen", address},
       {"db", options.core.db_path.empty() ? "none" : db::StoreDisplayName(options.core.db_path)}});
  if (const db::StoreWriter* writer = (*core)->arena().store_writer();
      writer != nullptr && writer->counts().recovered > 0) {
    log.Write("results_recovered", {{"matches", absl::StrCat(writer->counts().recovered)},
                                    {"from", options.core.store_writer.spill_path.empty()
                                                 ? db::SpillPathFor(options.core.db_path)
                                                 : options.core.store_writer.spill_path}});
  }
  for (const std::string& name : made) {
    // Where the token is, never the token.
    log.Write(name == "admin-token" ? "admin_token" : "read_token",
              {{"file", absl::StrCat(files.state_dir, "/", name)}});
  }
  std::unique_ptr<service::WebServer> web;
  if (parsed->Has("http")) {
    absl::StatusOr<std::unique_ptr<service::WebServer>> started =
        service::WebServer::Start(web_options, core->get());
    if (!started.ok()) {
      (*core)->Stop(absl::ZeroDuration());
      return Fail(kExitFailure, std::string(started.status().message()));
    }
    web = *std::move(started);
    const std::string http = parsed->Get("http", "");
    const std::string web_address = absl::StrCat(http.substr(0, http.rfind(':')), ":", web->port());
    std::cout << "hoard: web on http://" << web_address << std::endl;
    log.Write("web_started", {{"listen", web_address}});
  }
  std::thread stopper(
      [&] { HandleSignals(signals, **core, **grpc, files, options.core, log, grace_ms); });
  (*grpc)->Wait();
  stopper.join();
  if (web) web->Stop();
  web.reset();
  grpc->reset();
  core->reset();  // closes the database
  std::cout << "hoard: stopped" << std::endl;
  return kExitOk;
}

}  // namespace hoard::cli
