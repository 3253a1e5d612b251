#ifndef HOARD_SERVICE_API_H_
#define HOARD_SERVICE_API_H_

// The hoard.v1 API over a server core: hoard.v1.Arena and hoard.v1.Tournaments
// on gRPC's callback API, each call's caller checked (service/auth.h) before
// it reaches the core. Every face serves this same API, so what a caller may
// do is the same on every face: the gRPC face (service/grpc_server.h) serves
// it on the network, the web face (service/web/web_server.h) on an
// in-process server that its HTTP routes call.
//
// An Api belongs to one grpc::Server: each face makes its own over the same
// core. It holds no state of its own beyond the services' objects; the core
// must outlive it, and it must outlive the server it is registered with.

#include <cstddef>
#include <memory>

#include "absl/status/status.h"

namespace grpc {
class ServerBuilder;
class Status;
}  // namespace grpc

namespace hoard::service {

class ServerCore;

class Api {
 public:
  // `max_queued_bytes`: bytes queued for a stream that reads too slowly
  // before it is ended. `forwarded_addresses`: the API is served to the web
  // face only (an in-process server without a port), whose calls name their
  // HTTP client's address in kClientAddressMetadata; limits on wrong keys
  // count that address. Else they count the peer's.
  Api(ServerCore* core, std::size_t max_queued_bytes, bool forwarded_addresses = false);
  ~Api();
  Api(const Api&) = delete;
  Api& operator=(const Api&) = delete;

  // Registers both services with `builder`, and the interceptor that answers
  // a request which is no message of its method with INVALID_ARGUMENT.
  void AddTo(grpc::ServerBuilder& builder);

 private:
  std::unique_ptr<class ArenaServiceImpl> arena_;
  std::unique_ptr<class TournamentServiceImpl> tournaments_;
};

// The metadata in which the web face names the client it makes a call for,
// by its address as service/web/http_server.h counts it (see Api).
inline constexpr char kClientAddressMetadata[] = "hoard-client-address";

// Maps an absl::Status to grpc::Status with the same code and message.
grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace hoard::service

#endif  // HOARD_SERVICE_API_H_
