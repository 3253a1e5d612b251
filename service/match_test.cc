// The match host on its own, with in-memory streams: sealed simultaneous
// decisions reveal nothing until every seat has answered.

#include "service/match.h"

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::service {
namespace {

using engine::Action;
using engine::Seat;

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
  std::unique_ptr<engine::State> ResampleHidden(Seat, engine::Rng&) const override {
    return Clone();
  }

 private:
  std::vector<int> bids_;
};

class BidGame final : public engine::Game {
 public:
  BidGame() { info_ = {.id = "bid", .name = "Sealed bid", .min_players = 2,
                       .max_players = 3, .ruleset_version = "1", .max_actions = 3}; }
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

hoard::v1::Answer Bid(const hoard::v1::DecisionRequest& request, int bid) {
  hoard::v1::Answer answer;
  answer.set_match_id(request.match_id());
  answer.set_request_id(request.request_id());
  answer.set_legal_index(bid);
  return answer;
}

TEST(HostedMatchTest, SealedAnswersStayHiddenUntilEverySeatHasAnswered) {
  BidGame game;
  NoCodec codec;
  TimerQueue timers;
  MatchSetup setup{.id = "m1", .game = &game, .codec = &codec,
                   .config = {.num_players = 2, .seed = 1}};
  setup.seats.resize(2);
  bool finished = false;
  auto owner = std::make_shared<HostedMatch>(std::move(setup),
                                             *game.NewMatch({.num_players = 2}), &timers,
                                             [&] { finished = true; });
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
  auto request_of = [](const Recorder& r) {
    for (const auto& m : r.messages) {
      if (m.has_decision()) return m.decision();
    }
    return hoard::v1::DecisionRequest();
  };
  const hoard::v1::DecisionRequest request0 = request_of(seat0);
  const hoard::v1::DecisionRequest request1 = request_of(seat1);
  ASSERT_EQ(request0.seat(), 0);
  ASSERT_EQ(request1.seat(), 1);

  EXPECT_TRUE(match.Answer(connection0.get(), Bid(request0, 2)).accepted());
  // Seat 1 and the spectator learn only that seat 0 answered.
  for (const auto& m : seat1.messages) EXPECT_FALSE(m.has_answer_result());
  ASSERT_FALSE(watcher->events.empty());
  const hoard::v1::ActionTaken& sealed = watcher->events.back().action_taken();
  EXPECT_EQ(sealed.seat(), 0);
  EXPECT_FALSE(sealed.has_action());
  EXPECT_EQ(sealed.text(), "answered (sealed)");
  // A second answer to the same request is refused, not applied twice.
  EXPECT_FALSE(match.Answer(connection0.get(), Bid(request0, 1)).accepted());
  // Seat 0 cannot answer for seat 1.
  EXPECT_EQ(match.Answer(connection0.get(), Bid(request1, 0)).code(),
            static_cast<int>(absl::StatusCode::kPermissionDenied));

  EXPECT_TRUE(match.Answer(connection1.get(), Bid(request1, 1)).accepted());
  // Now both bids are revealed, then the match ends.
  std::vector<std::string> revealed;
  for (const auto& event : watcher->events) {
    if (event.has_action_taken() && event.action_taken().text() != "answered (sealed)") {
      revealed.push_back(event.action_taken().text());
    }
  }
  EXPECT_THAT(revealed, ::testing::ElementsAre("bid 2", "bid 1"));
  EXPECT_TRUE(watcher->events.back().has_finished());
  EXPECT_TRUE(watcher->closed);
  EXPECT_TRUE(finished);
  EXPECT_THAT(match.Record()->ranks, ::testing::ElementsAre(1, 2));
}

}  // namespace
}  // namespace hoard::service
