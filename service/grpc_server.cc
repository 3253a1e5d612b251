#include "service/grpc_server.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
#include "hoard/v1/arena.grpc.pb.h"
#include "hoard/v1/tournament.grpc.pb.h"
#include "engine/status_macros.h"
#include "tournament/host.h"
#include "tournament/manager.h"
#include "service/write_queue.h"

namespace hoard::service {
namespace {

class PlayReactor final
    : public grpc::ServerBidiReactor<hoard::v1::BotMessage, hoard::v1::ServerMessage>,
      public Outbox {
 public:
  explicit PlayReactor(Arena* arena)
      : arena_(arena), connection_(std::make_shared<Connection>(this)), writes_(this) {
    StartRead(&incoming_);
  }

  void Send(OutgoingMessage message) override {
    if (!writes_.Push(std::move(message))) {
      writes_.Finish(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                  "the bot reads its stream too slowly"),
                     /*abandon_queue=*/true);
    }
  }

  void OnReadDone(bool ok) override {
    if (!ok) {  // the client closed its side, or the call is gone
      Close(grpc::Status::OK, /*abandon_queue=*/false);
      return;
    }
    const absl::Status status = arena_->OnBotMessage(connection_, incoming_);
    if (!status.ok()) {
      Close(ToGrpcStatus(status), /*abandon_queue=*/false);
      return;
    }
    StartRead(&incoming_);
  }

  void OnWriteDone(bool ok) override { writes_.OnWriteDone(ok); }

  void OnCancel() override {
    Close(grpc::Status::CANCELLED, /*abandon_queue=*/true);
  }

  void OnDone() override {
    arena_->OnStreamClosed(connection_);  // no Send reaches us after this
    delete this;
  }

 private:
  void Close(grpc::Status status, bool abandon_queue) {
    arena_->OnStreamClosed(connection_);
    writes_.Finish(std::move(status), abandon_queue);
  }

  Arena* const arena_;
  const std::shared_ptr<Connection> connection_;
  hoard::v1::BotMessage incoming_;
  WriteQueue<PlayReactor, OutgoingMessage> writes_;
};

// What a producer (a match, a tournament) holds for a server stream: it
// forwards to the reactor until the reactor is done, and outlives it safely.
template <typename Sink, typename Reactor, typename Message>
class Relay final : public Sink {
 public:
  explicit Relay(Reactor* reactor) : reactor_(reactor) {}
  void Send(const Message& message) override {
    absl::MutexLock lock(&mu_);
    if (reactor_ != nullptr) reactor_->Push(message);
  }
  void Close() override {
    absl::MutexLock lock(&mu_);
    if (reactor_ != nullptr) reactor_->End();
  }
  void Detach() {
    absl::MutexLock lock(&mu_);
    reactor_ = nullptr;
  }
  bool open() const override {
    absl::MutexLock lock(&mu_);
    return reactor_ != nullptr;
  }

 private:
  mutable absl::Mutex mu_;
  Reactor* reactor_ ABSL_GUARDED_BY(mu_);
};

// A server stream fed through a Relay: queued writes, a bound on a client
// that reads too slowly, and the relay detached when the call is done.
template <typename Sink, typename Message>
class RelayedStream : public grpc::ServerWriteReactor<Message> {
 public:
  using StreamRelay = Relay<Sink, RelayedStream, Message>;

  RelayedStream() : relay_(std::make_shared<StreamRelay>(this)), writes_(this) {}
  void Push(const Message& message) {
    if (!writes_.Push(message)) {
      writes_.Finish(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                  "the client reads its stream too slowly"),
                     true);
    }
  }
  void End() { writes_.Finish(grpc::Status::OK, false); }
  void OnWriteDone(bool ok) override { writes_.OnWriteDone(ok); }
  void OnCancel() override { writes_.Finish(grpc::Status::CANCELLED, true); }
  void OnDone() override {
    relay_->Detach();
    Done();
    delete this;
  }

 protected:
  // Refuses the stream before anything is written.
  void Refuse(const absl::Status& status) { writes_.Finish(ToGrpcStatus(status), true); }
  // Runs once the call is over, before the reactor goes.
  virtual void Done() {}

  const std::shared_ptr<StreamRelay> relay_;

 private:
  WriteQueue<RelayedStream, Message> writes_;
};

class WatchReactor final : public RelayedStream<EventOutbox, hoard::v1::MatchEvent> {
 public:
  WatchReactor(Arena* arena, const hoard::v1::WatchMatchRequest& request)
      : arena_(arena), match_id_(request.match_id()) {
    const absl::Status status = arena->WatchMatch(request, relay_);
    watching_ = status.ok();
    if (!status.ok()) Refuse(status);
  }

 private:
  void Done() override {
    if (watching_) arena_->OnWatchEnded(match_id_);
  }

  Arena* const arena_;
  const std::string match_id_;
  bool watching_ = false;
};

// Runs a unary handler: one call into the arena, its status mapped.
template <typename Response>
grpc::ServerUnaryReactor* Reply(grpc::CallbackServerContext* context,
                                absl::StatusOr<Response> result,
                                Response* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (result.ok()) *response = *std::move(result);
  reactor->Finish(ToGrpcStatus(result.status()));
  return reactor;
}

class TournamentWatchReactor final
    : public RelayedStream<tournament::TournamentWatcher, hoard::v1::Tournament> {
 public:
  TournamentWatchReactor(tournament::TournamentManager* manager,
                         const hoard::v1::WatchTournamentRequest& request) {
    const absl::Status status = manager->Watch(request, relay_);
    if (!status.ok()) Refuse(status);
  }
};

}  // namespace

// hoard.v1.Tournaments over the manager; without a database every call
// fails with FAILED_PRECONDITION saying so.
class TournamentServiceImpl final : public hoard::v1::Tournaments::CallbackService {
 public:
  explicit TournamentServiceImpl(tournament::TournamentManager* manager) : manager_(manager) {}
  // Set once, before the server takes calls.
  void SetManager(tournament::TournamentManager* manager) { manager_ = manager; }

  grpc::ServerUnaryReactor* CreateTournament(grpc::CallbackServerContext* context,
                                             const hoard::v1::CreateTournamentRequest* request,
                                             hoard::v1::Tournament* response) override {
    if (manager_ == nullptr) return NoDatabase(context);
    return Reply(context, manager_->Create(*request), response);
  }
  grpc::ServerUnaryReactor* GetTournament(grpc::CallbackServerContext* context,
                                          const hoard::v1::GetTournamentRequest* request,
                                          hoard::v1::Tournament* response) override {
    if (manager_ == nullptr) return NoDatabase(context);
    return Reply(context, manager_->Get(*request), response);
  }
  grpc::ServerUnaryReactor* ListTournaments(grpc::CallbackServerContext* context,
                                            const hoard::v1::ListTournamentsRequest*,
                                            hoard::v1::ListTournamentsResponse* response) override {
    if (manager_ == nullptr) return NoDatabase(context);
    return Reply(context, manager_->List(), response);
  }
  grpc::ServerWriteReactor<hoard::v1::Tournament>* WatchTournament(
      grpc::CallbackServerContext* context,
      const hoard::v1::WatchTournamentRequest* request) override {
    if (manager_ == nullptr) {
      class Refusal final : public grpc::ServerWriteReactor<hoard::v1::Tournament> {
       public:
        Refusal() { Finish(NoDatabaseStatus()); }
        void OnDone() override { delete this; }
      };
      (void)context;
      return new Refusal();
    }
    return new TournamentWatchReactor(manager_, *request);
  }
  grpc::ServerUnaryReactor* CancelTournament(grpc::CallbackServerContext* context,
                                             const hoard::v1::CancelTournamentRequest* request,
                                             hoard::v1::Tournament* response) override {
    if (manager_ == nullptr) return NoDatabase(context);
    return Reply(context, manager_->Cancel(*request), response);
  }
  grpc::ServerUnaryReactor* GetLeaderboard(grpc::CallbackServerContext* context,
                                           const hoard::v1::GetLeaderboardRequest* request,
                                           hoard::v1::Leaderboard* response) override {
    if (manager_ == nullptr) return NoDatabase(context);
    return Reply(context, manager_->GetLeaderboard(*request), response);
  }
  grpc::ServerUnaryReactor* ListResults(grpc::CallbackServerContext* context,
                                        const hoard::v1::ListResultsRequest* request,
                                        hoard::v1::ListResultsResponse* response) override {
    if (manager_ == nullptr) return NoDatabase(context);
    return Reply(context, manager_->ListResults(*request), response);
  }
  grpc::ServerUnaryReactor* GetHeadToHead(grpc::CallbackServerContext* context,
                                          const hoard::v1::GetHeadToHeadRequest* request,
                                          hoard::v1::HeadToHeadTable* response) override {
    if (manager_ == nullptr) return NoDatabase(context);
    return Reply(context, manager_->GetHeadToHead(*request), response);
  }

 private:
  static grpc::Status NoDatabaseStatus() {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        "this server keeps no tournaments: start it with --db FILE");
  }
  static grpc::ServerUnaryReactor* NoDatabase(grpc::CallbackServerContext* context) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(NoDatabaseStatus());
    return reactor;
  }

  tournament::TournamentManager* manager_;
};

class ArenaServiceImpl final : public hoard::v1::Arena::CallbackService {
 public:
  explicit ArenaServiceImpl(Arena* arena) : arena_(arena) {}

  grpc::ServerBidiReactor<hoard::v1::BotMessage, hoard::v1::ServerMessage>* Play(
      grpc::CallbackServerContext*) override {
    return new PlayReactor(arena_);
  }

  grpc::ServerUnaryReactor* CreateMatch(grpc::CallbackServerContext* context,
                                        const hoard::v1::CreateMatchRequest* request,
                                        hoard::v1::CreateMatchResponse* response) override {
    return Reply(context, arena_->CreateMatch(*request), response);
  }

  grpc::ServerUnaryReactor* GetMatch(grpc::CallbackServerContext* context,
                                     const hoard::v1::GetMatchRequest* request,
                                     hoard::v1::GetMatchResponse* response) override {
    return Reply(context, arena_->GetMatch(*request), response);
  }

  grpc::ServerUnaryReactor* ListMatches(grpc::CallbackServerContext* context,
                                        const hoard::v1::ListMatchesRequest* request,
                                        hoard::v1::ListMatchesResponse* response) override {
    return Reply(context, arena_->ListMatches(*request), response);
  }

  grpc::ServerUnaryReactor* ListGames(grpc::CallbackServerContext* context,
                                      const hoard::v1::ListGamesRequest*,
                                      hoard::v1::ListGamesResponse* response) override {
    return Reply(context, absl::StatusOr<hoard::v1::ListGamesResponse>(arena_->ListGames()),
                 response);
  }

  grpc::ServerUnaryReactor* ListBots(grpc::CallbackServerContext* context,
                                     const hoard::v1::ListBotsRequest*,
                                     hoard::v1::ListBotsResponse* response) override {
    return Reply(context, absl::StatusOr<hoard::v1::ListBotsResponse>(arena_->ListBots()),
                 response);
  }

  grpc::ServerWriteReactor<hoard::v1::MatchEvent>* WatchMatch(
      grpc::CallbackServerContext*, const hoard::v1::WatchMatchRequest* request) override {
    return new WatchReactor(arena_, *request);
  }

 private:
  Arena* const arena_;
};

grpc::Status ToGrpcStatus(const absl::Status& status) {
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

namespace {

absl::StatusOr<std::string> ReadPem(const std::string& path, const char* what) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  if (path.empty() || !file.good() || text.str().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("TLS needs the server's ", what, ": cannot read '", path, "'"));
  }
  return text.str();
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> TlsCredentials(
    const std::string& cert_path, const std::string& key_path) {
  ASSIGN_OR_RETURN(std::string cert, ReadPem(cert_path, "certificate (--tls-cert)"));
  ASSIGN_OR_RETURN(std::string key, ReadPem(key_path, "private key (--tls-key)"));
  grpc::SslServerCredentialsOptions options;
  options.pem_key_cert_pairs.push_back({std::move(key), std::move(cert)});
  return grpc::SslServerCredentials(options);
}

}  // namespace

absl::StatusOr<std::unique_ptr<ArenaServer>> ArenaServer::Start(
    const ServerOptions& options) {
  std::unique_ptr<ArenaServer> server(new ArenaServer());
  server->arena_ = std::make_unique<Arena>(options.limits);
  server->arena_->SetEventSink(options.events);
  if (!options.db_path.empty()) {
    absl::StatusOr<std::unique_ptr<db::MatchStore>> store = db::OpenSqliteStore(options.db_path);
    if (!store.ok()) return store.status();
    if (absl::Status status = server->arena_->UseStore(*std::move(store)); !status.ok()) {
      return status;
    }
  }
  server->service_ = std::make_unique<ArenaServiceImpl>(server->arena_.get());
  server->tournament_service_ = std::make_unique<TournamentServiceImpl>(nullptr);
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
  if (!options.tls_cert_path.empty() || !options.tls_key_path.empty()) {
    ASSIGN_OR_RETURN(credentials, TlsCredentials(options.tls_cert_path, options.tls_key_path));
  }
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.listen, credentials, &server->port_);
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.RegisterService(server->service_.get());
  builder.RegisterService(server->tournament_service_.get());
  for (grpc::Service* service : options.extra_services) builder.RegisterService(service);
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", options.listen,
                     " (is the address valid and the port free?)"));
  }
  if (options.serve_tournaments && server->arena_->store() != nullptr) {
    // Tournaments play on this server's arena; bots they launch connect to
    // it over loopback.
    server->host_ = tournament::InProcessHost(
        server->arena_.get(), absl::StrCat(LoopbackHost(options.listen), ":", server->port_));
    server->manager_ = std::make_unique<tournament::TournamentManager>(
        server->arena_->store(), server->host_.get(), options.tournament_runner);
    server->tournament_service_->SetManager(server->manager_.get());
    if (absl::Status s = server->manager_->ResumeUnfinished(); !s.ok()) return s;
  }
  return server;
}

ArenaServer::~ArenaServer() {
  Shutdown();
  // Tournaments stop (their matches in flight finish) before the arena goes.
  manager_.reset();
}

std::string LoopbackHost(const std::string& listen) {
  const std::size_t colon = listen.rfind(':');
  const std::string host = colon == std::string::npos ? listen : listen.substr(0, colon);
  if (host.empty() || host == "0.0.0.0" || host == "[::]" || host == "::") return "127.0.0.1";
  return host;
}

std::shared_ptr<grpc::Channel> ArenaServer::InProcessChannel() {
  return server_->InProcessChannel(grpc::ChannelArguments());
}

void ArenaServer::Wait() { server_->Wait(); }

ArenaServer::StopReport ArenaServer::Stop(absl::Duration grace) {
  StopReport report;
  arena_->BeginShutdown();
  if (manager_) manager_->StopAll();
  report.running_at_stop = arena_->running_matches();
  const absl::Time deadline = absl::Now() + grace;
  while (arena_->running_matches() > 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  report.aborted = arena_->AbortRunning();
  manager_.reset();  // its runners see their matches end, and stop
  Shutdown();
  return report;
}

void ArenaServer::Shutdown() {
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
}

}  // namespace hoard::service
