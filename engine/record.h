#ifndef HOARD_ENGINE_RECORD_H_
#define HOARD_ENGINE_RECORD_H_

// The full-information record of a match, and its verification.
//
// A record holds what reproduces a match exactly — game, ruleset version,
// seed, options and every action in order — plus what lets a reader check it
// step by step: the initial deal, a fingerprint of the full state after each
// action, and the final scores and ranks. It reveals every hidden card, so
// it is only ever given out once a match is over. A record may also carry
// the commitment to its deal published when the match was created, and the
// salt that, with the seed, hashes to it (engine/seed_commitment.h).
//
// engine/record_json.h reads and writes records as JSON (docs/records.md).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/game.h"

namespace hoard::engine {

// Records are given out expanded, in format 2: every step with its words
// and fingerprint, and the deal. A store keeps them compact, in format 3:
// only what cannot be derived (the actions' codes, a fingerprint of the
// final state and of a few states on the way); the rest is computed again
// from the seed when read (ExpandRecord). Format 1 records (whose
// fingerprints hash the state's text) are still read and verified.
inline constexpr int kRecordFormatVersion = 2;
inline constexpr int kCompactRecordFormatVersion = 3;
inline constexpr int kOldestRecordFormatVersion = 1;
inline constexpr int kNewestRecordFormatVersion = kCompactRecordFormatVersion;
inline constexpr char kRecordFormatPrefix[] = "hoard.match_record.v";

// A compact record keeps the fingerprint of the state after every
// kCheckpointEvery-th action, so that a record that no longer replays
// is caught near where it parts.
inline constexpr int kCheckpointEvery = 100;

struct RecordedAction {
  Seat seat = 0;
  Action action;
  std::string text;               // ActionToString of the action; empty in format 3
  std::uint64_t state_after = 0;  // StepFingerprint() of the state after it; 0 in format 3
  bool operator==(const RecordedAction&) const = default;
};

// The fingerprint of the state after action `step` (1-based).
struct Checkpoint {
  int step = 0;
  std::uint64_t state = 0;
  bool operator==(const Checkpoint&) const = default;
};

struct MatchRecord {
  int format_version = kRecordFormatVersion;  // how state_after is computed
  std::string game;
  std::string ruleset_version;
  std::uint64_t seed = 0;
  std::map<std::string, std::string> options;
  std::vector<std::string> seats;       // who played each seat
  std::vector<Zone> setup;              // Zones() of the initial state; empty in format 3
  std::vector<RecordedAction> actions;  // empty in format 3
  std::vector<double> scores;
  std::vector<int> ranks;
  // SeedCommitment(seed, seed_salt), told before the first move; both empty
  // for a match made without one.
  std::string seed_commitment;
  std::string seed_salt;
  // Format 3 only: the actions packed (docs/records.md: for each, the LEB128
  // varint of its place in its seat's legal list, or the list's length plus
  // its code, times the seat count, plus its seat); State::Fingerprint() of
  // the final state, and of the state after every kCheckpointEvery-th
  // action.
  std::string moves;
  std::uint64_t final_state = 0;
  std::vector<Checkpoint> checkpoints;
  bool operator==(const MatchRecord&) const = default;
};

// The fingerprint a record of `format_version` keeps after each action:
// State::Fingerprint() in format 2; in format 1, TextFingerprint().
std::uint64_t StepFingerprint(const State& state, int format_version);

// Format 1's fingerprint: FNV-1a (64-bit) of the state's full ToString().
std::uint64_t TextFingerprint(const State& state);

// Builds a record while a match is played:
//   MatchRecorder recorder(game.info(), config, seat_names, *state);
//   ... recorder.Record(seat, action, *state) after each successful Apply ...
//   MatchRecord record = recorder.Finish(*state);
class MatchRecorder {
 public:
  // `initial` is the state NewMatch(config) returned.
  MatchRecorder(const GameInfo& info, const MatchConfig& config,
                std::vector<std::string> seat_names, const State& initial);

  // Call after `action` by `seat` was applied; `text` is the action's
  // ActionToString() from the state before it.
  void Record(Seat seat, Action action, std::string text, const State& after);

  // REQUIRES: state.IsOver().
  MatchRecord Finish(const State& state);

 private:
  MatchRecord record_;
};

// Packs a match's actions as they are played, for its compact (format 3)
// record without a replay: each action by its place in the legal list it
// was chosen from (or its code, when outside it), and a checkpoint after
// every kCheckpointEvery-th action. What it gives equals CompactRecord's
// for the same match.
class CompactRecorder {
 public:
  explicit CompactRecorder(int seats) : seats_(seats) {}

  // Call after `action` by `seat` was applied to `after`; `legal` is the
  // seat's legal list from the state before it (the list the action was
  // chosen from or checked against).
  void Record(Seat seat, Action action, const std::vector<Action>& legal, const State& after);
  // The same for the seat's default action (State::DefaultAction: the first
  // of its legal list), without the list.
  void RecordDefault(Seat seat, const State& after);

  // Puts the moves, checkpoints and final state's fingerprint into
  // `record` and marks it format 3; its other fields are the caller's.
  // REQUIRES: `final_state` is the state after the last recorded action.
  void Finish(const State& final_state, MatchRecord& record) const;

 private:
  // Appends the packed action `number` (MoveNumber's) played into `after`.
  void Append(absl::uint128 number, const State& after);

  int seats_;
  int actions_ = 0;
  std::string moves_;
  std::vector<Checkpoint> checkpoints_;
};

// The compact (format 3) form of a record: its actions packed, the final
// state's fingerprint and the checkpoints. The match is replayed from its
// seed to pack each action as its place in its seat's legal list (or its
// code, for one outside the list) and to take the fingerprints, so a
// record of any format may be given, and of its actions only the seats and
// codes are read. A compact record is returned as it is. Errors as
// ExpandRecord's, but kInvalidArgument where the actions do not replay.
absl::StatusOr<MatchRecord> CompactRecord(const MatchRecord& record);

// The expanded (format 2) form of a compact record: the match replayed from
// its seed gives the deal, each action's words and each state's
// fingerprint. Checks the checkpoints and the final state on the way:
// kDataLoss naming the first step that differs when the record no longer
// replays; kFailedPrecondition for a record of another ruleset version;
// kNotFound for an unknown game. A record of format 1 or 2 is returned as
// it is.
absl::StatusOr<MatchRecord> ExpandRecord(const MatchRecord& record);

// Checks that the record's seed and salt hash to its seed commitment, if it
// carries one, then re-simulates it from its seed and checks every step
// against it (a compact record: its checkpoints and final state). OK when
// it matches; otherwise an error naming the first difference (a commitment
// its seed and salt do not hash to, or the step number, 1-based, and what
// differs). kNotFound for an unknown game.
absl::Status VerifyRecord(const MatchRecord& record);

}  // namespace hoard::engine

#endif  // HOARD_ENGINE_RECORD_H_
