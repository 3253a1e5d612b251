#include "engine/record.h"

#include <utility>

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

absl::Status VerifyRecord(const MatchRecord& record) {
  if (record.format_version < kOldestRecordFormatVersion ||
      record.format_version > kRecordFormatVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat("the record is in format ", record.format_version,
                     ", which this build does not know (it reads formats ",
                     kOldestRecordFormatVersion, " to ", kRecordFormatVersion, ")"));
  }
  if (!record.seed_commitment.empty()) {
    RETURN_IF_ERROR(CheckSeedCommitment(record.seed, record.seed_salt, record.seed_commitment));
  }
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
  std::unique_ptr<State> state = *std::move(started);

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
  if (state->Scores() != record.scores) {
    return absl::InvalidArgumentError(
        absl::StrCat("final scores are [", JoinScores(state->Scores()), "], the record says [",
                     JoinScores(record.scores), "]"));
  }
  if (state->Ranks() != record.ranks) {
    return absl::InvalidArgumentError(
        absl::StrCat("final ranks are [", absl::StrJoin(state->Ranks(), ", "),
                     "], the record says [", absl::StrJoin(record.ranks, ", "), "]"));
  }
  return absl::OkStatus();
}

}  // namespace hoard::engine
