#ifndef HOARD_SERVICE_GRPC_SERVER_H_
#define HOARD_SERVICE_GRPC_SERVER_H_

// The gRPC face of the arena: the hoard.v1.Arena service on the callback API,
// plus the standard health service and server reflection.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "db/store_writer.h"
#include "service/arena.h"
#include "service/auth.h"
#include "tournament/catalog.h"
#include "tournament/manager.h"
#include "tournament/runner.h"

namespace grpc {
class Channel;
class Service;
class Server;
class Status;
}  // namespace grpc

namespace hoard::tournament {
class MatchHost;
}  // namespace hoard::tournament

namespace hoard::service {

struct ServerOptions {
  // host:port to listen on; port 0 picks a free one (see ArenaServer::port).
  std::string listen = "127.0.0.1:50051";
  // TLS: PEM files of the server's certificate (chain) and private key.
  // Both empty: plaintext.
  std::string tls_cert_path;
  std::string tls_key_path;
  // The largest message a client may send.
  int max_message_bytes = 1 << 20;
  // The SQLite database that keeps finished matches; empty: none (they are
  // kept in memory only, up to limits.max_finished_in_memory).
  std::string db_path;
  // How finished matches reach the database (db/store_writer.h). Its spill
  // file is "<db_path>.unstored" unless set.
  db::StoreWriterOptions store_writer;
  ArenaLimits limits;
  // Who may do what (docs/security.md). Admin tokens: none means no call is
  // an admin's. Read tokens matter with private_reads: then every read
  // needs a read token, a bot's credentials or an admin token.
  std::vector<std::string> admin_tokens;
  std::vector<std::string> read_tokens;
  bool private_reads = false;
  // The catalog of bots the server's tournaments may launch (a
  // hoard.v1.BotCatalog in text format); empty: none.
  std::string catalog_path;
  // Bytes queued for a stream that reads too slowly before it is ended.
  int max_queued_bytes = 8 << 20;
  // Tournaments' size and count per creator (accounts are the arena's).
  tournament::ManagerPolicy tournament_policy;
  // Serve hoard.v1.Tournaments and resume the tournaments the database holds
  // as running (needs db_path). `hoard tournament` runs its own instead.
  bool serve_tournaments = true;
  // How tournaments run by this server log (their launched bots' output
  // directory, warnings). Tournaments need a database (db_path).
  tournament::RunnerOptions tournament_runner;
  // Where the arena reports its events (service/event_log.h); none if empty.
  EventSink events;
  // More services to serve beside the arena (not owned; must outlive it).
  std::vector<grpc::Service*> extra_services;
};

class ArenaServer {
 public:
  // Starts serving; kUnavailable if the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<ArenaServer>> Start(const ServerOptions& options);
  ~ArenaServer();

  // The port actually bound.
  int port() const { return port_; }
  Arena& arena() { return *arena_; }
  // New tokens for calls from now on (a rotation).
  void SetTokens(std::vector<std::string> admin, std::vector<std::string> read);
  // Reads the catalog file again; on error the old catalog stays.
  absl::Status ReloadCatalog();
  // A channel to this server that skips the network.
  std::shared_ptr<grpc::Channel> InProcessChannel();
  // The metrics in the Prometheus text format (service/metrics.h), with
  // the bots connected and the tournaments running now.
  std::string MetricsText();
  // Blocks until Shutdown() is called from another thread.
  void Wait();
  void Shutdown();

  struct StopReport {
    int running_at_stop = 0;  // matches running when Stop began
    int aborted = 0;          // of those, aborted after the grace period
    int not_stored = 0;       // finished matches the store did not take (spilled or lost)
  };
  // A graceful stop: no new matches or tournaments start, running matches
  // get up to `grace` to finish, those still running are aborted (and
  // stored as aborted), tournaments stop (they resume on the next start),
  // finished matches waiting for the database get up to `grace` more to be
  // stored (the rest go to the spill file, stored at the next start), and
  // the server shuts down. The database closes with the server.
  StopReport Stop(absl::Duration grace);

 private:
  ArenaServer() = default;

  std::unique_ptr<Arena> arena_;
  TokenSet tokens_;
  std::unique_ptr<Authenticator> auth_;
  std::string catalog_path_;
  tournament::BotCatalogFile catalog_;
  std::unique_ptr<class ArenaServiceImpl> service_;
  std::unique_ptr<class TournamentServiceImpl> tournament_service_;
  std::unique_ptr<tournament::MatchHost> host_;
  std::unique_ptr<tournament::TournamentManager> manager_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

// The host part of a listen address, as a local client reaches it
// ("0.0.0.0:50051" -> "127.0.0.1").
std::string LoopbackHost(const std::string& listen);

// Maps an absl::Status to grpc::Status with the same code and message.
grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace hoard::service

#endif  // HOARD_SERVICE_GRPC_SERVER_H_
