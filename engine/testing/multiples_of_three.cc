#include "engine/testing/multiples_of_three.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/check.h"

namespace hoard::engine::testing {
namespace {

struct NamedView final : ComparableView<NamedView> {
  int players = 0;
  Seat observer = kSpectator;
  std::vector<std::uint64_t> named;
  bool operator==(const NamedView&) const = default;
  std::string ToString() const override { return absl::StrJoin(named, ","); }
  std::string Summary() const override { return ToString(); }
};

class MultiplesOfThreeState final : public State {
 public:
  MultiplesOfThreeState(int players, MultiplesOfThreeOptions options,
                        std::vector<std::uint64_t> named = {})
      : players_(players), options_(options), named_(std::move(named)) {}

  int num_players() const override { return players_; }
  Seats SeatsToAct() const override {
    if (IsOver()) return {};
    return {current()};
  }
  void LegalActions(Seat seat, std::vector<Action>* out) const override {
    out->clear();
    if (IsOver() || seat != current()) return;
    // The second example changes from turn to turn, so that a test holds
    // actions that are legal now but not listed.
    const std::uint64_t second = options_.bad_example ? 4 : 3 * (named_.size() + 1);
    *out = {Action(0), Action(second), Action(options_.largest)};
  }
  bool LegalActionsComplete(Seat seat) const override { return IsOver() || seat != current(); }
  std::string LegalActionsHint(Seat seat) const override {
    if (LegalActionsComplete(seat) || options_.no_hint) return "";
    return absl::StrCat("name any multiple of 3 from 0 to ", options_.largest);
  }
  absl::Status Apply(Seat seat, Action action) override {
    if (IsOver() || seat != current()) {
      return absl::FailedPreconditionError("not your turn");
    }
    if (action.code() % 3 != 0 || action.code() > options_.largest) {
      return absl::InvalidArgumentError(
          absl::StrCat(action.code(), " is not a multiple of 3 from 0 to ", options_.largest));
    }
    named_.push_back(action.code());
    return absl::OkStatus();
  }
  bool IsOver() const override { return current() >= players_; }
  std::vector<double> Scores() const override {
    return std::vector<double>(named_.begin(), named_.end());
  }
  std::vector<int> Ranks() const override { return RanksFromKeys(named_); }
  std::unique_ptr<View> ViewFor(Seat observer) const override {
    auto view = std::make_unique<NamedView>();
    view->players = players_;
    view->observer = observer;
    view->named = named_;
    return view;
  }
  std::string ActionToString(Seat, Action action) const override {
    return absl::StrCat("name ", action.code());
  }
  std::string ToString() const override { return absl::StrJoin(named_, ","); }
  std::vector<Zone> Zones() const override { return {}; }
  std::unique_ptr<State> Clone() const override {
    return std::make_unique<MultiplesOfThreeState>(*this);
  }

 private:
  Seat current() const { return static_cast<Seat>(named_.size()); }

  int players_;
  MultiplesOfThreeOptions options_;
  std::vector<std::uint64_t> named_;
};

// Nothing is hidden: a seat's view is the whole match.
class MultiplesOfThreeDeal final : public Sampler {
 public:
  explicit MultiplesOfThreeDeal(MultiplesOfThreeOptions options) : options_(options) {}
  absl::StatusOr<Seat> Observer(const View& view) const override {
    const auto* v = dynamic_cast<const NamedView*>(&view);
    if (v == nullptr || v->observer < 0) {
      return absl::InvalidArgumentError("not a seat's view of multiples of three");
    }
    return v->observer;
  }
  absl::StatusOr<std::unique_ptr<State>> Sample(const View& view, Rng&) const override {
    if (absl::StatusOr<Seat> observer = Observer(view); !observer.ok()) {
      return observer.status();
    }
    const auto& v = static_cast<const NamedView&>(view);
    return std::make_unique<MultiplesOfThreeState>(v.players, options_, v.named);
  }

 private:
  MultiplesOfThreeOptions options_;
};

}  // namespace

std::unique_ptr<Sampler> MultiplesOfThree::Deal() const {
  return std::make_unique<MultiplesOfThreeDeal>(options_);
}

MultiplesOfThree::MultiplesOfThree(MultiplesOfThreeOptions options) : options_(options) {
  HOARD_CHECK(options_.largest % 3 == 0, "the largest name is a multiple of 3");
  info_ = {.id = "multiples_of_three",
           .name = "Multiples of three",
           .min_players = 2,
           .max_players = 4,
           .ruleset_version = "1",
           .max_actions = 4};
}

absl::StatusOr<std::unique_ptr<State>> MultiplesOfThree::NewMatch(const MatchConfig& config) const {
  if (absl::Status status = ValidateConfig(info_, config); !status.ok()) {
    return status;
  }
  return std::make_unique<MultiplesOfThreeState>(config.num_players, options_);
}

}  // namespace hoard::engine::testing
