#ifndef HOARD_SERVICE_WEB_WEB_SERVER_H_
#define HOARD_SERVICE_WEB_WEB_SERVER_H_

// The HTTP face of `hoard serve --http` (docs/web.md): a read-only JSON API
// that mirrors the public RPCs, live updates as Server-Sent Events, the
// API's OpenAPI document, and /metrics in the Prometheus text format.
//
// A sibling of the gRPC face over the same server core (service/core.h):
// every API call is the RPC itself (service/api.h), made on an in-process
// channel to an API server of the face's own, with the request's
// Authorization header passed on: what a caller
// may read over HTTP is exactly what it may read over gRPC (the roles of
// docs/security.md), and nothing over HTTP changes state. HTTP is served on
// one event loop (service/web/http_server.h) whose limits keep any one client
// from taking the face down; the RPCs are made with gRPC's callback API, so
// neither a call nor an open event stream holds a thread.

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "service/web/http_server.h"

namespace hoard::service {

class ServerCore;

struct WebOptions {
  // host:port; port 0 picks a free one (see WebServer::port).
  std::string listen = "127.0.0.1:8080";
  // Connections, event streams, deadlines and buffers (docs/web.md).
  HttpLimits limits;
  // Bytes an API stream behind an event stream may queue (the event
  // stream's own bound is limits.max_stream_buffer_bytes).
  int max_queued_bytes = 8 << 20;
};

class WebServer {
 public:
  // Serves the API of `core` (which must outlive the face), and its
  // metrics at /metrics. kUnavailable if the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<WebServer>> Start(const WebOptions& options,
                                                          ServerCore* core);
  // Stop()s first.
  ~WebServer();

  int port() const;
  // Stops taking requests; open event streams end; waits for the RPCs
  // under way to end.
  void Stop();

  // Connections and event streams open now.
  HttpServer::Counts counts() const;

 private:
  struct Impl;
  explicit WebServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The OpenAPI 3 document of the API, as served at /openapi.json.
const std::string& OpenApiDocument();

}  // namespace hoard::service

#endif  // HOARD_SERVICE_WEB_WEB_SERVER_H_
