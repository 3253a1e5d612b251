// The C++ bot client against a scripted server: a resent request gets the
// answer given before, any other request is decided afresh (so an answer is
// never replayed into another match that reuses an id), a match's answers
// are forgotten when it ends, a client whose server went away is back
// within about a second of its return, and a signal handler that sets the
// client's stop flag ends its Run().

#include "bots/client.h"

#include <signal.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "hoard/v1/arena.grpc.pb.h"

namespace hoard::bots {
namespace {

namespace v1 = ::hoard::v1;

// Answers 0, 1, 2, ...: each decision differs from the one before.
class CountingStrategy final : public Strategy {
 public:
  v1::Answer Decide(const v1::DecisionRequest&, const MatchHistory&) override {
    v1::Answer answer;
    answer.set_legal_index(calls_++);
    return answer;
  }
  std::atomic<int>& calls() { return calls_; }

 private:
  std::atomic<int> calls_{0};
};

v1::ServerMessage Decision(const std::string& match, int request, bool resent) {
  v1::ServerMessage message;
  v1::DecisionRequest* decision = message.mutable_decision();
  decision->set_match_id(match);
  decision->set_request_id(request);
  decision->set_resent(resent);
  decision->add_legal_actions();
  return message;
}

// A Play stream that follows a script: each step sends a message and, for
// decisions, records the answer that comes back.
class ScriptedArena final : public v1::Arena::Service {
 public:
  explicit ScriptedArena(std::vector<v1::ServerMessage> script) : script_(std::move(script)) {}

  grpc::Status Play(grpc::ServerContext*,
                    grpc::ServerReaderWriter<v1::ServerMessage, v1::BotMessage>* stream) override {
    v1::BotMessage hello;
    if (!stream->Read(&hello) || !hello.has_hello()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no hello");
    }
    hellos_.Notify();
    for (const v1::ServerMessage& step : script_) {
      stream->Write(step);
      if (!step.has_decision()) continue;
      v1::BotMessage reply;
      if (!stream->Read(&reply)) break;
      absl::MutexLock lock(&mu_);
      answers_.push_back(reply.answer());
    }
    // Stays open until the client goes, as a server with nothing to say.
    v1::BotMessage more;
    while (stream->Read(&more)) {
    }
    return grpc::Status::OK;
  }

  std::vector<v1::Answer> answers() {
    absl::MutexLock lock(&mu_);
    return answers_;
  }
  absl::Notification& hellos() { return hellos_; }

 private:
  const std::vector<v1::ServerMessage> script_;
  absl::Mutex mu_;
  std::vector<v1::Answer> answers_ ABSL_GUARDED_BY(mu_);
  absl::Notification hellos_;
};

std::unique_ptr<grpc::Server> Serve(grpc::Service* service, const std::string& address,
                                    int* port = nullptr) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), port);
  builder.RegisterService(service);
  return builder.BuildAndStart();
}

TEST(BotClientTest, AnswersAResentRequestAsBeforeAndDecidesEveryOtherAfresh) {
  v1::ServerMessage finished;
  finished.mutable_event()->set_match_id("m1");
  finished.mutable_event()->mutable_finished();
  ScriptedArena arena({
      Decision("m1", 1, false),  // decided: 0
      Decision("m1", 1, true),   // resent after a reconnect: 0 again
      Decision("m1", 1, false),  // not resent (a new match reusing the id): decided, 1
      finished,                  // m1 ends: its answers are forgotten
      Decision("m1", 1, true),   // resent, but nothing remembered: decided, 2
  });
  int port = 0;
  std::unique_ptr<grpc::Server> server = Serve(&arena, "127.0.0.1:0", &port);
  auto strategy = std::make_unique<CountingStrategy>();
  CountingStrategy* counting = strategy.get();
  BotClient client(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials()),
      {.name = "counter", .key = "k"}, std::move(strategy));
  std::thread runner([&] { client.Run().IgnoreError(); });
  for (int tries = 0; tries < 500 && arena.answers().size() < 4; ++tries) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  client.Stop();
  runner.join();
  server->Shutdown();
  const std::vector<v1::Answer> answers = arena.answers();
  ASSERT_EQ(answers.size(), 4u);
  EXPECT_EQ(answers[0].legal_index(), 0);
  EXPECT_EQ(answers[1].legal_index(), 0) << "a resent request must get the same answer";
  EXPECT_EQ(answers[2].legal_index(), 1) << "a request that is not resent is decided afresh";
  EXPECT_EQ(answers[3].legal_index(), 2) << "an ended match's answers are forgotten";
  for (const v1::Answer& answer : answers) {
    EXPECT_EQ(answer.match_id(), "m1");
    EXPECT_EQ(answer.request_id(), 1);
  }
  EXPECT_EQ(counting->calls(), 3);
  EXPECT_EQ(client.stats().resent_answers, 1);
}

TEST(BotClientTest, IsBackWithinAboutASecondOfTheServersReturn) {
  // A port that is free now, for a server that comes and goes.
  int port = 0;
  {
    ScriptedArena probe({});
    Serve(&probe, "127.0.0.1:0", &port)->Shutdown();
  }
  const std::string address = absl::StrCat("127.0.0.1:", port);
  auto first = std::make_unique<ScriptedArena>(std::vector<v1::ServerMessage>{});
  std::unique_ptr<grpc::Server> server = Serve(first.get(), address);
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  BotClient client(grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args),
                   {.name = "patient", .key = "k"}, std::make_unique<CountingStrategy>());
  std::thread runner([&] { client.Run().IgnoreError(); });
  ASSERT_TRUE(first->hellos().WaitForNotificationWithTimeout(absl::Seconds(10)));
  // Away for 5 s: long enough for gRPC's default backoff to grow past 3 s.
  server->Shutdown(std::chrono::system_clock::now());
  server.reset();
  absl::SleepFor(absl::Seconds(5));
  ScriptedArena second({});
  server = Serve(&second, address);
  ASSERT_NE(server, nullptr) << "port " << port << " was taken meanwhile";
  const absl::Time back = absl::Now();
  const bool reconnected = second.hellos().WaitForNotificationWithTimeout(absl::Seconds(10));
  const absl::Duration took = absl::Now() - back;
  client.Stop();
  runner.join();
  server->Shutdown();
  ASSERT_TRUE(reconnected);
  // Within a second, with room for a loaded machine.
  EXPECT_LT(took, absl::Milliseconds(2500)) << "reconnected after " << took;
  EXPECT_GE(client.stats().reconnects, 1);
}

std::atomic<bool> stop_requested{false};

extern "C" void RequestStop(int) { stop_requested.store(true); }

// Runs `client` until its stop flag (stop_requested) ends it, which a
// SIGUSR1 handler sets once `ready` says so; fails if Run() goes on for 5 s.
void ExpectASignalStops(BotClient& client, const std::function<bool()>& ready) {
  stop_requested = false;
  absl::Notification ran;
  absl::Status status = absl::UnknownError("still running");
  std::thread runner([&] {
    status = client.Run();
    ran.Notify();
  });
  for (int tries = 0; tries < 1000 && !ready(); ++tries) absl::SleepFor(absl::Milliseconds(10));
  EXPECT_TRUE(ready());
  struct sigaction action = {};
  struct sigaction previous = {};
  action.sa_handler = RequestStop;
  sigemptyset(&action.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR1, &action, &previous), 0);
  raise(SIGUSR1);
  const bool stopped = ran.WaitForNotificationWithTimeout(absl::Seconds(5));
  if (!stopped) client.Stop();
  runner.join();
  sigaction(SIGUSR1, &previous, nullptr);
  EXPECT_TRUE(stopped) << "Run() went on after the stop flag was set";
  EXPECT_TRUE(status.ok()) << status;
}

TEST(BotClientTest, AStopFlagSetByASignalHandlerEndsRunMidStream) {
  ScriptedArena arena({Decision("m1", 1, false)});
  int port = 0;
  std::unique_ptr<grpc::Server> server = Serve(&arena, "127.0.0.1:0", &port);
  BotClient client(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials()),
      {.name = "stopped", .key = "k", .stop_flag = &stop_requested},
      std::make_unique<CountingStrategy>());
  // Stopped while it waits on an open stream for the server's next message.
  ExpectASignalStops(client, [&] { return arena.answers().size() == 1; });
  server->Shutdown();
}

TEST(BotClientTest, AStopFlagSetByASignalHandlerEndsRunBetweenReconnects) {
  int port = 0;
  {
    ScriptedArena probe({});
    Serve(&probe, "127.0.0.1:0", &port)->Shutdown();
  }
  BotClient client(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials()),
      {.name = "stopped", .key = "k", .stop_flag = &stop_requested},
      std::make_unique<CountingStrategy>());
  // Stopped while no server answers, in its pauses between attempts.
  ExpectASignalStops(client, [&] { return client.stats().reconnects >= 2; });
}

}  // namespace
}  // namespace hoard::bots
