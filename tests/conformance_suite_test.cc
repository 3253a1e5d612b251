// The conformance suite catches the defects it exists for: tiny games,
// correct and then broken in one way at a time, must pass and then fail.

#include <algorithm>
#include <memory>
#include <span>
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
  bool leaky_view = false;     // a seat sees every hand
  bool dirty_refusal = false;  // refusing a move out of turn swaps cards
  bool accepts_out_of_turn = false;
  bool endless = false;           // "keep" never finishes the round
  bool nondeterministic = false;  // the deal ignores the seed
  bool blind_deal = false;        // the deal forgets the seat's own card
  bool telling_text = false;      // "keep" tells the card kept
};

struct HighCardView final : ComparableView<HighCardView> {
  Seat observer = kSpectator;
  std::vector<int> visible;  // -1 where hidden
  int deck_size = 0;
  int current = 0;
  bool operator==(const HighCardView&) const = default;
  std::string ToString() const override { return absl::StrJoin(visible, ","); }
  std::string Summary() const override { return ToString(); }
};

class HighCardState final : public State {
 public:
  HighCardState(std::vector<int> hands, std::vector<int> deck, Defects defects, Seat current = 0)
      : hands_(std::move(hands)), deck_(std::move(deck)), defects_(defects), current_(current) {}

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
    view->observer = observer;
    for (Seat s = 0; s < num_players(); ++s) {
      const bool shown = IsOver() || s == observer || defects_.leaky_view;
      view->visible.push_back(shown ? hands_[s] : -1);
    }
    view->deck_size = static_cast<int>(deck_.size());
    view->current = current_;
    return view;
  }
  std::string ActionToString(Seat seat, Action action) const override {
    if (defects_.telling_text && action.code() == 0 && seat >= 0 && seat < num_players()) {
      return absl::StrCat("keep ", hands_[seat]);
    }
    return action.code() == 0 ? "keep" : "swap";
  }
  std::string ToString() const override {
    return absl::StrCat(absl::StrJoin(hands_, ","), "|", absl::StrJoin(deck_, ","), "|", current_);
  }
  std::vector<Zone> Zones() const override { return {}; }
  std::unique_ptr<State> Clone() const override { return std::make_unique<HighCardState>(*this); }

 private:
  std::vector<int> hands_;
  std::vector<int> deck_;
  Defects defects_;
  Seat current_ = 0;
};

// Deals the cards a seat has not seen among the other hands and the deck
// (ten cards at first; a swap discards one). By design it reads from the
// view only what the seat may see: its own card, the deck's size, whose turn
// it is, and every hand once the match is over.
class HighCardDeal final : public Sampler {
 public:
  explicit HighCardDeal(Defects defects) : defects_(defects) {}
  absl::StatusOr<Seat> Observer(const View& view) const override {
    const auto* v = dynamic_cast<const HighCardView*>(&view);
    if (v == nullptr || v->observer < 0) {
      return absl::InvalidArgumentError("not a seat's view of high card");
    }
    return v->observer;
  }
  absl::StatusOr<std::unique_ptr<State>> Sample(const View& view, Rng& rng) const override {
    absl::StatusOr<Seat> observer = Observer(view);
    if (!observer.ok()) return observer.status();
    const auto& v = static_cast<const HighCardView&>(view);
    const int n = static_cast<int>(v.visible.size());
    const bool over = v.current >= n;
    std::vector<int> hands(n, -1);
    std::vector<int> unseen;
    for (int card = 0; card < 10; ++card) {
      const auto shown = std::find(v.visible.begin(), v.visible.end(), card);
      const Seat holder = static_cast<Seat>(shown - v.visible.begin());
      if (shown != v.visible.end() && (over || holder == *observer) && !defects_.blind_deal) {
        hands[holder] = card;
      } else {
        unseen.push_back(card);
      }
    }
    rng.Shuffle(std::span<int>(unseen));
    for (int& hand : hands) {
      if (hand >= 0) continue;
      hand = unseen.back();
      unseen.pop_back();
    }
    unseen.resize(std::min<std::size_t>(unseen.size(), v.deck_size));  // the rest was discarded
    return std::make_unique<HighCardState>(hands, unseen, defects_, v.current);
  }

 private:
  Defects defects_;
};

class HighCard final : public Game {
 public:
  explicit HighCard(Defects defects) : defects_(defects) {
    info_ = {.id = "high_card",
             .name = "High card",
             .min_players = 2,
             .max_players = 4,
             .ruleset_version = "1",
             .max_actions = 50};
  }
  const GameInfo& info() const override { return info_; }
  absl::StatusOr<std::unique_ptr<State>> NewMatch(const MatchConfig& config) const override {
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
  return testing::CheckConformance(HighCard(defects), HighCardDeal(defects), 3, options);
}

TEST(ConformanceSuiteTest, ACorrectGamePasses) {
  absl::StatusOr<testing::ConformanceReport> report = Check({});
  ASSERT_THAT(report, IsOk());
  EXPECT_EQ(report->matches, 200);
  EXPECT_GT(report->deals_visible_to_others, 0);
}

TEST(ConformanceSuiteTest, ADealThatForgetsWhatTheSeatSeesFails) {
  EXPECT_THAT(Check({.blind_deal = true}),
              StatusIs(absl::StatusCode::kInternal,
                       HasSubstr("sees a difference in a state dealt from its view")));
}

TEST(ConformanceSuiteTest, ALeakyViewFails) {
  EXPECT_THAT(Check({.leaky_view = true}),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("view invariance")));
}

TEST(ConformanceSuiteTest, AnActionTextThatTellsAHiddenCardFails) {
  EXPECT_THAT(Check({.telling_text = true}),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("would be told of seat")));
}

TEST(ConformanceSuiteTest, ACorrectGameIsToldAlikeInDealtStates) {
  absl::StatusOr<testing::ConformanceReport> report = Check({});
  ASSERT_THAT(report, IsOk());
  EXPECT_GT(report->told_alike_others, report->steps);
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
  const testing::MultiplesOfThree game(defects);
  return testing::CheckConformance(game, *game.Deal(), 3, options);
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
  EXPECT_THAT(CheckMultiplesOfThree({.bad_example = true}),
              StatusIs(absl::StatusCode::kInternal,
                       HasSubstr("'name 4' was refused: 4 is not a multiple of 3")));
}

TEST(ConformanceSuiteTest, AnIncompleteListWithoutConstraintsFails) {
  EXPECT_THAT(CheckMultiplesOfThree({.no_hint = true}),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("no hint")));
}

}  // namespace
}  // namespace hoard::engine
