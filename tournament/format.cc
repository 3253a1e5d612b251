#include "tournament/format.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tournament/fixed_schedule.h"
#include "tournament/ladder_format.h"
#include "tournament/spec.h"
#include "tournament/sprt_format.h"
#include "tournament/swiss_format.h"

namespace hoard::tournament {

using hoard::v1::TournamentSpec;

namespace {

// The participant an SPRT test is about, or null: no test.
const hoard::v1::Participant* SprtCandidate(const TournamentSpec& spec) {
  const std::string& candidate = spec.sprt().candidate();
  if (candidate.empty()) return nullptr;
  auto it = std::find_if(spec.participants().begin(), spec.participants().end(),
                         [&](const hoard::v1::Participant& p) { return p.name() == candidate; });
  return it == spec.participants().end() ? nullptr : &*it;
}

void AddStandings(const Standings& elo, hoard::v1::TournamentProgress& progress) {
  for (hoard::v1::Standing& row : elo.Sorted()) *progress.add_standings() = std::move(row);
}

}  // namespace

void TournamentFormat::Describe(const Standings& elo,
                                hoard::v1::TournamentProgress& progress) const {
  AddStandings(elo, progress);
}

absl::StatusOr<std::unique_ptr<TournamentFormat>> MakeFormat(const TournamentSpec& spec) {
  if (spec.format() == hoard::v1::FORMAT_LADDER) return std::make_unique<LadderFormat>(spec);
  absl::StatusOr<std::vector<ScheduledMatch>> schedule = Schedule(ScheduleInputFor(spec));
  if (!schedule.ok()) return schedule.status();
  if (spec.format() == hoard::v1::FORMAT_SWISS) {
    return std::make_unique<SwissFormat>(spec, *std::move(schedule));
  }
  if (const hoard::v1::Participant* candidate = SprtCandidate(spec)) {
    return std::make_unique<SprtFormat>(*std::move(schedule), ParticipantLabel(*candidate),
                                        spec.players_per_match(), SprtParametersOf(spec.sprt()));
  }
  return std::make_unique<FixedSchedule>(*std::move(schedule));
}

bool IsLeasedWhole(const TournamentSpec& spec) {
  return spec.format() == hoard::v1::FORMAT_SWISS || spec.format() == hoard::v1::FORMAT_LADDER ||
         SprtCandidate(spec) != nullptr;
}

absl::Status DescribeStored(const TournamentSpec& spec, const std::vector<db::RatedMatch>& results,
                            hoard::v1::TournamentProgress& progress) {
  Standings standings;
  for (const db::RatedMatch& match : results) standings.Add(match.schedule_index, match.seats);
  if (spec.format() != hoard::v1::FORMAT_SWISS && spec.format() != hoard::v1::FORMAT_LADDER) {
    // The standings alone: no schedule is made for them.
    AddStandings(standings, progress);
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<TournamentFormat>> format = MakeFormat(spec);
  if (!format.ok()) {
    return absl::DataLossError(absl::StrCat("its stored spec: ", format.status().message()));
  }
  std::set<int> done;
  for (const db::RatedMatch& match : results) done.insert(static_cast<int>(match.schedule_index));
  if (absl::Status resumed = (*format)->Resume(done, results); !resumed.ok()) return resumed;
  (*format)->Describe(standings, progress);
  return absl::OkStatus();
}

}  // namespace hoard::tournament
