#include "service/web/web_server.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "engine/clip.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/grpcpp.h"
#include "hoard/v1/arena.grpc.pb.h"
#include "hoard/v1/tournament.grpc.pb.h"
#include "service/api.h"
#include "service/core.h"
#include "service/web/assets.h"
#include "tournament/secrets.h"

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
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    default:
      return "INTERNAL";
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

// What every answer carries: the app's pages may run only the app's own
// script and style and talk only to this server, and no page may be framed.
const HttpHeaders& SecurityHeaders() {
  static const auto* headers = new HttpHeaders{
      {"Content-Security-Policy",
       "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
      {"X-Frame-Options", "DENY"},
      {"X-Content-Type-Options", "nosniff"},
      {"Referrer-Policy", "no-referrer"},
  };
  return *headers;
}

constexpr char kJson[] = "application/json";

// The app's icon (index.html links it as /favicon.svg): a pile of gold on
// the header's brown.
constexpr char kFavicon[] =
    R"(<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">)"
    R"(<rect width="16" height="16" rx="3" fill="#2b2118"/>)"
    R"(<circle cx="5.5" cy="10.5" r="3" fill="#e0b13a"/><circle cx="10.5" cy="10.5" r="3" )"
    R"(fill="#e0b13a"/><circle cx="8" cy="6" r="3" fill="#f4d06f"/></svg>)";

void RespondError(HttpExchange& exchange, grpc::StatusCode code, const std::string& message) {
  exchange.Respond(HttpStatusOf(code), kJson, ErrorJson(code, message));
}

// %XY and '+' of a query's name or value.
std::string DecodeQueryPart(absl::string_view text) {
  std::string decoded;
  decoded.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && absl::ascii_isxdigit(text[i + 1]) &&
        absl::ascii_isxdigit(text[i + 2])) {
      auto digit = [](char c) { return absl::ascii_isdigit(c) ? c - '0' : (c | 0x20) - 'a' + 10; };
      decoded.push_back(static_cast<char>(digit(text[i + 1]) * 16 + digit(text[i + 2])));
      i += 2;
    } else {
      decoded.push_back(text[i] == '+' ? ' ' : text[i]);
    }
  }
  return decoded;
}

using PathFields = std::vector<std::pair<std::string, std::string>>;

// The request message from the path's fields and the query's parameters
// (each a field of the request, by its proto name; enums by name); else
// answers 400 saying why.
bool ReadRequest(const HttpRequest& http, const PathFields& path_fields,
                 google::protobuf::Message& request, HttpExchange& exchange) {
  google::protobuf::Struct fields;
  auto set = [&](const std::string& name, const std::string& value) {
    google::protobuf::Value& v = (*fields.mutable_fields())[name];
    if (value == "true" || value == "false") {
      v.set_bool_value(value == "true");
    } else {
      v.set_string_value(value);
    }
  };
  std::map<std::string, std::string> params;
  for (absl::string_view part : absl::StrSplit(http.query, '&', absl::SkipEmpty())) {
    const std::pair<absl::string_view, absl::string_view> pair =
        absl::StrSplit(part, absl::MaxSplits('=', 1));
    const std::string name = DecodeQueryPart(pair.first);
    if (name.empty()) continue;
    if (!params.emplace(name, DecodeQueryPart(pair.second)).second) {
      RespondError(exchange, grpc::StatusCode::INVALID_ARGUMENT,
                   absl::StrCat("query parameter '", name, "' is given more than once"));
      return false;
    }
  }
  for (const auto& [name, value] : params) set(name, value);
  for (const auto& [name, value] : path_fields) set(name, value);
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(fields, &json);
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  if (const auto parsed = google::protobuf::util::JsonStringToMessage(json, &request, options);
      !parsed.ok()) {
    RespondError(exchange, grpc::StatusCode::INVALID_ARGUMENT,
                 absl::StrCat("bad query for ", request.GetDescriptor()->name(), ": ",
                              std::string(parsed.message())));
    return false;
  }
  return true;
}

// An RPC under way: its context, for the server to cancel it when it stops.
struct Call {
  virtual ~Call() = default;
  grpc::ClientContext context;
};

// The RPCs under way; Stop cancels them and waits for their ends.
class Calls {
 public:
  // False when stopping: then the call must not be made.
  bool Add(const std::shared_ptr<Call>& call, std::uint64_t* id) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return false;
    *id = next_++;
    calls_[*id] = call;
    return true;
  }
  void Remove(std::uint64_t id) {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.erase(id);
    if (calls_.empty()) ended_.notify_all();
  }
  void CancelAllAndWait() {
    std::vector<std::shared_ptr<Call>> open;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      for (const auto& [id, call] : calls_) {
        if (auto alive = call.lock()) open.push_back(std::move(alive));
      }
    }
    // Outside the lock: a cancelled call may end on this thread.
    for (const auto& call : open) call->context.TryCancel();
    open.clear();
    std::unique_lock<std::mutex> lock(mu_);
    ended_.wait(lock, [this] { return calls_.empty(); });
  }

 private:
  std::mutex mu_;
  std::condition_variable ended_;
  std::map<std::uint64_t, std::weak_ptr<Call>> calls_;
  std::uint64_t next_ = 0;
  bool stopping_ = false;
};

// The SSE text of one event.
std::string EventText(const std::string& kind, const std::string& data) {
  return absl::StrCat("event: ", kind, "\ndata: ", data, "\n\n");
}

// The SSE text of event messages that many viewers of one match or
// tournament receive alike, printed to JSON once: keyed by the message's
// bytes, the most recent few hundred kept.
class EventTexts {
 public:
  std::string Of(const std::string& kind, const google::protobuf::Message& message) {
    std::string key = kind;
    key.push_back('\0');
    if (!message.AppendToString(&key)) return EventText(kind, Json(message, true));
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto it = texts_.find(key); it != texts_.end()) return it->second;
    }
    std::string text = EventText(kind, Json(message, /*one_line=*/true));
    std::lock_guard<std::mutex> lock(mu_);
    if (texts_.emplace(key, text).second) {
      order_.push_back(std::move(key));
      if (order_.size() > kKept) {
        texts_.erase(order_.front());
        order_.pop_front();
      }
    }
    return text;
  }

 private:
  static constexpr std::size_t kKept = 256;
  std::mutex mu_;
  std::map<std::string, std::string> texts_;
  std::deque<std::string> order_;
};

// A server-streaming RPC relayed as Server-Sent Events: each message an
// `event` named `kind` with its JSON on one `data` line, then `end` (or
// `error` with {"code", "message"}) when the stream ends. It holds no
// thread: gRPC calls it as messages come, and it owns itself until the
// RPC is done.
template <typename Request, typename Message>
class EventRelay final : public grpc::ClientReadReactor<Message>, public Call {
 public:
  EventRelay(Calls* calls, EventTexts* texts, std::shared_ptr<HttpExchange> exchange,
             std::string kind, Request request)
      : calls_(calls),
        texts_(texts),
        exchange_(std::move(exchange)),
        kind_(std::move(kind)),
        request_(std::move(request)) {}

  // Opens the stream to the client, then the RPC with `open(context,
  // request, this)`; REQUIRES: the exchange's stream place is reserved.
  template <typename Open>
  static void Start(Calls* calls, EventTexts* texts, std::shared_ptr<HttpExchange> exchange,
                    const std::string& authorization, const std::string& client,
                    const std::string& kind, const Request& request, Open open) {
    auto relay = std::make_shared<EventRelay>(calls, texts, exchange, kind, request);
    if (!authorization.empty()) relay->context.AddMetadata("authorization", authorization);
    relay->context.AddMetadata(kClientAddressMetadata, client);
    if (!calls->Add(relay, &relay->id_)) {
      return RespondError(*exchange, grpc::StatusCode::UNAVAILABLE, "the server is stopping");
    }
    relay->self_ = relay;
    std::weak_ptr<EventRelay> weak = relay;
    exchange->StartStream("text/event-stream", [weak] {
      if (auto alive = weak.lock()) alive->context.TryCancel();
    });
    open(&relay->context, &relay->request_, relay.get());
    relay->StartRead(&relay->message_);
    relay->StartCall();
  }

  void OnReadDone(bool ok) override {
    if (!ok) return;  // OnDone follows
    if (!exchange_->Send(texts_->Of(kind_, message_))) {
      context.TryCancel();
      return;
    }
    this->StartRead(&message_);
  }

  void OnDone(const grpc::Status& status) override {
    exchange_->Finish(status.ok() ? EventText("end", "{}")
                                  : EventText("error", Json(ErrorStruct(status), true)));
    calls_->Remove(id_);
    std::shared_ptr<EventRelay> last = std::move(self_);
  }

 private:
  static google::protobuf::Struct ErrorStruct(const grpc::Status& status) {
    google::protobuf::Struct error;
    (*error.mutable_fields())["code"].set_string_value(CodeName(status.error_code()));
    (*error.mutable_fields())["message"].set_string_value(status.error_message());
    return error;
  }

  Calls* const calls_;
  EventTexts* const texts_;
  const std::shared_ptr<HttpExchange> exchange_;
  const std::string kind_;
  const Request request_;
  std::uint64_t id_ = 0;
  Message message_;
  std::shared_ptr<EventRelay> self_;
};

// The open play sessions, by id: a page's answers find their stream here.
class PlaySession;
class PlaySessions {
 public:
  void Add(const std::string& id, const std::shared_ptr<PlaySession>& session) {
    std::lock_guard<std::mutex> lock(mu_);
    sessions_[id] = session;
  }
  void Remove(const std::string& id) {
    std::lock_guard<std::mutex> lock(mu_);
    sessions_.erase(id);
  }
  std::shared_ptr<PlaySession> Find(const std::string& id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sessions_.find(id);
    return it == sessions_.end() ? nullptr : it->second.lock();
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::weak_ptr<PlaySession>> sessions_;
};

// A seat played from a page (docs/web.md, "Playing a seat"): a Play stream
// on the in-process channel, the same path as any bot's, whose hello the
// page sent. The server's messages go to the page as Server-Sent Events on
// the response to POST /api/v1/play: first `session` with the session's id
// (a secret of 128 random bits the page's answers name), then each
// hoard.v1.ServerMessage as `play`, then `end` or `error`. A hello the arena
// refuses is answered with the HTTP status of its code instead. Answers
// come by POST /api/v1/play/answer, each written to the stream; its
// request is answered with the arena's AnswerResult (the hello asks for
// every answer to be acknowledged).
class PlaySession final
    : public grpc::ClientBidiReactor<hoard::v1::BotMessage, hoard::v1::ServerMessage>,
      public Call {
 public:
  // Answers waiting for their result, at most, per session.
  static constexpr std::size_t kMaxPendingAnswers = 8;

  PlaySession(PlaySessions* sessions, Calls* calls, std::shared_ptr<HttpExchange> exchange,
              std::string client)
      : sessions_(sessions),
        calls_(calls),
        exchange_(std::move(exchange)),
        client_(std::move(client)),
        id_(tournament::RandomToken()) {}

  // Says `hello` on a Play stream of `arena`; REQUIRES: the exchange's
  // stream place is reserved.
  static void Start(PlaySessions* sessions, Calls* calls, hoard::v1::Arena::Stub* arena,
                    std::shared_ptr<HttpExchange> exchange, const std::string& client,
                    hoard::v1::Hello hello) {
    auto session = std::make_shared<PlaySession>(sessions, calls, exchange, client);
    session->context.AddMetadata(kClientAddressMetadata, client);
    if (!calls->Add(session, &session->call_id_)) {
      return RespondError(*exchange, grpc::StatusCode::UNAVAILABLE, "the server is stopping");
    }
    session->self_ = session;
    sessions->Add(session->id_, session);
    *session->writing_.mutable_hello() = std::move(hello);
    session->write_in_flight_ = true;
    arena->async()->Play(&session->context, session.get());
    // Held until the server has ended its side and no write is in flight,
    // so that an answer may be written from the HTTP thread meanwhile.
    session->AddHold();
    session->StartWrite(&session->writing_);
    session->StartRead(&session->incoming_);
    session->StartCall();
  }

  const std::string& client() const { return client_; }

  // Writes `answer` on the stream; `exchange` is answered with its result.
  void Answer(hoard::v1::Answer answer, std::shared_ptr<HttpExchange> exchange) {
    bool write_now = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (ending_) {
        return RespondError(*exchange, grpc::StatusCode::FAILED_PRECONDITION,
                            "the play session has ended");
      }
      if (pending_.size() >= kMaxPendingAnswers) {
        return RespondError(*exchange, grpc::StatusCode::RESOURCE_EXHAUSTED,
                            absl::StrCat("this play session has ", kMaxPendingAnswers,
                                         " answers waiting for their results already"));
      }
      pending_.emplace(std::make_pair(answer.match_id(), answer.request_id()), std::move(exchange));
      hoard::v1::BotMessage message;
      *message.mutable_answer() = std::move(answer);
      if (write_in_flight_) {
        queued_.push_back(std::move(message));
      } else {
        writing_ = std::move(message);
        write_in_flight_ = write_now = true;
      }
    }
    if (write_now) StartWrite(&writing_);
  }

  void OnWriteDone(bool ok) override {
    bool write_next = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (ok && !queued_.empty()) {
        writing_ = std::move(queued_.front());
        queued_.pop_front();
        write_next = true;
      } else {
        queued_.clear();
        write_in_flight_ = false;
      }
    }
    if (write_next) return StartWrite(&writing_);
    MaybeRelease();
  }

  void OnReadDone(bool ok) override {
    if (!ok) {  // the server ended the stream, or the call was cancelled
      {
        std::lock_guard<std::mutex> lock(mu_);
        ending_ = true;
      }
      return MaybeRelease();
    }
    if (!streaming_) {
      streaming_ = true;
      std::weak_ptr<PlaySession> weak = self_;
      exchange_->StartStream("text/event-stream", [weak] {
        if (auto alive = weak.lock()) alive->context.TryCancel();
      });
      google::protobuf::Struct opened;
      (*opened.mutable_fields())["session"].set_string_value(id_);
      exchange_->Send(EventText("session", Json(opened, true)));
    }
    if (incoming_.has_answer_result()) {
      const hoard::v1::AnswerResult& result = incoming_.answer_result();
      if (std::shared_ptr<HttpExchange> waiting =
              TakePending(result.match_id(), result.request_id())) {
        if (result.accepted()) {
          waiting->Respond(200, kJson, Json(result));
        } else {
          const auto code = static_cast<grpc::StatusCode>(result.code());
          RespondError(*waiting, code, result.reason());
        }
      }
    } else if (incoming_.has_error()) {
      // An answer naming no match the stream holds is refused this way.
      if (std::shared_ptr<HttpExchange> waiting =
              TakePending(incoming_.error().match_id(), std::nullopt)) {
        RespondError(*waiting, static_cast<grpc::StatusCode>(incoming_.error().code()),
                     incoming_.error().message());
      }
    }
    if (!exchange_->Send(EventText("play", Json(incoming_, /*one_line=*/true)))) {
      context.TryCancel();
    }
    StartRead(&incoming_);
  }

  void OnDone(const grpc::Status& status) override {
    if (!streaming_) {
      // Refused before the server said anything: the hello's answer.
      if (status.ok()) {
        RespondError(*exchange_, grpc::StatusCode::UNAVAILABLE,
                     "the play stream ended before the server answered the hello");
      } else {
        RespondError(*exchange_, status.error_code(), status.error_message());
      }
    } else {
      google::protobuf::Struct error;
      (*error.mutable_fields())["code"].set_string_value(CodeName(status.error_code()));
      (*error.mutable_fields())["message"].set_string_value(status.error_message());
      exchange_->Finish(status.ok() ? EventText("end", "{}")
                                    : EventText("error", Json(error, true)));
    }
    std::multimap<std::pair<std::string, std::int64_t>, std::shared_ptr<HttpExchange>> left;
    {
      std::lock_guard<std::mutex> lock(mu_);
      left.swap(pending_);
    }
    for (const auto& [key, waiting] : left) {
      RespondError(*waiting, grpc::StatusCode::ABORTED,
                   "the play session ended before the answer was judged");
    }
    sessions_->Remove(id_);
    calls_->Remove(call_id_);
    std::shared_ptr<PlaySession> last = std::move(self_);
  }

 private:
  // The answer waiting for the result of (match, request), or with no
  // request given the first waiting in the match.
  std::shared_ptr<HttpExchange> TakePending(const std::string& match_id,
                                            std::optional<std::int64_t> request_id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = request_id ? pending_.find({match_id, *request_id})
                         : pending_.lower_bound({match_id, INT64_MIN});
    if (it == pending_.end() || it->first.first != match_id) return nullptr;
    std::shared_ptr<HttpExchange> waiting = std::move(it->second);
    pending_.erase(it);
    return waiting;
  }

  // Lets the call end once the server's side has ended and no write is in
  // flight (no answer is written after that).
  void MaybeRelease() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!ending_ || write_in_flight_ || released_) return;
      released_ = true;
    }
    RemoveHold();
  }

  PlaySessions* const sessions_;
  Calls* const calls_;
  const std::shared_ptr<HttpExchange> exchange_;
  const std::string client_;
  const std::string id_;
  std::uint64_t call_id_ = 0;
  // Only the reactions touch these: one read at a time.
  hoard::v1::ServerMessage incoming_;
  bool streaming_ = false;
  std::mutex mu_;
  // The message being written; set by whoever sets write_in_flight_.
  hoard::v1::BotMessage writing_;
  bool write_in_flight_ = false;
  std::deque<hoard::v1::BotMessage> queued_;
  bool ending_ = false;
  bool released_ = false;
  std::multimap<std::pair<std::string, std::int64_t>, std::shared_ptr<HttpExchange>> pending_;
  std::shared_ptr<PlaySession> self_;
};

// A JSON body that must be `message`; else answers 400 (or 415 for
// another content type) saying why.
bool ReadBody(const HttpRequest& http, google::protobuf::Message& message, HttpExchange& exchange) {
  if (!absl::StartsWith(absl::AsciiStrToLower(http.content_type), "application/json")) {
    exchange.Respond(
        415, kJson,
        ErrorJson(grpc::StatusCode::INVALID_ARGUMENT,
                  absl::StrCat(http.path, " takes a JSON body (Content-Type: ",
                               "application/json), not '", engine::Clip(http.content_type), "'")));
    return false;
  }
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  if (const auto parsed = google::protobuf::util::JsonStringToMessage(http.body, &message, options);
      !parsed.ok()) {
    RespondError(exchange, grpc::StatusCode::INVALID_ARGUMENT,
                 absl::StrCat("the body is no ", message.GetDescriptor()->full_name(), ": ",
                              engine::Clip(std::string(parsed.message()))));
    return false;
  }
  return true;
}

// "/api/v1/matches/m12/events" after "/api/v1/matches/": {"m12", "events"}.
std::vector<std::string> Segments(absl::string_view path, absl::string_view prefix) {
  if (!absl::ConsumePrefix(&path, prefix)) return {};
  return absl::StrSplit(path, '/');
}

bool IsMatchId(const std::string& id) {
  return !id.empty() && id.size() <= 64 &&
         id.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") ==
             std::string::npos;
}

bool IsTournamentId(const std::string& id) {
  return !id.empty() && id.size() <= 18 && id.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

struct WebServer::Impl {
  WebOptions options;
  ServerCore* core = nullptr;
  // The API on a server of the face's own, without a port: every route is
  // a call to it.
  std::unique_ptr<Api> api;
  std::unique_ptr<grpc::Server> api_server;
  std::unique_ptr<hoard::v1::Arena::Stub> arena;
  std::unique_ptr<hoard::v1::Tournaments::Stub> tournaments;
  Calls calls;
  EventTexts event_texts;
  PlaySessions play_sessions;
  std::unique_ptr<HttpServer> http;

  // Makes an RPC with `invoke(context, request, response, done)`, the
  // caller's credentials passed on; `done(status, response)` runs on a gRPC
  // thread when it ends.
  template <typename Request, typename Response, typename Invoke, typename Done>
  void Rpc(const HttpRequest& http_request, HttpExchange& exchange, Request request, Invoke invoke,
           Done done) {
    struct Unary : Call {
      Request request;
      Response response;
    };
    auto call = std::make_shared<Unary>();
    call->request = std::move(request);
    call->context.set_deadline(std::chrono::system_clock::now() + kCallDeadline);
    if (!http_request.authorization.empty()) {
      call->context.AddMetadata("authorization", http_request.authorization);
    }
    call->context.AddMetadata(kClientAddressMetadata, http_request.client);
    std::uint64_t id = 0;
    if (!calls.Add(call, &id)) {
      return RespondError(exchange, grpc::StatusCode::UNAVAILABLE, "the server is stopping");
    }
    invoke(&call->context, &call->request, &call->response,
           [this, call, id, done = std::move(done)](grpc::Status status) mutable {
             done(status, call->response);
             calls.Remove(id);
           });
  }

  // A unary RPC behind GET: request from the path and query, the response
  // as JSON (indented, or on one line for the largest answers), an RPC error
  // as its HTTP status and {"code", "message"}.
  template <typename Request, typename Response, typename Invoke>
  void Unary(const HttpRequest& http_request, const std::shared_ptr<HttpExchange>& exchange,
             const PathFields& path_fields, Invoke invoke, bool one_line = false) {
    Request request;
    if (!ReadRequest(http_request, path_fields, request, *exchange)) return;
    Rpc<Request, Response>(
        http_request, *exchange, std::move(request), invoke,
        [exchange, one_line](const grpc::Status& status, const Response& response) {
          if (!status.ok()) {
            return RespondError(*exchange, status.error_code(), status.error_message());
          }
          exchange->Respond(200, kJson, Json(response, one_line));
        });
  }

  // An event stream after a read that says whether it may be watched (a
  // missing match is an HTTP error, not a stream that ends at once).
  template <typename Message, typename CheckRequest, typename CheckResponse, typename WatchRequest,
            typename Check, typename Open>
  void Events(const HttpRequest& http_request, const std::shared_ptr<HttpExchange>& exchange,
              const std::string& kind, CheckRequest check_request, Check check, WatchRequest watch,
              Open open) {
    const bool head = http_request.method == "HEAD";
    if (!head) {
      if (absl::Status reserved = exchange->ReserveStream(); !reserved.ok()) {
        return RespondError(*exchange, grpc::StatusCode::UNAVAILABLE,
                            std::string(reserved.message()));
      }
    }
    Rpc<CheckRequest, CheckResponse>(
        http_request, *exchange, std::move(check_request), check,
        [this, exchange, head, kind, watch, open, authorization = http_request.authorization,
         client = http_request.client](const grpc::Status& status, const CheckResponse&) {
          if (!status.ok()) {
            return RespondError(*exchange, status.error_code(), status.error_message());
          }
          if (head) return exchange->Respond(200, "text/event-stream", "");
          EventRelay<WatchRequest, Message>::Start(&calls, &event_texts, exchange, authorization,
                                                   client, kind, watch, open);
        });
  }

  void Handle(const HttpRequest& request, const std::shared_ptr<HttpExchange>& exchange);
  void HandlePlay(const HttpRequest& request, const std::shared_ptr<HttpExchange>& exchange);
  bool HandleApi(const HttpRequest& request, const std::shared_ptr<HttpExchange>& exchange);
};

bool WebServer::Impl::HandleApi(const HttpRequest& request,
                                const std::shared_ptr<HttpExchange>& exchange) {
  using namespace hoard::v1;  // NOLINT: the messages of the API
  const std::string& path = request.path;
  if (path == "/api/v1/games") {
    Unary<ListGamesRequest, ListGamesResponse>(
        request, exchange, {}, [this](auto... a) { arena->async()->ListGames(a...); });
  } else if (path == "/api/v1/bots") {
    Unary<ListBotsRequest, ListBotsResponse>(request, exchange, {},
                                             [this](auto... a) { arena->async()->ListBots(a...); });
  } else if (path == "/api/v1/matches") {
    Unary<ListMatchesRequest, ListMatchesResponse>(
        request, exchange, {}, [this](auto... a) { arena->async()->ListMatches(a...); });
  } else if (std::vector<std::string> match = Segments(path, "/api/v1/matches/");
             !match.empty() && match.size() <= 2 && IsMatchId(match[0])) {
    const PathFields fields = {{"match_id", match[0]}};
    if (match.size() == 1) {
      Unary<GetMatchRequest, GetMatchResponse>(
          request, exchange, fields, [this](auto... a) { arena->async()->GetMatch(a...); });
    } else if (match[1] == "replay") {
      // A step per action: on one line, a long match's replay is half the bytes.
      Unary<ReplayMatchRequest, ReplayMatchResponse>(
          request, exchange, fields, [this](auto... a) { arena->async()->ReplayMatch(a...); },
          /*one_line=*/true);
    } else if (match[1] == "events") {
      GetMatchRequest get;
      get.set_match_id(match[0]);
      WatchMatchRequest watch;  // from_start=true: the play so far too
      if (!ReadRequest(request, fields, watch, *exchange)) return true;
      Events<MatchEvent, GetMatchRequest, GetMatchResponse>(
          request, exchange, "match", get, [this](auto... a) { arena->async()->GetMatch(a...); },
          watch, [this](auto... a) { arena->async()->WatchMatch(a...); });
    } else {
      return false;
    }
  } else if (path == "/api/v1/tournaments") {
    Unary<ListTournamentsRequest, ListTournamentsResponse>(
        request, exchange, {}, [this](auto... a) { tournaments->async()->ListTournaments(a...); });
  } else if (std::vector<std::string> tournament = Segments(path, "/api/v1/tournaments/");
             !tournament.empty() && tournament.size() <= 2 && IsTournamentId(tournament[0])) {
    if (tournament.size() == 1) {
      Unary<GetTournamentRequest, Tournament>(
          request, exchange, {{"id", tournament[0]}},
          [this](auto... a) { tournaments->async()->GetTournament(a...); });
    } else if (tournament[1] == "events") {
      std::int64_t id = 0;
      (void)absl::SimpleAtoi(tournament[0], &id);
      GetTournamentRequest get;
      get.set_id(id);
      WatchTournamentRequest watch;
      watch.set_id(id);
      Events<Tournament, GetTournamentRequest, Tournament>(
          request, exchange, "tournament", get,
          [this](auto... a) { tournaments->async()->GetTournament(a...); }, watch,
          [this](auto... a) { tournaments->async()->WatchTournament(a...); });
    } else {
      return false;
    }
  } else if (path == "/api/v1/leaderboard") {
    Unary<GetLeaderboardRequest, Leaderboard>(
        request, exchange, {}, [this](auto... a) { tournaments->async()->GetLeaderboard(a...); });
  } else if (path == "/api/v1/head-to-head") {
    Unary<GetHeadToHeadRequest, HeadToHeadTable>(
        request, exchange, {}, [this](auto... a) { tournaments->async()->GetHeadToHead(a...); });
  } else if (path == "/api/v1/results") {
    Unary<ListResultsRequest, ListResultsResponse>(
        request, exchange, {}, [this](auto... a) { tournaments->async()->ListResults(a...); });
  } else {
    return false;
  }
  return true;
}

// The routes of a seat played from a page (PlaySession): the only ones
// that take POST, and only POST.
void WebServer::Impl::HandlePlay(const HttpRequest& request,
                                 const std::shared_ptr<HttpExchange>& exchange) {
  if (request.method != "POST") {
    return exchange->Respond(405, kJson,
                             ErrorJson(grpc::StatusCode::UNIMPLEMENTED,
                                       absl::StrCat(request.method, " ", request.path,
                                                    ": a seat is played with POST only")),
                             {{"Allow", "POST"}});
  }
  if (request.path == "/api/v1/play") {
    hoard::v1::Hello hello;
    if (!ReadBody(request, hello, *exchange)) return;
    // The page shows every action in words, the play as it happens, and
    // each answer's result.
    switch (hello.identity_case()) {
      case hoard::v1::Hello::kRegister:
        hello.mutable_register_()->set_describe_actions(true);
        hello.mutable_register_()->set_acknowledge_answers(true);
        hello.mutable_register_()->set_events(hoard::v1::EVENT_DELIVERY_STREAM);
        break;
      case hoard::v1::Hello::kJoin:
        hello.mutable_join()->set_describe_actions(true);
        hello.mutable_join()->set_acknowledge_answers(true);
        hello.mutable_join()->set_events(hoard::v1::EVENT_DELIVERY_STREAM);
        break;
      case hoard::v1::Hello::IDENTITY_NOT_SET:
        return RespondError(*exchange, grpc::StatusCode::UNAUTHENTICATED,
                            "the hello carries no credentials: set join (match_id and "
                            "seat_token) or register (name and key)");
    }
    if (absl::Status reserved = exchange->ReserveStream(); !reserved.ok()) {
      return RespondError(*exchange, grpc::StatusCode::UNAVAILABLE,
                          std::string(reserved.message()));
    }
    return PlaySession::Start(&play_sessions, &calls, arena.get(), exchange, request.client,
                              std::move(hello));
  }
  // POST /api/v1/play/answer: {"session": ID, "answer": hoard.v1.Answer}.
  google::protobuf::Struct body;
  if (!ReadBody(request, body, *exchange)) return;
  const auto& fields = body.fields();
  for (const auto& [name, value] : fields) {
    if (name != "session" && name != "answer") {
      return RespondError(*exchange, grpc::StatusCode::INVALID_ARGUMENT,
                          absl::StrCat("unknown field '", engine::Clip(name),
                                       "': the body is {\"session\": ID, \"answer\": ANSWER}"));
    }
  }
  auto session_field = fields.find("session");
  if (session_field == fields.end() || !session_field->second.has_string_value()) {
    return RespondError(*exchange, grpc::StatusCode::UNAUTHENTICATED,
                        "the body names no session (the id the play stream's first event gave)");
  }
  hoard::v1::Answer answer;
  if (auto it = fields.find("answer"); it != fields.end()) {
    std::string json;
    (void)google::protobuf::util::MessageToJsonString(it->second, &json);
    if (const auto parsed = google::protobuf::util::JsonStringToMessage(json, &answer);
        !parsed.ok()) {
      return RespondError(*exchange, grpc::StatusCode::INVALID_ARGUMENT,
                          absl::StrCat("the answer is no hoard.v1.Answer: ",
                                       engine::Clip(std::string(parsed.message()))));
    }
  }
  std::shared_ptr<PlaySession> session = play_sessions.Find(session_field->second.string_value());
  if (session == nullptr) {
    return RespondError(*exchange, grpc::StatusCode::UNAUTHENTICATED,
                        "no open play session has this id: it has ended, or never was (open one "
                        "with POST /api/v1/play)");
  }
  if (session->client() != request.client) {
    return RespondError(*exchange, grpc::StatusCode::PERMISSION_DENIED,
                        "this play session was opened from another address");
  }
  session->Answer(std::move(answer), exchange);
}

void WebServer::Impl::Handle(const HttpRequest& request,
                             const std::shared_ptr<HttpExchange>& exchange) {
  if (request.path == "/api/v1/play" || request.path == "/api/v1/play/answer") {
    return HandlePlay(request, exchange);
  }
  // Nothing else changes state.
  if (request.method != "GET" && request.method != "HEAD") {
    return exchange->Respond(
        405, kJson,
        ErrorJson(grpc::StatusCode::UNIMPLEMENTED,
                  absl::StrCat(request.method, " ", request.path,
                               ": the web API is read-only (GET and HEAD only)")),
        {{"Allow", "GET, HEAD"}});
  }
  if (HandleApi(request, exchange)) return;
  // The web app, from memory.
  for (const WebAsset& asset : WebAssets()) {
    if (request.path == asset.path ||
        (request.path == "/" && std::string_view(asset.path) == "/index.html")) {
      return exchange->Respond(200, asset.content_type, asset.body,
                               {{"Cache-Control", "no-cache"}});
    }
  }
  if (request.path == "/openapi.json") {
    return exchange->Respond(200, kJson, OpenApiDocument());
  }
  // Browsers that do not read the page's icon link still ask /favicon.ico.
  if (request.path == "/favicon.svg" || request.path == "/favicon.ico") {
    return exchange->Respond(200, "image/svg+xml", kFavicon, {{"Cache-Control", "max-age=86400"}});
  }
  if (request.path == "/metrics") {
    // Whoever may read may read the metrics: on a private server, a token
    // (asked of the server as for any read).
    return Rpc<hoard::v1::ListGamesRequest, hoard::v1::ListGamesResponse>(
        request, *exchange, {}, [this](auto... a) { arena->async()->ListGames(a...); },
        [this, exchange](const grpc::Status& status, const hoard::v1::ListGamesResponse&) {
          if (!status.ok()) {
            return RespondError(*exchange, status.error_code(), status.error_message());
          }
          exchange->Respond(200, "text/plain; version=0.0.4; charset=utf-8", core->MetricsText());
        });
  }
  RespondError(
      *exchange, grpc::StatusCode::NOT_FOUND,
      absl::StrCat("no page ", request.path, " (the API is under /api/v1; see /openapi.json)"));
}

absl::StatusOr<std::unique_ptr<WebServer>> WebServer::Start(const WebOptions& options,
                                                            ServerCore* core) {
  const std::size_t colon = options.listen.rfind(':');
  int port = -1;
  if (colon == std::string::npos || !absl::SimpleAtoi(options.listen.substr(colon + 1), &port) ||
      port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--http: '", options.listen, "' is not HOST:PORT"));
  }
  std::string host = options.listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->core = core;
  impl->api = std::make_unique<Api>(core, static_cast<std::size_t>(options.max_queued_bytes),
                                    /*forwarded_addresses=*/true);
  grpc::ServerBuilder builder;
  impl->api->AddTo(builder);
  impl->api_server = builder.BuildAndStart();
  if (impl->api_server == nullptr) return absl::InternalError("--http: the API did not start");
  // Within the process: a long match's replay may pass the default 4 MiB.
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  const std::shared_ptr<grpc::Channel> channel = impl->api_server->InProcessChannel(args);
  impl->arena = hoard::v1::Arena::NewStub(channel);
  impl->tournaments = hoard::v1::Tournaments::NewStub(channel);
  Impl* raw = impl.get();
  HttpServerOptions http;
  http.host = host;
  http.port = port;
  http.limits = options.limits;
  http.handler = [raw](const HttpRequest& request, const std::shared_ptr<HttpExchange>& exchange) {
    raw->Handle(request, exchange);
  };
  http.headers = SecurityHeaders();
  http.error_body = [](const absl::Status& status) {
    return ErrorJson(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
  };
  absl::StatusOr<std::unique_ptr<HttpServer>> started = HttpServer::Start(std::move(http));
  if (!started.ok()) {
    return absl::Status(started.status().code(),
                        absl::StrCat("--http: ", started.status().message()));
  }
  impl->http = *std::move(started);
  return std::unique_ptr<WebServer>(new WebServer(std::move(impl)));
}

WebServer::WebServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

WebServer::~WebServer() { Stop(); }

int WebServer::port() const { return impl_->http->port(); }

HttpServer::Counts WebServer::counts() const { return impl_->http->counts(); }

void WebServer::Stop() {
  if (!impl_->http) return;
  impl_->http->CloseAll();
  impl_->calls.CancelAllAndWait();
  impl_->http->Stop();
  impl_->http.reset();
  impl_->api_server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
}

}  // namespace hoard::service
