#include "engine/record.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string_view>
#include <utility>

#include "absl/numeric/int128.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "engine/registry.h"
#include "engine/seed_commitment.h"
#include "engine/status_macros.h"

namespace hoard::engine {
namespace {

std::string Hex(std::uint64_t value) { return absl::StrFormat("%016x", value); }

std::string JoinScores(const std::vector<double>& scores) {
  return absl::StrJoin(scores, ", ",
                       [](std::string* out, double score) { absl::StrAppend(out, score); });
}

}  // namespace

std::uint64_t TextFingerprint(const State& state) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : state.ToString()) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::uint64_t StepFingerprint(const State& state, int format_version) {
  return format_version == 1 ? TextFingerprint(state) : state.Fingerprint();
}

MatchRecorder::MatchRecorder(const GameInfo& info, const MatchConfig& config,
                             std::vector<std::string> seat_names, const State& initial) {
  record_.game = info.id;
  record_.ruleset_version = info.ruleset_version;
  record_.seed = config.seed;
  record_.options = config.options;
  record_.seats = std::move(seat_names);
  record_.setup = initial.Zones();
}

void MatchRecorder::Record(Seat seat, Action action, std::string text, const State& after) {
  record_.actions.push_back({seat, action, std::move(text), after.Fingerprint()});
}

MatchRecord MatchRecorder::Finish(const State& state) {
  record_.scores = state.Scores();
  record_.ranks = state.Ranks();
  return record_;
}

namespace {

// The record's match at its start: its game found, its ruleset checked.
absl::StatusOr<std::unique_ptr<State>> StartOf(const MatchRecord& record) {
  ASSIGN_OR_RETURN(const Game* game, FindGame(record.game));
  if (record.ruleset_version != game->info().ruleset_version) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the record was played under ", record.game, " ruleset version ", record.ruleset_version,
        ", but this build has version ", game->info().ruleset_version));
  }
  MatchConfig config{.num_players = static_cast<int>(record.seats.size()),
                     .seed = record.seed,
                     .options = record.options};
  absl::StatusOr<std::unique_ptr<State>> started = game->NewMatch(config);
  if (!started.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the record's match cannot be started: ", started.status().message()));
  }
  return started;
}

// Whether `recorded` are the rules' `ranks`, or those ranks with some seats
// moved after every other, as a host ranks the seats that forfeited (the
// rules' order kept among them): those seats are the ones ranked last.
bool RanksWithForfeits(const std::vector<int>& ranks, const std::vector<int>& recorded) {
  if (ranks == recorded) return true;
  if (ranks.size() != recorded.size()) return false;
  std::vector<int> worst_first = recorded;
  std::sort(worst_first.begin(), worst_first.end(), std::greater<>());
  for (std::size_t forfeited = 1; forfeited < recorded.size(); ++forfeited) {
    // The `forfeited` seats ranked last, when no tie crosses the boundary.
    if (worst_first[forfeited - 1] == worst_first[forfeited]) continue;
    std::vector<std::pair<int, int>> keys;
    for (std::size_t seat = 0; seat < ranks.size(); ++seat) {
      keys.emplace_back(recorded[seat] >= worst_first[forfeited - 1] ? 0 : 1, -ranks[seat]);
    }
    if (RanksFromKeys(keys) == recorded) return true;
  }
  return false;
}

absl::Status CheckResult(const State& state, const MatchRecord& record) {
  if (state.Scores() != record.scores) {
    return absl::InvalidArgumentError(absl::StrCat("final scores are [", JoinScores(state.Scores()),
                                                   "], the record says [",
                                                   JoinScores(record.scores), "]"));
  }
  if (!RanksWithForfeits(state.Ranks(), record.ranks)) {
    return absl::InvalidArgumentError(
        absl::StrCat("final ranks are [", absl::StrJoin(state.Ranks(), ", "),
                     "], the record says [", absl::StrJoin(record.ranks, ", "), "]"));
  }
  return absl::OkStatus();
}

// A packed action's number: its place in its seat's legal list (`legal`),
// or the list's length plus its code when it is not in the list, times the
// seat count, plus its seat.
absl::uint128 MoveNumber(Seat seat, Action action, const std::vector<Action>& legal, int seats) {
  const auto listed = std::find(legal.begin(), legal.end(), action);
  const absl::uint128 place = listed != legal.end() ? absl::uint128(listed - legal.begin())
                                                    : absl::uint128(legal.size()) + action.code();
  return place * static_cast<std::uint64_t>(seats) + static_cast<std::uint64_t>(seat);
}

void AppendVarint(absl::uint128 value, std::string& out) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((absl::Uint128Low64(value) & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(absl::Uint128Low64(value)));
}

// Reads the next varint of `packed` from `at`; kDataLoss on bytes a
// compact record's moves never hold.
absl::StatusOr<absl::uint128> ReadVarint(std::string_view packed, std::size_t& at) {
  absl::uint128 value = 0;
  // A 64-bit code plus a list's length, times a few seats, fits in 10
  // bytes of 7 bits.
  for (int shift = 0; shift < 70; shift += 7) {
    if (at >= packed.size()) return absl::DataLossError("the packed moves end inside a move");
    const auto byte = static_cast<unsigned char>(packed[at++]);
    value |= absl::uint128(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  return absl::DataLossError(absl::StrCat("a packed move runs on past 10 bytes at byte ", at));
}

// Replays a compact record, filling `expanded` (format 2) as it goes, and
// leaves the final state in `state`.
absl::Status Replay(const MatchRecord& record, MatchRecord& expanded,
                    std::unique_ptr<State>& state) {
  ASSIGN_OR_RETURN(state, StartOf(record));
  expanded = record;
  expanded.format_version = kRecordFormatVersion;
  expanded.setup = state->Zones();
  expanded.moves.clear();
  expanded.final_state = 0;
  expanded.checkpoints.clear();
  const int seats = state->num_players();
  std::vector<Action> legal;
  std::size_t checkpoint = 0;
  for (std::size_t at = 0; at < record.moves.size();) {
    const std::size_t number = expanded.actions.size() + 1;
    absl::StatusOr<absl::uint128> move = ReadVarint(record.moves, at);
    if (!move.ok()) {
      return absl::DataLossError(absl::StrCat("step ", number, ": ", move.status().message()));
    }
    const auto seat =
        static_cast<Seat>(absl::Uint128Low64(*move % static_cast<std::uint64_t>(seats)));
    const absl::uint128 place = *move / static_cast<std::uint64_t>(seats);
    const std::string where = absl::StrCat("step ", number, " (seat ", seat, ")");
    if (state->IsOver()) {
      return absl::DataLossError(
          absl::StrCat(where, ": the match was already over, yet the record goes on"));
    }
    const Seats to_act = state->SeatsToAct();
    if (std::find(to_act.begin(), to_act.end(), seat) == to_act.end()) {
      return absl::DataLossError(absl::StrCat(where, ": the seat is not to act"));
    }
    state->LegalActions(seat, &legal);
    Action action;
    if (place < legal.size()) {
      action = legal[absl::Uint128Low64(place)];
    } else if (const absl::uint128 code = place - legal.size(); absl::Uint128High64(code) == 0) {
      action = Action(absl::Uint128Low64(code));
    } else {
      return absl::DataLossError(absl::StrCat(where, ": the packed move is out of range"));
    }
    RecordedAction& step = expanded.actions.emplace_back();
    step.seat = seat;
    step.action = action;
    step.text = state->ActionToString(seat, action);
    if (absl::Status status = state->Apply(seat, action); !status.ok()) {
      return absl::DataLossError(
          absl::StrCat(where, ": '", step.text, "' cannot be played: ", status.message()));
    }
    step.state_after = state->Fingerprint();
    if (checkpoint < record.checkpoints.size() &&
        record.checkpoints[checkpoint].step == static_cast<int>(number)) {
      if (step.state_after != record.checkpoints[checkpoint].state) {
        return absl::DataLossError(absl::StrCat(
            where, ": after '", step.text, "' the state's fingerprint is ", Hex(step.state_after),
            ", the record says ", Hex(record.checkpoints[checkpoint].state)));
      }
      ++checkpoint;
    }
  }
  if (checkpoint < record.checkpoints.size()) {
    return absl::DataLossError(absl::StrCat("the record has a checkpoint at step ",
                                            record.checkpoints[checkpoint].step,
                                            " out of order or past its last action"));
  }
  if (!state->IsOver()) {
    return absl::DataLossError(absl::StrCat("the record ends after step ", expanded.actions.size(),
                                            " but the match is not over"));
  }
  if (const std::uint64_t final_state = state->Fingerprint(); final_state != record.final_state) {
    return absl::DataLossError(absl::StrCat("the final state's fingerprint is ", Hex(final_state),
                                            ", the record says ", Hex(record.final_state)));
  }
  return absl::OkStatus();
}

}  // namespace

void CompactRecorder::Record(Seat seat, Action action, const std::vector<Action>& legal,
                             const State& after) {
  Append(MoveNumber(seat, action, legal, seats_), after);
}

void CompactRecorder::RecordDefault(Seat seat, const State& after) {
  // The first place in the list: the number is the seat alone.
  Append(static_cast<std::uint64_t>(seat), after);
}

void CompactRecorder::Append(absl::uint128 number, const State& after) {
  AppendVarint(number, moves_);
  if (++actions_ % kCheckpointEvery == 0) checkpoints_.push_back({actions_, after.Fingerprint()});
}

void CompactRecorder::Finish(const State& final_state, MatchRecord& record) const {
  record.format_version = kCompactRecordFormatVersion;
  record.setup.clear();
  record.actions.clear();
  record.moves = moves_;
  record.checkpoints = checkpoints_;
  // The final state has a fingerprint of its own, not a checkpoint.
  if (!record.checkpoints.empty() && record.checkpoints.back().step == actions_) {
    record.checkpoints.pop_back();
  }
  record.final_state = final_state.Fingerprint();
}

absl::StatusOr<MatchRecord> CompactRecord(const MatchRecord& record) {
  if (record.format_version == kCompactRecordFormatVersion) return record;
  ASSIGN_OR_RETURN(std::unique_ptr<State> state, StartOf(record));
  CompactRecorder recorder(state->num_players());
  std::vector<Action> legal;
  for (std::size_t i = 0; i < record.actions.size(); ++i) {
    const RecordedAction& step = record.actions[i];
    auto where = [&] { return absl::StrCat("step ", i + 1, " (seat ", step.seat, ")"); };
    const Seats to_act = state->IsOver() ? Seats() : state->SeatsToAct();
    if (std::find(to_act.begin(), to_act.end(), step.seat) == to_act.end()) {
      return absl::InvalidArgumentError(absl::StrCat(where(), ": the seat is not to act"));
    }
    state->LegalActions(step.seat, &legal);
    if (absl::Status status = state->Apply(step.seat, step.action); !status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where(), ": the action cannot be played: ", status.message()));
    }
    recorder.Record(step.seat, step.action, legal, *state);
  }
  if (!state->IsOver()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the record ends after step ", record.actions.size(), " but the match is not over"));
  }
  MatchRecord compact = record;
  recorder.Finish(*state, compact);
  return compact;
}

absl::StatusOr<MatchRecord> ExpandRecord(const MatchRecord& record) {
  if (record.format_version != kCompactRecordFormatVersion) return record;
  MatchRecord expanded;
  std::unique_ptr<State> state;
  RETURN_IF_ERROR(Replay(record, expanded, state));
  return expanded;
}

absl::Status VerifyRecord(const MatchRecord& record) {
  if (record.format_version < kOldestRecordFormatVersion ||
      record.format_version > kNewestRecordFormatVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat("the record is in format ", record.format_version,
                     ", which this build does not know (it reads formats ",
                     kOldestRecordFormatVersion, " to ", kNewestRecordFormatVersion, ")"));
  }
  if (!record.seed_commitment.empty()) {
    RETURN_IF_ERROR(CheckSeedCommitment(record.seed, record.seed_salt, record.seed_commitment));
  }
  if (record.format_version == kCompactRecordFormatVersion) {
    MatchRecord expanded;
    std::unique_ptr<State> state;
    if (absl::Status replayed = Replay(record, expanded, state); !replayed.ok()) {
      // What the record says differs: the same kind of answer as for the
      // expanded formats.
      if (replayed.code() != absl::StatusCode::kDataLoss) return replayed;
      return absl::InvalidArgumentError(replayed.message());
    }
    return CheckResult(*state, record);
  }
  ASSIGN_OR_RETURN(std::unique_ptr<State> state, StartOf(record));

  const std::vector<Zone> setup = state->Zones();
  if (setup != record.setup) {
    for (std::size_t i = 0; i < setup.size(); ++i) {
      if (i >= record.setup.size() || setup[i] != record.setup[i]) {
        return absl::InvalidArgumentError(
            absl::StrCat("the initial deal differs from the record: zone '", setup[i].name,
                         "' is [", absl::StrJoin(setup[i].cards, " "), "] for seed ", record.seed));
      }
    }
    return absl::InvalidArgumentError(
        "the initial deal differs from the record: the record has extra zones");
  }

  for (std::size_t i = 0; i < record.actions.size(); ++i) {
    const RecordedAction& step = record.actions[i];
    const std::string where = absl::StrCat("step ", i + 1, " (seat ", step.seat, ")");
    if (state->IsOver()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": the match was already over, yet the record goes on"));
    }
    const std::string text = state->ActionToString(step.seat, step.action);
    if (text != step.text) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": the action's code reads '", text,
                                                     "' but its text says '", step.text, "'"));
    }
    if (absl::Status status = state->Apply(step.seat, step.action); !status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": '", step.text, "' cannot be played: ", status.message()));
    }
    if (const std::uint64_t after = StepFingerprint(*state, record.format_version);
        after != step.state_after) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": after '", step.text,
                                                     "' the state's fingerprint is ", Hex(after),
                                                     ", the record says ", Hex(step.state_after)));
    }
  }
  if (!state->IsOver()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the record ends after step ", record.actions.size(), " but the match is not over"));
  }
  return CheckResult(*state, record);
}

}  // namespace hoard::engine
