// hoard serve: the arena server.

#include <signal.h>

#include <filesystem>
#include <iostream>
#include <thread>

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

// What hoard serve's flags (or their HOARD_SERVE_* variables) say; a flag
// not given leaves the option it sets at the option's own default.
struct ServeFlags {
  std::optional<std::string> listen;
  std::optional<std::string> http;
  std::optional<int> http_max_connections, http_max_connections_per_address, http_max_streams,
      http_max_streams_per_address, http_request_timeout_ms, http_idle_timeout_ms,
      http_write_timeout_ms, http_heartbeat_ms, http_max_stream_buffer_bytes;
  std::string db;
  std::string bot_logs;
  std::string tls_cert, tls_key;
  std::string admin_token_file;
  std::string state_dir;
  bool open_registration = false;
  bool private_reads = false;
  std::string read_token_file;
  std::string catalog;
  std::optional<int> max_matches, max_matches_per_creator, max_tournaments_per_creator,
      max_tournament_matches, max_matches_per_bot, max_bot_accounts, hello_timeout_ms,
      max_queued_bytes, max_finished_in_memory, max_store_queue_bytes, max_message_bytes;
  int shutdown_grace_ms = 10000;
  std::string log_format = "text";
};

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
    "false). A flag on the command line wins.";

// Declares serve's flags on `app`, bound to *flags, each also read from its
// HOARD_SERVE_ variable.
void AddServeFlags(CLI::App& app, ServeFlags* flags) {
  auto limit = [&app](const char* name, std::optional<int>& value, const char* value_name,
                      const char* help) {
    app.add_option(name, value, help)->type_name(value_name)->transform(InRange(1, 1000000000));
  };
  app.add_option("--listen", flags->listen, "address to serve on (default 127.0.0.1:50051)")
      ->type_name("HOST:PORT");
  app.add_option("--http", flags->http,
                 "also serve the read-only web API, live events and /metrics over HTTP here "
                 "(off unless given; port 0 picks a free one)")
      ->type_name("HOST:PORT");
  limit("--http-max-connections", flags->http_max_connections, "N",
        "HTTP connections open at once (default 4096)");
  limit("--http-max-connections-per-address", flags->http_max_connections_per_address, "N",
        "HTTP connections open at once from one client address (an IPv6 /64) (default 64)");
  limit("--http-max-streams", flags->http_max_streams, "N",
        "HTTP event streams open at once (default 2048)");
  limit("--http-max-streams-per-address", flags->http_max_streams_per_address, "N",
        "HTTP event streams open at once from one client address (default 16)");
  limit("--http-request-timeout-ms", flags->http_request_timeout_ms, "MS",
        "an HTTP request's headers and body must arrive within this time of its first byte, "
        "else 408 (default 10000)");
  limit("--http-idle-timeout-ms", flags->http_idle_timeout_ms, "MS",
        "an HTTP connection sending no request for this long is closed (default 5000)");
  limit("--http-write-timeout-ms", flags->http_write_timeout_ms, "MS",
        "an HTTP response the client does not take within this time is dropped (default 10000)");
  limit("--http-heartbeat-ms", flags->http_heartbeat_ms, "MS",
        "an idle event stream sends a comment this often (default 3000)");
  limit("--http-max-stream-buffer-bytes", flags->http_max_stream_buffer_bytes, "N",
        "bytes an event stream may have waiting for a client that reads too slowly before it "
        "is dropped (default 262144)");
  app.add_option("--db", flags->db,
                 "database keeping finished matches and tournaments: a SQLite file, or "
                 "postgresql://… shared by several servers (default: none; tournaments need one)")
      ->type_name("FILE|URL")
      ->check(NoPasswordInAddress());
  app.add_option("--bot-logs", flags->bot_logs,
                 "where bots that tournaments launch write their output (default: discarded)")
      ->type_name("DIR");
  app.add_option("--tls-cert", flags->tls_cert,
                 "serve TLS with this certificate (PEM; with --tls-key)")
      ->type_name("FILE");
  app.add_option("--tls-key", flags->tls_key, "the certificate's private key (PEM)")
      ->type_name("FILE");
  app.add_option("--admin-token-file", flags->admin_token_file,
                 "admin tokens, one a line (default: one made in the state directory); re-read "
                 "on SIGHUP")
      ->type_name("FILE");
  app.add_option("--state-dir", flags->state_dir,
                 "where a made admin (or read) token is kept (default $HOARD_STATE_DIR, else "
                 "$XDG_STATE_HOME/hoard, else ~/.local/state/hoard)")
      ->type_name("DIR");
  app.add_flag("--open-registration", flags->open_registration,
               "a bot registering under an unknown name gets an account (default: an admin adds "
               "accounts)");
  app.add_flag("--private", flags->private_reads,
               "reads need a token too (a read token, a bot's or an admin's)");
  app.add_option("--read-token-file", flags->read_token_file,
                 "read tokens, one a line (with --private; default: one made in the state "
                 "directory)")
      ->type_name("FILE");
  app.add_option("--catalog", flags->catalog,
                 "the bots server-side tournaments may launch (hoard.v1.BotCatalog, text "
                 "format); re-read on SIGHUP")
      ->type_name("FILE");
  limit("--max-matches", flags->max_matches, "N", "matches running at once (default 20000)");
  limit("--max-matches-per-creator", flags->max_matches_per_creator, "N",
        "running matches one admin token may have created (default 1000)");
  limit("--max-tournaments-per-creator", flags->max_tournaments_per_creator, "N",
        "running tournaments one admin token may have created (default 16)");
  limit("--max-tournament-matches", flags->max_tournament_matches, "N",
        "matches in one tournament (default 100000)");
  limit("--max-matches-per-bot", flags->max_matches_per_bot, "N",
        "matches one registered bot plays at once (default 1000)");
  limit("--max-bot-accounts", flags->max_bot_accounts, "N",
        "bot accounts the server keeps (default 10000)");
  limit("--hello-timeout-ms", flags->hello_timeout_ms, "MS",
        "a Play stream that has not said hello by then is closed (default 10000)");
  limit("--max-queued-bytes", flags->max_queued_bytes, "N",
        "bytes queued for a stream that reads too slowly before it is ended (default 8388608)");
  limit("--max-finished-in-memory", flags->max_finished_in_memory, "N",
        "finished matches kept in memory without --db (default 1000)");
  limit("--max-store-queue-bytes", flags->max_store_queue_bytes, "N",
        "finished matches waiting for the database, in bytes, past which no new match starts "
        "until they are stored (default 67108864)");
  limit("--max-message-bytes", flags->max_message_bytes, "N",
        "largest message a client may send (default 1048576)");
  app.add_option("--shutdown-grace-ms", flags->shutdown_grace_ms,
                 "on SIGTERM/SIGINT, time running matches get to finish before they are aborted "
                 "(default 10000)")
      ->type_name("MS")
      ->transform(InRange(0, 3600000));
  app.add_option("--log-format", flags->log_format, "event log on stderr: text (default) or json")
      ->type_name("FORMAT");
  FlagsFromEnvironment(app, "HOARD_SERVE_");
}

// `option` as its flag says, if the flag was given (else its default).
void SetIfGiven(const std::optional<int>& flag, int& option) {
  if (flag) option = *flag;
}

// The server's options from its flags, but for its tokens; kInvalidArgument
// for a flag out of range or in conflict.
absl::Status OptionsFromFlags(const ServeFlags& flags, service::EventLog& log,
                              service::ServerOptions& options) {
  service::CoreOptions& core = options.core;
  service::GrpcOptions& grpc = options.grpc;
  core.events = log.Sink();
  grpc.listen = flags.listen.value_or(grpc.listen);
  RETURN_IF_ERROR(CheckListenAddress(grpc.listen));
  core.db_path = flags.db;
  grpc.tls_cert_path = flags.tls_cert;
  grpc.tls_key_path = flags.tls_key;
  if (grpc.tls_cert_path.empty() != grpc.tls_key_path.empty()) {
    return absl::InvalidArgumentError("TLS needs both --tls-cert and --tls-key");
  }
  core.tournament_runner.bot_log_dir = flags.bot_logs;
  core.tournament_runner.on_warning = [&log](const std::string& line) {
    log.Write("tournament_warning", {{"message", line}});
  };
  SetIfGiven(flags.max_matches, core.limits.max_running_matches);
  SetIfGiven(flags.max_matches_per_creator, core.limits.max_matches_per_creator);
  SetIfGiven(flags.max_tournaments_per_creator, core.tournament_policy.max_tournaments_per_creator);
  SetIfGiven(flags.max_tournament_matches, core.tournament_policy.max_tournament_matches);
  SetIfGiven(flags.max_matches_per_bot, core.limits.max_matches_per_bot);
  SetIfGiven(flags.max_bot_accounts, core.limits.max_bot_accounts);
  SetIfGiven(flags.hello_timeout_ms, core.limits.hello_timeout_ms);
  SetIfGiven(flags.max_queued_bytes, grpc.max_queued_bytes);
  SetIfGiven(flags.max_finished_in_memory, core.limits.max_finished_in_memory);
  SetIfGiven(flags.max_message_bytes, grpc.max_message_bytes);
  if (flags.max_store_queue_bytes) {
    core.store_writer.max_queued_bytes = static_cast<std::size_t>(*flags.max_store_queue_bytes);
  }
  core.limits.open_registration = flags.open_registration;
  core.private_reads = flags.private_reads;
  core.catalog_path = flags.catalog;
  return absl::OkStatus();
}

// The HTTP face's options from the --http flags.
void WebOptionsFromFlags(const ServeFlags& flags, service::WebOptions& web) {
  web.listen = flags.http.value_or(web.listen);
  service::HttpLimits& limits = web.limits;
  SetIfGiven(flags.http_max_connections, limits.max_connections);
  SetIfGiven(flags.http_max_connections_per_address, limits.max_connections_per_address);
  SetIfGiven(flags.http_max_streams, limits.max_event_streams);
  SetIfGiven(flags.http_max_streams_per_address, limits.max_event_streams_per_address);
  SetIfGiven(flags.http_request_timeout_ms, limits.request_timeout_ms);
  SetIfGiven(flags.http_idle_timeout_ms, limits.idle_timeout_ms);
  SetIfGiven(flags.http_write_timeout_ms, limits.write_timeout_ms);
  SetIfGiven(flags.http_heartbeat_ms, limits.heartbeat_ms);
  SetIfGiven(flags.http_max_stream_buffer_bytes, limits.max_stream_buffer_bytes);
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
    ASSIGN_OR_RETURN(options.admin_tokens, bots::ReadTokenFile(files.admin_file));
  } else {
    ASSIGN_OR_RETURN(std::string token, service::EnsureTokenFile(files.state_dir, "admin-token"));
    options.admin_tokens = {token};
    made.push_back("admin-token");
  }
  options.read_tokens.clear();
  if (!files.read_file.empty()) {
    ASSIGN_OR_RETURN(options.read_tokens, bots::ReadTokenFile(files.read_file));
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
  ServeFlags flags;
  CommandLine command("serve", kServeHelp);
  AddServeFlags(command.app(), &flags);
  if (std::optional<int> exit = command.ParseOrExit(args)) return *exit;
  absl::StatusOr<service::LogFormat> log_format = service::ParseLogFormat(flags.log_format);
  if (!log_format.ok()) return Fail(kExitUsage, std::string(log_format.status().message()));
  const int grace_ms = flags.shutdown_grace_ms;
  service::EventLog log(*log_format, &std::cerr);
  service::ServerOptions options;
  if (absl::Status s = OptionsFromFlags(flags, log, options); !s.ok()) {
    return Fail(kExitUsage, std::string(s.message()));
  }
  service::WebOptions web_options;
  WebOptionsFromFlags(flags, web_options);
  const TokenFiles files{
      .state_dir = flags.state_dir.empty() ? bots::DefaultStateDir() : flags.state_dir,
      .admin_file = flags.admin_token_file,
      .read_file = flags.read_token_file};
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
  if (flags.http) {
    absl::StatusOr<std::unique_ptr<service::WebServer>> started =
        service::WebServer::Start(web_options, core->get());
    if (!started.ok()) {
      (*core)->Stop(absl::ZeroDuration());
      return Fail(kExitFailure, std::string(started.status().message()));
    }
    web = *std::move(started);
    const std::string& http = *flags.http;
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
