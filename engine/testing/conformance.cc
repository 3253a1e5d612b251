#include "engine/testing/conformance.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/play_by_play.h"
#include "engine/record.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "hoard/v1/arena.pb.h"

namespace hoard::engine::testing {
namespace {

// Well-formed actions seen legal somewhere, to probe other states with.
constexpr std::size_t kPoolCapacity = 4096;

bool Contains(const std::vector<Action>& actions, Action action) {
  return std::find(actions.begin(), actions.end(), action) != actions.end();
}

class Checker {
 public:
  Checker(const Game& game, const Sampler& deal, int num_players, const ConformanceOptions& options)
      : game_(game),
        deal_(deal),
        num_players_(num_players),
        options_(options),
        rng_(options.seed * 1000003 + num_players) {}

  absl::Status Run() {
    for (int match = 0; match < options_.matches; ++match) {
      MatchConfig config{.num_players = num_players_, .seed = rng_.Fork()};
      if (absl::Status status = PlayOne(config, match); !status.ok()) {
        return absl::Status(status.code(), absl::StrCat(game_.info().id, ", ", num_players_,
                                                        " players, match seed ", config.seed,
                                                        ", step ", step_, ": ", status.message()));
      }
      ++report_.matches;
    }
    return absl::OkStatus();
  }

  const ConformanceReport& report() const { return report_; }

 private:
  absl::Status Fail(std::string message) { return absl::InternalError(std::move(message)); }

  absl::Status PlayOne(const MatchConfig& config, int match) {
    absl::StatusOr<std::unique_ptr<State>> started = game_.NewMatch(config);
    if (!started.ok()) return started.status();
    std::unique_ptr<State> state = *std::move(started);
    std::vector<std::pair<Seat, Action>> trace;
    std::vector<std::string> states = {state->ToString()};
    PlayByPlay told;
    step_ = 0;
    match_ = match;
    for (;;) {
      if (absl::Status status = CheckStep(*state, match); !status.ok()) {
        return status;
      }
      if (state->IsOver()) break;
      if (step_ >= game_.info().max_actions) {
        return Fail(
            absl::StrCat("not over after max_actions = ", game_.info().max_actions, " actions"));
      }
      const Seats seats = state->SeatsToAct();
      const Seat seat = seats[rng_.Uniform(seats.size())];
      const std::vector<Action> legal = state->LegalActions(seat);
      const Action action = legal[rng_.Uniform(legal.size())];
      if (Telling(match)) {
        ++report_.told_steps;
        if (absl::Status status = CheckToldAlike(*state, seat, action, told); !status.ok()) {
          return status;
        }
      }
      told.Tell(*state, seat, action, state->ActionToString(seat, action), false);
      if (absl::Status status = state->Apply(seat, action); !status.ok()) {
        return Fail(absl::StrCat("legal action '", state->ActionToString(seat, action),
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
      if (acts && state.DefaultAction(seat) != legal[seat].front()) {
        return Fail(absl::StrCat("seat ", seat, "'s default action is ",
                                 state.ActionToString(seat, state.DefaultAction(seat)),
                                 ", not its first legal action, ",
                                 state.ActionToString(seat, legal[seat].front())));
      }
      if (!acts && !legal[seat].empty()) {
        return Fail(absl::StrCat("seat ", seat, " may not act but has ", legal[seat].size(),
                                 " legal actions"));
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
        return Fail(absl::StrCat("seat ", seat, "'s legal actions are complete, ",
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
        return Fail(absl::StrCat("seat ", outside, "'s legal actions are said to be incomplete"));
      }
    }

    if (absl::Status status = CheckDeals(state, before, seats, legal); !status.ok()) {
      return status;
    }
    for (Seat observer = kSpectator; observer < num_players_; ++observer) {
      if (!clone->ViewFor(observer)->Equals(*state.ViewFor(observer))) {
        return Fail(absl::StrCat("a clone's view differs for observer ", observer));
      }
    }

    if (!state.IsOver()) {
      if (absl::Status status = CheckLegalApply(state, seats, legal, match); !status.ok()) {
        return status;
      }
      if (absl::Status status = CheckRefusals(state, seats, legal); !status.ok()) {
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

  // View invariance, through the game's one deal: a state dealt from a
  // seat's view gives that seat the same view and the same legal actions
  // (complete and hinted alike), leaves it to act, and the match over, as
  // before; and the spectator, who may see only what every seat sees, sees
  // no difference in it either.
  // `full` is state.ToString().
  absl::Status CheckDeals(const State& state, const std::string& full, const Seats& seats,
                          const std::vector<std::vector<Action>>& legal) {
    const std::unique_ptr<View> spectator = state.ViewFor(kSpectator);
    for (Seat observer = 0; observer < num_players_; ++observer) {
      const std::unique_ptr<View> view = state.ViewFor(observer);
      for (int r = 0; r < options_.deals; ++r) {
        absl::StatusOr<std::unique_ptr<State>> dealt = deal_.Sample(*view, rng_);
        if (!dealt.ok()) {
          return Fail(absl::StrCat("the deal refused seat ", observer, "'s view: ",
                                   dealt.status().message(), "\nview:\n", view->ToString()));
        }
        if (absl::Status status = CheckDeal(state, full, observer, *view, *spectator, seats,
                                            legal[observer], **dealt);
            !status.ok()) {
          return status;
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckDeal(const State& state, const std::string& full, Seat observer,
                         const View& view, const View& spectator, const Seats& seats,
                         const std::vector<Action>& legal, const State& sample) {
    ++report_.views_compared;
    if (!sample.ViewFor(observer)->Equals(view)) {
      return Fail(absl::StrCat("view invariance: seat ", observer,
                               " sees a difference in a state dealt from its view.\nview:\n",
                               view.ToString(), "dealt view:\n",
                               sample.ViewFor(observer)->ToString()));
    }
    const Seats dealt_seats = sample.SeatsToAct();
    const bool acts = std::find(seats.begin(), seats.end(), observer) != seats.end();
    if (sample.IsOver() != state.IsOver() || (std::find(dealt_seats.begin(), dealt_seats.end(),
                                                        observer) != dealt_seats.end()) != acts) {
      return Fail(absl::StrCat("view invariance: a state dealt from seat ", observer,
                               "'s view changed whether it acts or the match is over"));
    }
    if (sample.LegalActions(observer) != legal) {
      return Fail(absl::StrCat("view invariance: a state dealt from seat ", observer,
                               "'s view changed its legal actions"));
    }
    if (sample.LegalActionsComplete(observer) != state.LegalActionsComplete(observer) ||
        sample.LegalActionsHint(observer) != state.LegalActionsHint(observer)) {
      return Fail(
          absl::StrCat("view invariance: a state dealt from seat ", observer,
                       "'s view changed whether its legal actions are complete, or their hint"));
    }
    if (!sample.ViewFor(kSpectator)->Equals(spectator)) {
      return Fail(absl::StrCat(
          "view invariance: the spectator sees a difference in a state dealt from seat ", observer,
          "'s view (a spectator may see only what every seat sees).\nview:\n", spectator.ToString(),
          "dealt view:\n", sample.ViewFor(kSpectator)->ToString()));
    }
    if (options_.codec != nullptr && Telling(match_)) {
      ++report_.view_bytes_compared;
      if (WireBytes(*sample.ViewFor(observer)) != WireBytes(view) ||
          WireBytes(*sample.ViewFor(kSpectator)) != WireBytes(spectator)) {
        return Fail(absl::StrCat("information set: a state dealt from seat ", observer,
                                 "'s view gives a view of other wire bytes"));
      }
    }
    if (sample.ToString() == full) return absl::OkStatus();
    ++report_.deals_that_moved_cards;
    for (Seat other = 0; other < num_players_; ++other) {
      if (other != observer && !sample.ViewFor(other)->Equals(*state.ViewFor(other))) {
        ++report_.deals_visible_to_others;
        break;
      }
    }
    return absl::OkStatus();
  }

  // What the table is told of `seat` playing `action` is the same for each
  // observer in a state dealt from its view where the action is legal too.
  absl::Status CheckToldAlike(const State& state, Seat seat, Action action,
                              const PlayByPlay& told) {
    PlayByPlay here = told;
    const std::vector<ToldAction> expected =
        here.Tell(state, seat, action, state.ActionToString(seat, action), false);
    for (Seat observer = 0; observer < num_players_; ++observer) {
      const std::unique_ptr<View> view = state.ViewFor(observer);
      for (int r = 0; r < options_.told_deals; ++r) {
        absl::StatusOr<std::unique_ptr<State>> dealt = deal_.Sample(*view, rng_);
        if (!dealt.ok()) continue;  // CheckDeals reports it
        if (!(*dealt)->Clone()->Apply(seat, action).ok()) continue;
        PlayByPlay there = told;
        const std::vector<ToldAction> heard =
            there.Tell(**dealt, seat, action, (*dealt)->ActionToString(seat, action), false);
        if (heard != expected) {
          return Fail(absl::StrCat("information set: seat ", observer, " would be told of seat ",
                                   seat, "'s action differently in a state dealt from its view: '",
                                   expected.empty() ? "" : expected.front().text, "' against '",
                                   heard.empty() ? "" : heard.front().text, "'"));
        }
        ++report_.told_alike;
        if (observer != seat) ++report_.told_alike_others;
        break;
      }
    }
    return absl::OkStatus();
  }

  // Whether match number `match` compares what is told and wire bytes.
  bool Telling(int match) const {
    return options_.told_matches < 0 || match < options_.told_matches;
  }

  // The view's wire bytes (deterministic), given a codec.
  std::string WireBytes(const View& view) const {
    hoard::v1::View proto;
    options_.codec->ViewToProto(view, &proto);
    std::string bytes;
    {
      google::protobuf::io::StringOutputStream stream(&bytes);
      google::protobuf::io::CodedOutputStream coded(&stream);
      coded.SetSerializationDeterministic(true);
      proto.SerializeToCodedStream(&coded);
    }
    return bytes;
  }

  absl::Status CheckLegalApply(const State& state, const Seats& seats,
                               const std::vector<std::vector<Action>>& legal, int match) {
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
  absl::Status ExpectRefused(const State& state, Seat seat, Action action, const std::string& why,
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
      return Fail(absl::StrCat("refusing ", why, " ('", status.message(), "') changed the state"));
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
      if (absl::Status status =
              ExpectRefused(state, seat, action, "an action not in the legal list",
                            /*may_be_legal=*/!complete);
          !status.ok()) {
        return status;
      }
    }
    const Action some_legal = legal[seat][rng_.Uniform(legal[seat].size())];
    for (Seat other = 0; other < num_players_; ++other) {
      if (std::find(seats.begin(), seats.end(), other) != seats.end()) continue;
      if (absl::Status status = ExpectRefused(state, other, some_legal, "an action out of turn");
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
          return Fail(
              absl::StrCat("seat ", j, " scored more than seat ", i, " but does not rank better"));
        }
        if (ranks[j] == ranks[i] && scores[j] != scores[i]) {
          return Fail(absl::StrCat("seats ", i, " and ", j, " share a rank with different scores"));
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
  const Sampler& deal_;
  const int num_players_;
  const ConformanceOptions options_;
  Rng rng_;
  std::vector<Action> pool_;
  absl::flat_hash_set<Action> pooled_;
  int step_ = 0;
  // The number of the match being played.
  int match_ = 0;
  ConformanceReport report_;
};

}  // namespace

absl::StatusOr<ConformanceReport> CheckConformance(const Game& game, const Sampler& deal,
                                                   int num_players,
                                                   const ConformanceOptions& options) {
  Checker checker(game, deal, num_players, options);
  if (absl::Status status = checker.Run(); !status.ok()) return status;
  return checker.report();
}

}  // namespace hoard::engine::testing
