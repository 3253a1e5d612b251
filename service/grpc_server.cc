#include "service/grpc_server.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
#include "hoard/v1/arena.grpc.pb.h"
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

class WatchReactor;

// What a match holds for a spectator stream; outlives the reactor safely.
class WatchRelay final : public EventOutbox {
 public:
  explicit WatchRelay(WatchReactor* reactor) : reactor_(reactor) {}
  void Send(const hoard::v1::MatchEvent& event) override;
  void Close() override;
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
  WatchReactor* reactor_ ABSL_GUARDED_BY(mu_);
};

class WatchReactor final : public grpc::ServerWriteReactor<hoard::v1::MatchEvent> {
 public:
  WatchReactor(Arena* arena, const hoard::v1::WatchMatchRequest& request)
      : arena_(arena),
        match_id_(request.match_id()),
        relay_(std::make_shared<WatchRelay>(this)),
        writes_(this) {
    const absl::Status status = arena->WatchMatch(request, relay_);
    watching_ = status.ok();
    if (!status.ok()) writes_.Finish(ToGrpcStatus(status), true);
  }
  void Push(const hoard::v1::MatchEvent& event) {
    if (!writes_.Push(event)) {
      writes_.Finish(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                  "the spectator reads its stream too slowly"),
                     true);
    }
  }
  void End() { writes_.Finish(grpc::Status::OK, false); }
  void OnWriteDone(bool ok) override { writes_.OnWriteDone(ok); }
  void OnCancel() override { writes_.Finish(grpc::Status::CANCELLED, true); }
  void OnDone() override {
    relay_->Detach();
    if (watching_) arena_->OnWatchEnded(match_id_);
    delete this;
  }

 private:
  Arena* const arena_;
  const std::string match_id_;
  bool watching_ = false;
  const std::shared_ptr<WatchRelay> relay_;
  WriteQueue<WatchReactor, hoard::v1::MatchEvent> writes_;
};

void WatchRelay::Send(const hoard::v1::MatchEvent& event) {
  absl::MutexLock lock(&mu_);
  if (reactor_ != nullptr) reactor_->Push(event);
}

void WatchRelay::Close() {
  absl::MutexLock lock(&mu_);
  if (reactor_ != nullptr) reactor_->End();
}

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

}  // namespace

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

absl::StatusOr<std::unique_ptr<ArenaServer>> ArenaServer::Start(
    const ServerOptions& options) {
  std::unique_ptr<ArenaServer> server(new ArenaServer());
  server->arena_ = std::make_unique<Arena>(options.limits);
  if (!options.db_path.empty()) {
    absl::StatusOr<std::unique_ptr<db::MatchStore>> store = db::OpenSqliteStore(options.db_path);
    if (!store.ok()) return store.status();
    if (absl::Status status = server->arena_->UseStore(*std::move(store)); !status.ok()) {
      return status;
    }
  }
  server->service_ = std::make_unique<ArenaServiceImpl>(server->arena_.get());
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.listen, grpc::InsecureServerCredentials(),
                           &server->port_);
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.RegisterService(server->service_.get());
  for (grpc::Service* service : options.extra_services) builder.RegisterService(service);
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", options.listen,
                     " (is the address valid and the port free?)"));
  }
  return server;
}

ArenaServer::~ArenaServer() {
  Shutdown();
}

std::shared_ptr<grpc::Channel> ArenaServer::InProcessChannel() {
  return server_->InProcessChannel(grpc::ChannelArguments());
}

void ArenaServer::Wait() { server_->Wait(); }

void ArenaServer::Shutdown() {
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
}

}  // namespace hoard::service
