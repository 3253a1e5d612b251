#include "engine/testing/conformance.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/record.h"

namespace hoard::engine::testing {
namespace {

// Well-formed actions seen legal somewhere, to probe other states with.
constexpr std::size_t kPoolCapacity = 4096;

bool Contains(const std::vector<Action>& actions, Action action) {
  return std::find(actions.begin(), actions.end(), action) != actions.end();
}

class Checker {
 public:
  Checker(const Game& game, int num_players, const ConformanceOptions& options)
      : game_(game),
        num_players_(num_players),
        options_(options),
        rng_(options.seed * 1000003 + num_players) {}

  absl::Status Run() {
    for (int match = 0; match < options_.matches; ++match) {
      MatchConfig config{.num_players = num_players_, .seed = rng_.Fork()};
      if (absl::Status status = PlayOne(config, match); !status.ok()) {
        return absl::Status(
            status.code(),
            absl::StrCat(game_.info().id, ", ", num_players_,
                         " players, match seed ", config.seed, ", step ",
                         step_, ": ", status.message()));
      }
      ++report_.matches;
    }
    return absl::OkStatus();
  }

  const ConformanceReport& report() const { return report_; }

 private:
  absl::Status Fail(std::string message) {
    return absl::InternalError(std::move(message));
  }

  absl::Status PlayOne(const MatchConfig& config, int match) {
    absl::StatusOr<std::unique_ptr<State>> started = game_.NewMatch(config);
    if (!started.ok()) return started.status();
    std::unique_ptr<State> state = *std::move(started);
    std::vector<std::pair<Seat, Action>> trace;
    std::vector<std::string> states = {state->ToString()};
    step_ = 0;
    for (;;) {
      if (absl::Status status = CheckStep(*state, match); !status.ok()) {
        return status;
      }
      if (state->IsOver()) break;
      if (step_ >= game_.info().max_actions) {
        return Fail(absl::StrCat("not over after max_actions = ",
                                 game_.info().max_actions, " actions"));
      }
      const Seats seats = state->SeatsToAct();
      const Seat seat = seats[rng_.Uniform(seats.size())];
      const std::vector<Action> legal = state->LegalActions(seat);
      const Action action = legal[rng_.Uniform(legal.size())];
      if (absl::Status status = state->Apply(seat, action); !status.ok()) {
        return Fail(absl::StrCat("legal action '",
                                 state->ActionToString(seat, action),
                                 "' was refused: ", status.message()));
      }
      trace.emplace_back(seat, action);
      states.push_back(state->ToString());
      ++step_;
      ++report_.steps;
    }
    if (absl::Status status = CheckResult(*state); !status.ok()) return status;
    return CheckReplay(config, trace, states);
  }

  absl::Status CheckStep(const State& state, int match) {
    const std::string before = state.ToString();
    const Seats seats = state.SeatsToAct();
    if (seats.empty() != state.IsOver()) {
      return Fail(state.IsOver() ? "over, yet seats are to act"
                                 : "not over, yet no seat is to act");
    }
    if (state.num_players() != num_players_) {
      return Fail(absl::StrCat("num_players() is ", state.num_players()));
    }

    std::unique_ptr<State> clone = state.Clone();
    if (clone->ToString() != before) return Fail("a clone differs");

    std::vector<std::vector<Action>> legal(num_players_);
    for (Seat seat = 0; seat < num_players_; ++seat) {
      legal[seat] = state.LegalActions(seat);
      const bool acts = std::find(seats.begin(), seats.end(), seat) != seats.end();
      if (acts && legal[seat].empty()) {
        return Fail(absl::StrCat("seat ", seat, " must act but has no legal action"));
      }
      if (!acts && !legal[seat].empty()) {
        return Fail(absl::StrCat("seat ", seat, " may not act but has ",
                                 legal[seat].size(), " legal actions"));
      }
      const bool complete = state.LegalActionsComplete(seat);
      const std::string hint = state.LegalActionsHint(seat);
      if (!acts && !complete) {
        return Fail(absl::StrCat("seat ", seat,
                                 " may not act but its legal actions are "
                                 "said to be incomplete"));
      }
      if (!complete && hint.empty()) {
        return Fail(absl::StrCat("seat ", seat,
                                 "'s legal actions are incomplete but have "
                                 "no hint of the constraints"));
      }
      if (complete && !hint.empty()) {
        return Fail(absl::StrCat("seat ", seat,
                                 "'s legal actions are complete, ",
                                 "yet have the hint '", hint, "'"));
      }
      if (acts && !complete) ++report_.incomplete_lists;
      std::vector<Action> sorted = legal[seat];
      std::sort(sorted.begin(), sorted.end());
      if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
        return Fail(absl::StrCat("seat ", seat, " has duplicate legal actions"));
      }
    }
    for (Seat outside : {kSpectator, num_players_, -7}) {
      if (!state.LegalActions(outside).empty()) {
        return Fail(absl::StrCat("seat ", outside, " has legal actions"));
      }
      if (!state.LegalActionsComplete(outside)) {
        return Fail(absl::StrCat("seat ", outside,
                                 "'s legal actions are said to be incomplete"));
      }
    }

    for (Seat observer = kSpectator; observer < num_players_; ++observer) {
      if (absl::Status status = CheckViewInvariance(state, observer, seats, legal);
          !status.ok()) {
        return status;
      }
      if (!clone->ViewFor(observer)->Equals(*state.ViewFor(observer))) {
        return Fail(absl::StrCat("a clone's view differs for observer ", observer));
      }
    }

    if (!state.IsOver()) {
      if (absl::Status status = CheckLegalApply(state, seats, legal, match);
          !status.ok()) {
        return status;
      }
      if (absl::Status status = CheckRefusals(state, seats, legal);
          !status.ok()) {
        return status;
      }
    }
    for (Seat seat = 0; seat < num_players_; ++seat) {
      for (Action action : legal[seat]) {
        if (pool_.size() < kPoolCapacity && pooled_.insert(action).second) {
          pool_.push_back(action);
        }
      }
    }
    if (state.ToString() != before) return Fail("checking changed the state");
    return absl::OkStatus();
  }

  absl::Status CheckViewInvariance(
      const State& state, Seat observer, const Seats& seats,
      const std::vector<std::vector<Action>>& legal) {
    const std::unique_ptr<View> view = state.ViewFor(observer);
    for (int r = 0; r < options_.resamples; ++r) {
      const std::unique_ptr<State> sample = state.ResampleHidden(observer, rng_);
      ++report_.views_compared;
      if (!sample->ViewFor(observer)->Equals(*view)) {
        return Fail(absl::StrCat(
            "view invariance: observer ", observer,
            " sees a difference after hidden cards were resampled.\nview:\n",
            view->ToString(), "resampled view:\n",
            sample->ViewFor(observer)->ToString()));
      }
      if (sample->SeatsToAct() != seats || sample->IsOver() != state.IsOver()) {
        return Fail(absl::StrCat("view invariance: resampling for observer ",
                                 observer, " changed who acts"));
      }
      if (observer != kSpectator &&
          sample->LegalActions(observer) != legal[observer]) {
        return Fail(absl::StrCat("view invariance: resampling changed seat ",
                                 observer, "'s legal actions"));
      }
      if (observer != kSpectator && (sample->LegalActionsComplete(observer) !=
                                         state.LegalActionsComplete(observer) ||
                                     sample->LegalActionsHint(observer) !=
                                         state.LegalActionsHint(observer))) {
        return Fail(absl::StrCat(
            "view invariance: resampling changed whether seat ", observer,
            "'s legal actions are complete, or their hint"));
      }
      if (sample->ToString() == state.ToString()) continue;
      ++report_.resamples_that_moved_cards;
      for (Seat other = kSpectator; other < num_players_; ++other) {
        if (other != observer &&
            !sample->ViewFor(other)->Equals(*state.ViewFor(other))) {
          ++report_.resamples_visible_to_others;
          break;
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckLegalApply(const State& state, const Seats& seats,
                               const std::vector<std::vector<Action>>& legal,
                               int match) {
    for (Seat seat : seats) {
      std::vector<Action> to_try = legal[seat];
      if (match >= options_.exhaustive_matches) {
        to_try.clear();
        for (int i = 0; i < options_.sampled_legal_actions; ++i) {
          to_try.push_back(legal[seat][rng_.Uniform(legal[seat].size())]);
        }
      }
      for (Action action : to_try) {
        std::unique_ptr<State> copy = state.Clone();
        if (absl::Status status = copy->Apply(seat, action); !status.ok()) {
          return Fail(absl::StrCat("seat ", seat, "'s legal action '",
                                   state.ActionToString(seat, action),
                                   "' was refused: ", status.message()));
        }
      }
    }
    return absl::OkStatus();
  }

  // Applies an action that must be refused (or, when `may_be_legal`, may
  // be); a refusal must say why and leave the state unchanged.
  absl::Status ExpectRefused(const State& state, Seat seat, Action action,
                             const std::string& why,
                             bool may_be_legal = false) {
    std::unique_ptr<State> copy = state.Clone();
    const absl::Status status = copy->Apply(seat, action);
    if (status.ok() && may_be_legal) {
      ++report_.unlisted_accepted;
      return absl::OkStatus();
    }
    if (status.ok()) {
      return Fail(absl::StrCat("accepted ", why, ": seat ", seat, " played '",
                               state.ActionToString(seat, action), "'"));
    }
    if (status.message().empty()) {
      return Fail(absl::StrCat("refused ", why, " without saying why"));
    }
    if (copy->ToString() != state.ToString()) {
      return Fail(absl::StrCat("refusing ", why, " ('", status.message(),
                               "') changed the state"));
    }
    ++report_.illegal_refused;
    return absl::OkStatus();
  }

  absl::Status CheckRefusals(const State& state, const Seats& seats,
                             const std::vector<std::vector<Action>>& legal) {
    const Seat seat = seats[rng_.Uniform(seats.size())];
    // An action missing from an incomplete list may well be legal: only a
    // complete list says which actions are not.
    const bool complete = state.LegalActionsComplete(seat);
    for (int i = 0; i < options_.illegal_probes && !pool_.empty(); ++i) {
      const Action action = pool_[rng_.Uniform(pool_.size())];
      if (Contains(legal[seat], action)) continue;
      if (absl::Status status = ExpectRefused(state, seat, action,
                                              "an action not in the legal list",
                                              /*may_be_legal=*/!complete);
          !status.ok()) {
        return status;
      }
    }
    const Action some_legal = legal[seat][rng_.Uniform(legal[seat].size())];
    for (Seat other = 0; other < num_players_; ++other) {
      if (std::find(seats.begin(), seats.end(), other) != seats.end()) continue;
      if (absl::Status status = ExpectRefused(state, other, some_legal,
                                              "an action out of turn");
          !status.ok()) {
        return status;
      }
    }
    for (Seat outside : {kSpectator, num_players_}) {
      if (absl::Status status = ExpectRefused(state, outside, some_legal,
                                              "an action from a seat that does "
                                              "not exist");
          !status.ok()) {
        return status;
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckResult(const State& state) {
    const std::vector<double> scores = state.Scores();
    const std::vector<int> ranks = state.Ranks();
    if (static_cast<int>(scores.size()) != num_players_ ||
        static_cast<int>(ranks.size()) != num_players_) {
      return Fail("scores or ranks do not have one entry per seat");
    }
    for (int i = 0; i < num_players_; ++i) {
      int better = 0;
      for (int j = 0; j < num_players_; ++j) {
        if (scores[j] > scores[i] && ranks[j] >= ranks[i]) {
          return Fail(absl::StrCat("seat ", j, " scored more than seat ", i,
                                   " but does not rank better"));
        }
        if (ranks[j] == ranks[i] && scores[j] != scores[i]) {
          return Fail(absl::StrCat("seats ", i, " and ", j,
                                   " share a rank with different scores"));
        }
        if (ranks[j] < ranks[i]) ++better;
      }
      if (ranks[i] != better + 1) {
        return Fail(absl::StrCat("ranks [", absl::StrJoin(ranks, ","),
                                 "] do not count the better players"));
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckReplay(const MatchConfig& config,
                           const std::vector<std::pair<Seat, Action>>& trace,
                           const std::vector<std::string>& states) {
    absl::StatusOr<std::unique_ptr<State>> replay = game_.NewMatch(config);
    if (!replay.ok()) return replay.status();
    if ((*replay)->ToString() != states[0]) {
      return Fail("determinism: the same seed dealt a different start");
    }
    for (std::size_t i = 0; i < trace.size(); ++i) {
      step_ = static_cast<int>(i);
      if (absl::Status status = (*replay)->Apply(trace[i].first, trace[i].second);
          !status.ok() || (*replay)->ToString() != states[i + 1]) {
        return Fail("determinism: replaying the same actions diverged");
      }
    }
    return absl::OkStatus();
  }

  const Game& game_;
  const int num_players_;
  const ConformanceOptions options_;
  Rng rng_;
  std::vector<Action> pool_;
  absl::flat_hash_set<Action> pooled_;
  int step_ = 0;
  ConformanceReport report_;
};

}  // namespace

absl::StatusOr<ConformanceReport> CheckConformance(
    const Game& game, int num_players, const ConformanceOptions& options) {
  Checker checker(game, num_players, options);
  if (absl::Status status = checker.Run(); !status.ok()) return status;
  return checker.report();
}

}  // namespace hoard::engine::testing
