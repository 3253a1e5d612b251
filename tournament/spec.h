#ifndef HOARD_TOURNAMENT_SPEC_H_
#define HOARD_TOURNAMENT_SPEC_H_

// Tournament specs (hoard.v1.TournamentSpec): reading them from text,
// filling in defaults, checking them, and turning them into a schedule.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hoard/v1/tournament.pb.h"
#include "tournament/schedule.h"

namespace hoard::tournament {

// Defaults for what a spec leaves unset.
inline constexpr int kDefaultConcurrency = 8;
inline constexpr int kDefaultStartTimeoutMs = 10000;
inline constexpr int kDefaultMaxFailedMatches = 10;
// A ladder's defaults and bounds (LadderSpec).
inline constexpr int kDefaultPlacementMatches = 3;
inline constexpr int kMaxLadderBotConcurrency = 100;

// The spec `hoard tournament` runs when given none: four built-in bots in a
// 4-player village round-robin of 200 matches.
hoard::v1::TournamentSpec DefaultSpec();

// A spec in protobuf text format, or JSON (text starting with '{').
// kInvalidArgument starting with `source` and, for text format, the line and
// column of the fault.
absl::StatusOr<hoard::v1::TournamentSpec> ParseSpec(absl::string_view text,
                                                    absl::string_view source);
// Reads and parses a file; kNotFound if it cannot be read.
absl::StatusOr<hoard::v1::TournamentSpec> ReadSpecFile(const std::string& path);

// The spec with every default filled in and checked (a match of its size
// and options is started to check them): kInvalidArgument names
// the field at fault and why (an unknown game or bot, too few participants
// for the player count, a duplicate name, an option the game does not take,
// a time control out of range, ...).
absl::StatusOr<hoard::v1::TournamentSpec> Normalize(const hoard::v1::TournamentSpec& spec);

// A stable digest of a normalized spec: the same spec, the same hash, on
// every machine. A tournament is resumed by running its spec again.
std::string SpecHash(const hoard::v1::TournamentSpec& spec);

// The schedule of a normalized spec.
ScheduleInput ScheduleInputFor(const hoard::v1::TournamentSpec& spec);

// A final evaluation as FreezeLadder asks for it, its defaults filled in
// (top 3, confidence 0.95, budget 10,000); kInvalidArgument names the
// field out of range.
absl::StatusOr<hoard::v1::FinalEvaluation> CheckFinalEvaluation(
    const hoard::v1::FinalEvaluation& asked);

// The slots a tournament of `spec` (normalized) schedules when it is
// created: its whole schedule, or 0 for a ladder (whose slots are numbered
// as they are chosen). Errors as ScheduleSize.
absl::StatusOr<std::int64_t> ScheduledAtStart(const hoard::v1::TournamentSpec& spec);

// A participant's leaderboard name: name, or name@version.
std::string ParticipantLabel(const hoard::v1::Participant& participant);

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_SPEC_H_
