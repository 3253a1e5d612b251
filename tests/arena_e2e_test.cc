// End-to-end tests of the arena over real gRPC on loopback: a server on a
// free port, and bots connecting to it as any client would.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bots/client.h"
#include "bots/client_auth.h"
#include "engine/record.h"
#include "engine/record_json.h"
#include "engine/rng.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "hoard/v1/arena.grpc.pb.h"
#include "service/grpc_server.h"

namespace hoard {
namespace {

using ::hoard::testing::IsOk;
using ::testing::HasSubstr;
using v1::ServerMessage;

// The admin token of the tests' servers.
constexpr char kAdmin[] = "e2e-admin-token";

std::shared_ptr<grpc::Channel> AdminChannelTo(int port) {
  return bots::AuthorizedChannel(absl::StrCat("127.0.0.1:", port),
                                 grpc::InsecureChannelCredentials(), kAdmin);
}

// Every event WatchMatch streams for `id` until the stream ends (within 30
// s); `status` gets how it ended.
std::vector<v1::MatchEvent> WatchToEnd(v1::Arena::Stub& stub, const std::string& id,
                                       grpc::Status* status) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  v1::WatchMatchRequest watch;
  watch.set_match_id(id);
  auto reader = stub.WatchMatch(&context, watch);
  std::vector<v1::MatchEvent> events;
  v1::MatchEvent event;
  while (reader->Read(&event)) events.push_back(event);
  *status = reader->Finish();
  return events;
}

// What a late spectator of a match that is over must be told: its
// snapshot, then its end, both with `described`'s final table and the
// spectator's view of it (every hand shown), and the stream ends OK.
void ExpectToldTheEnd(const std::vector<v1::MatchEvent>& events, const grpc::Status& status,
                      const v1::Match& described) {
  EXPECT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(events.size(), 2u);
  ASSERT_TRUE(events[0].has_snapshot());
  ASSERT_TRUE(events[1].has_finished());
  for (const v1::Match& told : {events[0].snapshot().match(), events[1].finished().match()}) {
    EXPECT_EQ(told.match_id(), described.match_id());
    EXPECT_EQ(told.status(), v1::MATCH_STATUS_FINISHED);
    EXPECT_EQ(told.actions(), described.actions());
    ASSERT_EQ(told.seats_size(), described.seats_size());
    for (int seat = 0; seat < told.seats_size(); ++seat) {
      EXPECT_EQ(told.seats(seat).rank(), described.seats(seat).rank());
      EXPECT_EQ(told.seats(seat).score(), described.seats(seat).score());
    }
  }
  for (const v1::MatchEvent& event : events) {
    EXPECT_EQ(event.step(), described.actions());
    EXPECT_TRUE(event.view().village().over()) << "no final table in " << event.DebugString();
    for (const v1::VillagePlayer& player : event.view().village().players()) {
      EXPECT_TRUE(player.has_hand()) << "every hand is shown at the end";
    }
  }
}

class ArenaE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    service::ServerOptions options;
    options.grpc.listen = "127.0.0.1:0";
    options.core.limits.max_matches_per_bot = 3;
    options.core.limits.open_registration = true;  // the tests' bots name themselves
    options.core.admin_tokens = {kAdmin};
    absl::StatusOr<std::unique_ptr<service::ArenaServer>> server =
        service::ArenaServer::Start(options);
    ASSERT_THAT(server, IsOk());
    server_ = *std::move(server);
    channel_ = AdminChannelTo(server_->port());
    stub_ = v1::Arena::NewStub(channel_);
  }

  // Seats: "open", "builtin:NAME" or "bot:NAME".
  v1::CreateMatchResponse Create(const std::vector<std::string>& seats, int decision_ms = 5000,
                                 int bank_ms = 30000, int max_strikes = 3, std::uint64_t seed = 7) {
    v1::CreateMatchRequest request;
    request.set_game("village");
    request.set_seed(seed);
    request.mutable_time_control()->set_decision_ms(decision_ms);
    request.mutable_time_control()->set_bank_ms(bank_ms);
    request.mutable_time_control()->set_max_strikes(max_strikes);
    for (const std::string& seat : seats) {
      v1::SeatSpec* spec = request.add_seats();
      if (seat == "open") spec->set_open(true);
      if (seat.rfind("builtin:", 0) == 0) spec->set_builtin(seat.substr(8));
      if (seat.rfind("bot:", 0) == 0) spec->set_bot(seat.substr(4));
    }
    v1::CreateMatchResponse response;
    grpc::ClientContext context;
    const grpc::Status status = stub_->CreateMatch(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  grpc::Status TryCreate(const v1::CreateMatchRequest& request) {
    v1::CreateMatchResponse response;
    grpc::ClientContext context;
    return stub_->CreateMatch(&context, request, &response);
  }

  v1::GetMatchResponse Get(const std::string& id) {
    v1::GetMatchRequest request;
    request.set_match_id(id);
    v1::GetMatchResponse response;
    grpc::ClientContext context;
    EXPECT_TRUE(stub_->GetMatch(&context, request, &response).ok());
    return response;
  }

  // Waits (a bounded time) until the match is over.
  v1::GetMatchResponse AwaitFinished(const std::string& id) {
    for (int i = 0; i < 2000; ++i) {
      v1::GetMatchResponse response = Get(id);
      if (response.match().status() == v1::MATCH_STATUS_FINISHED) return response;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "match " << id << " did not finish";
    return Get(id);
  }

  // Registers a bot per strategy (named PREFIX-0, PREFIX-1, ...), seats
  // them in that order in a match of `game`, and waits until it is over.
  // The bots, and so their strategies, live as long as the test.
  v1::GetMatchResponse PlayRegisteredBots(const std::string& game, std::uint64_t seed,
                                          const std::string& prefix,
                                          std::vector<std::unique_ptr<bots::Strategy>> strategies) {
    std::vector<std::unique_ptr<bots::BotClient>> clients;
    std::vector<std::thread> threads;
    v1::CreateMatchRequest request;
    request.set_game(game);
    request.set_seed(seed);
    for (std::size_t i = 0; i < strategies.size(); ++i) {
      const std::string name = absl::StrCat(prefix, "-", i);
      clients.push_back(std::make_unique<bots::BotClient>(
          channel_, bots::ClientOptions{.name = name, .key = "k", .stop_after_matches = 1},
          std::move(strategies[i])));
      threads.emplace_back([client = clients.back().get()] { EXPECT_THAT(client->Run(), IsOk()); });
      request.add_seats()->set_bot(name);
    }
    v1::CreateMatchResponse created;
    for (int i = 0; i < 3000; ++i) {  // until every bot has registered (30 s)
      grpc::ClientContext context;
      if (stub_->CreateMatch(&context, request, &created).ok()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (created.match_id().empty()) {
      ADD_FAILURE() << "no " << game << " match could be created";
      for (auto& client : clients) client->Stop();
      for (std::thread& t : threads) t.join();
      return {};
    }
    v1::GetMatchResponse finished = AwaitFinished(created.match_id());
    for (std::thread& t : threads) t.join();
    for (auto& client : clients) finished_bots_.push_back(std::move(client));
    return finished;
  }

  std::unique_ptr<service::ArenaServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Arena::Stub> stub_;
  std::vector<std::unique_ptr<bots::BotClient>> finished_bots_;
};

// A bot stream driven by hand. It hears no events (EVENT_DELIVERY_NONE)
// unless asked: its tests read decisions and answers.
class RawBot {
 public:
  explicit RawBot(v1::Arena::Stub* stub) : stream_(stub->Play(&context_)) {}
  ~RawBot() {
    if (finished_) return;
    context_.TryCancel();
    stream_->Finish().IgnoreError();
  }

  void Send(const v1::BotMessage& message) { ASSERT_TRUE(stream_->Write(message)); }
  void Join(const std::string& match, const std::string& token,
            v1::EventDelivery events = v1::EVENT_DELIVERY_NONE) {
    v1::BotMessage hello;
    hello.mutable_hello()->mutable_join()->set_match_id(match);
    hello.mutable_hello()->mutable_join()->set_seat_token(token);
    hello.mutable_hello()->mutable_join()->set_acknowledge_answers(true);
    hello.mutable_hello()->mutable_join()->set_events(events);
    Send(hello);
  }
  void Register(const std::string& name, const std::string& key, int max_matches) {
    v1::BotMessage hello;
    hello.mutable_hello()->mutable_register_()->set_name(name);
    hello.mutable_hello()->mutable_register_()->set_key(key);
    hello.mutable_hello()->mutable_register_()->set_max_matches(max_matches);
    hello.mutable_hello()->mutable_register_()->set_acknowledge_answers(true);
    hello.mutable_hello()->mutable_register_()->set_events(v1::EVENT_DELIVERY_NONE);
    Send(hello);
  }
  bool NextAny(ServerMessage* out) { return stream_->Read(out); }
  // Ends the stream from this side; a read blocked on it returns false.
  void Cancel() { context_.TryCancel(); }
  // The next message of the given kind (others are skipped); false at the end.
  bool Next(ServerMessage::KindCase kind, ServerMessage* out) {
    while (stream_->Read(out)) {
      if (out->kind_case() == kind) return true;
    }
    return false;
  }
  v1::DecisionRequest NextRequest() {
    ServerMessage message;
    EXPECT_TRUE(Next(ServerMessage::kDecision, &message));
    return message.decision();
  }
  v1::AnswerResult AnswerIndex(const v1::DecisionRequest& request, int index);
  v1::AnswerResult SendAnswer(const v1::BotMessage& answer) {
    Send(answer);
    ServerMessage message;
    EXPECT_TRUE(Next(ServerMessage::kAnswerResult, &message));
    return message.answer_result();
  }
  grpc::Status Finish() {
    stream_->WritesDone();
    ServerMessage ignored;
    while (stream_->Read(&ignored)) {
    }
    finished_ = true;
    return stream_->Finish();
  }

 private:
  bool finished_ = false;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::BotMessage, ServerMessage>> stream_;
};

v1::BotMessage Answer(const v1::DecisionRequest& request, int index) {
  v1::BotMessage answer;
  answer.mutable_answer()->set_match_id(request.match_id());
  answer.mutable_answer()->set_request_id(request.request_id());
  answer.mutable_answer()->set_legal_index(index);
  return answer;
}

v1::AnswerResult RawBot::AnswerIndex(const v1::DecisionRequest& request, int index) {
  return SendAnswer(Answer(request, index));
}

bots::ClientOptions JoinOptions(const std::string& match, const std::string& token) {
  bots::ClientOptions options;
  options.match_id = match;
  options.seat_token = token;
  options.stop_after_matches = 1;
  return options;
}

TEST_F(ArenaE2eTest, FourExternalBotsFinishAVillageMatch) {
  const v1::CreateMatchResponse created = Create({"open", "open", "open", "open"});
  ASSERT_EQ(created.seat_tokens_size(), 4);
  std::vector<std::thread> threads;
  for (int seat = 0; seat < 4; ++seat) {
    threads.emplace_back([&, seat] {
      bots::BotClient client(channel_,
                             JoinOptions(created.match_id(), created.seat_tokens(seat).token()),
                             std::make_unique<bots::RandomStrategy>(seat + 1));
      EXPECT_THAT(client.Run(), IsOk());
      EXPECT_EQ(client.stats().matches_finished, 1);
    });
  }
  for (std::thread& thread : threads) thread.join();
  const v1::GetMatchResponse finished = AwaitFinished(created.match_id());
  ASSERT_TRUE(finished.has_record());
  EXPECT_EQ(finished.match().seed(), 7u);
  for (const v1::SeatInfo& seat : finished.match().seats()) {
    EXPECT_GT(seat.answers(), 0);
    EXPECT_EQ(seat.timeouts(), 0);
    EXPECT_GT(seat.mean_round_trip_us(), 0);
  }
  absl::StatusOr<engine::MatchRecord> record = engine::RecordFromProto(finished.record());
  ASSERT_THAT(record, IsOk());
  EXPECT_THAT(engine::VerifyRecord(*record), IsOk());
}

// What a ListeningStrategy heard.
struct Listened {
  int decisions = 0;
  // Decisions whose history was not every event heard so far.
  int histories_behind = 0;
  // Events carried by requests with a view (there should be none).
  int viewed_request_events = 0;
  bots::MatchHistory heard;
  bots::MatchHistory last_history;
};

// Answers at random, keeping every event it is told and the history given
// with each decision.
class ListeningStrategy final : public bots::Strategy {
 public:
  ListeningStrategy(std::uint64_t seed, Listened* out) : random_(seed), out_(out) {}
  v1::Answer Decide(const v1::DecisionRequest& request,
                    const bots::MatchHistory& history) override {
    ++out_->decisions;
    if (history.size() != out_->heard.size()) ++out_->histories_behind;
    out_->last_history = history;
    for (const v1::MatchEvent& event : request.events()) {
      if (event.has_view()) ++out_->viewed_request_events;
    }
    return random_.Decide(request, history);
  }
  void OnEvent(const v1::MatchEvent& event) override { out_->heard.push_back(event); }

 private:
  bots::RandomStrategy random_;
  Listened* out_;
};

// What the events tell of the actions: each revealed action's seat and text,
// in the order told, and how many answers were told as sealed.
struct ToldActions {
  std::vector<std::pair<int, std::string>> revealed;
  int sealed = 0;
};
ToldActions ActionsTold(const bots::MatchHistory& events) {
  ToldActions told;
  for (const v1::MatchEvent& event : events) {
    if (!event.has_action_taken()) continue;
    if (event.action_taken().has_action()) {
      told.revealed.emplace_back(event.action_taken().seat(), event.action_taken().text());
    } else {
      EXPECT_EQ(event.action_taken().text(), "answered (sealed)");
      ++told.sealed;
    }
  }
  return told;
}

// A Hedonia match (sealed claims every round) with a C++ bot in seat 0,
// hearing events as it asks, against two built-in bots.
TEST_F(ArenaE2eTest, ASeatIsToldEveryActionWithItsOwnViewAndItsHistoryInEachDecision) {
  struct HeardMatch {
    v1::GetMatchResponse finished;
    Listened listened;
  };
  auto play = [&](v1::EventDelivery delivery) {
    v1::CreateMatchRequest request;
    request.set_game("hedonia");
    request.set_seed(11);
    request.add_seats()->set_open(true);
    request.add_seats()->set_builtin("random");
    request.add_seats()->set_builtin("random");
    v1::CreateMatchResponse created;
    {
      grpc::ClientContext context;
      const grpc::Status status = stub_->CreateMatch(&context, request, &created);
      EXPECT_TRUE(status.ok()) << status.error_message();
    }
    HeardMatch heard;
    bots::ClientOptions options = JoinOptions(created.match_id(), created.seat_tokens(0).token());
    options.events = delivery;
    bots::BotClient client(channel_, options,
                           std::make_unique<ListeningStrategy>(3, &heard.listened));
    EXPECT_THAT(client.Run(), IsOk());
    heard.finished = AwaitFinished(created.match_id());
    return heard;
  };

  const HeardMatch stream = play(v1::EVENT_DELIVERY_STREAM);
  const v1::MatchRecord& record = stream.finished.record();
  ASSERT_GT(record.actions_size(), 0);
  // Every action of the match is told, in the order played; each sealed
  // claim first as sealed.
  const ToldActions told = ActionsTold(stream.listened.heard);
  ASSERT_EQ(static_cast<int>(told.revealed.size()), record.actions_size());
  for (int i = 0; i < record.actions_size(); ++i) {
    EXPECT_EQ(told.revealed[i].first, record.actions(i).seat()) << "action " << i;
    EXPECT_EQ(told.revealed[i].second, record.actions(i).text()) << "action " << i;
  }
  EXPECT_GT(told.sealed, 0);
  // Each event is the seat's own. The actions played before the bot joined
  // come first, without views; every later event has the seat's own view.
  bool joined = false;
  for (const v1::MatchEvent& event : stream.listened.heard) {
    EXPECT_EQ(event.seat(), 0);
    joined = joined || event.has_view();
    if (!joined) continue;
    ASSERT_TRUE(event.view().has_hedonia()) << event.DebugString();
    EXPECT_EQ(event.view().hedonia().observer(), 0);
  }
  EXPECT_TRUE(joined);
  EXPECT_TRUE(stream.listened.heard.back().has_finished());
  // Each decision had the history heard so far.
  EXPECT_GT(stream.listened.decisions, 0);
  EXPECT_EQ(stream.listened.histories_behind, 0);

  // In requests: the same play, without views, gathered into each request.
  const HeardMatch in_requests = play(v1::EVENT_DELIVERY_IN_REQUESTS);
  EXPECT_EQ(in_requests.listened.histories_behind, 0);
  EXPECT_EQ(in_requests.listened.viewed_request_events, 0);
  const ToldActions told_in_requests = ActionsTold(in_requests.listened.last_history);
  ASSERT_FALSE(told_in_requests.revealed.empty());
  // Every action up to the bot's last decision, in the order played.
  const v1::MatchRecord& played = in_requests.finished.record();
  ASSERT_LE(static_cast<int>(told_in_requests.revealed.size()), played.actions_size());
  for (std::size_t i = 0; i < told_in_requests.revealed.size(); ++i) {
    EXPECT_EQ(told_in_requests.revealed[i].first, played.actions(i).seat()) << "action " << i;
    EXPECT_EQ(told_in_requests.revealed[i].second, played.actions(i).text()) << "action " << i;
  }
  // At most the last round's claims come after it.
  EXPECT_GE(static_cast<int>(told_in_requests.revealed.size()), played.actions_size() - 5);

  // None: only the end.
  const HeardMatch none = play(v1::EVENT_DELIVERY_NONE);
  ASSERT_EQ(none.listened.heard.size(), 1u);
  EXPECT_TRUE(none.listened.heard[0].has_finished());
}

TEST_F(ArenaE2eTest, ARegisteredBotPlaysSeveralMatchesOnOneStream) {
  RawBot alice(stub_.get());
  alice.Register("alice", "secret", 3);
  ServerMessage welcome;
  ASSERT_TRUE(alice.Next(ServerMessage::kWelcome, &welcome));
  std::set<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    ids.insert(Create({"bot:alice", "builtin:random", "builtin:random"}, 5000, 30000, 3, i + 1)
                   .match_id());
  }
  // A fourth match would exceed the bot's limit while three are running.
  v1::CreateMatchRequest fourth;
  fourth.set_game("village");
  fourth.add_seats()->set_bot("alice");
  fourth.add_seats()->set_builtin("random");
  EXPECT_EQ(TryCreate(fourth).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);

  // Requests for all three arrive on the one stream, each naming its match.
  std::set<std::string> asked;
  std::set<std::string> finished;
  ServerMessage message;
  while (finished.size() < 3 && alice.NextAny(&message)) {
    if (message.has_decision()) {
      asked.insert(message.decision().match_id());
      alice.Send(Answer(message.decision(), 0));
    } else if (message.has_answer_result()) {
      EXPECT_TRUE(message.answer_result().accepted()) << message.answer_result().reason();
    } else if (message.has_event() && message.event().has_finished()) {
      finished.insert(message.event().match_id());
    }
  }
  EXPECT_EQ(asked, ids);
  EXPECT_EQ(finished, ids);
  for (const std::string& id : ids) {
    EXPECT_GT(Get(id).match().seats(0).answers(), 0);
  }
}

TEST_F(ArenaE2eTest, SpectatorsAndRunningMatchesShowNoHand) {
  const v1::CreateMatchResponse created =
      Create({"open", "builtin:random", "builtin:random", "builtin:random"});
  grpc::ClientContext watch_context;
  v1::WatchMatchRequest watch;
  watch.set_match_id(created.match_id());
  auto events = stub_->WatchMatch(&watch_context, watch);

  RawBot bot(stub_.get());
  bot.Join(created.match_id(), created.seat_tokens(0).token());
  int checked_running = 0;
  for (;;) {
    ServerMessage message;
    if (!bot.NextAny(&message)) break;
    if (message.has_decision()) {
      // The seat sees its own hand and no other.
      const v1::VillageView& view = message.decision().view().village();
      EXPECT_TRUE(view.players(0).has_hand());
      for (int seat = 1; seat < 4; ++seat) EXPECT_FALSE(view.players(seat).has_hand());
      // A running match gives no record.
      if (checked_running++ < 3) {
        EXPECT_FALSE(Get(created.match_id()).has_record());
      }
      bot.Send(Answer(message.decision(), 0));
    }
    if (message.has_event() && message.event().has_finished()) break;
  }
  int events_seen = 0;
  v1::MatchEvent event;
  while (events->Read(&event)) {
    ++events_seen;
    if (event.has_finished()) break;
    if (event.view().village().over()) continue;  // every hand is shown at the end
    for (const v1::VillagePlayer& player : event.view().village().players()) {
      EXPECT_FALSE(player.has_hand()) << "a spectator saw seat " << player.seat() << "'s hand";
    }
  }
  EXPECT_GT(events_seen, 10);
  EXPECT_TRUE(event.has_finished());
  EXPECT_TRUE(events->Finish().ok());
  EXPECT_GT(checked_running, 3);
}

TEST_F(ArenaE2eTest, AFinishedMatchIsWatchedAsItsEnd) {
  const v1::GetMatchResponse over =
      AwaitFinished(Create({"builtin:random", "builtin:random"}).match_id());
  grpc::Status status;
  std::vector<v1::MatchEvent> events = WatchToEnd(*stub_, over.match().match_id(), &status);
  ExpectToldTheEnd(events, status, over.match());
  // Its seed is public now that it is over.
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].finished().match().seed(), 7u);

  // A sealed match keeps its deal from spectators, at its end as after it.
  v1::CreateMatchRequest request;
  request.set_game("village");
  request.set_seed(11);
  request.set_sealed(true);
  request.add_seats()->set_builtin("random");
  request.add_seats()->set_builtin("random");
  ASSERT_TRUE(TryCreate(request).ok());
  v1::ListMatchesRequest list;
  list.set_status(v1::MATCH_STATUS_FINISHED);
  std::string sealed;
  for (int i = 0; i < 2000 && sealed.empty(); ++i) {
    v1::ListMatchesResponse listed;
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->ListMatches(&context, list, &listed).ok());
    for (const v1::Match& match : listed.matches()) {
      if (match.sealed()) sealed = match.match_id();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(sealed.empty()) << "the sealed match did not finish";
  events = WatchToEnd(*stub_, sealed, &status);
  ExpectToldTheEnd(events, status, Get(sealed).match());
  for (const v1::MatchEvent& event : events) {
    const v1::Match& told =
        event.has_snapshot() ? event.snapshot().match() : event.finished().match();
    EXPECT_EQ(told.seed(), 0u);
    EXPECT_TRUE(told.seed_salt().empty());
  }

  // A match that never was is still not found.
  events = WatchToEnd(*stub_, "m999", &status);
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(status.error_message(), "no match 'm999'");
}

TEST_F(ArenaE2eTest, AnIllegalAnswerIsRefusedWithTheRuleAndARetrySucceeds) {
  const v1::CreateMatchResponse created = Create({"open", "builtin:random"});
  RawBot bot(stub_.get());
  bot.Join(created.match_id(), created.seat_tokens(0).token());
  const v1::DecisionRequest request = bot.NextRequest();
  // Wilds alone cannot start a bribe.
  v1::BotMessage illegal = Answer(request, 0);
  v1::VillageBribeAction* bribe =
      illegal.mutable_answer()->mutable_action()->mutable_village()->mutable_bribe();
  bribe->set_treasure(v1::VILLAGE_CARD_CROWN);
  bribe->mutable_cards()->set_wilds(1);
  const v1::AnswerResult refused = bot.SendAnswer(illegal);
  EXPECT_FALSE(refused.accepted());
  EXPECT_EQ(refused.code(), static_cast<int>(grpc::StatusCode::INVALID_ARGUMENT));
  EXPECT_THAT(refused.reason(), HasSubstr("wilds alone cannot start a new bribe"));
  EXPECT_TRUE(refused.may_retry());

  const v1::AnswerResult accepted = bot.AnswerIndex(request, 0);
  EXPECT_TRUE(accepted.accepted());
  // The same request again is a duplicate, refused and not applied twice.
  const v1::AnswerResult duplicate = bot.AnswerIndex(request, 0);
  EXPECT_FALSE(duplicate.accepted());
  EXPECT_EQ(duplicate.code(), static_cast<int>(grpc::StatusCode::FAILED_PRECONDITION));
  EXPECT_THAT(duplicate.reason(), HasSubstr("already answered"));
  EXPECT_EQ(Get(created.match_id()).match().seats(0).illegal_answers(), 1);
}

TEST_F(ArenaE2eTest, ASilentSeatTimesOutForfeitsAndTheMatchEnds) {
  const v1::CreateMatchResponse created =
      Create({"open", "builtin:random", "builtin:random"}, /*decision_ms=*/20,
             /*bank_ms=*/0, /*max_strikes=*/2);
  const v1::GetMatchResponse finished = AwaitFinished(created.match_id());
  const v1::SeatInfo& silent = finished.match().seats(0);
  EXPECT_EQ(silent.timeouts(), 2);
  EXPECT_TRUE(silent.forfeited());
  EXPECT_EQ(silent.rank(), 3);
  EXPECT_FALSE(silent.connected());
  // Its token no longer joins the finished match.
  RawBot late(stub_.get());
  late.Join(created.match_id(), created.seat_tokens(0).token());
  EXPECT_EQ(late.Finish().error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

TEST_F(ArenaE2eTest, ALateAnswerIsRefused) {
  const v1::CreateMatchResponse created =
      Create({"open", "builtin:random"}, /*decision_ms=*/50, /*bank_ms=*/0,
             /*max_strikes=*/0);
  RawBot bot(stub_.get());
  bot.Join(created.match_id(), created.seat_tokens(0).token());
  const v1::DecisionRequest request = bot.NextRequest();
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  const v1::AnswerResult late = bot.AnswerIndex(request, 0);
  EXPECT_FALSE(late.accepted());
  EXPECT_EQ(late.code(), static_cast<int>(grpc::StatusCode::FAILED_PRECONDITION));
  EXPECT_THAT(late.reason(), HasSubstr("timed out"));
  EXPECT_GE(Get(created.match_id()).match().seats(0).timeouts(), 1);
}

// Answers at random, and notes the requests whose lists are examples: the
// proposals and the market offers.
class NotingStrategy final : public bots::Strategy {
 public:
  explicit NotingStrategy(std::uint64_t seed) : random_(seed) {}
  v1::Answer Decide(const v1::DecisionRequest& request,
                    const bots::MatchHistory& history) override {
    if (!request.legal_actions_complete()) {
      ++incomplete;
      if (request.constraints().find("propose any division") != std::string::npos) ++hinted;
      if (request.constraints().find("any bundle of your tokens") != std::string::npos) ++offers;
    }
    return random_.Decide(request, history);
  }
  std::atomic<int> incomplete{0};
  std::atomic<int> hinted{0};
  std::atomic<int> offers{0};

 private:
  bots::RandomStrategy random_;
};

TEST_F(ArenaE2eTest, FourRandomBotsFinishADragonsGoldMatchWithNegotiations) {
  std::vector<std::unique_ptr<bots::Strategy>> owned;
  std::vector<NotingStrategy*> strategies;
  for (int i = 0; i < 4; ++i) {
    auto strategy = std::make_unique<NotingStrategy>(i + 1);
    strategies.push_back(strategy.get());
    owned.push_back(std::move(strategy));
  }
  const v1::GetMatchResponse finished =
      PlayRegisteredBots("dragons_gold", /*seed=*/3, "dragon", std::move(owned));
  ASSERT_EQ(finished.match().status(), v1::MATCH_STATUS_FINISHED);
  int proposals = 0, votes = 0;
  for (const v1::RecordedAction& action : finished.record().actions()) {
    if (action.text().rfind("propose", 0) == 0) ++proposals;
    if (action.text() == "accept" || action.text() == "reject") ++votes;
  }
  EXPECT_GT(proposals, 0) << "the record holds negotiations";
  EXPECT_GE(votes, proposals) << "every proposal was voted on by the other contributors";
  int incomplete = 0, hinted = 0, offers = 0;
  for (const NotingStrategy* s : strategies) {
    incomplete += s->incomplete;
    hinted += s->hinted;
    offers += s->offers;
  }
  EXPECT_EQ(hinted, proposals) << "each proposal request said its list was examples";
  EXPECT_GT(offers, 0) << "the market's offers are any bundle for any bundle";
  EXPECT_EQ(incomplete, hinted + offers) << "only proposals and market offers are open";
  for (const v1::SeatInfo& seat : finished.match().seats()) {
    EXPECT_EQ(seat.illegal_answers(), 0);
    EXPECT_EQ(seat.timeouts(), 0);
  }
}

// Answers at random, and checks that each Frost Dragon's Treasure view shows
// the seat its own hand and no other.
class HandCheckingStrategy final : public bots::Strategy {
 public:
  explicit HandCheckingStrategy(std::uint64_t seed) : random_(seed) {}
  v1::Answer Decide(const v1::DecisionRequest& request,
                    const bots::MatchHistory& history) override {
    const v1::FrostDragonView& view = request.view().frost_dragon();
    for (const v1::FrostDragonPlayer& player : view.players()) {
      const bool own = player.seat() == request.seat();
      if (player.hand_size() != (own ? player.cards_held() : 0)) ++bad_views;
    }
    ++decisions;
    return random_.Decide(request, history);
  }
  std::atomic<int> decisions{0};
  std::atomic<int> bad_views{0};

 private:
  bots::RandomStrategy random_;
};

TEST_F(ArenaE2eTest, FourRandomBotsFinishAFrostDragonMatch) {
  std::vector<std::unique_ptr<bots::Strategy>> owned;
  std::vector<HandCheckingStrategy*> strategies;
  for (int i = 0; i < 4; ++i) {
    auto strategy = std::make_unique<HandCheckingStrategy>(i + 1);
    strategies.push_back(strategy.get());
    owned.push_back(std::move(strategy));
  }
  const v1::GetMatchResponse finished =
      PlayRegisteredBots("frost_dragon", /*seed=*/3, "frost", std::move(owned));
  ASSERT_EQ(finished.match().status(), v1::MATCH_STATUS_FINISHED);
  int trumps = 0, boasts = 0, allies = 0;
  for (const v1::RecordedAction& action : finished.record().actions()) {
    if (action.text().rfind("name ", 0) == 0) ++trumps;
    if (action.text().rfind("boast ", 0) == 0) ++boasts;
    if (action.text().find(" as the ") != std::string::npos) ++allies;
  }
  EXPECT_EQ(trumps, 1) << "the first Fate names trump for the whole adventure";
  EXPECT_GT(boasts, 4) << "several quests were played";
  EXPECT_EQ(boasts % 4, 0) << "everyone boasted each quest";
  EXPECT_GT(allies, 0) << "ally jokers were played as named cards";
  int decisions = 0;
  for (const HandCheckingStrategy* s : strategies) {
    EXPECT_EQ(s->bad_views, 0);
    decisions += s->decisions;
  }
  EXPECT_EQ(decisions, finished.record().actions_size());
  int winners = 0;
  for (const v1::SeatInfo& seat : finished.match().seats()) {
    EXPECT_EQ(seat.illegal_answers(), 0);
    EXPECT_EQ(seat.timeouts(), 0);
    winners += seat.rank() == 1;
  }
  EXPECT_GE(winners, 1);
}

// The messages of several bot streams in one queue, each with its seat: one
// reader thread per stream pushes, the test pops.
class Inbox {
 public:
  void Push(int seat, ServerMessage message) {
    std::lock_guard<std::mutex> lock(mu_);
    messages_.emplace_back(seat, std::move(message));
    arrived_.notify_all();
  }
  // The next message, or false if none comes within `timeout`.
  bool Pop(std::pair<int, ServerMessage>* out, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!arrived_.wait_for(lock, timeout, [&] { return !messages_.empty(); })) return false;
    *out = std::move(messages_.front());
    messages_.pop_front();
    return true;
  }
  bool HasFrom(int seat) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [from, message] : messages_) {
      if (from == seat) return true;
    }
    return false;
  }
  // Reads `bot` into the inbox, tagged `seat`, until its stream ends.
  std::thread Read(RawBot* bot, int seat) {
    return std::thread([this, bot, seat] {
      ServerMessage message;
      while (bot->NextAny(&message)) Push(seat, message);
    });
  }

 private:
  std::mutex mu_;
  std::condition_variable arrived_;
  std::deque<std::pair<int, ServerMessage>> messages_;
};

v1::BotMessage ClaimAnswer(const v1::DecisionRequest& request, v1::HedoniaSide side) {
  v1::BotMessage answer;
  answer.mutable_answer()->set_match_id(request.match_id());
  answer.mutable_answer()->set_request_id(request.request_id());
  answer.mutable_answer()->mutable_action()->mutable_hedonia()->mutable_claim()->set_side(side);
  return answer;
}

// Hedonia's claims are one sealed decision: every seat is asked at once (the
// test answers no claim before all four requests are in, so a server asking
// one seat after another would stall it), and a seat that has claimed
// changes nothing anyone else can see until the last claim is in.
TEST_F(ArenaE2eTest, HedoniaClaimsAreAskedOfEverySeatAtOnceAndStaySealed) {
  constexpr int kSeats = 4;
  constexpr auto kPatience = std::chrono::seconds(20);
  v1::CreateMatchRequest request;
  request.set_game("hedonia");
  request.set_seed(5);
  request.mutable_time_control()->set_decision_ms(60000);
  for (int i = 0; i < kSeats; ++i) request.add_seats()->set_open(true);
  v1::CreateMatchResponse created;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->CreateMatch(&context, request, &created).ok());
  }
  // A spectator's account of the whole match, kept for the end.
  grpc::ClientContext watch_context;
  v1::WatchMatchRequest watch;
  watch.set_match_id(created.match_id());
  auto events = stub_->WatchMatch(&watch_context, watch);
  std::vector<v1::MatchEvent> seen;
  std::thread spectator([&] {
    v1::MatchEvent event;
    while (events->Read(&event)) {
      seen.push_back(event);
      if (event.has_finished()) break;
    }
  });

  Inbox inbox;
  std::vector<std::unique_ptr<RawBot>> bots;
  std::vector<std::thread> readers;
  std::vector<RawBot*> seat_bot(kSeats);
  // However the test ends, the streams close and their readers finish.
  struct StopReading {
    std::function<void()> stop;
    ~StopReading() { stop(); }
  } stop_reading{[&] {
    for (auto& bot : bots) bot->Cancel();
    watch_context.TryCancel();
    for (std::thread& reader : readers) reader.join();
    if (spectator.joinable()) spectator.join();
  }};
  for (int seat = 0; seat < kSeats; ++seat) {
    bots.push_back(std::make_unique<RawBot>(stub_.get()));
    seat_bot[seat] = bots.back().get();
    seat_bot[seat]->Join(created.match_id(), created.seat_tokens(seat).token());
    readers.push_back(inbox.Read(seat_bot[seat], seat));
  }

  engine::Rng rng(9);
  std::vector<std::pair<int, v1::DecisionRequest>> claims;  // in order of arrival
  std::vector<v1::HedoniaSide> first_claims(kSeats, v1::HEDONIA_SIDE_UNSPECIFIED);
  std::set<int> checked_reveal;  // seats whose round-2 view showed round 1's claims
  std::set<int> finished;
  int claim_rounds = 0;
  while (finished.size() < kSeats) {
    std::pair<int, ServerMessage> message;
    ASSERT_TRUE(inbox.Pop(&message, kPatience))
        << "stalled after " << claim_rounds << " claim rounds with " << claims.size()
        << " claim requests in";
    const int seat = message.first;
    const ServerMessage& m = message.second;
    if (m.has_answer_result()) {
      EXPECT_TRUE(m.answer_result().accepted()) << m.answer_result().reason();
      continue;
    }
    if (m.has_event() && m.event().has_finished()) finished.insert(seat);
    if (!m.has_decision()) continue;
    const v1::DecisionRequest& decision = m.decision();
    const v1::HedoniaView& view = decision.view().hedonia();
    if (view.round() == 2 && checked_reveal.insert(seat).second) {
      ASSERT_EQ(view.last_reveal().claims_size(), kSeats);
      for (int s = 0; s < kSeats; ++s) EXPECT_EQ(view.last_reveal().claims(s), first_claims[s]);
    }
    if (view.phase() == v1::HEDONIA_PHASE_OFFER) {
      seat_bot[seat]->Send(
          Answer(decision, static_cast<int>(rng.Uniform(decision.legal_actions_size()))));
      continue;
    }
    ASSERT_EQ(view.phase(), v1::HEDONIA_PHASE_CLAIM);
    EXPECT_EQ(view.own_claim(), v1::HEDONIA_SIDE_UNSPECIFIED);
    claims.emplace_back(seat, decision);
    if (static_cast<int>(claims.size()) < kSeats) continue;
    // Every seat has its claim request, and no claim is answered yet.
    ++claim_rounds;
    for (const auto& [s, claim] : claims) EXPECT_EQ(claim.view().hedonia().round(), claim_rounds);
    if (claim_rounds > 1) {
      for (const auto& [s, claim] : claims) {
        seat_bot[s]->Send(Answer(claim, static_cast<int>(rng.Uniform(2))));
      }
      claims.clear();
      continue;
    }
    // Round 1, by hand. The seat asked first answers first.
    for (int s = 0; s < kSeats; ++s) {
      first_claims[s] = s % 2 == 0 ? v1::HEDONIA_SIDE_LEFT : v1::HEDONIA_SIDE_RIGHT;
    }
    const int first = claims[0].first;
    seat_bot[first]->Send(ClaimAnswer(claims[0].second, first_claims[first]));
    for (;;) {  // its acknowledgement (and those of the last offers)
      std::pair<int, ServerMessage> result;
      ASSERT_TRUE(inbox.Pop(&result, kPatience));
      ASSERT_TRUE(result.second.has_answer_result()) << result.second.DebugString();
      EXPECT_TRUE(result.second.answer_result().accepted());
      if (result.second.answer_result().request_id() == claims[0].second.request_id()) break;
    }
    // Another seat reconnects and is sent its request again, with the view
    // as it is now: the same as before the first claim.
    const int second = claims[1].first;
    bots.push_back(std::make_unique<RawBot>(stub_.get()));
    seat_bot[second] = bots.back().get();
    seat_bot[second]->Join(created.match_id(), created.seat_tokens(second).token());
    readers.push_back(inbox.Read(seat_bot[second], second));
    for (;;) {
      std::pair<int, ServerMessage> resent;
      ASSERT_TRUE(inbox.Pop(&resent, kPatience));
      if (!resent.second.has_decision()) continue;  // seated, acknowledgements
      ASSERT_EQ(resent.first, second);
      EXPECT_TRUE(resent.second.decision().resent());
      EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(
          resent.second.decision().view(), claims[1].second.view()))
          << "seat " << second << " sees a change after seat " << first << " claimed:\n"
          << resent.second.decision().view().DebugString();
      claims[1].second = resent.second.decision();
      break;
    }
    for (int i = 1; i < kSeats; ++i) {
      const auto& [s, claim] = claims[i];
      if (i == kSeats - 1) {
        // Nothing reached the first seat while the others claimed.
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        EXPECT_FALSE(inbox.HasFrom(first)) << "seat " << first << " heard of a claim";
      }
      seat_bot[s]->Send(ClaimAnswer(claim, first_claims[s]));
    }
    claims.clear();
  }
  EXPECT_EQ(claim_rounds, 60 / kSeats);
  EXPECT_EQ(checked_reveal.size(), static_cast<std::size_t>(kSeats));
  spectator.join();  // it stops at the match's end

  // The spectator saw each claim of round 1 sealed (no action, and no claim
  // in the view until the last was in), then all four revealed.
  std::vector<v1::MatchEvent> claim_events;
  for (const v1::MatchEvent& event : seen) {
    if (event.has_action_taken() && (!event.action_taken().has_action() ||
                                     event.action_taken().action().hedonia().has_claim())) {
      claim_events.push_back(event);
    }
  }
  ASSERT_GE(claim_events.size(), 2u * kSeats);
  for (int i = 0; i < kSeats; ++i) {
    const v1::MatchEvent& sealed = claim_events[i];
    EXPECT_FALSE(sealed.action_taken().has_action());
    EXPECT_EQ(sealed.action_taken().text(), "answered (sealed)");
    EXPECT_EQ(sealed.view().hedonia().own_claim(), v1::HEDONIA_SIDE_UNSPECIFIED);
    if (i < kSeats - 1) {  // the last one's view is after the reveal
      EXPECT_EQ(sealed.view().hedonia().phase(), v1::HEDONIA_PHASE_CLAIM);
      EXPECT_FALSE(sealed.view().hedonia().has_last_reveal());
    }
    const v1::MatchEvent& revealed = claim_events[kSeats + i];
    EXPECT_EQ(revealed.action_taken().seat(), sealed.action_taken().seat());
    EXPECT_EQ(revealed.action_taken().action().hedonia().claim().side(),
              first_claims[revealed.action_taken().seat()]);
    EXPECT_EQ(revealed.view().hedonia().last_reveal().claims_size(), kSeats);
  }

  const v1::GetMatchResponse done = AwaitFinished(created.match_id());
  for (const v1::SeatInfo& info : done.match().seats()) EXPECT_EQ(info.illegal_answers(), 0);
  absl::StatusOr<engine::MatchRecord> record = engine::RecordFromProto(done.record());
  ASSERT_THAT(record, IsOk());
  EXPECT_THAT(engine::VerifyRecord(*record), IsOk());
}

// Drops the stream once, after a few decisions.
class DroppingStrategy final : public bots::Strategy {
 public:
  v1::Answer Decide(const v1::DecisionRequest& request,
                    const bots::MatchHistory& history) override {
    if (++decisions_ == 3 && client != nullptr) client->DropConnection();
    return random_.Decide(request, history);
  }
  bots::BotClient* client = nullptr;

 private:
  int decisions_ = 0;
  bots::RandomStrategy random_{5};
};

TEST_F(ArenaE2eTest, ABotThatDropsAndReconnectsFinishesItsMatch) {
  auto strategy = std::make_unique<DroppingStrategy>();
  DroppingStrategy* dropping = strategy.get();
  bots::ClientOptions options;
  options.name = "bouncer";
  options.key = "k";
  options.stop_after_matches = 1;
  bots::BotClient client(channel_, options, std::move(strategy));
  dropping->client = &client;
  std::thread runner([&] { EXPECT_THAT(client.Run(), IsOk()); });
  v1::CreateMatchRequest request;
  request.set_game("village");
  request.add_seats()->set_bot("bouncer");
  request.add_seats()->set_builtin("random");
  v1::CreateMatchResponse created;
  for (int i = 0; i < 500; ++i) {  // until the bot has registered
    grpc::ClientContext context;
    if (stub_->CreateMatch(&context, request, &created).ok()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(created.match_id().empty());
  runner.join();
  EXPECT_GE(client.stats().reconnects, 1);
  const v1::GetMatchResponse finished = AwaitFinished(created.match_id());
  EXPECT_EQ(finished.match().seats(0).timeouts(), 0);
  // The result keeps how often the seat's stream was lost.
  EXPECT_EQ(finished.match().seats(0).disconnects(), client.stats().reconnects);
  EXPECT_EQ(finished.match().seats(1).disconnects(), 0);
}

TEST_F(ArenaE2eTest, BadCredentialsAndBadAnswersGetSpecificCodes) {
  const v1::CreateMatchResponse other = Create({"open", "open"});
  const v1::CreateMatchResponse created = Create({"open", "open"});
  {
    RawBot bot(stub_.get());
    bot.Join(created.match_id(), "0123456789abcdef0123456789abcdef");
    EXPECT_EQ(bot.Finish().error_code(), grpc::StatusCode::UNAUTHENTICATED);
  }
  {
    RawBot bot(stub_.get());
    bot.Join(other.match_id(), created.seat_tokens(0).token());
    EXPECT_EQ(bot.Finish().error_code(), grpc::StatusCode::PERMISSION_DENIED);
  }
  {
    RawBot bot(stub_.get());
    v1::BotMessage no_hello;
    no_hello.mutable_answer()->set_match_id(created.match_id());
    bot.Send(no_hello);
    EXPECT_EQ(bot.Finish().error_code(), grpc::StatusCode::UNAUTHENTICATED);
  }
  {
    RawBot first(stub_.get());
    first.Register("carol", "right", 1);
    ServerMessage welcome;
    ASSERT_TRUE(first.Next(ServerMessage::kWelcome, &welcome));
    RawBot impostor(stub_.get());
    impostor.Register("carol", "wrong", 1);
    EXPECT_EQ(impostor.Finish().error_code(), grpc::StatusCode::UNAUTHENTICATED);
  }
  // Seat 1 joins and answers with things that are not legal answers.
  RawBot seat1(stub_.get());
  seat1.Join(created.match_id(), created.seat_tokens(1).token());
  RawBot seat0(stub_.get());
  seat0.Join(created.match_id(), created.seat_tokens(0).token());
  const v1::DecisionRequest request = seat0.NextRequest();
  EXPECT_EQ(request.seat(), 0);
  // Another seat's request.
  EXPECT_EQ(seat1.AnswerIndex(request, 0).code(),
            static_cast<int>(grpc::StatusCode::PERMISSION_DENIED));
  // An index out of range.
  const v1::AnswerResult out_of_range = seat0.AnswerIndex(request, 10000);
  EXPECT_EQ(out_of_range.code(), static_cast<int>(grpc::StatusCode::INVALID_ARGUMENT));
  EXPECT_THAT(out_of_range.reason(), HasSubstr("out of range"));
  // An action naming no game, and an answer with no choice.
  v1::BotMessage no_game = Answer(request, 0);
  no_game.mutable_answer()->mutable_action();
  EXPECT_EQ(seat0.SendAnswer(no_game).code(), static_cast<int>(grpc::StatusCode::INVALID_ARGUMENT));
  v1::BotMessage empty = Answer(request, 0);
  empty.mutable_answer()->clear_legal_index();
  const v1::AnswerResult missing = seat0.SendAnswer(empty);
  EXPECT_EQ(missing.code(), static_cast<int>(grpc::StatusCode::INVALID_ARGUMENT));
  EXPECT_THAT(missing.reason(), HasSubstr("neither legal_index nor action"));
  // An unknown match and an unknown request.
  v1::BotMessage unknown = Answer(request, 0);
  unknown.mutable_answer()->set_match_id("m999");
  seat0.Send(unknown);
  ServerMessage error;
  ASSERT_TRUE(seat0.Next(ServerMessage::kError, &error));
  EXPECT_EQ(error.error().code(), static_cast<int>(grpc::StatusCode::NOT_FOUND));
  v1::BotMessage no_request = Answer(request, 0);
  no_request.mutable_answer()->set_request_id(777);
  EXPECT_EQ(seat0.SendAnswer(no_request).code(), static_cast<int>(grpc::StatusCode::NOT_FOUND));
  // After all that, the seat still plays, and so does the server.
  EXPECT_TRUE(seat0.AnswerIndex(request, 0).accepted());
  const v1::CreateMatchResponse later = Create({"builtin:random", "builtin:random"});
  EXPECT_EQ(AwaitFinished(later.match_id()).match().status(), v1::MATCH_STATUS_FINISHED);
}

TEST_F(ArenaE2eTest, AdministrationErrorsAreSpecific) {
  v1::CreateMatchRequest request;
  EXPECT_EQ(TryCreate(request).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  request.set_game("chess");
  EXPECT_EQ(TryCreate(request).error_code(), grpc::StatusCode::NOT_FOUND);
  request.set_game("village");
  request.add_seats()->set_builtin("random");
  EXPECT_EQ(TryCreate(request).error_code(), grpc::StatusCode::INVALID_ARGUMENT);  // 1 player
  request.add_seats()->set_bot("nobody");
  EXPECT_EQ(TryCreate(request).error_code(), grpc::StatusCode::NOT_FOUND);
  request.mutable_seats(1)->set_builtin("genius");
  EXPECT_EQ(TryCreate(request).error_code(), grpc::StatusCode::NOT_FOUND);
  request.mutable_seats(1)->clear_player();
  EXPECT_EQ(TryCreate(request).error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  v1::GetMatchRequest get;
  get.set_match_id("nope");
  v1::GetMatchResponse got;
  grpc::ClientContext context;
  EXPECT_EQ(stub_->GetMatch(&context, get, &got).error_code(), grpc::StatusCode::NOT_FOUND);
}

// PlayMatch: one call from the match's start to its end.
v1::CreateMatchRequest BuiltinMatch(const std::string& game, const std::vector<std::string>& bots,
                                    std::uint64_t seed) {
  v1::CreateMatchRequest request;
  request.set_game(game);
  request.set_seed(seed);
  for (const std::string& bot : bots) request.add_seats()->set_builtin(bot);
  return request;
}

TEST_F(ArenaE2eTest, PlayMatchAnswersAtTheEndWithTheMatchAndItsRecord) {
  const v1::CreateMatchRequest request = BuiltinMatch("village", {"random", "first"}, 21);
  grpc::ClientContext context;
  v1::GetMatchResponse played;
  const grpc::Status status = stub_->PlayMatch(&context, request, &played);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(played.match().status(), v1::MATCH_STATUS_FINISHED);
  EXPECT_EQ(played.match().seed(), 21u);
  EXPECT_GT(played.record().actions_size(), 0);
  // The server keeps it as any match, and the same seed plays the same match.
  const v1::GetMatchResponse kept = Get(played.match().match_id());
  EXPECT_EQ(kept.match().status(), v1::MATCH_STATUS_FINISHED);
  EXPECT_EQ(kept.record().actions_size(), played.record().actions_size());
  const v1::GetMatchResponse again =
      AwaitFinished(Create({"builtin:random", "builtin:first"}, 5000, 30000, 3, 21).match_id());
  ASSERT_EQ(again.match().seats_size(), 2);
  for (int seat = 0; seat < 2; ++seat) {
    EXPECT_EQ(again.match().seats(seat).score(), played.match().seats(seat).score());
  }
}

TEST_F(ArenaE2eTest, PlayMatchTakesNoOpenSeatAndNeedsTheAdminToken) {
  v1::CreateMatchRequest request = BuiltinMatch("village", {"random"}, 1);
  request.add_seats()->set_open(true);
  {
    grpc::ClientContext context;
    v1::GetMatchResponse played;
    const grpc::Status status = stub_->PlayMatch(&context, request, &played);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(status.error_message(), HasSubstr("PlayMatch takes no open seats"));
  }
  std::unique_ptr<v1::Arena::Stub> anonymous = v1::Arena::NewStub(grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", server_->port()), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  v1::GetMatchResponse played;
  const grpc::Status status =
      anonymous->PlayMatch(&context, BuiltinMatch("village", {"random", "random"}, 1), &played);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(), HasSubstr("PlayMatch needs the admin token"));
  EXPECT_EQ(server_->arena().running_matches(), 0);
}

TEST_F(ArenaE2eTest, PlayMatchIsUnavailableWhenTheServerStopsBeforeTheEnd) {
  // Searching 300 ms a decision, a Dragon's Gold match lasts far longer
  // than the test waits.
  grpc::Status status;
  std::thread call([&] {
    grpc::ClientContext context;
    v1::GetMatchResponse played;
    status = stub_->PlayMatch(
        &context, BuiltinMatch("dragons_gold", {"mcts-300ms", "mcts-300ms", "random"}, 3), &played);
  });
  for (int i = 0; i < 500 && server_->arena().running_matches() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(server_->arena().running_matches(), 1);
  EXPECT_EQ(server_->Stop(absl::ZeroDuration()).aborted, 1);
  call.join();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(status.error_message(), HasSubstr("was aborted before it was over"));
}

TEST_F(ArenaE2eTest, ListingPagesAndFilters) {
  // All-built-in matches play in the background: wait until they are over.
  for (int i = 0; i < 5; ++i) {
    AwaitFinished(Create({"builtin:random", "builtin:random"}).match_id());
  }
  const std::string waiting = Create({"open", "builtin:random"}).match_id();
  v1::ListMatchesRequest request;
  request.set_page_size(4);
  std::vector<std::string> seen;
  for (;;) {
    v1::ListMatchesResponse response;
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->ListMatches(&context, request, &response).ok());
    for (const v1::Match& match : response.matches()) seen.push_back(match.match_id());
    if (response.next_page_token().empty()) break;
    request.set_page_token(response.next_page_token());
  }
  EXPECT_EQ(seen.size(), 6u);
  // Newest first: the open one, created last, leads.
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.front(), waiting);
  for (std::size_t i = 1; i < seen.size(); ++i) {
    EXPECT_GT(std::stoi(seen[i - 1].substr(1)), std::stoi(seen[i].substr(1)));
  }
  // And back from the oldest page, newer page by newer page.
  std::vector<std::string> back;
  for (;;) {
    v1::ListMatchesResponse response;
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->ListMatches(&context, request, &response).ok());
    std::vector<std::string> page;
    for (const v1::Match& match : response.matches()) page.push_back(match.match_id());
    back.insert(back.begin(), page.begin(), page.end());
    if (response.newer_page_token().empty()) break;
    request.set_page_token(response.newer_page_token());
  }
  EXPECT_EQ(back, seen);
  request.Clear();
  request.set_status(v1::MATCH_STATUS_RUNNING);
  v1::ListMatchesResponse running;
  grpc::ClientContext context;
  ASSERT_TRUE(stub_->ListMatches(&context, request, &running).ok());
  ASSERT_EQ(running.matches_size(), 1);
  EXPECT_EQ(running.matches(0).match_id(), waiting);
  EXPECT_EQ(running.matches(0).seed(), 0u);  // told only once it is over
}

TEST_F(ArenaE2eTest, LimitsAreResourceExhaustedWithAReason) {
  // A message over the size limit ends its call; the server goes on.
  {
    RawBot bot(stub_.get());
    v1::BotMessage huge;
    huge.mutable_hello()->mutable_register_()->set_name("big");
    huge.mutable_hello()->mutable_register_()->set_key(std::string(2 << 20, 'k'));
    bot.Send(huge);
    EXPECT_EQ(bot.Finish().error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  }
  // A server that runs one match at most refuses a second.
  service::ServerOptions options;
  options.grpc.listen = "127.0.0.1:0";
  options.core.limits.max_running_matches = 1;
  options.core.admin_tokens = {kAdmin};
  std::unique_ptr<service::ArenaServer> small = *service::ArenaServer::Start(options);
  auto stub = v1::Arena::NewStub(AdminChannelTo(small->port()));
  v1::CreateMatchRequest request;
  request.set_game("village");
  request.add_seats()->set_open(true);
  request.add_seats()->set_open(true);
  v1::CreateMatchResponse response;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub->CreateMatch(&context, request, &response).ok());
  }
  grpc::ClientContext context;
  const grpc::Status second = stub->CreateMatch(&context, request, &response);
  EXPECT_EQ(second.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(second.error_message(), HasSubstr("already runs 1 matches, its limit"));
  EXPECT_EQ(Create({"builtin:random", "builtin:random"}).match_id().empty(), false);
}

TEST(ArenaStoreTest, FinishedMatchesOutliveTheServer) {
  const std::string db = absl::StrCat(::testing::TempDir(), "/arena_store_test.db");
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((db + suffix).c_str());
  service::ServerOptions options;
  options.grpc.listen = "127.0.0.1:0";
  options.core.db_path = db;
  options.core.admin_tokens = {kAdmin};
  std::string first_id;
  {
    std::unique_ptr<service::ArenaServer> server = *service::ArenaServer::Start(options);
    auto stub = v1::Arena::NewStub(AdminChannelTo(server->port()));
    v1::CreateMatchRequest request;
    request.set_game("village");
    request.add_seats()->set_builtin("random");
    request.add_seats()->set_builtin("random");
    v1::CreateMatchResponse created;
    grpc::ClientContext context;
    ASSERT_TRUE(stub->CreateMatch(&context, request, &created).ok());
    first_id = created.match_id();
    // All-built-in matches play in the background: let it finish first.
    for (int tries = 0; tries < 1000; ++tries) {
      v1::GetMatchRequest get;
      get.set_match_id(first_id);
      v1::GetMatchResponse got;
      grpc::ClientContext poll;
      ASSERT_TRUE(stub->GetMatch(&poll, get, &got).ok());
      if (got.match().status() == v1::MATCH_STATUS_FINISHED) break;
      absl::SleepFor(absl::Milliseconds(10));
    }
  }
  // A new server on the same database still knows the match, record and all.
  std::unique_ptr<service::ArenaServer> server = *service::ArenaServer::Start(options);
  auto stub = v1::Arena::NewStub(AdminChannelTo(server->port()));
  v1::GetMatchRequest get;
  get.set_match_id(first_id);
  v1::GetMatchResponse got;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub->GetMatch(&context, get, &got).ok());
  }
  EXPECT_EQ(got.match().status(), v1::MATCH_STATUS_FINISHED);
  ASSERT_EQ(got.match().seats_size(), 2);
  EXPECT_EQ(got.match().seats(0).player(), "builtin:random");
  // A spectator of the stored match is told its end, as its own spectators
  // were; one that never was is not found.
  grpc::Status watched;
  ExpectToldTheEnd(WatchToEnd(*stub, first_id, &watched), watched, got.match());
  EXPECT_TRUE(WatchToEnd(*stub, "m999999", &watched).empty());
  EXPECT_EQ(watched.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(watched.error_message(), "no match 'm999999'");
  absl::StatusOr<engine::MatchRecord> record = engine::RecordFromProto(got.record());
  ASSERT_THAT(record, IsOk());
  EXPECT_THAT(engine::VerifyRecord(*record), IsOk());
  // New ids continue after the stored ones, and listing shows both.
  v1::CreateMatchRequest request;
  request.set_game("village");
  request.add_seats()->set_builtin("random");
  request.add_seats()->set_open(true);
  v1::CreateMatchResponse created;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub->CreateMatch(&context, request, &created).ok());
  }
  EXPECT_NE(created.match_id(), first_id);
  v1::ListMatchesRequest list;
  v1::ListMatchesResponse listed;
  grpc::ClientContext context;
  ASSERT_TRUE(stub->ListMatches(&context, list, &listed).ok());
  ASSERT_EQ(listed.matches_size(), 2);  // newest first
  EXPECT_EQ(listed.matches(0).match_id(), created.match_id());
  EXPECT_EQ(listed.matches(1).match_id(), first_id);
}

TEST_F(ArenaE2eTest, RandomGarbageFromBotsNeverStopsTheServer) {
  const v1::CreateMatchResponse created = Create({"open", "builtin:random"});
  RawBot bot(stub_.get());
  bot.Join(created.match_id(), created.seat_tokens(0).token());
  const v1::DecisionRequest request = bot.NextRequest();
  engine::Rng rng(2026);
  auto any = [&](int low, int high) {
    return low + static_cast<int>(rng.Uniform(static_cast<std::uint64_t>(high - low + 1)));
  };
  int refused = 0;
  for (int i = 0; i < 300; ++i) {
    v1::BotMessage message;
    v1::Answer* answer = message.mutable_answer();
    answer->set_match_id(rng.Uniform(4) == 0 ? "m-nope" : request.match_id());
    answer->set_request_id(rng.Uniform(3) == 0 ? any(-5, 1000) : request.request_id());
    switch (rng.Uniform(4)) {
      case 0:
        answer->set_legal_index(any(-1000, 1000) * 1000);
        break;
      case 1: {
        v1::VillageBuy* buy = answer->mutable_action()->mutable_village()->mutable_buy();
        buy->set_stall(any(-3, 6));
        buy->set_curse(static_cast<v1::VillageCard>(any(-2, 12)));
        buy->mutable_payment()->set_wilds(any(-70, 70));
        buy->mutable_payment()->set_crowns(any(-70, 70));
        break;
      }
      case 2: {
        v1::VillageBribeAction* bribe =
            answer->mutable_action()->mutable_village()->mutable_bribe();
        bribe->set_treasure(static_cast<v1::VillageCard>(any(-2, 12)));
        bribe->mutable_cards()->set_swords(any(-70, 70));
        bribe->mutable_cards()->set_scrolls(any(0, 3));
        break;
      }
      default:
        break;  // an answer with no choice
    }
    bot.Send(message);
    ServerMessage reply;
    ASSERT_TRUE(bot.NextAny(&reply));
    if (reply.has_answer_result()) {
      // A legal action by chance would be accepted; anything else is refused.
      if (reply.answer_result().accepted()) break;
      EXPECT_FALSE(reply.answer_result().reason().empty());
      ++refused;
    } else {
      ASSERT_TRUE(reply.has_error() || reply.has_decision() || reply.has_event());
    }
  }
  EXPECT_GT(refused, 100);
  const v1::CreateMatchResponse later = Create({"builtin:random", "builtin:random"});
  EXPECT_EQ(AwaitFinished(later.match_id()).match().status(), v1::MATCH_STATUS_FINISHED);
}

TEST_F(ArenaE2eTest, SpectatorsWhoLeaveFreeTheirPlace) {
  const std::string id = Create({"open", "builtin:random"}).match_id();
  // More spectators one after another than may watch at once.
  for (int i = 0; i < 80; ++i) {
    grpc::ClientContext context;
    v1::WatchMatchRequest watch;
    watch.set_match_id(id);
    auto events = stub_->WatchMatch(&context, watch);
    v1::MatchEvent snapshot;
    ASSERT_TRUE(events->Read(&snapshot))
        << "spectator " << i << ": " << events->Finish().error_message();
    EXPECT_TRUE(snapshot.has_snapshot());
    context.TryCancel();
    events->Finish().IgnoreError();
    // The server hears of the leaving spectator on its own time.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::string Bytes(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  EXPECT_TRUE(buffer.Dump(&slices).ok());
  std::string bytes;
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return bytes;
}

// Waits for the completion-queue operation tagged `tag`.
bool Await(grpc::CompletionQueue* cq, std::intptr_t tag) {
  void* got = nullptr;
  bool ok = false;
  EXPECT_TRUE(cq->Next(&got, &ok));
  EXPECT_EQ(reinterpret_cast<std::intptr_t>(got), tag);
  return ok;
}

TEST_F(ArenaE2eTest, HealthAndReflectionAnswer) {
  grpc::GenericStub generic(channel_);
  grpc::CompletionQueue cq;
  {
    // grpc.health.v1.Health/Check, empty request: SERVING is field 1 = 1.
    grpc::ClientContext context;
    grpc::Slice empty;
    grpc::ByteBuffer request(&empty, 1);
    grpc::ByteBuffer response;
    grpc::Status status;
    auto call = generic.PrepareUnaryCall(&context, "/grpc.health.v1.Health/Check", request, &cq);
    call->StartCall();
    call->Finish(&response, &status, reinterpret_cast<void*>(1));
    Await(&cq, 1);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(Bytes(response), std::string("\x08\x01", 2));
  }
  {
    // Server reflection lists the arena (list_services is field 7).
    grpc::ClientContext context;
    auto call = generic.PrepareCall(
        &context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &cq);
    call->StartCall(reinterpret_cast<void*>(1));
    ASSERT_TRUE(Await(&cq, 1));
    grpc::Slice list(std::string("\x3a\x00", 2));
    grpc::ByteBuffer request(&list, 1);
    call->Write(request, reinterpret_cast<void*>(2));
    ASSERT_TRUE(Await(&cq, 2));
    grpc::ByteBuffer response;
    call->Read(&response, reinterpret_cast<void*>(3));
    ASSERT_TRUE(Await(&cq, 3));
    EXPECT_THAT(Bytes(response), HasSubstr("hoard.v1.Arena"));
    call->WritesDone(reinterpret_cast<void*>(4));
    Await(&cq, 4);
    grpc::Status status;
    call->Finish(&status, reinterpret_cast<void*>(5));
    Await(&cq, 5);
  }
  cq.Shutdown();
}

}  // namespace
}  // namespace hoard
