#include "bots/client.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "hoard/v1/arena.grpc.pb.h"

namespace hoard::bots {
namespace {

class FirstStrategy final : public Strategy {
 public:
  hoard::v1::Answer Decide(const hoard::v1::DecisionRequest&, const MatchHistory&) override {
    hoard::v1::Answer answer;
    answer.set_legal_index(0);
    return answer;
  }
};

bool IsFatal(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAUTHENTICATED || code == grpc::StatusCode::PERMISSION_DENIED ||
         code == grpc::StatusCode::INVALID_ARGUMENT || code == grpc::StatusCode::NOT_FOUND ||
         code == grpc::StatusCode::UNIMPLEMENTED;
}

}  // namespace

hoard::v1::Answer RandomStrategy::Decide(const hoard::v1::DecisionRequest& request,
                                         const MatchHistory&) {
  hoard::v1::Answer answer;
  const int size = request.legal_actions_size();
  answer.set_legal_index(size > 0 ? static_cast<int>(rng_.Uniform(size)) : 0);
  return answer;
}

absl::StatusOr<std::unique_ptr<Strategy>> MakeStrategy(const std::string& name,
                                                       std::uint64_t seed) {
  if (name == "random") return std::make_unique<RandomStrategy>(seed);
  if (name == "first") return std::make_unique<FirstStrategy>();
  return absl::NotFoundError(
      absl::StrCat("unknown strategy '", name, "' (strategies: random, first)"));
}

BotClient::BotClient(std::shared_ptr<grpc::Channel> channel, ClientOptions options,
                     std::unique_ptr<Strategy> strategy)
    : channel_(std::move(channel)), options_(std::move(options)), strategy_(std::move(strategy)) {}

BotClient::~BotClient() { Stop(); }

void BotClient::Stop() {
  stopping_ = true;
  DropConnection();
}

void BotClient::DropConnection() {
  absl::MutexLock lock(&mu_);
  if (context_ != nullptr) context_->TryCancel();
}

ClientStats BotClient::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

absl::Status BotClient::Run() {
  if (options_.stop_flag == nullptr) return Play();
  // Run() blocks in a stream's Read(), so a thread of its own looks at the flag.
  absl::Notification played;
  std::thread watcher([this, &played] {
    while (!played.WaitForNotificationWithTimeout(kStopFlagPoll)) {
      if (options_.stop_flag->load()) {
        Stop();
        return;
      }
    }
  });
  absl::Status status = Play();
  played.Notify();
  watcher.join();
  return status;
}

absl::Status BotClient::Play() {
  int failures = 0;
  while (!stopping_) {
    const absl::Status status = PlayOnce();
    if (stopping_ || status.ok()) return absl::OkStatus();
    if (IsFatal(static_cast<grpc::StatusCode>(status.code())) || !options_.reconnect) {
      return status;
    }
    if (options_.log)
      options_.log(absl::StrCat("stream ended (", status.message(), "); reconnecting"));
    {
      absl::MutexLock lock(&mu_);
      ++stats_.reconnects;
    }
    // Back off a little more after each failure in a row, up to 1 s, and
    // come back as soon as the channel connects.
    AwaitChannel(absl::Milliseconds(std::min(1000, 50 << std::min(failures++, 5))));
  }
  return absl::OkStatus();
}

void BotClient::AwaitChannel(absl::Duration pause) {
  const absl::Time until = absl::Now() + pause;
  channel_->GetState(/*try_to_connect=*/true);
  // Slices, so that Stop() is noticed.
  while (!stopping_ && absl::Now() < until) {
    const absl::Time slice = std::min(until, absl::Now() + absl::Milliseconds(100));
    if (channel_->WaitForConnected(absl::ToChronoTime(slice))) return;
  }
}

hoard::v1::Answer BotClient::AnswerFor(const hoard::v1::DecisionRequest& request) {
  auto it = answered_.find(request.match_id());
  if (request.resent() && it != answered_.end() && it->second.first == request.request_id()) {
    absl::MutexLock lock(&mu_);
    ++stats_.resent_answers;
    return it->second.second;
  }
  static const MatchHistory kNone;
  auto heard = heard_.find(request.match_id());
  hoard::v1::Answer answer =
      strategy_->Decide(request, heard == heard_.end() ? kNone : heard->second.history);
  answer.set_match_id(request.match_id());
  answer.set_request_id(request.request_id());
  answered_[request.match_id()] = {request.request_id(), answer};
  return answer;
}

void BotClient::Hear(const hoard::v1::MatchEvent& event) {
  MatchHistory& history = heard_[event.match_id()].history;
  // Far more than any match's events; a bound against a server that never
  // ends a match.
  constexpr std::size_t kMaxHistory = 1 << 20;
  if (history.size() < kMaxHistory) history.push_back(event);
  {
    absl::MutexLock lock(&mu_);
    ++stats_.events;
  }
  strategy_->OnEvent(event);
}

void BotClient::HearEventsOf(const hoard::v1::DecisionRequest& request) {
  if (request.events().empty()) return;
  Heard& heard = heard_[request.match_id()];
  if (heard.request_id != request.request_id()) {
    heard.request_id = request.request_id();
    heard.request_events = 0;
  }
  for (int i = heard.request_events; i < request.events_size(); ++i) Hear(request.events(i));
  heard.request_events = std::max(heard.request_events, request.events_size());
}

absl::Status BotClient::PlayOnce() {
  hoard::v1::Arena::Stub stub(channel_);
  grpc::ClientContext context;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return absl::OkStatus();
    context_ = &context;
  }
  auto stream = stub.Play(&context);
  hoard::v1::BotMessage hello;
  if (!options_.seat_token.empty()) {
    hello.mutable_hello()->mutable_join()->set_match_id(options_.match_id);
    hello.mutable_hello()->mutable_join()->set_seat_token(options_.seat_token);
    hello.mutable_hello()->mutable_join()->set_events(options_.events);
  } else {
    hello.mutable_hello()->mutable_register_()->set_name(options_.name);
    hello.mutable_hello()->mutable_register_()->set_key(options_.key);
    hello.mutable_hello()->mutable_register_()->set_max_matches(options_.max_matches);
    for (const std::string& ladder : options_.ladders) {
      hello.mutable_hello()->mutable_register_()->add_ladders(ladder);
    }
    hello.mutable_hello()->mutable_register_()->set_events(options_.events);
  }
  stream->Write(hello);

  // The open request of each match, to decide again after a refusal.
  std::map<std::string, hoard::v1::DecisionRequest> open;
  // The matches seated and not finished (whether a challenge finds room).
  std::set<std::string> playing;
  bool done = false;
  hoard::v1::ServerMessage message;
  while (!done && stream->Read(&message)) {
    switch (message.kind_case()) {
      case hoard::v1::ServerMessage::kDecision: {
        const hoard::v1::DecisionRequest& request = message.decision();
        HearEventsOf(request);
        hoard::v1::BotMessage reply;
        *reply.mutable_answer() = AnswerFor(request);
        stream->Write(reply);
        // Kept (moved, not copied: parsed once) to decide again if refused.
        open[request.match_id()].Swap(message.mutable_decision());
        absl::MutexLock lock(&mu_);
        ++stats_.decisions;
        break;
      }
      case hoard::v1::ServerMessage::kAnswerResult: {
        const hoard::v1::AnswerResult& result = message.answer_result();
        if (result.accepted()) break;
        {
          absl::MutexLock lock(&mu_);
          ++stats_.refused_answers;
        }
        if (options_.log) {
          options_.log(absl::StrCat(result.match_id(), ": answer refused: ", result.reason()));
        }
        auto it = open.find(result.match_id());
        if (result.may_retry() && it != open.end() &&
            it->second.request_id() == result.request_id()) {
          // Refused: a new choice, which replaces the one remembered.
          hoard::v1::DecisionRequest again = it->second;
          again.set_resent(false);
          hoard::v1::BotMessage reply;
          *reply.mutable_answer() = AnswerFor(again);
          stream->Write(reply);
        }
        break;
      }
      case hoard::v1::ServerMessage::kEvent:
        Hear(message.event());
        if (message.event().has_finished()) {
          // Finished or aborted: its answers and history are not needed any more.
          open.erase(message.event().match_id());
          playing.erase(message.event().match_id());
          answered_.erase(message.event().match_id());
          heard_.erase(message.event().match_id());
          absl::MutexLock lock(&mu_);
          ++stats_.matches_finished;
          if (options_.log) options_.log(absl::StrCat(message.event().match_id(), ": finished"));
          if (options_.stop_after_matches > 0 &&
              stats_.matches_finished >= options_.stop_after_matches) {
            done = true;
          }
        }
        break;
      case hoard::v1::ServerMessage::kChallengeOffer: {
        const hoard::v1::ChallengeOffer& offer = message.challenge_offer();
        const bool accept =
            options_.accept_challenges && static_cast<int>(playing.size()) < options_.max_matches;
        hoard::v1::BotMessage reply;
        reply.mutable_challenge_answer()->set_challenge_id(offer.challenge_id());
        reply.mutable_challenge_answer()->set_accept(accept);
        stream->Write(reply);
        if (options_.log) {
          options_.log(absl::StrCat("challenge ", offer.challenge_id(), " from ",
                                    offer.challenger(), " (", offer.game(),
                                    "): ", accept ? "accepted" : "declined"));
        }
        break;
      }
      case hoard::v1::ServerMessage::kSeated:
        playing.insert(message.seated().match_id());
        if (options_.log) {
          const hoard::v1::Seated& seated = message.seated();
          options_.log(
              absl::StrCat(seated.match_id(), ": seated as seat ", seated.seat(), " of ",
                           seated.players(), " (", seated.game(), ")",
                           seated.seed_commitment().empty()
                               ? ""
                               : absl::StrCat(", deal commitment ", seated.seed_commitment())));
        }
        break;
      case hoard::v1::ServerMessage::kError:
        if (options_.log) options_.log(absl::StrCat("server: ", message.error().message()));
        break;
      default:
        break;
    }
  }
  if (done) {
    stream->WritesDone();
    context.TryCancel();
  }
  const grpc::Status status = stream->Finish();
  {
    absl::MutexLock lock(&mu_);
    context_ = nullptr;
  }
  if (done) return absl::OkStatus();
  if (status.ok()) return absl::UnavailableError("the server closed the stream");
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

}  // namespace hoard::bots
