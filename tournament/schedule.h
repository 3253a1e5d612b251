#ifndef HOARD_TOURNAMENT_SCHEDULE_H_
#define HOARD_TOURNAMENT_SCHEDULE_H_

// Tournament scheduling: a pure function from (participants, format, seed)
// to the list of matches, with no game played and nothing stored. The same
// input always gives the same schedule, which is what lets a stopped
// tournament resume.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

namespace hoard::tournament {

enum class Format {
  // Every k-subset of the participants in every seat rotation, each match
  // with its own deal.
  kRoundRobin,
  // The same matches, but the k rotations of a subset replay one deal; the
  // rotations form a block, the statistical unit.
  kDuplicate,
  // Each candidate with every (k-1)-subset of the others, in every seat
  // rotation, each match with its own deal.
  kGauntlet,
  // `rounds` rounds of n / k matches, each with its own deal; who sits
  // where is paired round by round from the standings (tournament/swiss.h),
  // so the schedule leaves the seats empty.
  kSwiss,
};

struct ScheduleInput {
  int participants = 0;       // n, numbered 0..n-1
  int players_per_match = 0;  // k
  Format format = Format::kRoundRobin;
  int rounds = 1;  // the schedule repeated with fresh deals; Swiss: its rounds
  std::uint64_t seed = 0;
  std::vector<int> candidates;  // gauntlet only: participant numbers
};

struct ScheduledMatch {
  int index = 0;           // its place in the schedule, from 0
  int round = 0;           // from 0
  std::vector<int> seats;  // seats[s]: the participant in seat s
  std::uint64_t seed = 0;  // the deal
  std::int64_t block = 0;  // matches of one block share a deal (duplicate)
};

// The most matches one schedule may hold.
inline constexpr std::int64_t kMaxScheduledMatches = 1'000'000;
// The most participants of a Swiss (its pairing keeps who met whom).
inline constexpr int kMaxSwissParticipants = 2'000;

// kInvalidArgument, naming the input at fault, for k < 2, n < k, rounds < 1,
// a Swiss of more than kMaxSwissParticipants,
// a gauntlet without candidates or with a field too small to fill its
// matches, candidates in another format, or more than kMaxScheduledMatches.
absl::StatusOr<std::vector<ScheduledMatch>> Schedule(const ScheduleInput& input);

// How many matches Schedule would return, or an error as Schedule's.
absl::StatusOr<std::int64_t> ScheduleSize(const ScheduleInput& input);

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_SCHEDULE_H_
