#include "service/grpc_server.h"

#include <chrono>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/status_macros.h"
#include "grpc/health/v1/health.pb.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
#include "hoard/v1/arena.grpc.pb.h"
#include "hoard/v1/tournament.grpc.pb.h"
#include "service/api.h"

namespace hoard::service {
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

absl::StatusOr<std::unique_ptr<GrpcFace>> GrpcFace::Start(const GrpcOptions& options,
                                                          ServerCore* core) {
  std::unique_ptr<GrpcFace> face(new GrpcFace());
  face->core_ = core;
  face->listen_ = options.listen;
  face->api_ = std::make_unique<Api>(core, static_cast<std::size_t>(options.max_queued_bytes));
  grpc::EnableDefaultHealthCheckService(true);
  // Reflection describes what the process's descriptor pool holds: the
  // health service's file is linked in and loaded for it to be described.
  (void)grpc::health::v1::HealthCheckRequest::descriptor();
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
  if (!options.tls_cert_path.empty() || !options.tls_key_path.empty()) {
    ASSIGN_OR_RETURN(credentials, TlsCredentials(options.tls_cert_path, options.tls_key_path));
  }
  grpc::ServerBuilder builder;
  // A port in use is an error, not a port shared with another server.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddListeningPort(options.listen, credentials, &face->port_);
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  face->api_->AddTo(builder);
  for (grpc::Service* service : options.extra_services) builder.RegisterService(service);
  face->server_ = builder.BuildAndStart();
  if (face->server_ == nullptr || face->port_ == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", options.listen,
                                               ": the port is in use or the address is not valid"));
  }
  face->UpdateHealth();
  return face;
}

GrpcFace::~GrpcFace() { Shutdown(); }

std::string GrpcFace::LocalAddress() const {
  return absl::StrCat(LoopbackHost(listen_), ":", port_);
}

void GrpcFace::UpdateHealth() {
  // The health service knows only the whole server ("") until told of each
  // service; Tournaments serves only while the core runs them.
  if (grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService()) {
    health->SetServingStatus(hoard::v1::Arena::service_full_name(), true);
    health->SetServingStatus(hoard::v1::Tournaments::service_full_name(),
                             core_->tournaments() != nullptr);
  }
}

std::shared_ptr<grpc::Channel> GrpcFace::InProcessChannel() {
  // Within the process: a long match's replay may pass the default 4 MiB.
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  return server_->InProcessChannel(args);
}

void GrpcFace::Wait() { server_->Wait(); }

void GrpcFace::Shutdown() {
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
}

absl::StatusOr<std::unique_ptr<ArenaServer>> ArenaServer::Start(const ServerOptions& options) {
  std::unique_ptr<ArenaServer> server(new ArenaServer());
  ASSIGN_OR_RETURN(server->core_, ServerCore::Create(options.core));
  ASSIGN_OR_RETURN(server->face_, GrpcFace::Start(options.grpc, server->core_.get()));
  if (options.serve_tournaments) {
    // Tournaments play on this server's arena; bots they launch connect to
    // it over loopback.
    RETURN_IF_ERROR(
        server->core_->StartTournaments({.bots_address = server->face_->LocalAddress()}));
    server->face_->UpdateHealth();
  }
  return server;
}

ArenaServer::~ArenaServer() {
  face_.reset();
  core_.reset();
}

ArenaServer::StopReport ArenaServer::Stop(absl::Duration grace) {
  const StopReport report = core_->Stop(grace);
  face_->Shutdown();
  return report;
}

std::string LoopbackHost(const std::string& listen) {
  const std::size_t colon = listen.rfind(':');
  const std::string host = colon == std::string::npos ? listen : listen.substr(0, colon);
  if (host.empty() || host == "0.0.0.0" || host == "[::]" || host == "::") return "127.0.0.1";
  return host;
}

}  // namespace hoard::service
