#include "service/web/http_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <cstdint>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"

namespace hoard::service {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

// How long a refused connection gets to send its request before it is
// answered 503, and how many refusals may be under way at once (more are
// closed without a word).
constexpr auto kRefusalRead = std::chrono::seconds(1);
constexpr int kMaxRefusals = 256;

// The address a client is counted under: IPv4 as itself, IPv6 by its /64.
std::string ClientOf(const tcp::endpoint& peer) {
  asio::ip::address address = peer.address();
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    address = asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6());
  }
  if (address.is_v4()) return address.to_string();
  asio::ip::address_v6::bytes_type bytes = address.to_v6().to_bytes();
  std::fill(bytes.begin() + 8, bytes.end(), 0);
  return absl::StrCat(asio::ip::address_v6(bytes).to_string(), "/64");
}

const char* Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 413:
      return "Payload Too Large";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return status < 500 ? "Client Error" : "Server Error";
  }
}

std::string Seconds(int ms) { return absl::StrCat(ms / 1000.0, " s"); }

// One chunk of a chunked body.
std::string Chunk(const std::string& bytes) {
  return absl::StrCat(absl::Hex(bytes.size()), "\r\n", bytes, "\r\n");
}

// Connections and event streams, counted per client address and in total.
class Occupancy {
 public:
  explicit Occupancy(const HttpLimits& limits) : limits_(limits) {}

  absl::Status TakeConnection(const std::string& client) {
    return Take(client, "connections", limits_.max_connections, limits_.max_connections_per_address,
                connections_, total_connections_);
  }
  void ReleaseConnection(const std::string& client) {
    Release(client, connections_, total_connections_);
  }
  absl::Status TakeStream(const std::string& client) {
    return Take(client, "event streams", limits_.max_event_streams,
                limits_.max_event_streams_per_address, streams_, total_streams_);
  }
  void ReleaseStream(const std::string& client) { Release(client, streams_, total_streams_); }

  HttpServer::Counts counts() const {
    std::lock_guard<std::mutex> lock(mu_);
    return {.connections = total_connections_, .event_streams = total_streams_};
  }

 private:
  absl::Status Take(const std::string& client, const char* what, int max_total, int max_each,
                    std::map<std::string, int>& each, int& total) {
    std::lock_guard<std::mutex> lock(mu_);
    if (total >= max_total) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "too many ", what, " open on this server (at most ", max_total, "); try again later"));
    }
    int& mine = each[client];
    if (mine >= max_each) {
      return absl::ResourceExhaustedError(absl::StrCat("too many ", what, " from your address ",
                                                       client, " (at most ", max_each,
                                                       "); close one first"));
    }
    ++mine;
    ++total;
    return absl::OkStatus();
  }
  void Release(const std::string& client, std::map<std::string, int>& each, int& total) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = each.find(client);
    if (it != each.end() && --it->second <= 0) each.erase(it);
    --total;
  }

  const HttpLimits limits_;
  mutable std::mutex mu_;
  std::map<std::string, int> connections_;
  std::map<std::string, int> streams_;
  int total_connections_ = 0;
  int total_streams_ = 0;
};

}  // namespace

class HttpServer::Impl {
 public:
  explicit Impl(HttpServerOptions options)
      : options_(std::move(options)), occupancy_(options_.limits) {}

  absl::Status Listen();
  void Run() {
    Accept();
    thread_ = std::thread([this] { loop_.run(); });
  }
  void CloseAll();
  void Stop();
  int port() const { return port_; }
  HttpServer::Counts counts() const { return occupancy_.counts(); }

  // A response's head: status line, the common headers, `headers`.
  std::string Head(int status, const std::string& content_type, const HttpHeaders& headers,
                   bool close) const {
    std::string head = absl::StrCat("HTTP/1.1 ", status, " ", Reason(status), "\r\n");
    if (!content_type.empty()) absl::StrAppend(&head, "Content-Type: ", content_type, "\r\n");
    for (const auto& [name, value] : options_.headers) {
      absl::StrAppend(&head, name, ": ", value, "\r\n");
    }
    for (const auto& [name, value] : headers) absl::StrAppend(&head, name, ": ", value, "\r\n");
    if (close) head += "Connection: close\r\n";
    return head;
  }
  // A whole error response that closes the connection.
  std::string ErrorResponse(int status, const absl::Status& error) const {
    const std::string body = options_.error_body(error);
    return absl::StrCat(Head(status, options_.error_content_type, {}, true),
                        "Content-Length: ", body.size(), "\r\n\r\n", body);
  }

  const HttpServerOptions& options() const { return options_; }
  Occupancy& occupancy() { return occupancy_; }
  asio::io_context& loop() { return loop_; }

  class Session;
  void Forget(std::uint64_t id) {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    sessions_.erase(id);
  }

 private:
  void Accept();
  void Refuse(tcp::socket socket, const absl::Status& why);

  const HttpServerOptions options_;
  Occupancy occupancy_;
  std::mutex sessions_mu_;
  std::map<std::uint64_t, std::weak_ptr<Session>> sessions_;
  std::uint64_t next_session_ = 0;
  std::atomic<int> refusals_{0};
  // Declared last of what sessions use: destroyed first, with the handlers
  // (and sessions) it still holds.
  asio::io_context loop_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_{
      loop_.get_executor()};
  tcp::acceptor acceptor_{loop_};
  asio::steady_timer accept_retry_{loop_};
  std::thread thread_;
  int port_ = 0;
};

// One connection: requests one after another, each whole within its
// deadline, or one event stream. Its state is the loop thread's; the
// exchange's methods post to it.
class HttpServer::Impl::Session final : public HttpExchange,
                                        public std::enable_shared_from_this<Session> {
 public:
  Session(Impl* server, tcp::socket socket, std::string client, std::uint64_t id)
      : server_(server),
        limits_(server->options().limits),
        socket_(std::move(socket)),
        deadline_(server->loop()),
        heartbeat_(server->loop()),
        client_(std::move(client)),
        id_(id) {}

  ~Session() override {
    ReleasePlaces();
    server_->Forget(id_);
  }

  void Begin() { WaitForRequest(); }

  // Ends the connection at once; a stream's on_close runs.
  void Close() {
    if (phase_ == Phase::kClosed) return;
    phase_ = Phase::kClosed;
    closed_.store(true);
    deadline_.cancel();
    heartbeat_.cancel();
    error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    ReleasePlaces();
    if (on_close_) std::exchange(on_close_, nullptr)();
  }

  void Respond(int status, const std::string& content_type, std::string body,
               HttpHeaders headers) override {
    asio::post(server_->loop(), [self = shared_from_this(), status, content_type,
                                 body = std::move(body), headers = std::move(headers)]() mutable {
      self->WriteResponse(status, content_type, std::move(body), headers);
    });
  }

  absl::Status ReserveStream() override {
    absl::Status taken = server_->occupancy().TakeStream(client_);
    if (taken.ok()) stream_place_ = true;
    return taken;
  }

  void StartStream(const std::string& content_type, std::function<void()> on_close) override {
    asio::post(server_->loop(), [self = shared_from_this(), content_type,
                                 on_close = std::move(on_close)]() mutable {
      if (self->phase_ != Phase::kHandling) {
        on_close();
        return;
      }
      self->phase_ = Phase::kStreaming;
      self->on_close_ = std::move(on_close);
      // The kernel's share of the stream's bytes is bounded too, and a client
      // that acknowledges none of them (the heartbeat's included) for the
      // write time-out is gone.
      error_code ignored;
      self->socket_.set_option(
          asio::socket_base::send_buffer_size(self->limits_.max_stream_buffer_bytes), ignored);
      self->socket_.set_option(asio::detail::socket_option::integer<IPPROTO_TCP, TCP_USER_TIMEOUT>(
                                   self->limits_.write_timeout_ms),
                               ignored);
      self->pending_ =
          absl::StrCat(self->server_->Head(
                           200, content_type,
                           {{"Cache-Control", "no-cache"}, {"Transfer-Encoding", "chunked"}}, true),
                       "\r\n");
      self->WatchPeer();
      self->Heartbeat();
      self->Flush();
    });
  }

  bool Send(std::string bytes) override {
    if (closed_.load()) return false;
    const std::size_t size = bytes.size();
    if (queued_.fetch_add(size) + size >
        static_cast<std::size_t>(limits_.max_stream_buffer_bytes)) {
      asio::post(server_->loop(), [self = shared_from_this()] { self->Close(); });
      closed_.store(true);
      return false;
    }
    asio::post(server_->loop(), [self = shared_from_this(), bytes = std::move(bytes)] {
      if (self->phase_ != Phase::kStreaming || self->finishing_) return;
      self->pending_ += Chunk(bytes);
      self->pending_payload_ += bytes.size();
      self->Flush();
    });
    return true;
  }

  void Finish(std::string last) override {
    asio::post(server_->loop(), [self = shared_from_this(), last = std::move(last)] {
      if (self->phase_ != Phase::kStreaming || self->finishing_) return;
      self->finishing_ = true;
      self->on_close_ = nullptr;
      self->pending_ += Chunk(last) + "0\r\n\r\n";
      self->Flush();
    });
  }

 private:
  enum class Phase { kIdle, kReading, kHandling, kWriting, kStreaming, kClosed };

  void ReleasePlaces() {
    if (std::exchange(stream_place_, false)) server_->occupancy().ReleaseStream(client_);
    if (std::exchange(connection_place_, false)) server_->occupancy().ReleaseConnection(client_);
  }

  // Runs `then` after `ms` unless the deadline is set again or cancelled.
  void SetDeadline(int ms, void (Session::*then)()) {
    const std::uint64_t generation = ++deadline_generation_;
    deadline_.expires_after(std::chrono::milliseconds(ms));
    deadline_.async_wait([self = shared_from_this(), generation, then](error_code ec) {
      if (!ec && generation == self->deadline_generation_) ((*self).*then)();
    });
  }
  void ClearDeadline() {
    ++deadline_generation_;
    deadline_.cancel();
  }

  // Waits for a request's first byte, at most the idle time-out.
  void WaitForRequest() {
    phase_ = Phase::kIdle;
    if (buffer_.size() > 0) return ReadRequest();
    SetDeadline(limits_.idle_timeout_ms, &Session::Close);
    socket_.async_wait(tcp::socket::wait_read, [self = shared_from_this()](error_code ec) {
      if (self->phase_ != Phase::kIdle) return;
      if (ec) return self->Close();
      self->ReadRequest();
    });
  }

  void ReadRequest() {
    phase_ = Phase::kReading;
    timed_out_ = false;
    parser_.emplace();
    parser_->header_limit(limits_.max_header_bytes);
    parser_->body_limit(limits_.max_body_bytes);
    SetDeadline(limits_.request_timeout_ms, &Session::RequestLate);
    http::async_read(
        socket_, buffer_, *parser_,
        [self = shared_from_this()](error_code ec, std::size_t) { self->OnRequest(ec); });
  }

  void RequestLate() {
    timed_out_ = true;
    error_code ignored;
    socket_.cancel(ignored);
  }

  void OnRequest(error_code ec) {
    if (phase_ != Phase::kReading) return;
    ClearDeadline();
    if (timed_out_) {
      return Refuse(
          408, absl::DeadlineExceededError(absl::StrCat("the request did not arrive whole within ",
                                                        Seconds(limits_.request_timeout_ms))));
    }
    if (ec == http::error::header_limit) {
      return Refuse(431, absl::ResourceExhaustedError(absl::StrCat(
                             "request headers over ", limits_.max_header_bytes, " bytes")));
    }
    if (ec == http::error::body_limit) {
      return Refuse(413, absl::ResourceExhaustedError(
                             absl::StrCat("request body over ", limits_.max_body_bytes, " bytes")));
    }
    if (ec == http::error::end_of_stream || ec == asio::error::eof ||
        ec == asio::error::connection_reset || ec == asio::error::operation_aborted ||
        ec == asio::error::bad_descriptor) {
      return Close();
    }
    if (ec) {
      return Refuse(
          400, absl::InvalidArgumentError(absl::StrCat("malformed HTTP request: ", ec.message())));
    }
    const auto& message = parser_->get();
    HttpRequest request;
    request.method = std::string(message.method_string());
    request.target = std::string(message.target());
    const std::size_t question = request.target.find('?');
    request.path = request.target.substr(0, question);
    if (question != std::string::npos) request.query = request.target.substr(question + 1);
    if (auto it = message.find(http::field::authorization); it != message.end()) {
      request.authorization = std::string(it->value());
    }
    if (auto it = message.find(http::field::content_type); it != message.end()) {
      request.content_type = std::string(it->value());
    }
    request.client = client_;
    request.body = message.body();
    head_ = request.method == "HEAD";
    keep_alive_ = message.keep_alive();
    phase_ = Phase::kHandling;
    server_->options().handler(request, shared_from_this());
  }

  // Answers an error the server found itself, then closes.
  void Refuse(int status, const absl::Status& why) {
    phase_ = Phase::kHandling;
    keep_alive_ = false;
    Write(server_->ErrorResponse(status, why), true);
  }

  void WriteResponse(int status, const std::string& content_type, std::string body,
                     const HttpHeaders& headers) {
    if (phase_ != Phase::kHandling) return;
    if (std::exchange(stream_place_, false)) server_->occupancy().ReleaseStream(client_);
    std::string response = absl::StrCat(server_->Head(status, content_type, headers, !keep_alive_),
                                        "Content-Length: ", body.size(), "\r\n");
    if (keep_alive_) {
      // So that the client does not send on a connection as it is closed.
      absl::StrAppend(&response,
                      "Keep-Alive: timeout=", std::max(1, limits_.idle_timeout_ms / 1000), "\r\n");
    }
    response += "\r\n";
    if (!head_) response += body;
    Write(std::move(response), !keep_alive_);
  }

  void Write(std::string bytes, bool close_after) {
    phase_ = Phase::kWriting;
    out_ = std::move(bytes);
    SetDeadline(limits_.write_timeout_ms, &Session::Close);
    asio::async_write(socket_, asio::buffer(out_),
                      [self = shared_from_this(), close_after](error_code ec, std::size_t) {
                        if (self->phase_ != Phase::kWriting) return;
                        self->ClearDeadline();
                        if (ec || close_after) return self->CloseGracefully();
                        self->out_.clear();
                        self->WaitForRequest();
                      });
  }

  // Closes after what was written: the client reads it, then the end.
  void CloseGracefully() {
    error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    Close();
  }

  // Streams: a read that ends when the client leaves. A stream's client has
  // nothing to say: one that sends more than a request body's worth is cut
  // off.
  void WatchPeer() {
    socket_.async_read_some(
        asio::buffer(scratch_), [self = shared_from_this()](error_code ec, std::size_t read) {
          if (self->phase_ != Phase::kStreaming) return;
          self->said_while_streaming_ += read;
          if (ec || self->said_while_streaming_ >
                        static_cast<std::size_t>(self->limits_.max_body_bytes)) {
            return self->Close();
          }
          self->WatchPeer();
        });
  }

  void Heartbeat() {
    heartbeat_.expires_after(std::chrono::milliseconds(limits_.heartbeat_ms));
    heartbeat_.async_wait([self = shared_from_this()](error_code ec) {
      if (ec || self->phase_ != Phase::kStreaming || self->finishing_) return;
      self->Send(self->server_->options().heartbeat);
      self->Heartbeat();
    });
  }

  void Flush() {
    if (writing_ || phase_ != Phase::kStreaming) return;
    if (pending_.empty()) {
      if (finishing_) CloseGracefully();
      return;
    }
    writing_ = true;
    out_ = std::move(pending_);
    pending_.clear();
    const std::size_t payload = std::exchange(pending_payload_, 0);
    if (finishing_) SetDeadline(limits_.write_timeout_ms, &Session::Close);
    asio::async_write(socket_, asio::buffer(out_),
                      [self = shared_from_this(), payload](error_code ec, std::size_t) {
                        self->writing_ = false;
                        self->queued_.fetch_sub(payload);
                        if (self->phase_ != Phase::kStreaming) return;
                        if (ec) return self->Close();
                        self->Flush();
                      });
  }

  Impl* const server_;
  const HttpLimits& limits_;
  tcp::socket socket_;
  asio::steady_timer deadline_;
  asio::steady_timer heartbeat_;
  const std::string client_;
  const std::uint64_t id_;
  Phase phase_ = Phase::kIdle;
  std::atomic<bool> closed_{false};
  bool connection_place_ = true;
  bool stream_place_ = false;
  std::uint64_t deadline_generation_ = 0;
  bool timed_out_ = false;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool head_ = false;
  bool keep_alive_ = false;
  std::string out_;
  // A stream's bytes not yet written: waiting here and being written.
  std::string pending_;
  std::size_t pending_payload_ = 0;
  std::atomic<std::size_t> queued_{0};
  bool writing_ = false;
  bool finishing_ = false;
  std::function<void()> on_close_;
  std::array<char, 512> scratch_;
  std::size_t said_while_streaming_ = 0;
};

absl::Status HttpServer::Impl::Listen() {
  error_code ec;
  tcp::resolver resolver(loop_);
  const auto found = resolver.resolve(options_.host.empty() ? "0.0.0.0" : options_.host,
                                      absl::StrCat(options_.port), ec);
  if (ec || found.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot resolve '", options_.host, "': ", ec.message()));
  }
  const tcp::endpoint endpoint = found.begin()->endpoint();
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", options_.host, ":", options_.port, ": ", ec.message()));
  }
  port_ = acceptor_.local_endpoint(ec).port();
  return absl::OkStatus();
}

void HttpServer::Impl::Accept() {
  acceptor_.async_accept([this](error_code ec, tcp::socket socket) {
    if (!acceptor_.is_open()) return;
    if (ec) {
      // Out of descriptors, most likely: try again shortly rather than spin.
      accept_retry_.expires_after(std::chrono::milliseconds(100));
      accept_retry_.async_wait([this](error_code wait) {
        if (!wait) Accept();
      });
      return;
    }
    error_code peer_error;
    const tcp::endpoint peer = socket.remote_endpoint(peer_error);
    if (peer_error) {
      Accept();
      return;
    }
    const std::string client = ClientOf(peer);
    if (absl::Status taken = occupancy_.TakeConnection(client); !taken.ok()) {
      Refuse(std::move(socket), taken);
    } else {
      std::shared_ptr<Session> session;
      {
        std::lock_guard<std::mutex> lock(sessions_mu_);
        const std::uint64_t id = next_session_++;
        session = std::make_shared<Session>(this, std::move(socket), client, id);
        sessions_[id] = session;
      }
      session->Begin();
    }
    Accept();
  });
}

// Reads what the refused client sends first (for at most a second), answers
// 503 with why, and closes.
void HttpServer::Impl::Refuse(tcp::socket socket, const absl::Status& why) {
  if (refusals_.fetch_add(1) >= kMaxRefusals) {
    refusals_.fetch_sub(1);
    return;  // closed as `socket` goes
  }
  struct Refusal {
    tcp::socket socket;
    asio::steady_timer timer;
    std::string response;
    std::array<char, 4096> scratch;
  };
  auto refusal = std::make_shared<Refusal>(
      Refusal{std::move(socket), asio::steady_timer(loop_), ErrorResponse(503, why), {}});
  auto answer = [this, refusal] {
    if (!refusal->socket.is_open()) return;
    error_code ignored;
    refusal->timer.cancel();
    refusal->socket.non_blocking(true, ignored);
    refusal->socket.write_some(asio::buffer(refusal->response), ignored);
    refusal->socket.shutdown(tcp::socket::shutdown_send, ignored);
    refusal->socket.close(ignored);
    refusals_.fetch_sub(1);
  };
  refusal->timer.expires_after(kRefusalRead);
  refusal->timer.async_wait([answer](error_code ec) {
    if (!ec) answer();
  });
  refusal->socket.async_read_some(asio::buffer(refusal->scratch),
                                  [answer](error_code, std::size_t) { answer(); });
}

void HttpServer::Impl::CloseAll() {
  std::promise<void> done;
  asio::post(loop_, [this, &done] {
    error_code ignored;
    acceptor_.close(ignored);
    accept_retry_.cancel();
    std::vector<std::shared_ptr<Session>> open;
    {
      std::lock_guard<std::mutex> lock(sessions_mu_);
      for (const auto& [id, session] : sessions_) {
        if (auto alive = session.lock()) open.push_back(std::move(alive));
      }
    }
    for (const auto& session : open) session->Close();
    done.set_value();
  });
  done.get_future().wait();
}

void HttpServer::Impl::Stop() {
  if (!thread_.joinable()) return;
  CloseAll();
  work_.reset();
  loop_.stop();
  thread_.join();
}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(HttpServerOptions options) {
  auto impl = std::make_unique<Impl>(std::move(options));
  if (absl::Status listening = impl->Listen(); !listening.ok()) return listening;
  impl->Run();
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { Stop(); }

int HttpServer::port() const { return impl_->port(); }

void HttpServer::CloseAll() { impl_->CloseAll(); }

void HttpServer::Stop() { impl_->Stop(); }

HttpServer::Counts HttpServer::counts() const { return impl_->counts(); }

}  // namespace hoard::service
