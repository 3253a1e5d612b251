#include "service/web/web_server.h"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/grpcpp.h"
#include "hoard/v1/arena.grpc.pb.h"
#include "hoard/v1/tournament.grpc.pb.h"
#include "httplib.h"
#include "service/web/assets.h"

namespace hoard::service {
namespace {

// How long an API call may take.
constexpr auto kCallDeadline = std::chrono::seconds(30);

// A message in protobuf's JSON mapping, proto field names, every field.
std::string Json(const google::protobuf::Message& message, bool one_line = false) {
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = !one_line;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  return json;
}

int HttpStatusOf(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return 200;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::OUT_OF_RANGE:
    case grpc::StatusCode::FAILED_PRECONDITION:
      return 400;
    case grpc::StatusCode::UNAUTHENTICATED:
      return 401;
    case grpc::StatusCode::PERMISSION_DENIED:
      return 403;
    case grpc::StatusCode::NOT_FOUND:
      return 404;
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::ABORTED:
      return 409;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return 429;
    case grpc::StatusCode::UNIMPLEMENTED:
      return 501;
    case grpc::StatusCode::UNAVAILABLE:
      return 503;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return 504;
    default:
      return 500;
  }
}

const char* CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::StatusCode::ABORTED: return "ABORTED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::DATA_LOSS: return "DATA_LOSS";
    default: return "INTERNAL";
  }
}

// {"code": "NOT_FOUND", "message": "..."}, as a Struct so that the message
// is escaped by the JSON printer.
std::string ErrorJson(grpc::StatusCode code, const std::string& message) {
  google::protobuf::Struct error;
  (*error.mutable_fields())["code"].set_string_value(CodeName(code));
  (*error.mutable_fields())["message"].set_string_value(message);
  return Json(error);
}

void SendError(httplib::Response& res, grpc::StatusCode code, const std::string& message) {
  res.status = HttpStatusOf(code);
  res.set_content(ErrorJson(code, message), "application/json");
}

// The request message from the path's fields and the query's parameters
// (each a field of the request, by its proto name; enums by name).
bool ReadRequest(const httplib::Request& req,
                 const std::vector<std::pair<std::string, std::string>>& path_fields,
                 google::protobuf::Message& request, httplib::Response& res) {
  google::protobuf::Struct fields;
  auto set = [&](const std::string& name, const std::string& value) {
    google::protobuf::Value& v = (*fields.mutable_fields())[name];
    if (value == "true" || value == "false") {
      v.set_bool_value(value == "true");
    } else {
      v.set_string_value(value);
    }
  };
  for (const auto& [name, value] : req.params) {
    if (req.params.count(name) > 1) {
      SendError(res, grpc::StatusCode::INVALID_ARGUMENT,
                absl::StrCat("query parameter '", name, "' is given more than once"));
      return false;
    }
    set(name, value);
  }
  for (const auto& [name, value] : path_fields) set(name, value);
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(fields, &json);
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  if (const auto parsed = google::protobuf::util::JsonStringToMessage(json, &request, options);
      !parsed.ok()) {
    SendError(res, grpc::StatusCode::INVALID_ARGUMENT,
              absl::StrCat("bad query for ", request.GetDescriptor()->name(), ": ",
                           std::string(parsed.message())));
    return false;
  }
  return true;
}

// The caller's Authorization header, passed on to the RPC.
void PassCredentials(const httplib::Request& req, grpc::ClientContext& context) {
  if (req.has_header("Authorization")) {
    context.AddMetadata("authorization", req.get_header_value("Authorization"));
  }
}

}  // namespace

struct WebServer::Impl {
  WebOptions options;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<hoard::v1::Arena::Stub> arena;
  std::unique_ptr<hoard::v1::Tournaments::Stub> tournaments;
  std::function<std::string()> metrics;
  httplib::Server http;
  std::thread thread;
  int port = 0;
  std::atomic<int> streams{0};
  // The open event streams' calls, cancelled when the server stops.
  std::mutex open_mu;
  std::map<int, grpc::ClientContext*> open_calls;
  int next_call = 0;
  bool stopping = false;

  // A unary RPC behind GET: request from the path and query, the response
  // as JSON, an RPC error as its HTTP status and {"code", "message"}.
  template <typename Request, typename Response, typename Call>
  void Unary(const httplib::Request& req, httplib::Response& res,
             const std::vector<std::pair<std::string, std::string>>& path_fields, Call call) {
    Request request;
    if (!ReadRequest(req, path_fields, request, res)) return;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + kCallDeadline);
    PassCredentials(req, context);
    Response response;
    const grpc::Status status = call(&context, request, &response);
    if (!status.ok()) return SendError(res, status.error_code(), status.error_message());
    res.set_content(Json(response), "application/json");
  }

  // A server-streaming RPC as Server-Sent Events: each message an `event`
  // named `kind` with its JSON on one `data` line, then `end` (or `error`
  // with {"code", "message"}) when the stream ends.
  template <typename Request, typename Message, typename Open>
  void Stream(const httplib::Request& req, httplib::Response& res, const std::string& kind,
              const Request& request, Open open) {
    if (streams.fetch_add(1) >= options.max_event_streams) {
      streams.fetch_sub(1);
      return SendError(res, grpc::StatusCode::UNAVAILABLE,
                       absl::StrCat("too many event streams open (at most ",
                                    options.max_event_streams, "); try again later"));
    }
    struct Open_ {
      grpc::ClientContext context;
      std::unique_ptr<grpc::ClientReader<Message>> reader;
      bool ended = false;
    };
    auto state = std::make_shared<Open_>();
    PassCredentials(req, state->context);
    int call;
    {
      std::lock_guard<std::mutex> lock(open_mu);
      if (stopping) state->context.TryCancel();
      call = next_call++;
      open_calls[call] = &state->context;
    }
    state->reader = open(&state->context, request);
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider(
        "text/event-stream",
        [state, kind](std::size_t, httplib::DataSink& sink) {
          if (state->ended) return false;
          Message message;
          if (state->reader->Read(&message)) {
            const std::string event =
                absl::StrCat("event: ", kind, "\ndata: ", Json(message, true), "\n\n");
            if (!sink.write(event.data(), event.size())) {
              state->context.TryCancel();
              return false;
            }
            return true;
          }
          state->ended = true;
          const grpc::Status status = state->reader->Finish();
          const std::string last =
              status.ok() ? std::string("event: end\ndata: {}\n\n")
                          : absl::StrCat("event: error\ndata: ",
                                         ErrorJson(status.error_code(), status.error_message()),
                                         "\n\n");
          sink.write(last.data(), last.size());
          sink.done();
          return true;
        },
        [this, state, call](bool) {
          if (!state->ended) state->context.TryCancel();
          {
            std::lock_guard<std::mutex> lock(open_mu);
            open_calls.erase(call);
          }
          streams.fetch_sub(1);
        });
  }

  void Routes();
};

void WebServer::Impl::Routes() {
  using hoard::v1::Arena;
  http.Get("/api/v1/games", [this](const httplib::Request& req, httplib::Response& res) {
    Unary<hoard::v1::ListGamesRequest, hoard::v1::ListGamesResponse>(
        req, res, {}, [this](auto* c, const auto& r, auto* out) {
          return arena->ListGames(c, r, out);
        });
  });
  http.Get("/api/v1/bots", [this](const httplib::Request& req, httplib::Response& res) {
    Unary<hoard::v1::ListBotsRequest, hoard::v1::ListBotsResponse>(
        req, res, {}, [this](auto* c, const auto& r, auto* out) {
          return arena->ListBots(c, r, out);
        });
  });
  http.Get("/api/v1/matches", [this](const httplib::Request& req, httplib::Response& res) {
    Unary<hoard::v1::ListMatchesRequest, hoard::v1::ListMatchesResponse>(
        req, res, {}, [this](auto* c, const auto& r, auto* out) {
          return arena->ListMatches(c, r, out);
        });
  });
  http.Get(R"(/api/v1/matches/([A-Za-z0-9_-]{1,64}))",
           [this](const httplib::Request& req, httplib::Response& res) {
             Unary<hoard::v1::GetMatchRequest, hoard::v1::GetMatchResponse>(
                 req, res, {{"match_id", req.matches[1]}},
                 [this](auto* c, const auto& r, auto* out) { return arena->GetMatch(c, r, out); });
           });
  http.Get(R"(/api/v1/matches/([A-Za-z0-9_-]{1,64})/replay)",
           [this](const httplib::Request& req, httplib::Response& res) {
             Unary<hoard::v1::ReplayMatchRequest, hoard::v1::ReplayMatchResponse>(
                 req, res, {{"match_id", req.matches[1]}},
                 [this](auto* c, const auto& r, auto* out) {
                   return arena->ReplayMatch(c, r, out);
                 });
           });
  http.Get(R"(/api/v1/matches/([A-Za-z0-9_-]{1,64})/events)",
           [this](const httplib::Request& req, httplib::Response& res) {
             hoard::v1::WatchMatchRequest request;
             request.set_match_id(req.matches[1]);
             // A match that does not exist (or may not be watched) is an
             // HTTP error, not a stream that ends at once.
             {
               hoard::v1::GetMatchRequest get;
               get.set_match_id(request.match_id());
               hoard::v1::GetMatchResponse got;
               grpc::ClientContext context;
               context.set_deadline(std::chrono::system_clock::now() + kCallDeadline);
               PassCredentials(req, context);
               if (grpc::Status s = arena->GetMatch(&context, get, &got); !s.ok()) {
                 return SendError(res, s.error_code(), s.error_message());
               }
             }
             Stream<hoard::v1::WatchMatchRequest, hoard::v1::MatchEvent>(
                 req, res, "match", request, [this](grpc::ClientContext* c, const auto& r) {
                   return arena->WatchMatch(c, r);
                 });
           });
  http.Get("/api/v1/tournaments", [this](const httplib::Request& req, httplib::Response& res) {
    Unary<hoard::v1::ListTournamentsRequest, hoard::v1::ListTournamentsResponse>(
        req, res, {}, [this](auto* c, const auto& r, auto* out) {
          return tournaments->ListTournaments(c, r, out);
        });
  });
  http.Get(R"(/api/v1/tournaments/(\d{1,18}))",
           [this](const httplib::Request& req, httplib::Response& res) {
             Unary<hoard::v1::GetTournamentRequest, hoard::v1::Tournament>(
                 req, res, {{"id", req.matches[1]}}, [this](auto* c, const auto& r, auto* out) {
                   return tournaments->GetTournament(c, r, out);
                 });
           });
  http.Get(R"(/api/v1/tournaments/(\d{1,18})/events)",
           [this](const httplib::Request& req, httplib::Response& res) {
             hoard::v1::WatchTournamentRequest request;
             std::int64_t id = 0;
             (void)absl::SimpleAtoi(req.matches[1].str(), &id);
             request.set_id(id);
             {
               hoard::v1::GetTournamentRequest get;
               get.set_id(id);
               hoard::v1::Tournament got;
               grpc::ClientContext context;
               context.set_deadline(std::chrono::system_clock::now() + kCallDeadline);
               PassCredentials(req, context);
               if (grpc::Status s = tournaments->GetTournament(&context, get, &got); !s.ok()) {
                 return SendError(res, s.error_code(), s.error_message());
               }
             }
             Stream<hoard::v1::WatchTournamentRequest, hoard::v1::Tournament>(
                 req, res, "tournament", request, [this](grpc::ClientContext* c, const auto& r) {
                   return tournaments->WatchTournament(c, r);
                 });
           });
  http.Get("/api/v1/leaderboard", [this](const httplib::Request& req, httplib::Response& res) {
    Unary<hoard::v1::GetLeaderboardRequest, hoard::v1::Leaderboard>(
        req, res, {}, [this](auto* c, const auto& r, auto* out) {
          return tournaments->GetLeaderboard(c, r, out);
        });
  });
  http.Get("/api/v1/head-to-head", [this](const httplib::Request& req, httplib::Response& res) {
    Unary<hoard::v1::GetHeadToHeadRequest, hoard::v1::HeadToHeadTable>(
        req, res, {}, [this](auto* c, const auto& r, auto* out) {
          return tournaments->GetHeadToHead(c, r, out);
        });
  });
  http.Get("/api/v1/results", [this](const httplib::Request& req, httplib::Response& res) {
    Unary<hoard::v1::ListResultsRequest, hoard::v1::ListResultsResponse>(
        req, res, {}, [this](auto* c, const auto& r, auto* out) {
          return tournaments->ListResults(c, r, out);
        });
  });
  // The web app, from memory.
  for (const WebAsset& asset : WebAssets()) {
    const std::string path = asset.path;
    auto serve = [asset](const httplib::Request&, httplib::Response& res) {
      res.set_header("Cache-Control", "no-cache");
      res.set_header("X-Content-Type-Options", "nosniff");
      res.set_content(asset.body, asset.content_type);
    };
    http.Get(absl::StrReplaceAll(path, {{".", "\\."}}), serve);
    if (path == "/index.html") http.Get("/", serve);
  }
  http.Get("/openapi.json", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(OpenApiDocument(), "application/json");
  });
  http.Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
    // Whoever may read may read the metrics: on a private server, a
    // token (asked of the server as for any read).
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + kCallDeadline);
    PassCredentials(req, context);
    hoard::v1::ListGamesResponse games;
    if (grpc::Status s = arena->ListGames(&context, {}, &games); !s.ok()) {
      return SendError(res, s.error_code(), s.error_message());
    }
    res.set_content(metrics(), "text/plain; version=0.0.4; charset=utf-8");
  });
  // Nothing here changes state.
  auto read_only = [](const httplib::Request& req, httplib::Response& res) {
    res.set_header("Allow", "GET");
    res.status = 405;
    res.set_content(ErrorJson(grpc::StatusCode::UNIMPLEMENTED,
                              absl::StrCat(req.method, " ", req.path,
                                           ": the web API is read-only (GET only)")),
                    "application/json");
  };
  http.Post(".*", read_only);
  http.Put(".*", read_only);
  http.Patch(".*", read_only);
  http.Delete(".*", read_only);
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.status == 404 && res.body.empty()) {
      res.set_content(ErrorJson(grpc::StatusCode::NOT_FOUND,
                                absl::StrCat("no page ", req.path,
                                             " (the API is under /api/v1; see /openapi.json)")),
                      "application/json");
    }
  });
}

absl::StatusOr<std::unique_ptr<WebServer>> WebServer::Start(
    const WebOptions& options, std::shared_ptr<grpc::Channel> api,
    std::function<std::string()> metrics) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->channel = api;
  impl->arena = hoard::v1::Arena::NewStub(api);
  impl->tournaments = hoard::v1::Tournaments::NewStub(api);
  impl->metrics = std::move(metrics);
  const int threads = std::max(2, options.threads);
  impl->http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  impl->http.set_payload_max_length(64 << 10);
  impl->http.set_read_timeout(5, 0);
  impl->http.set_write_timeout(5, 0);
  impl->Routes();

  const std::size_t colon = options.listen.rfind(':');
  int port = -1;
  if (colon == std::string::npos ||
      !absl::SimpleAtoi(options.listen.substr(colon + 1), &port) || port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--http: '", options.listen, "' is not HOST:PORT"));
  }
  std::string host = options.listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (port == 0) {
    impl->port = impl->http.bind_to_any_port(host);
  } else {
    impl->port = impl->http.bind_to_port(host, port) ? port : -1;
  }
  if (impl->port <= 0) {
    return absl::UnavailableError(
        absl::StrCat("--http: cannot listen on ", options.listen));
  }
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->http.listen_after_bind(); });
  return std::unique_ptr<WebServer>(new WebServer(std::move(impl)));
}

WebServer::WebServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

WebServer::~WebServer() { Stop(); }

int WebServer::port() const { return impl_->port; }

void WebServer::Stop() {
  if (!impl_->thread.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(impl_->open_mu);
    impl_->stopping = true;
    for (const auto& [call, context] : impl_->open_calls) context->TryCancel();
  }
  impl_->http.stop();
  impl_->thread.join();
}

}  // namespace hoard::service
