#ifndef HOARD_SERVICE_CORE_H_
#define HOARD_SERVICE_CORE_H_

// The server core: everything a Hoard server is, apart from how it is
// reached. Built from options, it owns the arena (the matches and the bot
// accounts), the store and its writer, who may do what (tokens and the
// authenticator), the catalog of launchable bots, and the tournaments. The
// faces — gRPC (service/grpc_server.h) and HTTP (service/web/web_server.h) —
// are siblings over one core, each serving the same API (service/api.h).
//
//   std::unique_ptr<ServerCore> core = *ServerCore::Create(core_options);
//   std::unique_ptr<GrpcFace> grpc = *GrpcFace::Start(grpc_options, core.get());
//   core->StartTournaments(TournamentVenue{...the gRPC face's address...});
//   std::unique_ptr<WebServer> web = *WebServer::Start(web_options, core.get());
//
// Faces stop before the core goes; the core must outlive them.

#include <atomic>
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

namespace hoard::tournament {
class MatchHost;
}  // namespace hoard::tournament

namespace hoard::service {

struct CoreOptions {
  // The database that keeps finished matches and tournaments: a SQLite file
  // or a postgresql:// address (db/store.h); empty: none (finished matches
  // are kept in memory only, up to limits.max_finished_in_memory, and there
  // are no tournaments).
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
  // Tournaments' size and count per creator (accounts are the arena's).
  tournament::ManagerPolicy tournament_policy;
  // How tournaments run by this server log (their launched bots' output
  // directory, warnings).
  tournament::RunnerOptions tournament_runner;
  // Where the arena reports its events (service/event_log.h); none if empty.
  EventSink events;
};

// Where the core's tournaments play: the address bots they launch connect
// to (a face's, reachable from this machine), and this server's name among
// those sharing a database (empty: one is made from the host, the port of
// `bots_address` and the process, when the database is shared).
struct TournamentVenue {
  std::string bots_address;
  std::string lease_holder;
};

class ServerCore {
 public:
  // Opens the store (storing what an earlier run left unstored), reads the
  // catalog; kInvalidArgument / kUnavailable / kDataLoss from them.
  static absl::StatusOr<std::unique_ptr<ServerCore>> Create(const CoreOptions& options);
  // Tournaments stop (their matches in flight finish) before the arena goes.
  ~ServerCore();
  ServerCore(const ServerCore&) = delete;
  ServerCore& operator=(const ServerCore&) = delete;

  Arena& arena() { return *arena_; }
  const Authenticator& auth() const { return *auth_; }
  // The tournaments, once StartTournaments has run; null before, and
  // without a database.
  tournament::TournamentManager* tournaments() const { return manager_published_.load(); }

  // Starts running tournaments at `venue` and resumes those the database
  // holds as running. Without a database, does nothing. Call at most once.
  absl::Status StartTournaments(const TournamentVenue& venue);

  // New tokens for calls from now on (a rotation).
  void SetTokens(std::vector<std::string> admin, std::vector<std::string> read);
  // Reads the catalog file again; on error the old catalog stays.
  absl::Status ReloadCatalog();
  // The metrics in the Prometheus text format (service/metrics.h), with
  // the bots connected and the tournaments running now.
  std::string MetricsText();

  struct StopReport {
    int running_at_stop = 0;  // matches running when Stop began
    int aborted = 0;          // of those, aborted after the grace period
    int not_stored = 0;       // finished matches the store did not take (spilled or lost)
  };
  // A graceful stop of everything but the faces: no new matches or
  // tournaments start, running matches get up to `grace` to finish (the
  // faces still carry their bots' moves), those still running are aborted
  // (and stored as aborted), tournaments stop (they resume on the next
  // start), and finished matches waiting for the database get up to `grace`
  // more to be stored (the rest go to the spill file, stored at the next
  // start). The faces are shut down after it; the database closes with the
  // core.
  StopReport Stop(absl::Duration grace);

 private:
  explicit ServerCore(const CoreOptions& options) : options_(options) {}

  const CoreOptions options_;
  std::unique_ptr<Arena> arena_;
  TokenSet tokens_;
  std::unique_ptr<Authenticator> auth_;
  tournament::BotCatalogFile catalog_;
  std::unique_ptr<tournament::MatchHost> host_;
  std::unique_ptr<tournament::TournamentManager> manager_;
  // manager_ for the faces' threads: set once it runs, cleared before it goes.
  std::atomic<tournament::TournamentManager*> manager_published_{nullptr};
};

}  // namespace hoard::service

#endif  // HOARD_SERVICE_CORE_H_
