#include "bots/mcts.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/testing/multiples_of_three.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::bots {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;

// ---- Two toy games with known answers ------------------------------------

// Matching pennies as one sealed decision: both seats pick heads (0) or
// tails (1) at once; seat 0 wins if they match, seat 1 if not. Neither ever
// sees the other's pick before the match ends, so every pick is worth 1/2.
struct PenniesView final : engine::ComparableView<PenniesView> {
  engine::Seat observer = 0;
  int own = -1;  // the observer's pick, once made
  bool operator==(const PenniesView&) const = default;
  std::string ToString() const override { return absl::StrCat(observer, ":", own); }
  std::string Summary() const override { return ToString(); }
};

class PenniesState final : public engine::State {
 public:
  int num_players() const override { return 2; }
  engine::Seats SeatsToAct() const override {
    engine::Seats seats;
    for (engine::Seat s : {0, 1}) {
      if (picks_[s] < 0) seats.push_back(s);
    }
    return seats;
  }
  void LegalActions(engine::Seat seat, std::vector<engine::Action>* out) const override {
    out->clear();
    if (seat >= 0 && seat < 2 && picks_[seat] < 0) *out = {engine::Action(0), engine::Action(1)};
  }
  absl::Status Apply(engine::Seat seat, engine::Action action) override {
    if (seat < 0 || seat > 1 || picks_[seat] >= 0) return absl::FailedPreconditionError("no");
    if (action.code() > 1) return absl::InvalidArgumentError("heads or tails");
    picks_[seat] = static_cast<int>(action.code());
    return absl::OkStatus();
  }
  bool IsOver() const override { return picks_[0] >= 0 && picks_[1] >= 0; }
  std::vector<double> Scores() const override {
    const bool match = picks_[0] == picks_[1];
    return {match ? 1.0 : 0.0, match ? 0.0 : 1.0};
  }
  std::vector<int> Ranks() const override { return engine::RanksFromKeys(Scores()); }
  std::unique_ptr<engine::View> ViewFor(engine::Seat observer) const override {
    auto view = std::make_unique<PenniesView>();
    view->observer = observer;
    view->own = observer >= 0 ? picks_[observer] : -1;
    return view;
  }
  std::string ActionToString(engine::Seat, engine::Action a) const override {
    return a.code() == 0 ? "heads" : "tails";
  }
  std::string ToString() const override { return absl::StrCat(picks_[0], ",", picks_[1]); }
  std::vector<engine::Zone> Zones() const override { return {}; }
  std::unique_ptr<engine::State> Clone() const override {
    return std::make_unique<PenniesState>(*this);
  }

  int picks_[2] = {-1, -1};
};

// Samples a Pennies match from a view: the other seat's pick is not seen, so
// it has not picked yet (which the view cannot tell from a hidden pick).
class PenniesSampler final : public engine::Sampler {
 public:
  absl::StatusOr<engine::Seat> Observer(const engine::View& view) const override {
    return dynamic_cast<const PenniesView&>(view).observer;
  }
  absl::StatusOr<std::unique_ptr<engine::State>> Sample(const engine::View& view,
                                                        engine::Rng&) const override {
    const auto& v = dynamic_cast<const PenniesView&>(view);
    auto state = std::make_unique<PenniesState>();
    state->picks_[v.observer] = v.own;
    return state;
  }
};

// High card: cards 1, 2 and 3 are shuffled; each of two seats is dealt one
// unseen by the other, the third stays out. Seat 0 then folds (a tie, 0 all)
// or calls (the higher card scores 1, the lower 0). With the 1 it must fold,
// with the 3 call.
struct HighCardView final : engine::ComparableView<HighCardView> {
  engine::Seat observer = 0;
  int card = 0;
  bool operator==(const HighCardView&) const = default;
  std::string ToString() const override { return absl::StrCat(observer, ":", card); }
  std::string Summary() const override { return ToString(); }
};

enum HighCardAction : std::uint64_t { kFold = 0, kCall = 1 };

class HighCardState final : public engine::State {
 public:
  explicit HighCardState(std::vector<int> cards) : cards_(std::move(cards)) {}
  int num_players() const override { return 2; }
  engine::Seats SeatsToAct() const override {
    if (IsOver()) return {};
    return {0};
  }
  void LegalActions(engine::Seat seat, std::vector<engine::Action>* out) const override {
    out->clear();
    if (seat == 0 && !IsOver()) *out = {engine::Action(kFold), engine::Action(kCall)};
  }
  absl::Status Apply(engine::Seat seat, engine::Action action) override {
    if (seat != 0 || IsOver()) return absl::FailedPreconditionError("no");
    if (action.code() > kCall) return absl::InvalidArgumentError("fold or call");
    choice_ = static_cast<int>(action.code());
    return absl::OkStatus();
  }
  bool IsOver() const override { return choice_ >= 0; }
  std::vector<double> Scores() const override {
    if (choice_ == kFold) return {0, 0};
    return {cards_[0] > cards_[1] ? 1.0 : 0.0, cards_[1] > cards_[0] ? 1.0 : 0.0};
  }
  std::vector<int> Ranks() const override { return engine::RanksFromKeys(Scores()); }
  std::unique_ptr<engine::View> ViewFor(engine::Seat observer) const override {
    auto view = std::make_unique<HighCardView>();
    view->observer = observer;
    view->card = observer >= 0 ? cards_[observer] : 0;
    return view;
  }
  std::string ActionToString(engine::Seat, engine::Action a) const override {
    return a.code() == kFold ? "fold" : "call";
  }
  std::string ToString() const override { return absl::StrJoin(cards_, ","); }
  std::vector<engine::Zone> Zones() const override {
    return {{"cards", {absl::StrJoin(cards_, ",")}}};
  }
  std::unique_ptr<engine::State> Clone() const override {
    return std::make_unique<HighCardState>(*this);
  }

 private:
  std::vector<int> cards_;  // seat 0's, seat 1's, the one left out
  int choice_ = -1;
};

// Deals the two cards seat 0 has not seen: either may be seat 1's.
class HighCardSampler final : public engine::Sampler {
 public:
  absl::StatusOr<engine::Seat> Observer(const engine::View& view) const override {
    return dynamic_cast<const HighCardView&>(view).observer;
  }
  absl::StatusOr<std::unique_ptr<engine::State>> Sample(const engine::View& view,
                                                        engine::Rng& rng) const override {
    const int own = dynamic_cast<const HighCardView&>(view).card;
    std::vector<int> unseen;
    for (int c = 1; c <= 3; ++c) {
      if (c != own) unseen.push_back(c);
    }
    if (rng.Uniform(2) == 1) std::swap(unseen[0], unseen[1]);
    return std::make_unique<HighCardState>(std::vector<int>{own, unseen[0], unseen[1]});
  }
};

// ---- Tests --------------------------------------------------------------

TEST(MctsTest, FoldsTheLowCardAndCallsWithTheHighOne) {
  HighCardSampler sampler;
  const std::vector<engine::Action> legal = {engine::Action(kFold), engine::Action(kCall)};
  MctsBot bot(sampler, {.iterations = 400}, 1);
  EXPECT_EQ(bot.Choose(*HighCardState({1, 2, 3}).ViewFor(0), legal), engine::Action(kFold));
  EXPECT_EQ(bot.last_search().iterations, 400);
  EXPECT_EQ(bot.Choose(*HighCardState({3, 1, 2}).ViewFor(0), legal), engine::Action(kCall));
  // With the 2 a call wins half the time: worth what a fold is.
  bot.Choose(*HighCardState({2, 3, 1}).ViewFor(0), legal);
  ASSERT_EQ(bot.last_search().root.size(), 2u);
  for (const SearchStats::RootAction& a : bot.last_search().root) {
    EXPECT_THAT(a.mean, DoubleNear(0.5, 0.1)) << a.action.code();
  }
}

TEST(MctsTest, SealedPicksAreNotSeenByTheSeatsPickingAfter) {
  // If the search let seat 1 see seat 0's pick it would always mismatch, and
  // seat 0's picks would look worth 0; sealed, each is worth 1/2.
  PenniesSampler sampler;
  MctsBot bot(sampler, {.iterations = 4000}, 3);
  const std::vector<engine::Action> legal = {engine::Action(0), engine::Action(1)};
  bot.Choose(*PenniesState().ViewFor(0), legal);
  ASSERT_EQ(bot.last_search().root.size(), 2u);
  for (const SearchStats::RootAction& a : bot.last_search().root) {
    EXPECT_THAT(a.mean, DoubleNear(0.5, 0.1)) << a.action.code();
    EXPECT_GT(a.visits, 1000);
  }
  // Seat 1 searches the same way, the seat that picks second in the tree.
  bot.Choose(*PenniesState().ViewFor(1), legal);
  for (const SearchStats::RootAction& a : bot.last_search().root) {
    EXPECT_THAT(a.mean, DoubleNear(0.5, 0.1)) << a.action.code();
  }
}

TEST(MctsTest, AnIterationBudgetIsReproducibleFromTheSeed) {
  HighCardSampler sampler;
  const std::vector<engine::Action> legal = {engine::Action(kFold), engine::Action(kCall)};
  const auto view = HighCardState({2, 1, 3}).ViewFor(0);
  MctsBot a(sampler, {.iterations = 300}, 42), b(sampler, {.iterations = 300}, 42);
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(a.Choose(*view, legal), b.Choose(*view, legal));
    ASSERT_EQ(a.last_search().root.size(), b.last_search().root.size());
    for (std::size_t r = 0; r < a.last_search().root.size(); ++r) {
      EXPECT_EQ(a.last_search().root[r].visits, b.last_search().root[r].visits);
    }
  }
}

TEST(MctsTest, ATimeBudgetSearchesUntilItRunsOut) {
  HighCardSampler sampler;
  const std::vector<engine::Action> legal = {engine::Action(kFold), engine::Action(kCall)};
  MctsBot bot(sampler, {.iterations = 0, .time_ms = 30}, 1);
  EXPECT_EQ(bot.Choose(*HighCardState({3, 1, 2}).ViewFor(0), legal), engine::Action(kCall));
  // Far more than one iteration fits in 30 ms of a two-action toy.
  EXPECT_GT(bot.last_search().iterations, 100);
}

TEST(MctsTest, AViewItsSamplerRefusesFallsBackToTheDefaultAction) {
  class Refusing final : public engine::Sampler {
   public:
    absl::StatusOr<engine::Seat> Observer(const engine::View&) const override { return 0; }
    absl::StatusOr<std::unique_ptr<engine::State>> Sample(const engine::View&,
                                                          engine::Rng&) const override {
      return absl::InvalidArgumentError("not this game's view");
    }
  } sampler;
  MctsBot bot(sampler, {.iterations = 100}, 1);
  const std::vector<engine::Action> legal = {engine::Action(kCall), engine::Action(kFold)};
  EXPECT_EQ(bot.Choose(*HighCardState({1, 2, 3}).ViewFor(0), legal), engine::Action(kCall));
  EXPECT_EQ(bot.last_search().iterations, 0);
  EXPECT_EQ(bot.last_search().sample_errors, 3);
}

TEST(MctsTest, RewardsCountTheSeatsBeatenAndATenthForTheScore) {
  engine::testing::MultiplesOfThree game;
  std::unique_ptr<engine::State> state = *game.NewMatch({.num_players = 3, .seed = 1});
  ASSERT_TRUE(state->Apply(0, engine::Action(30)).ok());
  ASSERT_TRUE(state->Apply(1, engine::Action(0)).ok());
  ASSERT_TRUE(state->Apply(2, engine::Action(30)).ok());
  // Ranks 1, 3, 1: seats 0 and 2 beat seat 1 and tie each other.
  EXPECT_THAT(MatchRewards(*state),
              ElementsAre(DoubleNear(0.9 * 0.75 + 0.1, 1e-9), DoubleNear(0.0, 1e-9),
                          DoubleNear(0.9 * 0.75 + 0.1, 1e-9)));
}

TEST(MctsTest, TheSearchingSeatGoesFirstInASealedGroup) {
  EXPECT_EQ(NextSeatToAct({0, 1, 2}, 2), 2);
  EXPECT_EQ(NextSeatToAct({2, 1}, 0), 1);
  EXPECT_EQ(NextSeatToAct({3}, 0), 3);
}

}  // namespace
}  // namespace hoard::bots
