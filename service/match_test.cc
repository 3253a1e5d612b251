// The match host on its own, with in-memory streams: sealed simultaneous
// decisions reveal nothing until every seat has answered (nor to a
// spectator who comes late and asks for the play so far), a sealed match
// tells its deal's commitment but never its deal to the table, a decision
// too large to list takes any legal typed answer, and built-in bots think
// on a worker pool, their late decisions dropped.

#include "service/match.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "engine/registry.h"
#include "engine/testing/multiples_of_three.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::service {
namespace {

using engine::Action;
using engine::Seat;
using ::hoard::testing::IsOk;

// Sealed bids: every seat bids 0, 1 or 2 at once; the bids are scores.
struct BidView final : engine::ComparableView<BidView> {
  std::vector<int> bids;  // -1 unknown to the observer
  bool operator==(const BidView&) const = default;
  std::string ToString() const override { return ""; }
  std::string Summary() const override { return ""; }
};

class BidState final : public engine::State {
 public:
  explicit BidState(int players) : bids_(players, -1) {}
  int num_players() const override { return static_cast<int>(bids_.size()); }
  engine::Seats SeatsToAct() const override {
    engine::Seats seats;
    for (Seat s = 0; s < num_players(); ++s) {
      if (bids_[s] < 0) seats.push_back(s);
    }
    return seats;
  }
  void LegalActions(Seat seat, std::vector<Action>* out) const override {
    out->clear();
    if (seat >= 0 && seat < num_players() && bids_[seat] < 0) {
      *out = {Action(0), Action(1), Action(2)};
    }
  }
  absl::Status Apply(Seat seat, Action action) override {
    if (seat < 0 || seat >= num_players() || bids_[seat] >= 0) {
      return absl::FailedPreconditionError("not now");
    }
    if (action.code() > 2) return absl::InvalidArgumentError("bids are 0 to 2");
    bids_[seat] = static_cast<int>(action.code());
    return absl::OkStatus();
  }
  bool IsOver() const override { return SeatsToAct().empty(); }
  std::vector<double> Scores() const override { return {bids_.begin(), bids_.end()}; }
  std::vector<int> Ranks() const override { return engine::RanksFromKeys(bids_); }
  std::unique_ptr<engine::View> ViewFor(Seat observer) const override {
    auto view = std::make_unique<BidView>();
    for (Seat s = 0; s < num_players(); ++s) {
      view->bids.push_back(IsOver() || s == observer ? bids_[s] : -1);
    }
    return view;
  }
  std::string ActionToString(Seat, Action action) const override {
    return absl::StrCat("bid ", action.code());
  }
  std::string ToString() const override { return absl::StrJoin(bids_, ","); }
  std::vector<engine::Zone> Zones() const override { return {}; }
  std::unique_ptr<engine::State> Clone() const override {
    return std::make_unique<BidState>(*this);
  }

 private:
  std::vector<int> bids_;
};

class BidGame final : public engine::Game {
 public:
  BidGame() {
    info_ = {.id = "bid",
             .name = "Sealed bid",
             .min_players = 2,
             .max_players = 3,
             .ruleset_version = "1",
             .max_actions = 3};
  }
  const engine::GameInfo& info() const override { return info_; }
  absl::StatusOr<std::unique_ptr<engine::State>> NewMatch(
      const engine::MatchConfig& config) const override {
    return std::make_unique<BidState>(config.num_players);
  }

 private:
  engine::GameInfo info_;
};

// The bid game has no wire messages of its own; bots answer by index.
class NoCodec final : public engine::GameCodec {
 public:
  void ViewToProto(const engine::View&, hoard::v1::View*) const override {}
  void ActionToProto(Action, hoard::v1::Action*) const override {}
  absl::StatusOr<Action> ActionFromProto(const hoard::v1::Action&) const override {
    return absl::InvalidArgumentError("answer by index");
  }
};

class Recorder final : public Outbox, public EventOutbox {
 public:
  void Send(OutgoingMessage message) override { messages.push_back(*message); }
  void Send(const hoard::v1::MatchEvent& event) override { events.push_back(event); }
  void Close() override { closed = true; }
  std::vector<hoard::v1::ServerMessage> messages;
  std::vector<hoard::v1::MatchEvent> events;
  bool closed = false;
};

// The first decision request a stream was sent.
hoard::v1::DecisionRequest FirstRequest(const Recorder& stream) {
  for (const auto& message : stream.messages) {
    if (message.has_decision()) return message.decision();
  }
  return hoard::v1::DecisionRequest();
}

hoard::v1::Answer ByIndex(const hoard::v1::DecisionRequest& request, int index) {
  hoard::v1::Answer answer;
  answer.set_match_id(request.match_id());
  answer.set_request_id(request.request_id());
  answer.set_legal_index(index);
  return answer;
}

TEST(HostedMatchTest, SealedAnswersStayHiddenUntilEverySeatHasAnswered) {
  BidGame game;
  NoCodec codec;
  TimerQueue timers;
  MatchSetup setup{
      .id = "m1", .game = &game, .codec = &codec, .config = {.num_players = 2, .seed = 1}};
  setup.seats.resize(2);
  bool finished = false;
  auto owner = std::make_shared<HostedMatch>(std::move(setup), *game.NewMatch({.num_players = 2}),
                                             &timers, [&] { finished = true; });
  HostedMatch& match = *owner;
  Recorder seat0, seat1;
  auto watcher = std::make_shared<Recorder>();
  auto connection0 = std::make_shared<Connection>(&seat0);
  auto connection1 = std::make_shared<Connection>(&seat1);
  match.Watch(watcher);
  match.Start();
  match.Attach(0, connection0);
  match.Attach(1, connection1);

  // Both seats are asked at once.
  const hoard::v1::DecisionRequest request0 = FirstRequest(seat0);
  const hoard::v1::DecisionRequest request1 = FirstRequest(seat1);
  ASSERT_EQ(request0.seat(), 0);
  ASSERT_EQ(request1.seat(), 1);

  EXPECT_TRUE(match.Answer(connection0.get(), ByIndex(request0, 2)).accepted());
  // Seat 1 and the spectator learn only that seat 0 answered.
  for (const auto& m : seat1.messages) EXPECT_FALSE(m.has_answer_result());
  ASSERT_FALSE(watcher->events.empty());
  const hoard::v1::ActionTaken& sealed = watcher->events.back().action_taken();
  EXPECT_EQ(sealed.seat(), 0);
  EXPECT_FALSE(sealed.has_action());
  EXPECT_EQ(sealed.text(), "answered (sealed)");
  // A spectator who comes now and asks for the play so far is told the
  // same: the table, then that seat 0 answered, its bid still sealed.
  auto late = std::make_shared<Recorder>();
  match.Watch(late, /*from_start=*/true);
  ASSERT_EQ(late->events.size(), 2u);
  EXPECT_TRUE(late->events[0].has_snapshot());
  const hoard::v1::MatchEvent& so_far = late->events[1];
  EXPECT_EQ(so_far.step(), 1);
  EXPECT_EQ(so_far.action_taken().seat(), 0);
  EXPECT_FALSE(so_far.action_taken().has_action());
  EXPECT_EQ(so_far.action_taken().text(), "answered (sealed)");
  EXPECT_FALSE(so_far.has_view());
  // A second answer to the same request is refused, not applied twice.
  EXPECT_FALSE(match.Answer(connection0.get(), ByIndex(request0, 1)).accepted());
  // Seat 0 cannot answer for seat 1.
  EXPECT_EQ(match.Answer(connection0.get(), ByIndex(request1, 0)).code(),
            static_cast<int>(absl::StatusCode::kPermissionDenied));

  EXPECT_TRUE(match.Answer(connection1.get(), ByIndex(request1, 1)).accepted());
  // Now both bids are revealed, then the match ends.
  std::vector<std::string> revealed;
  for (const auto& event : watcher->events) {
    if (event.has_action_taken() && event.action_taken().text() != "answered (sealed)") {
      revealed.push_back(event.action_taken().text());
    }
  }
  EXPECT_THAT(revealed, ::testing::ElementsAre("bid 2", "bid 1"));
  // The late spectator hears the reveal live, as everyone does.
  EXPECT_EQ(late->events.size(), watcher->events.size());
  EXPECT_EQ(late->events.back().SerializeAsString(), watcher->events.back().SerializeAsString());
  EXPECT_TRUE(watcher->events.back().has_finished());
  EXPECT_TRUE(watcher->closed);
  EXPECT_TRUE(finished);
  EXPECT_THAT(match.Record()->ranks, ::testing::ElementsAre(1, 2));
}

// A match commits to its deal before the first move: its seats and
// spectators are told the commitment. A sealed match (a tournament's) tells
// them neither its seed nor its salt, not even after the end, not to a
// spectator or a seat that comes late; what readers get (Describe, the
// record) has both, for the arena to give out once the seal is lifted.
TEST(HostedMatchTest, ASealedMatchTellsItsCommitmentButNeverItsDealToTheTable) {
  BidGame game;
  NoCodec codec;
  TimerQueue timers;
  const std::string salt = "00112233445566778899aabbccddeeff";
  MatchSetup setup{
      .id = "m1", .game = &game, .codec = &codec, .config = {.num_players = 2, .seed = 7}};
  setup.sealed = true;
  setup.seed_salt = salt;
  setup.seats.resize(2);
  auto match = std::make_shared<HostedMatch>(std::move(setup), *game.NewMatch({.num_players = 2}),
                                             &timers, [] {});
  // printf '%s:%s' 7 00112233445566778899aabbccddeeff | sha256sum
  const std::string commitment = "a4dd03cae561477bd3b71c19fd25261a8d39c293d210eac054f09d35765e1a34";
  Recorder seat0, seat1;
  auto connection0 = std::make_shared<Connection>(&seat0);
  auto connection1 = std::make_shared<Connection>(&seat1);
  auto watcher = std::make_shared<Recorder>();
  match->Watch(watcher);
  match->Start();
  match->Attach(0, connection0);
  match->Attach(1, connection1);
  ASSERT_TRUE(seat0.messages.front().has_seated());
  EXPECT_EQ(seat0.messages.front().seated().seed_commitment(), commitment);
  EXPECT_EQ(watcher->events.front().snapshot().match().seed_commitment(), commitment);
  EXPECT_TRUE(match->Answer(connection0.get(), ByIndex(FirstRequest(seat0), 0)).accepted());
  EXPECT_TRUE(match->Answer(connection1.get(), ByIndex(FirstRequest(seat1), 1)).accepted());
  ASSERT_TRUE(match->IsOver());

  // Told at the end, and to a spectator (its snapshot and the end) and a
  // seat that come after it.
  auto late_watcher = std::make_shared<Recorder>();
  match->Watch(late_watcher);
  Recorder late_seat;
  match->Attach(0, std::make_shared<Connection>(&late_seat));
  ASSERT_EQ(late_watcher->events.size(), 2u);
  std::vector<hoard::v1::Match> told = {watcher->events.back().finished().match(),
                                        late_watcher->events.front().snapshot().match(),
                                        late_watcher->events.back().finished().match()};
  for (const auto& message : late_seat.messages) {
    if (message.has_event() && message.event().has_finished()) {
      told.push_back(message.event().finished().match());
    }
  }
  ASSERT_EQ(told.size(), 4u);
  for (const hoard::v1::Match& m : told) {
    EXPECT_EQ(m.status(), hoard::v1::MATCH_STATUS_FINISHED);
    EXPECT_EQ(m.seed_commitment(), commitment);
    EXPECT_EQ(m.seed(), 0u);
    EXPECT_EQ(m.seed_salt(), "");
  }

  const hoard::v1::Match described = match->Describe();
  EXPECT_EQ(described.seed(), 7u);
  EXPECT_EQ(described.seed_salt(), salt);
  EXPECT_EQ(described.seed_commitment(), commitment);
  EXPECT_EQ(match->Record()->seed_salt, salt);
  EXPECT_EQ(match->Record()->seed_commitment, commitment);
}

// A stream that holds what it is sent, as a transport would before its turn
// to write comes: the decision requests' clocks wait for HandOver().
class SlowStream final : public Outbox {
 public:
  void Send(OutgoingMessage message) override {
    absl::MutexLock lock(&mu_);
    held_.push_back(std::move(message));
  }
  bool starts_clocks() const override { return true; }
  // Starts writing the held decision request: its clock starts. Returns it
  // as written.
  hoard::v1::DecisionRequest HandOver() {
    absl::MutexLock lock(&mu_);
    for (OutgoingMessage& message : held_) {
      if (!message->has_decision()) continue;
      message.StartClock();
      return message->decision();
    }
    return hoard::v1::DecisionRequest();
  }

 private:
  absl::Mutex mu_;
  std::vector<OutgoingMessage> held_ ABSL_GUARDED_BY(mu_);
};

// A seat's clock runs from when its request is handed to the transport, not
// while it waits in the server, and an answer counts as of when it came, not
// when the server got to it; a seat that does not answer still times out.
TEST(HostedMatchTest, ASeatsClockRunsFromTheHandOverToWhenItsAnswerCame) {
  constexpr auto kDecision = std::chrono::milliseconds(100);
  BidGame game;
  NoCodec codec;
  TimerQueue timers;
  MatchSetup setup{.id = "m1",
                   .game = &game,
                   .codec = &codec,
                   .config = {.num_players = 3, .seed = 1},
                   .time_control = {.decision_ms = 100, .bank_ms = 0, .max_strikes = 0}};
  setup.seats.resize(3);
  absl::Notification finished;
  auto match = std::make_shared<HostedMatch>(std::move(setup), *game.NewMatch({.num_players = 3}),
                                             &timers, [&] { finished.Notify(); });
  auto watcher = std::make_shared<Recorder>();
  match->Watch(watcher);
  std::vector<std::unique_ptr<SlowStream>> streams;
  std::vector<std::shared_ptr<Connection>> connections;
  for (Seat seat = 0; seat < 3; ++seat) {
    streams.push_back(std::make_unique<SlowStream>());
    connections.push_back(std::make_shared<Connection>(streams.back().get()));
  }
  // Seated before the match starts, as a registered bot's seats are.
  for (Seat seat = 0; seat < 3; ++seat) match->Attach(seat, connections[seat]);
  match->Start();

  // Asked, but still in the server: two and a half decision times pass.
  std::this_thread::sleep_for(kDecision * 5 / 2);
  const hoard::v1::DecisionRequest request0 = streams[0]->HandOver();
  EXPECT_GE(request0.time_left_ms(), 90);  // its whole time, from now
  EXPECT_LE(request0.time_left_ms(), 100);
  EXPECT_TRUE(match->Answer(connections[0].get(), ByIndex(request0, 2)).accepted());

  // Seat 1's answer comes in time, and waits to be handled past the
  // deadline: its stream says so, and the seat does not time out meanwhile.
  const hoard::v1::DecisionRequest request1 = streams[1]->HandOver();
  const SteadyClock::time_point came = SteadyClock::now() + kDecision / 2;
  std::this_thread::sleep_for(kDecision / 2);
  connections[1]->set_oldest_unhandled(came);
  std::this_thread::sleep_for(kDecision);
  EXPECT_TRUE(match->Answer(connections[1].get(), ByIndex(request1, 1), came).accepted());
  connections[1]->set_oldest_unhandled(std::nullopt);

  // Seat 2's request goes out and is never answered: it times out.
  streams[2]->HandOver();
  ASSERT_TRUE(finished.WaitForNotificationWithTimeout(absl::Seconds(10)));
  std::vector<int> timed_out;
  for (const hoard::v1::MatchEvent& event : watcher->events) {
    if (event.has_fault() && event.fault().kind() == hoard::v1::SeatFault::KIND_TIMEOUT) {
      timed_out.push_back(event.fault().seat());
    }
  }
  EXPECT_THAT(timed_out, ::testing::ElementsAre(2));
}

TEST(HostedMatchTest, AnAbortedMatchEndsWithoutScoresSeedOrRecord) {
  BidGame game;
  NoCodec codec;
  TimerQueue timers;
  MatchSetup setup{
      .id = "m1", .game = &game, .codec = &codec, .config = {.num_players = 2, .seed = 77}};
  setup.seats.resize(2);
  int finished = 0;
  auto match = std::make_shared<HostedMatch>(std::move(setup), *game.NewMatch({.num_players = 2}),
                                             &timers, [&] { ++finished; });
  Recorder seat0, seat1;
  auto watcher = std::make_shared<Recorder>();
  auto connection0 = std::make_shared<Connection>(&seat0);
  auto connection1 = std::make_shared<Connection>(&seat1);
  match->Watch(watcher);
  match->Start();
  match->Attach(0, connection0);
  match->Attach(1, connection1);
  const hoard::v1::DecisionRequest request0 = FirstRequest(seat0);
  ASSERT_TRUE(match->Answer(connection0.get(), ByIndex(request0, 2)).accepted());

  EXPECT_TRUE(match->Abort());
  EXPECT_TRUE(match->IsOver());
  EXPECT_EQ(finished, 1);
  const hoard::v1::Match described = match->Describe();
  EXPECT_EQ(described.status(), hoard::v1::MATCH_STATUS_ABORTED);
  EXPECT_EQ(described.seed(), 0u);  // the deal stays secret
  for (const hoard::v1::SeatInfo& seat : described.seats()) EXPECT_EQ(seat.rank(), 0);
  EXPECT_EQ(match->Record(), nullptr);
  // Seats and spectators are told, and seat 1's open request is withdrawn.
  ASSERT_TRUE(seat1.messages.back().has_event());
  EXPECT_EQ(seat1.messages.back().event().finished().match().status(),
            hoard::v1::MATCH_STATUS_ABORTED);
  EXPECT_TRUE(watcher->closed);
  const hoard::v1::AnswerResult late =
      match->Answer(connection1.get(), ByIndex(FirstRequest(seat1), 0));
  EXPECT_FALSE(late.accepted());
  EXPECT_THAT(late.reason(), ::testing::HasSubstr("aborted"));
  // Aborting again, or a finished match, does nothing.
  EXPECT_FALSE(match->Abort());
  EXPECT_EQ(finished, 1);
}

// Multiples of three (engine/testing/multiples_of_three.h) has no wire
// messages; its number travels in a village buy's stall, which is all a
// typed answer needs here.
class MultiplesOfThreeCodec final : public engine::GameCodec {
 public:
  void ViewToProto(const engine::View&, hoard::v1::View*) const override {}
  void ActionToProto(Action action, hoard::v1::Action* out) const override {
    out->mutable_village()->mutable_buy()->set_stall(static_cast<int>(action.code()));
  }
  absl::StatusOr<Action> ActionFromProto(const hoard::v1::Action& action) const override {
    if (action.village().buy().stall() < 0) {
      return absl::InvalidArgumentError("names are not negative");
    }
    return Action(static_cast<std::uint64_t>(action.village().buy().stall()));
  }
};

hoard::v1::Answer Name(const hoard::v1::DecisionRequest& request, int number) {
  hoard::v1::Answer answer;
  answer.set_match_id(request.match_id());
  answer.set_request_id(request.request_id());
  answer.mutable_action()->mutable_village()->mutable_buy()->set_stall(number);
  return answer;
}

TEST(HostedMatchTest, ADecisionTooLargeToListTakesAnyLegalTypedAnswer) {
  engine::testing::MultiplesOfThree game({.largest = 999999});
  MultiplesOfThreeCodec codec;
  TimerQueue timers;
  MatchSetup setup{
      .id = "m1", .game = &game, .codec = &codec, .config = {.num_players = 2, .seed = 1}};
  setup.seats.resize(2);
  auto match = std::make_shared<HostedMatch>(std::move(setup), *game.NewMatch({.num_players = 2}),
                                             &timers, nullptr);
  Recorder seat0, seat1;
  auto connection0 = std::make_shared<Connection>(&seat0);
  auto connection1 = std::make_shared<Connection>(&seat1);
  match->Start();
  match->Attach(0, connection0);
  match->Attach(1, connection1);

  // The request gives examples, says they are only examples, and states
  // the constraints.
  const hoard::v1::DecisionRequest request0 = FirstRequest(seat0);
  ASSERT_EQ(request0.legal_actions_size(), 3);
  EXPECT_EQ(request0.legal_actions(1).action().village().buy().stall(), 3);
  EXPECT_FALSE(request0.legal_actions_complete());
  EXPECT_EQ(request0.constraints(), "name any multiple of 3 from 0 to 999999");

  // An illegal typed answer is refused with the rule it breaks, and the
  // seat may try again.
  const hoard::v1::AnswerResult refused = match->Answer(connection0.get(), Name(request0, 7));
  EXPECT_FALSE(refused.accepted());
  EXPECT_EQ(refused.code(), static_cast<int>(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(refused.reason(), "7 is not a multiple of 3 from 0 to 999999");
  EXPECT_TRUE(refused.may_retry());

  // A legal action that is not among the examples is played.
  EXPECT_TRUE(match->Answer(connection0.get(), Name(request0, 999)).accepted());

  // An index still picks among the examples. This answer's client says it
  // sent it for a bot whose decision failed: it is counted as a default.
  const hoard::v1::DecisionRequest request1 = FirstRequest(seat1);
  ASSERT_EQ(request1.seat(), 1);
  EXPECT_FALSE(request1.legal_actions_complete());
  hoard::v1::Answer by_default = ByIndex(request1, 1);
  by_default.set_default_reason(hoard::v1::DEFAULT_REASON_FAILED);
  EXPECT_TRUE(match->Answer(connection1.get(), by_default).accepted());

  ASSERT_TRUE(match->IsOver());
  const engine::MatchRecord record = *match->Record();
  ASSERT_EQ(record.actions.size(), 2u);
  EXPECT_EQ(record.actions[0].text, "name 999");
  EXPECT_EQ(record.actions[1].text, "name 6");
  const hoard::v1::Match described = match->Describe();
  EXPECT_EQ(described.seats(0).illegal_answers(), 1);
  EXPECT_EQ(described.seats(0).default_answers(), 0);
  EXPECT_EQ(described.seats(1).answers(), 1);
  EXPECT_EQ(described.seats(1).default_answers(), 1);
  EXPECT_EQ(described.seats(0).score(), 999);
}

// A seat's stream that keeps the decision requests it is sent, for the test
// to answer from its own thread.
class QueuedSeat final : public Outbox {
 public:
  void Send(OutgoingMessage message) override {
    absl::MutexLock lock(&mu_);
    if (message->has_decision()) requests_.push_back(message->decision());
  }
  std::optional<hoard::v1::DecisionRequest> Next() {
    absl::MutexLock lock(&mu_);
    if (requests_.empty()) return std::nullopt;
    hoard::v1::DecisionRequest next = std::move(requests_.front());
    requests_.pop_front();
    return next;
  }

 private:
  absl::Mutex mu_;
  std::deque<hoard::v1::DecisionRequest> requests_ ABSL_GUARDED_BY(mu_);
};

TEST(HostedMatchTest, TheRecordPackedAsThePlayGoesIsTheOneAReplayPacks) {
  // In every game, with every way an action comes: a built-in bot's
  // choice, an answer by index, a typed answer, a time-out's default and a
  // forfeited seat's.
  for (const engine::Game* game : engine::AllGames()) {
    SCOPED_TRACE(game->info().id);
    absl::StatusOr<const engine::GameCodec*> codec = engine::FindCodec(game->info().id);
    ASSERT_THAT(codec, IsOk());
    const int players = std::min(4, game->info().max_players);
    ASSERT_GE(players, 3);
    TimerQueue timers;
    const engine::MatchConfig config{.num_players = players, .seed = 20261202};
    MatchSetup setup{.id = "m1",
                     .game = game,
                     .codec = *codec,
                     .config = config,
                     .time_control = {.decision_ms = 200, .bank_ms = 0, .max_strikes = 2},
                     .seed_salt = "salt"};
    setup.seats.resize(players);
    setup.seats[0].kind = SeatPlayer::Kind::kBuiltin;
    setup.seats[0].name = "random";
    setup.seats[0].builtin = std::make_unique<bots::RandomBot>(7);
    for (Seat seat = 1; seat < players; ++seat) {
      setup.seats[seat].kind = SeatPlayer::Kind::kBot;
      setup.seats[seat].name = absl::StrCat("bot", seat);
    }
    absl::StatusOr<std::unique_ptr<engine::State>> state = game->NewMatch(config);
    ASSERT_THAT(state, IsOk());
    auto match =
        std::make_shared<HostedMatch>(std::move(setup), *std::move(state), &timers, nullptr);
    // Seat 1 answers with its last listed action, seat 2 with the typed
    // form of its first; the last seat never answers.
    QueuedSeat by_index, typed;
    auto connection1 = std::make_shared<Connection>(&by_index);
    auto connection2 = std::make_shared<Connection>(&typed);
    match->Start();
    match->Attach(1, connection1);
    match->Attach(2, connection2);
    const absl::Time deadline = absl::Now() + absl::Seconds(60);
    while (!match->IsOver() && absl::Now() < deadline) {
      if (std::optional<hoard::v1::DecisionRequest> request = by_index.Next()) {
        match->Answer(connection1.get(), ByIndex(*request, request->legal_actions_size() - 1));
      } else if (std::optional<hoard::v1::DecisionRequest> request = typed.Next()) {
        hoard::v1::Answer answer;
        answer.set_match_id(request->match_id());
        answer.set_request_id(request->request_id());
        *answer.mutable_action() = request->legal_actions(0).action();
        match->Answer(connection2.get(), answer);
      } else {
        absl::SleepFor(absl::Milliseconds(1));
      }
    }
    ASSERT_TRUE(match->IsOver());
    const hoard::v1::Match described = match->Describe();
    EXPECT_TRUE(described.seats(players - 1).forfeited());
    EXPECT_GT(described.seats(1).answers(), 0);
    EXPECT_GT(described.seats(2).answers(), 0);
    std::optional<engine::MatchRecord> packed = match->CompactRecord();
    ASSERT_TRUE(packed.has_value());
    absl::StatusOr<engine::MatchRecord> replayed = engine::CompactRecord(*match->Record());
    ASSERT_THAT(replayed, IsOk());
    EXPECT_EQ(*packed, *replayed);
    EXPECT_THAT(engine::VerifyRecord(*packed), IsOk());
  }
}

// A built-in bot that bids 2 once it is let go, and notes which thread it
// thought on.
class GatedBot final : public bots::Bot {
 public:
  engine::Action Choose(const engine::View&, std::span<const engine::Action>) override {
    absl::MutexLock lock(&mu_);
    thread_ = std::this_thread::get_id();
    started_ = true;
    mu_.Await(absl::Condition(&released_));
    return Action(2);
  }
  void Release() {
    absl::MutexLock lock(&mu_);
    released_ = true;
  }
  void AwaitStarted() {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(&started_));
  }
  std::thread::id thread() {
    absl::MutexLock lock(&mu_);
    return thread_;
  }

 private:
  absl::Mutex mu_;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool released_ ABSL_GUARDED_BY(mu_) = false;
  std::thread::id thread_ ABSL_GUARDED_BY(mu_);
};

std::shared_ptr<HostedMatch> GatedMatch(BidGame& game, NoCodec& codec, TimerQueue& timers,
                                        WorkerPool& pool, GatedBot** bot,
                                        std::function<void()> on_finished) {
  MatchSetup setup{.id = "m1",
                   .game = &game,
                   .codec = &codec,
                   .config = {.num_players = 2, .seed = 1},
                   .thinkers = &pool};
  setup.seats.resize(2);
  auto gated = std::make_unique<GatedBot>();
  *bot = gated.get();
  setup.seats[0].kind = SeatPlayer::Kind::kBuiltin;
  setup.seats[0].name = "gated";
  setup.seats[0].builtin = std::move(gated);
  setup.seats[1].kind = SeatPlayer::Kind::kBuiltin;
  setup.seats[1].name = "first";
  setup.seats[1].builtin = std::make_unique<bots::FirstBot>();
  return std::make_shared<HostedMatch>(std::move(setup), *game.NewMatch({.num_players = 2}),
                                       &timers, std::move(on_finished));
}

TEST(HostedMatchTest, BuiltInBotsThinkOnTheWorkerPoolWhileTheMatchAnswersOthers) {
  BidGame game;
  NoCodec codec;
  TimerQueue timers;
  WorkerPool pool(2);
  GatedBot* bot = nullptr;
  absl::Notification finished;
  auto match = GatedMatch(game, codec, timers, pool, &bot, [&] { finished.Notify(); });
  match->Start();  // returns while the bot still thinks
  bot->AwaitStarted();
  EXPECT_NE(bot->thread(), std::this_thread::get_id());
  // The match is not locked while its bot thinks.
  EXPECT_FALSE(match->IsOver());
  EXPECT_EQ(match->Describe().status(), hoard::v1::MATCH_STATUS_RUNNING);
  bot->Release();
  ASSERT_TRUE(finished.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_THAT(match->Record()->ranks, ::testing::ElementsAre(1, 2));
}

TEST(HostedMatchTest, ADecisionThatEndsAfterTheMatchIsDropped) {
  BidGame game;
  NoCodec codec;
  TimerQueue timers;
  WorkerPool pool(1);
  GatedBot* bot = nullptr;
  int finished = 0;
  auto match = GatedMatch(game, codec, timers, pool, &bot, [&] { ++finished; });
  match->Start();
  bot->AwaitStarted();
  ASSERT_TRUE(match->Abort());
  const int actions = match->Describe().actions();
  bot->Release();
  pool.Stop();  // waits for the decision, which finds the match over
  EXPECT_EQ(finished, 1);
  EXPECT_EQ(match->Describe().status(), hoard::v1::MATCH_STATUS_ABORTED);
  EXPECT_EQ(match->Describe().actions(), actions);  // the late bid was not applied
}

TEST(WorkerPoolTest, TasksRunOnTheWorkersAndStopDropsTheQueued) {
  WorkerPool pool(2);
  absl::Mutex mu;
  int ran = 0;
  absl::Notification all;
  for (int i = 0; i < 100; ++i) {
    pool.Post([&] {
      absl::MutexLock lock(&mu);
      if (++ran == 100) all.Notify();
    });
  }
  ASSERT_TRUE(all.WaitForNotificationWithTimeout(absl::Seconds(30)));
  pool.Stop();
  pool.Post([&] { ++ran; });  // after Stop: nothing runs
  absl::SleepFor(absl::Milliseconds(20));
  absl::MutexLock lock(&mu);
  EXPECT_EQ(ran, 100);
}

}  // namespace
}  // namespace hoard::service
