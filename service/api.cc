#include "service/api.h"

#include <deque>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "engine/record_json.h"
#include "engine/status_macros.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/support/server_interceptor.h"
#include "hoard/v1/arena.grpc.pb.h"
#include "hoard/v1/tournament.grpc.pb.h"
#include "service/core.h"
#include "service/write_queue.h"
#include "tournament/manager.h"

namespace hoard::service {
namespace {

// A bot's Play stream. Its messages travel as raw bytes, parsed and
// serialized here, so that bytes which are no BotMessage get a clear
// INVALID_ARGUMENT instead of a silent end of the stream.
//
// Reading runs ahead of handling: each message is parsed and stamped with
// when it came as soon as it is read, and the next read starts at once; the
// messages are handled in order, one at a time, by whichever thread finds
// none being handled. An answer is judged by when it came, so time the
// server takes to get to it is not the bot's. At most kMaxUnhandled
// messages, or kMaxUnhandledBytes, wait; past that, reading waits for
// handling.
class PlayReactor final : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>,
                          public Outbox {
 public:
  PlayReactor(Arena* arena, std::size_t max_queued_bytes, std::string address)
      : arena_(arena),
        connection_(std::make_shared<Connection>(this, std::move(address))),
        writes_(this, max_queued_bytes) {
    arena_->ExpectHello(connection_);
    StartRead(&incoming_);
  }

  // Queued as it is; serialized when its turn to be written comes, which is
  // when a decision request's clock starts (service/decision_clock.h).
  void Send(OutgoingMessage message) override {
    if (!writes_.Push(std::move(message))) {
      writes_.Finish(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                  "the bot reads its stream too slowly (--max-queued-bytes)"),
                     /*abandon_queue=*/true);
    }
  }
  bool starts_clocks() const override { return true; }

  // Called by the write queue (holding its lock) for the next message.
  void WriteNext(OutgoingMessage& message, grpc::WriteOptions options) {
    message.StartClock();
    outgoing_.Clear();
    bool own = false;
    // Only a message past protobuf's 2 GiB could fail to serialize (none is
    // built, and the queue's bytes are bounded): it would go out empty.
    if (!grpc::SerializationTraits<hoard::v1::ServerMessage>::Serialize(*message, &outgoing_, &own)
             .ok()) {
      outgoing_.Clear();
    }
    StartWrite(&outgoing_, options);
  }

  void End(const absl::Status& status) override {
    writes_.Finish(ToGrpcStatus(status), /*abandon_queue=*/false);
  }

  void OnReadDone(bool ok) override {
    const SteadyClock::time_point received = SteadyClock::now();
    Received message{.received = received, .bytes = incoming_.Length()};
    if (!ok) {  // the client closed its side, or the call is gone
      CloseAfterInbox(grpc::Status::OK);
      return;
    }
    if (!grpc::SerializationTraits<hoard::v1::BotMessage>::Deserialize(&incoming_, &message.message)
             .ok()) {
      CloseAfterInbox(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                   "the stream sent bytes that are no hoard.v1.BotMessage"));
      return;
    }
    bool read_on = false;
    bool handle = false;
    {
      absl::MutexLock lock(&inbox_mu_);
      inbox_bytes_ += message.bytes;
      inbox_.push_back(std::move(message));
      UpdateOldestUnhandled();
      // Read on while few wait; else the handler reads on once it catches up.
      read_paused_ = InboxFull();
      read_on = !read_paused_;
      handle = !handling_;
      handling_ = true;
    }
    if (read_on) StartRead(&incoming_);
    if (handle) HandleInbox();
  }

  void OnWriteDone(bool ok) override { writes_.OnWriteDone(ok); }

  void OnCancel() override { Close(grpc::Status::CANCELLED, /*abandon_queue=*/true); }

  // gRPC calls it once every reaction has returned, so no message is being
  // handled.
  void OnDone() override {
    arena_->OnStreamClosed(connection_);  // no Send reaches us after this
    {
      absl::MutexLock lock(&inbox_mu_);
      done_ = true;
      if (key_check_pending_) return;  // AfterKeyCheck deletes it
    }
    delete this;
  }

 private:
  // Messages waiting to be handled, at most (in count, and in their bytes
  // on the wire).
  static constexpr std::size_t kMaxUnhandled = 4096;
  static constexpr std::size_t kMaxUnhandledBytes = 4 << 20;

  struct Received {
    hoard::v1::BotMessage message;
    SteadyClock::time_point received;
    std::size_t bytes = 0;
  };

  bool InboxFull() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(inbox_mu_) {
    return inbox_.size() >= kMaxUnhandled || inbox_bytes_ >= kMaxUnhandledBytes;
  }

  // Reading has ended (`status` says why): the stream closes once the
  // messages read before are handled.
  void CloseAfterInbox(grpc::Status status) {
    {
      absl::MutexLock lock(&inbox_mu_);
      if (handling_) {
        close_after_ = std::move(status);
        return;
      }
    }
    Close(std::move(status), /*abandon_queue=*/false);
  }

  // Tells the connection when the oldest message not yet handled came: the
  // one in hand, else the first waiting.
  void UpdateOldestUnhandled() ABSL_EXCLUSIVE_LOCKS_REQUIRED(inbox_mu_) {
    connection_->set_oldest_unhandled(
        in_hand_         ? in_hand_
        : inbox_.empty() ? std::nullopt
                         : std::optional<SteadyClock::time_point>(inbox_.front().received));
  }

  // Handles the inbox in order until it is empty. The caller set handling_:
  // no other thread handles meanwhile. A registering hello whose key needs
  // the slow check leaves handling_ set and returns true: the check's
  // thread goes on with it (AfterKeyCheck) once the key is checked.
  bool HandleInbox() {
    for (;;) {
      Received next;
      {
        absl::MutexLock lock(&inbox_mu_);
        in_hand_.reset();
        if (inbox_.empty() || refused_) {
          inbox_.clear();
          inbox_bytes_ = 0;
          UpdateOldestUnhandled();
          handling_ = false;
          std::optional<grpc::Status> close = std::move(close_after_);
          close_after_.reset();
          if (close && !refused_) {
            inbox_mu_.Unlock();
            Close(std::move(*close), /*abandon_queue=*/false);
            inbox_mu_.Lock();
          }
          return false;
        }
        next = std::move(inbox_.front());
        inbox_.pop_front();
        inbox_bytes_ -= next.bytes;
        in_hand_ = next.received;
        UpdateOldestUnhandled();
      }
      absl::Status checked;
      if (!connection_->identified() && next.message.has_hello()) {
        // Answered here at once, or later on the key checker's thread.
        auto check = std::make_shared<KeyCheck>();
        arena_->BeforeBotMessage(connection_, next.message,
                                 [this, check, message = next](absl::Status status) mutable {
                                   {
                                     absl::MutexLock lock(&check->mu);
                                     if (!check->returned) {
                                       check->outcome = std::move(status);
                                       return;
                                     }
                                   }
                                   AfterKeyCheck(std::move(message), std::move(status));
                                 });
        absl::MutexLock lock(&check->mu);
        check->returned = true;
        if (!check->outcome) {
          absl::MutexLock inbox_lock(&inbox_mu_);
          key_check_pending_ = true;
          return true;
        }
        checked = std::move(*check->outcome);
      }
      Handle(next, std::move(checked));
    }
  }

  // A hello's key check that had to wait is over: the hello is handled,
  // then the rest of the inbox. On the key checker's thread, outside any of
  // gRPC's reactions: while it works, key_check_pending_ keeps OnDone from
  // deleting the reactor, and if the call ended meanwhile it deletes it.
  void AfterKeyCheck(Received hello, absl::Status checked) {
    inbox_mu_.Lock();
    bool done = done_;
    inbox_mu_.Unlock();
    if (!done) {
      Handle(hello, std::move(checked));
      if (HandleInbox()) return;  // another check took over
    }
    inbox_mu_.Lock();
    key_check_pending_ = false;
    done = done_;
    inbox_mu_.Unlock();
    if (done) delete this;
  }

  // Handles one message (`checked`: its key check's outcome).
  void Handle(const Received& next, absl::Status checked) {
    const absl::Status status =
        arena_->OnBotMessage(connection_, next.message, next.received, std::move(checked));
    bool read_on = false;
    {
      absl::MutexLock lock(&inbox_mu_);
      if (!status.ok()) refused_ = true;  // the rest go unhandled
      if (read_paused_ && !refused_ && !close_after_ && !InboxFull()) {
        read_paused_ = false;
        read_on = true;
      }
    }
    if (!status.ok()) Close(ToGrpcStatus(status), /*abandon_queue=*/false);
    if (read_on) StartRead(&incoming_);
  }

  // Whether a key check answered before BeforeBotMessage returned.
  struct KeyCheck {
    absl::Mutex mu;
    bool returned ABSL_GUARDED_BY(mu) = false;
    std::optional<absl::Status> outcome ABSL_GUARDED_BY(mu);
  };

  void Close(grpc::Status status, bool abandon_queue) {
    arena_->OnStreamClosed(connection_);
    writes_.Finish(std::move(status), abandon_queue);
  }

  Arena* const arena_;
  const std::shared_ptr<Connection> connection_;
  grpc::ByteBuffer incoming_;
  absl::Mutex inbox_mu_;
  std::deque<Received> inbox_ ABSL_GUARDED_BY(inbox_mu_);
  std::size_t inbox_bytes_ ABSL_GUARDED_BY(inbox_mu_) = 0;
  bool handling_ ABSL_GUARDED_BY(inbox_mu_) = false;
  // When the message being handled came.
  std::optional<SteadyClock::time_point> in_hand_ ABSL_GUARDED_BY(inbox_mu_);
  // No read is outstanding: the inbox is full.
  bool read_paused_ ABSL_GUARDED_BY(inbox_mu_) = false;
  // A message was refused and the stream is ending: nothing more is handled.
  bool refused_ ABSL_GUARDED_BY(inbox_mu_) = false;
  // Reading has ended: the stream closes with this once the inbox is handled.
  std::optional<grpc::Status> close_after_ ABSL_GUARDED_BY(inbox_mu_);
  // A hello's key check is under way on the checker thread.
  bool key_check_pending_ ABSL_GUARDED_BY(inbox_mu_) = false;
  // gRPC is done with the call.
  bool done_ ABSL_GUARDED_BY(inbox_mu_) = false;
  // The message being written (one at a time).
  grpc::ByteBuffer outgoing_;
  WriteQueue<PlayReactor, OutgoingMessage> writes_;
};

// Requests that are no message of their method (unary, or the one message
// that opens a server stream): gRPC answers them UNIMPLEMENTED (or
// INTERNAL) with no message, which no handler here ever does; they get
// INVALID_ARGUMENT saying what is wrong.
class MalformedRequests final : public grpc::experimental::Interceptor {
 public:
  explicit MalformedRequests(const char* method) : method_(method == nullptr ? "" : method) {}
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_STATUS)) {
      const grpc::Status status = methods->GetSendStatus();
      if ((status.error_code() == grpc::StatusCode::UNIMPLEMENTED ||
           status.error_code() == grpc::StatusCode::INTERNAL) &&
          status.error_message().empty() && method_.rfind("/hoard.v1.", 0) == 0) {
        methods->ModifySendStatus(
            grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                         absl::StrCat("the request is not a valid message for ", method_)));
      }
    }
    methods->Proceed();
  }

 private:
  const std::string method_;
};

class MalformedRequestsFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    // Play parses its own messages (bytes) and says what is wrong itself;
    // without an interceptor its every read and write skips the
    // interception machinery.
    if (info->type() == grpc::experimental::ServerRpcInfo::Type::BIDI_STREAMING) return nullptr;
    return new MalformedRequests(info->method());
  }
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

  explicit RelayedStream(std::size_t max_queued_bytes)
      : relay_(std::make_shared<StreamRelay>(this)), writes_(this, max_queued_bytes) {}
  void Push(const Message& message) {
    if (!writes_.Push(message)) {
      writes_.Finish(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                  "the client reads its stream too slowly (--max-queued-bytes)"),
                     true);
    }
  }
  void End() { writes_.Finish(grpc::Status::OK, false); }
  void WriteNext(const Message& message, grpc::WriteOptions options) {
    this->StartWrite(&message, options);
  }
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
  WatchReactor(Arena* arena, const hoard::v1::WatchMatchRequest& request,
               std::size_t max_queued_bytes)
      : RelayedStream(max_queued_bytes), arena_(arena), match_id_(request.match_id()) {
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
                                absl::StatusOr<Response> result, Response* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (result.ok()) *response = *std::move(result);
  reactor->Finish(ToGrpcStatus(result.status()));
  return reactor;
}

class TournamentWatchReactor final
    : public RelayedStream<tournament::TournamentWatcher, hoard::v1::Tournament> {
 public:
  TournamentWatchReactor(tournament::TournamentManager* manager,
                         const hoard::v1::WatchTournamentRequest& request, bool admin,
                         std::size_t max_queued_bytes)
      : RelayedStream(max_queued_bytes) {
    const absl::Status status = manager->Watch(request, relay_, admin);
    if (!status.ok()) Refuse(status);
  }
};

// A server stream refused before it starts.
template <typename Message>
grpc::ServerWriteReactor<Message>* Refused(const absl::Status& status) {
  class Refusal final : public grpc::ServerWriteReactor<Message> {
   public:
    explicit Refusal(const absl::Status& status) { this->Finish(ToGrpcStatus(status)); }
    void OnDone() override { delete this; }
  };
  return new Refusal(status);
}

// PlayMatch: the call stays open while its match is played, and is
// answered with the match and its record at the end. A client that goes
// away leaves the match to finish as CreateMatch's would.
class PlayMatchReactor final : public grpc::ServerUnaryReactor {
 public:
  explicit PlayMatchReactor(hoard::v1::GetMatchResponse* response)
      : call_(std::make_shared<Call>(this, response)) {}

  void Start(Arena* arena, const hoard::v1::CreateMatchRequest& request,
             const std::string& creator) {
    for (const hoard::v1::SeatSpec& seat : request.seats()) {
      if (seat.has_open()) {
        call_->End(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                "PlayMatch takes no open seats: their tokens would come only "
                                "when the match is over (CreateMatch hands them out)"));
        return;
      }
    }
    MatchHooks hooks;
    hooks.on_finished = [call = call_](hoard::v1::Match match, hoard::v1::MatchRecord record) {
      // Its caller is given the record whole, as GetMatch gives it.
      absl::StatusOr<hoard::v1::MatchRecord> expanded = engine::ExpandRecordProto(record);
      call->Over(std::move(match), expanded.ok() ? *std::move(expanded) : std::move(record));
    };
    absl::StatusOr<hoard::v1::CreateMatchResponse> created =
        arena->CreateMatch(request, std::move(hooks), creator);
    if (!created.ok()) call_->End(ToGrpcStatus(created.status()));
  }

  void OnCancel() override { call_->End(grpc::Status::CANCELLED); }
  void OnDone() override { delete this; }

 private:
  // What the match's end and the call's cancellation share: whichever comes
  // first answers, and the reactor is not touched after that.
  class Call {
   public:
    Call(PlayMatchReactor* reactor, hoard::v1::GetMatchResponse* response)
        : reactor_(reactor), response_(response) {}

    void Over(hoard::v1::Match match, hoard::v1::MatchRecord record) {
      absl::MutexLock lock(&mu_);
      if (reactor_ == nullptr) return;
      if (match.status() != hoard::v1::MATCH_STATUS_FINISHED) {
        FinishLocked(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                  absl::StrCat("match ", match.match_id(),
                                               " was aborted before it was over: the server "
                                               "is stopping")));
        return;
      }
      *response_->mutable_match() = std::move(match);
      *response_->mutable_record() = std::move(record);
      FinishLocked(grpc::Status::OK);
    }

    void End(const grpc::Status& status) {
      absl::MutexLock lock(&mu_);
      if (reactor_ != nullptr) FinishLocked(status);
    }

   private:
    void FinishLocked(const grpc::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      reactor_->Finish(status);
      reactor_ = nullptr;
    }

    absl::Mutex mu_;
    PlayMatchReactor* reactor_ ABSL_GUARDED_BY(mu_);
    hoard::v1::GetMatchResponse* const response_;
  };

  const std::shared_ptr<Call> call_;
};

// Who may call: the server's authenticator, and where a caller's address
// (for limits on wrong keys) comes from.
struct Gate {
  const Authenticator& auth;
  // Every call comes from the web face over its own in-process server,
  // naming its HTTP client's address in kClientAddressMetadata.
  bool forwarded = false;

  std::string AddressOf(const grpc::CallbackServerContext* context) const {
    if (forwarded) {
      const auto& metadata = context->client_metadata();
      if (auto it = metadata.find(kClientAddressMetadata); it != metadata.end()) {
        return std::string(it->second.data(), std::min<std::size_t>(it->second.size(), 64));
      }
    }
    return ClientAddress(context->peer());
  }
};

// What a call needs of its caller.
enum class Need { kRead, kAdmin };

// Who is calling, if they may: the caller of `context` checked for `need`
// (`rpc` names the call in refusals).
absl::StatusOr<Principal> Caller(const Gate& gate, const grpc::CallbackServerContext* context,
                                 Need need, absl::string_view rpc) {
  std::optional<absl::string_view> authorization;
  const auto& metadata = context->client_metadata();
  if (auto it = metadata.find("authorization"); it != metadata.end()) {
    authorization = absl::string_view(it->second.data(), it->second.size());
  }
  absl::StatusOr<Principal> who = gate.auth.Identify(authorization, gate.AddressOf(context));
  if (!who.ok()) return who.status();
  absl::Status allowed =
      need == Need::kAdmin ? gate.auth.CheckAdmin(*who, rpc) : gate.auth.CheckRead(*who);
  if (!allowed.ok()) return allowed;
  return who;
}

// A unary call: its caller checked, then `handler(principal)` answered.
template <typename Response, typename Handler>
grpc::ServerUnaryReactor* Serve(const Gate& gate, grpc::CallbackServerContext* context, Need need,
                                absl::string_view rpc, Response* response, Handler handler) {
  absl::StatusOr<Principal> who = Caller(gate, context, need, rpc);
  if (!who.ok()) return Reply(context, absl::StatusOr<Response>(who.status()), response);
  return Reply(context, absl::StatusOr<Response>(handler(*who)), response);
}

}  // namespace

// hoard.v1.Tournaments over the core's tournaments; while the core runs
// none (no database, or not started yet) every call fails with
// FAILED_PRECONDITION saying so.
class TournamentServiceImpl final : public hoard::v1::Tournaments::CallbackService {
 public:
  TournamentServiceImpl(ServerCore* core, std::size_t max_queued_bytes, bool forwarded)
      : core_(*core), gate_{core->auth(), forwarded}, max_queued_bytes_(max_queued_bytes) {}

  grpc::ServerUnaryReactor* CreateTournament(grpc::CallbackServerContext* context,
                                             const hoard::v1::CreateTournamentRequest* request,
                                             hoard::v1::Tournament* response) override {
    return Serve(gate_, context, Need::kAdmin, "CreateTournament", response,
                 [&](const Principal& who) -> absl::StatusOr<hoard::v1::Tournament> {
                   ASSIGN_OR_RETURN(tournament::TournamentManager * manager, Manager());
                   return manager->Create(*request, who.name);
                 });
  }
  grpc::ServerUnaryReactor* GetTournament(grpc::CallbackServerContext* context,
                                          const hoard::v1::GetTournamentRequest* request,
                                          hoard::v1::Tournament* response) override {
    return Serve(gate_, context, Need::kRead, "GetTournament", response,
                 [&](const Principal& who) -> absl::StatusOr<hoard::v1::Tournament> {
                   ASSIGN_OR_RETURN(tournament::TournamentManager * manager, Manager());
                   return manager->Get(*request, who.is_admin());
                 });
  }
  grpc::ServerUnaryReactor* ListTournaments(grpc::CallbackServerContext* context,
                                            const hoard::v1::ListTournamentsRequest*,
                                            hoard::v1::ListTournamentsResponse* response) override {
    return Serve(gate_, context, Need::kRead, "ListTournaments", response,
                 [&](const Principal& who) -> absl::StatusOr<hoard::v1::ListTournamentsResponse> {
                   ASSIGN_OR_RETURN(tournament::TournamentManager * manager, Manager());
                   return manager->List(who.is_admin());
                 });
  }
  grpc::ServerWriteReactor<hoard::v1::Tournament>* WatchTournament(
      grpc::CallbackServerContext* context,
      const hoard::v1::WatchTournamentRequest* request) override {
    absl::StatusOr<Principal> who = Caller(gate_, context, Need::kRead, "WatchTournament");
    if (!who.ok()) return Refused<hoard::v1::Tournament>(who.status());
    absl::StatusOr<tournament::TournamentManager*> manager = Manager();
    if (!manager.ok()) return Refused<hoard::v1::Tournament>(manager.status());
    return new TournamentWatchReactor(*manager, *request, who->is_admin(), max_queued_bytes_);
  }
  grpc::ServerUnaryReactor* CancelTournament(grpc::CallbackServerContext* context,
                                             const hoard::v1::CancelTournamentRequest* request,
                                             hoard::v1::Tournament* response) override {
    return Serve(gate_, context, Need::kAdmin, "CancelTournament", response,
                 [&](const Principal&) -> absl::StatusOr<hoard::v1::Tournament> {
                   ASSIGN_OR_RETURN(tournament::TournamentManager * manager, Manager());
                   return manager->Cancel(*request);
                 });
  }
  grpc::ServerUnaryReactor* FreezeLadder(grpc::CallbackServerContext* context,
                                         const hoard::v1::FreezeLadderRequest* request,
                                         hoard::v1::Tournament* response) override {
    return Serve(gate_, context, Need::kAdmin, "FreezeLadder", response,
                 [&](const Principal&) -> absl::StatusOr<hoard::v1::Tournament> {
                   ASSIGN_OR_RETURN(tournament::TournamentManager * manager, Manager());
                   return manager->FreezeLadder(*request);
                 });
  }
  grpc::ServerUnaryReactor* GetLeaderboard(grpc::CallbackServerContext* context,
                                           const hoard::v1::GetLeaderboardRequest* request,
                                           hoard::v1::Leaderboard* response) override {
    return Serve(gate_, context, Need::kRead, "GetLeaderboard", response,
                 [&](const Principal&) -> absl::StatusOr<hoard::v1::Leaderboard> {
                   ASSIGN_OR_RETURN(tournament::TournamentManager * manager, Manager());
                   return manager->GetLeaderboard(*request);
                 });
  }
  grpc::ServerUnaryReactor* ListResults(grpc::CallbackServerContext* context,
                                        const hoard::v1::ListResultsRequest* request,
                                        hoard::v1::ListResultsResponse* response) override {
    return Serve(gate_, context, Need::kRead, "ListResults", response,
                 [&](const Principal& who) -> absl::StatusOr<hoard::v1::ListResultsResponse> {
                   ASSIGN_OR_RETURN(tournament::TournamentManager * manager, Manager());
                   return manager->ListResults(*request, who.is_admin());
                 });
  }
  grpc::ServerUnaryReactor* GetHeadToHead(grpc::CallbackServerContext* context,
                                          const hoard::v1::GetHeadToHeadRequest* request,
                                          hoard::v1::HeadToHeadTable* response) override {
    return Serve(gate_, context, Need::kRead, "GetHeadToHead", response,
                 [&](const Principal&) -> absl::StatusOr<hoard::v1::HeadToHeadTable> {
                   ASSIGN_OR_RETURN(tournament::TournamentManager * manager, Manager());
                   return manager->GetHeadToHead(*request);
                 });
  }

 private:
  absl::StatusOr<tournament::TournamentManager*> Manager() const {
    if (tournament::TournamentManager* manager = core_.tournaments()) return manager;
    return absl::FailedPreconditionError(
        "this server keeps no tournaments: start it with --db FILE");
  }

  ServerCore& core_;
  const Gate gate_;
  const std::size_t max_queued_bytes_;
};

// hoard.v1.Arena on the callback API, Play taking raw bytes (PlayReactor).
// Each method is named, so a method added to the service and not here fails
// to compile where this class overrides it.
using ArenaCallbackService = hoard::v1::Arena::WithRawCallbackMethod_Play<
    hoard::v1::Arena::WithCallbackMethod_CreateMatch<hoard::v1::Arena::WithCallbackMethod_PlayMatch<
        hoard::v1::Arena::WithCallbackMethod_GetMatch<
            hoard::v1::Arena::WithCallbackMethod_ListMatches<
                hoard::v1::Arena::WithCallbackMethod_WatchMatch<
                    hoard::v1::Arena::WithCallbackMethod_ReplayMatch<
                        hoard::v1::Arena::WithCallbackMethod_ListGames<
                            hoard::v1::Arena::WithCallbackMethod_ListBots<
                                hoard::v1::Arena::WithCallbackMethod_AddBot<
                                    hoard::v1::Arena::WithCallbackMethod_RevokeBot<
                                        hoard::v1::Arena::Service>>>>>>>>>>>;

class ArenaServiceImpl final : public ArenaCallbackService {
 public:
  ArenaServiceImpl(ServerCore* core, std::size_t max_queued_bytes, bool forwarded)
      : arena_(&core->arena()),
        gate_{core->auth(), forwarded},
        max_queued_bytes_(max_queued_bytes) {}

  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* Play(
      grpc::CallbackServerContext* context) override {
    // A bot proves who it is in its hello.
    return new PlayReactor(arena_, max_queued_bytes_, gate_.AddressOf(context));
  }

  grpc::ServerUnaryReactor* CreateMatch(grpc::CallbackServerContext* context,
                                        const hoard::v1::CreateMatchRequest* request,
                                        hoard::v1::CreateMatchResponse* response) override {
    return Serve(gate_, context, Need::kAdmin, "CreateMatch", response,
                 [&](const Principal& who) { return arena_->CreateMatch(*request, {}, who.name); });
  }

  grpc::ServerUnaryReactor* PlayMatch(grpc::CallbackServerContext* context,
                                      const hoard::v1::CreateMatchRequest* request,
                                      hoard::v1::GetMatchResponse* response) override {
    absl::StatusOr<Principal> who = Caller(gate_, context, Need::kAdmin, "PlayMatch");
    if (!who.ok()) {
      return Reply(context, absl::StatusOr<hoard::v1::GetMatchResponse>(who.status()), response);
    }
    auto* reactor = new PlayMatchReactor(response);
    reactor->Start(arena_, *request, who->name);
    return reactor;
  }

  grpc::ServerUnaryReactor* GetMatch(grpc::CallbackServerContext* context,
                                     const hoard::v1::GetMatchRequest* request,
                                     hoard::v1::GetMatchResponse* response) override {
    return Serve(gate_, context, Need::kRead, "GetMatch", response,
                 [&](const Principal& who) { return arena_->GetMatch(*request, who.is_admin()); });
  }

  grpc::ServerUnaryReactor* ReplayMatch(grpc::CallbackServerContext* context,
                                        const hoard::v1::ReplayMatchRequest* request,
                                        hoard::v1::ReplayMatchResponse* response) override {
    return Serve(gate_, context, Need::kRead, "ReplayMatch", response, [&](const Principal& who) {
      return arena_->ReplayMatch(*request, who.is_admin());
    });
  }

  grpc::ServerUnaryReactor* ListMatches(grpc::CallbackServerContext* context,
                                        const hoard::v1::ListMatchesRequest* request,
                                        hoard::v1::ListMatchesResponse* response) override {
    return Serve(gate_, context, Need::kRead, "ListMatches", response, [&](const Principal& who) {
      return arena_->ListMatches(*request, who.is_admin());
    });
  }

  grpc::ServerUnaryReactor* ListGames(grpc::CallbackServerContext* context,
                                      const hoard::v1::ListGamesRequest*,
                                      hoard::v1::ListGamesResponse* response) override {
    return Serve(gate_, context, Need::kRead, "ListGames", response, [&](const Principal&) {
      return absl::StatusOr<hoard::v1::ListGamesResponse>(arena_->ListGames());
    });
  }

  grpc::ServerUnaryReactor* ListBots(grpc::CallbackServerContext* context,
                                     const hoard::v1::ListBotsRequest*,
                                     hoard::v1::ListBotsResponse* response) override {
    return Serve(gate_, context, Need::kRead, "ListBots", response, [&](const Principal&) {
      return absl::StatusOr<hoard::v1::ListBotsResponse>(arena_->ListBots());
    });
  }

  grpc::ServerUnaryReactor* AddBot(grpc::CallbackServerContext* context,
                                   const hoard::v1::AddBotRequest* request,
                                   hoard::v1::AddBotResponse* response) override {
    return Serve(gate_, context, Need::kAdmin, "AddBot", response,
                 [&](const Principal&) { return arena_->AddBot(*request); });
  }

  grpc::ServerUnaryReactor* RevokeBot(grpc::CallbackServerContext* context,
                                      const hoard::v1::RevokeBotRequest* request,
                                      hoard::v1::RevokeBotResponse* response) override {
    return Serve(gate_, context, Need::kAdmin, "RevokeBot", response,
                 [&](const Principal&) { return arena_->RevokeBot(*request); });
  }

  grpc::ServerWriteReactor<hoard::v1::MatchEvent>* WatchMatch(
      grpc::CallbackServerContext* context, const hoard::v1::WatchMatchRequest* request) override {
    absl::StatusOr<Principal> who = Caller(gate_, context, Need::kRead, "WatchMatch");
    if (!who.ok()) return Refused<hoard::v1::MatchEvent>(who.status());
    return new WatchReactor(arena_, *request, max_queued_bytes_);
  }

 private:
  Arena* const arena_;
  const Gate gate_;
  const std::size_t max_queued_bytes_;
};

grpc::Status ToGrpcStatus(const absl::Status& status) {
  // A backstop: messages quote client strings clipped, but never send more
  // than this.
  constexpr std::size_t kMaxMessage = 1024;
  std::string message(status.message().substr(0, kMaxMessage));
  if (status.message().size() > kMaxMessage) message.replace(kMaxMessage - 3, 3, "...");
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::move(message));
}

Api::Api(ServerCore* core, std::size_t max_queued_bytes, bool forwarded_addresses)
    : arena_(std::make_unique<ArenaServiceImpl>(core, max_queued_bytes, forwarded_addresses)),
      tournaments_(
          std::make_unique<TournamentServiceImpl>(core, max_queued_bytes, forwarded_addresses)) {}

Api::~Api() = default;

void Api::AddTo(grpc::ServerBuilder& builder) {
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(std::make_unique<MalformedRequestsFactory>());
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  builder.RegisterService(arena_.get());
  builder.RegisterService(tournaments_.get());
}

}  // namespace hoard::service
