#ifndef HOARD_SERVICE_WEB_HTTP_SERVER_H_
#define HOARD_SERVICE_WEB_HTTP_SERVER_H_

// An event-driven HTTP/1.1 server (Boost.Beast's parser over one Boost.Asio
// event loop) that no single client can take down: every request must
// arrive whole within a deadline, connections and event streams are counted
// per client address and in total, idle keep-alive connections are closed,
// and an event stream whose client does not read is dropped once a bounded
// number of its bytes wait. It knows nothing of what it serves: a handler
// gets each request and answers it, at once or later from any thread.
//
// Client addresses: an IPv4 address is itself (an IPv4-mapped IPv6 one
// too); an IPv6 address counts as its /64, the block one host is given.

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace hoard::service {

struct HttpLimits {
  // Connections open at once, in total and from one client address; one
  // more is answered 503 (saying which) and closed.
  int max_connections = 4096;
  int max_connections_per_address = 64;
  // Event streams open at once, in total and from one client address (each
  // is also a connection); one more is answered 503.
  int max_event_streams = 2048;
  int max_event_streams_per_address = 16;
  // A request's headers and body must arrive within this time of its first
  // byte; else 408 and the connection is closed.
  int request_timeout_ms = 10000;
  // A connection that sends no byte of a (next) request for this long is
  // closed: a new one, or one kept alive after a response.
  int idle_timeout_ms = 5000;
  // A response the client does not take within this time is abandoned and
  // the connection closed; an event stream whose client acknowledges none of
  // its bytes (heartbeats included) for this long is dropped.
  int write_timeout_ms = 10000;
  // An event stream sends a comment line this often when it has nothing
  // else to send.
  int heartbeat_ms = 3000;
  // Bytes an event stream may have waiting for its client; past them the
  // stream is dropped. Its socket's send buffer is set to as many (the
  // kernel keeps up to twice that).
  int max_stream_buffer_bytes = 256 << 10;
  // A request's headers and its body.
  int max_header_bytes = 16 << 10;
  int max_body_bytes = 64 << 10;
};

struct HttpRequest {
  std::string method;         // as sent: "GET", "HEAD", "BREW"
  std::string target;         // path and query, as sent
  std::string path;           // the target up to '?'
  std::string query;          // after '?', undecoded
  std::string authorization;  // the Authorization header, or ""
  std::string content_type;   // the Content-Type header, or ""
  std::string client;         // the client address, as counted
  std::string body;           // at most HttpLimits::max_body_bytes
};

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

// One request's answer. Respond, StartStream, Send and Finish may be called
// from any thread; ReserveStream only from the handler.
class HttpExchange {
 public:
  virtual ~HttpExchange() = default;

  // The whole answer. A HEAD request gets its headers only.
  virtual void Respond(int status, const std::string& content_type, std::string body,
                       HttpHeaders headers = {}) = 0;

  // Takes an event stream's place for this request: kResourceExhausted,
  // saying which limit, if the client or the server has no room. The place
  // is freed when the exchange ends (by Respond too).
  virtual absl::Status ReserveStream() = 0;
  // REQUIRES: ReserveStream() succeeded. Sends 200 with `content_type` and
  // starts a chunked body; `on_close` runs once, on the loop's thread, when
  // the stream ends for any reason but Finish: the client left (its read
  // ended), fell behind by max_stream_buffer_bytes, or the server stopped.
  virtual void StartStream(const std::string& content_type, std::function<void()> on_close) = 0;
  // Queues `bytes` on the stream; false if it has ended (or ends now, its
  // client too far behind): then nothing more need be sent.
  virtual bool Send(std::string bytes) = 0;
  // Sends `last`, ends the stream and closes the connection.
  virtual void Finish(std::string last) = 0;
};

using HttpHandler = std::function<void(const HttpRequest&, const std::shared_ptr<HttpExchange>&)>;

struct HttpServerOptions {
  std::string host;  // an address; "" or "0.0.0.0" for all IPv4 ones
  int port = 0;      // 0 picks a free one
  HttpLimits limits;
  // Runs on the loop's thread for each request: it must not block.
  HttpHandler handler;
  // Added to every response.
  HttpHeaders headers;
  // The body of an error the server answers itself (408, 413, 431, 503),
  // with its content type.
  std::function<std::string(const absl::Status&)> error_body;
  std::string error_content_type = "application/json";
  // The text of an event stream's heartbeat.
  std::string heartbeat = ": keep-alive\n\n";
};

class HttpServer {
 public:
  // Listens and starts the loop's thread; kUnavailable if the address cannot
  // be bound, kInvalidArgument if it is no address.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(HttpServerOptions options);
  // Stop()s.
  ~HttpServer();

  int port() const;
  // Stops accepting and closes every connection (each stream's on_close
  // runs); the loop goes on running handlers posted to it. Waits until done.
  void CloseAll();
  // CloseAll(), then stops the loop and joins its thread.
  void Stop();

  struct Counts {
    int connections = 0;
    int event_streams = 0;
  };
  Counts counts() const;

 private:
  class Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hoard::service

#endif  // HOARD_SERVICE_WEB_HTTP_SERVER_H_
