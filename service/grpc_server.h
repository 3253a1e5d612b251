#ifndef HOARD_SERVICE_GRPC_SERVER_H_
#define HOARD_SERVICE_GRPC_SERVER_H_

// The gRPC face of a server core (service/core.h): the API (service/api.h)
// on the network, plus the standard health service and server reflection.
// ArenaServer puts a core and its gRPC face together, as tests, `hoard
// tournament` and the load tool use them; `hoard serve` composes the core
// and both faces itself.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "service/core.h"

namespace grpc {
class Channel;
class Service;
class Server;
}  // namespace grpc

namespace hoard::service {

class Api;

struct GrpcOptions {
  // host:port to listen on; port 0 picks a free one (see GrpcFace::port).
  std::string listen = "127.0.0.1:50051";
  // TLS: PEM files of the server's certificate (chain) and private key.
  // Both empty: plaintext.
  std::string tls_cert_path;
  std::string tls_key_path;
  // The largest message a client may send.
  int max_message_bytes = 1 << 20;
  // Bytes queued for a stream that reads too slowly before it is ended.
  int max_queued_bytes = 8 << 20;
  // More services to serve beside the API (not owned; must outlive it).
  std::vector<grpc::Service*> extra_services;
};

class GrpcFace {
 public:
  // Serves the API of `core` (which must outlive the face); kUnavailable if
  // the address cannot be bound, kInvalidArgument for unreadable TLS files.
  static absl::StatusOr<std::unique_ptr<GrpcFace>> Start(const GrpcOptions& options,
                                                         ServerCore* core);
  // Shutdown()s first.
  ~GrpcFace();

  // The port actually bound.
  int port() const { return port_; }
  // The address a client on this machine reaches the face at
  // ("0.0.0.0:50051" -> "127.0.0.1:50051", with the port bound).
  std::string LocalAddress() const;
  // Tells the health service whether hoard.v1.Tournaments serves (whether
  // the core runs tournaments now).
  void UpdateHealth();
  // A channel to this face that skips the network.
  std::shared_ptr<grpc::Channel> InProcessChannel();
  // Blocks until Shutdown() is called from another thread.
  void Wait();
  // Ends every call; waits up to two seconds for them to finish.
  void Shutdown();

 private:
  GrpcFace() = default;

  ServerCore* core_ = nullptr;
  std::string listen_;
  std::unique_ptr<Api> api_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

struct ServerOptions {
  CoreOptions core;
  GrpcOptions grpc;
  // Run the tournaments the database holds (resuming those left running),
  // their bots connecting to the gRPC face. `hoard tournament` runs its
  // own instead.
  bool serve_tournaments = true;
};

// A core and its gRPC face.
class ArenaServer {
 public:
  // The core, then the face, then the tournaments; the first error of any.
  static absl::StatusOr<std::unique_ptr<ArenaServer>> Start(const ServerOptions& options);
  ~ArenaServer();

  int port() const { return face_->port(); }
  ServerCore& core() { return *core_; }
  GrpcFace& face() { return *face_; }
  Arena& arena() { return core_->arena(); }
  std::shared_ptr<grpc::Channel> InProcessChannel() { return face_->InProcessChannel(); }
  void Wait() { face_->Wait(); }
  void Shutdown() { face_->Shutdown(); }

  using StopReport = ServerCore::StopReport;
  // The core's graceful stop (ServerCore::Stop), then the face's shutdown.
  StopReport Stop(absl::Duration grace);

 private:
  ArenaServer() = default;

  std::unique_ptr<ServerCore> core_;
  std::unique_ptr<GrpcFace> face_;
};

// The host part of a listen address, as a local client reaches it
// ("0.0.0.0:50051" -> "127.0.0.1").
std::string LoopbackHost(const std::string& listen);

}  // namespace hoard::service

#endif  // HOARD_SERVICE_GRPC_SERVER_H_
