// The conformance suite catches the defects it exists for: tiny games,
// correct and then broken in one way at a time, must pass and then fail.

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/game.h"
#include "engine/testing/conformance.h"
#include "engine/testing/multiples_of_three.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::engine {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;

// High card: each seat holds one hidden card of 0..9; in turn each keeps it
// (action 0) or swaps it for the top of the hidden deck (action 1). Highest
// card wins.
struct Defects {
  bool leaky_view = false;        // a seat sees every hand
  bool dirty_refusal = false;     // refusing a move out of turn swaps cards
  bool accepts_out_of_turn = false;
  bool endless = false;           // "keep" never finishes the round
  bool nondeterministic = false;  // the deal ignores the seed
};

struct HighCardView final : ComparableView<HighCardView> {
  std::vector<int> visible;  // -1 where hidden
  int current = 0;
  bool operator==(const HighCardView&) const = default;
  std::string ToString() const override { return absl::StrJoin(visible, ","); }
  std::string Summary() const override { return ToString(); }
};

class HighCardState final : public State {
 public:
  HighCardState(std::vector<int> hands, std::vector<int> deck, Defects defects)
      : hands_(std::move(hands)), deck_(std::move(deck)), defects_(defects) {}

  int num_players() const override { return static_cast<int>(hands_.size()); }
  Seats SeatsToAct() const override {
    if (IsOver()) return {};
    return {current_};
  }
  void LegalActions(Seat seat, std::vector<Action>* out) const override {
    out->clear();
    if (IsOver() || seat != current_) return;
    out->push_back(Action(0));
    if (!deck_.empty()) out->push_back(Action(1));
  }
  absl::Status Apply(Seat seat, Action action) override {
    if (IsOver()) return absl::FailedPreconditionError("over");
    if (seat != current_ && !defects_.accepts_out_of_turn) {
      if (defects_.dirty_refusal) std::swap(hands_[0], hands_[1]);
      return absl::FailedPreconditionError("not your turn");
    }
    if (action.code() > 1 || (action.code() == 1 && deck_.empty())) {
      return absl::InvalidArgumentError("no such action");
    }
    if (action.code() == 1) {
      std::swap(hands_[current_], deck_.back());
      deck_.pop_back();
    }
    if (!(defects_.endless && action.code() == 0)) ++current_;
    if (defects_.endless) current_ %= num_players();
    return absl::OkStatus();
  }
  bool IsOver() const override { return current_ >= num_players(); }
  std::vector<double> Scores() const override {
    return std::vector<double>(hands_.begin(), hands_.end());
  }
  std::vector<int> Ranks() const override { return RanksFromKeys(hands_); }
  std::unique_ptr<View> ViewFor(Seat observer) const override {
    auto view = std::make_unique<HighCardView>();
    for (Seat s = 0; s < num_players(); ++s) {
      const bool shown = IsOver() || s == observer || defects_.leaky_view;
      view->visible.push_back(shown ? hands_[s] : -1);
    }
    view->current = current_;
    return view;
  }
  std::string ActionToString(Seat, Action action) const override {
    return action.code() == 0 ? "keep" : "swap";
  }
  std::string ToString() const override {
    return absl::StrCat(absl::StrJoin(hands_, ","), "|",
                        absl::StrJoin(deck_, ","), "|", current_);
  }
  std::vector<Zone> Zones() const override { return {}; }
  std::unique_ptr<State> Clone() const override {
    return std::make_unique<HighCardState>(*this);
  }
  std::unique_ptr<State> ResampleHidden(Seat observer, Rng& rng) const override {
    auto sample = std::make_unique<HighCardState>(*this);
    if (IsOver()) return sample;
    std::vector<int> pool = deck_;
    for (Seat s = 0; s < num_players(); ++s) {
      if (s != observer) pool.push_back(hands_[s]);
    }
    rng.Shuffle(std::span<int>(pool));
    auto next = pool.begin();
    for (int& card : sample->deck_) card = *next++;
    for (Seat s = 0; s < num_players(); ++s) {
      if (s != observer) sample->hands_[s] = *next++;
    }
    return sample;
  }

 private:
  std::vector<int> hands_;
  std::vector<int> deck_;
  Defects defects_;
  Seat current_ = 0;
};

class HighCard final : public Game {
 public:
  explicit HighCard(Defects defects) : defects_(defects) {
    info_ = {.id = "high_card", .name = "High card", .min_players = 2,
             .max_players = 4, .ruleset_version = "1", .max_actions = 50};
  }
  const GameInfo& info() const override { return info_; }
  absl::StatusOr<std::unique_ptr<State>> NewMatch(
      const MatchConfig& config) const override {
    static std::uint64_t calls = 0;
    Rng rng(defects_.nondeterministic ? ++calls : config.seed);
    std::vector<int> cards = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    rng.Shuffle(std::span<int>(cards));
    std::vector<int> hands(cards.begin(), cards.begin() + config.num_players);
    std::vector<int> deck(cards.begin() + config.num_players, cards.end());
    return std::make_unique<HighCardState>(hands, deck, defects_);
  }

 private:
  GameInfo info_;
  Defects defects_;
};

absl::StatusOr<testing::ConformanceReport> Check(Defects defects) {
  testing::ConformanceOptions options;
  options.matches = 200;
  return testing::CheckConformance(HighCard(defects), 3, options);
}

TEST(ConformanceSuiteTest, ACorrectGamePasses) {
  absl::StatusOr<testing::ConformanceReport> report = Check({});
  ASSERT_THAT(report, IsOk());
  EXPECT_EQ(report->matches, 200);
  EXPECT_GT(report->resamples_visible_to_others, 0);
}

TEST(ConformanceSuiteTest, ALeakyViewFails) {
  EXPECT_THAT(Check({.leaky_view = true}),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("view invariance")));
}

TEST(ConformanceSuiteTest, ARefusalThatChangesTheStateFails) {
  EXPECT_THAT(Check({.dirty_refusal = true}),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("changed the state")));
}

TEST(ConformanceSuiteTest, AcceptingAnActionOutOfTurnFails) {
  EXPECT_THAT(Check({.accepts_out_of_turn = true}),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("out of turn")));
}

TEST(ConformanceSuiteTest, AGameThatDoesNotEndFails) {
  EXPECT_THAT(Check({.endless = true}),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("max_actions")));
}

TEST(ConformanceSuiteTest, AGameThatIgnoresItsSeedFails) {
  EXPECT_THAT(Check({.nondeterministic = true}),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("determinism")));
}

// Multiples of three (engine/testing/multiples_of_three.h) lists only
// examples of each seat's legal actions.
absl::StatusOr<testing::ConformanceReport> CheckMultiplesOfThree(
    testing::MultiplesOfThreeOptions defects) {
  testing::ConformanceOptions options;
  options.matches = 50;
  return testing::CheckConformance(testing::MultiplesOfThree(defects), 3,
                                   options);
}

TEST(ConformanceSuiteTest, AGameWithIncompleteListsPasses) {
  absl::StatusOr<testing::ConformanceReport> report = CheckMultiplesOfThree({});
  ASSERT_THAT(report, IsOk());
  EXPECT_EQ(report->incomplete_lists, report->steps);
  // Actions legal now but not listed were tried, and not taken for illegal
  // ones; actions out of turn were still refused.
  EXPECT_GT(report->unlisted_accepted, 0);
  EXPECT_GT(report->illegal_refused, 0);
}

TEST(ConformanceSuiteTest, AnExampleTheRulesRefuseFails) {
  EXPECT_THAT(
      CheckMultiplesOfThree({.bad_example = true}),
      StatusIs(absl::StatusCode::kInternal,
               HasSubstr("'name 4' was refused: 4 is not a multiple of 3")));
}

TEST(ConformanceSuiteTest, AnIncompleteListWithoutConstraintsFails) {
  EXPECT_THAT(CheckMultiplesOfThree({.no_hint = true}),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("no hint")));
}

}  // namespace
}  // namespace hoard::engine
