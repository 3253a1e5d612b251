#include "tournament/schedule.h"

#include <map>
#include <set>
#include <vector>

#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::tournament {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;

std::vector<ScheduledMatch> MustSchedule(const ScheduleInput& input) {
  absl::StatusOr<std::vector<ScheduledMatch>> schedule = Schedule(input);
  EXPECT_THAT(schedule, IsOk());
  return schedule.ok() ? *schedule : std::vector<ScheduledMatch>();
}

// counts[participant][seat]
std::map<int, std::map<int, int>> SeatCounts(const std::vector<ScheduledMatch>& schedule) {
  std::map<int, std::map<int, int>> counts;
  for (const ScheduledMatch& match : schedule) {
    for (int seat = 0; seat < static_cast<int>(match.seats.size()); ++seat) {
      ++counts[match.seats[seat]][seat];
    }
  }
  return counts;
}

TEST(ScheduleTest, RoundRobinPlaysEverySubsetInEveryRotation) {
  const std::vector<ScheduledMatch> schedule =
      MustSchedule({.participants = 5, .players_per_match = 3, .rounds = 2, .seed = 7});
  // C(5,3) = 10 subsets x 3 rotations x 2 rounds.
  ASSERT_EQ(schedule.size(), 60u);
  std::map<std::set<int>, int> per_subset;
  for (const ScheduledMatch& match : schedule) {
    ASSERT_EQ(match.seats.size(), 3u);
    std::set<int> members(match.seats.begin(), match.seats.end());
    ASSERT_EQ(members.size(), 3u) << "a participant holds two seats";
    ++per_subset[members];
  }
  EXPECT_EQ(per_subset.size(), 10u);
  for (const auto& [subset, count] : per_subset) EXPECT_EQ(count, 6);
}

TEST(ScheduleTest, EveryParticipantPlaysEverySeatEquallyOften) {
  for (Format format : {Format::kRoundRobin, Format::kDuplicate}) {
    for (int n = 2; n <= 7; ++n) {
      for (int k = 2; k <= std::min(n, 5); ++k) {
        const std::vector<ScheduledMatch> schedule = MustSchedule(
            {.participants = n, .players_per_match = k, .format = format, .rounds = 2});
        const auto counts = SeatCounts(schedule);
        ASSERT_EQ(static_cast<int>(counts.size()), n);
        const int expected = counts.at(0).at(0);
        for (const auto& [participant, seats] : counts) {
          ASSERT_EQ(static_cast<int>(seats.size()), k) << "n=" << n << " k=" << k;
          for (const auto& [seat, count] : seats) {
            EXPECT_EQ(count, expected)
                << "participant " << participant << " seat " << seat << " n=" << n << " k=" << k;
          }
        }
      }
    }
  }
}

TEST(ScheduleTest, DuplicateBlockCoversAllRotationsOfOneDeal) {
  const std::vector<ScheduledMatch> schedule = MustSchedule({.participants = 4,
                                                             .players_per_match = 4,
                                                             .format = Format::kDuplicate,
                                                             .rounds = 3,
                                                             .seed = 11});
  ASSERT_EQ(schedule.size(), 12u);
  std::map<std::int64_t, std::vector<ScheduledMatch>> blocks;
  for (const ScheduledMatch& match : schedule) blocks[match.block].push_back(match);
  ASSERT_EQ(blocks.size(), 3u);
  std::set<std::uint64_t> deals;
  for (const auto& [block, matches] : blocks) {
    ASSERT_EQ(matches.size(), 4u);
    std::set<std::vector<int>> rotations;
    for (const ScheduledMatch& match : matches) {
      EXPECT_EQ(match.seed, matches[0].seed) << "one deal per block";
      rotations.insert(match.seats);
    }
    EXPECT_EQ(rotations.size(), 4u) << "every rotation once";
    // Within the block each participant sat in each seat exactly once.
    const auto counts = SeatCounts(matches);
    for (const auto& [participant, seats] : counts) {
      EXPECT_EQ(seats.size(), 4u);
      for (const auto& [seat, count] : seats) EXPECT_EQ(count, 1);
    }
    deals.insert(matches[0].seed);
  }
  EXPECT_EQ(deals.size(), 3u) << "each block has its own deal";
}

TEST(ScheduleTest, RoundRobinGivesEveryMatchItsOwnDealAndUnit) {
  const std::vector<ScheduledMatch> schedule =
      MustSchedule({.participants = 4, .players_per_match = 2, .rounds = 2});
  std::set<std::uint64_t> deals;
  std::set<std::int64_t> blocks;
  for (const ScheduledMatch& match : schedule) {
    deals.insert(match.seed);
    blocks.insert(match.block);
    EXPECT_EQ(match.index, static_cast<int>(&match - schedule.data()));
  }
  EXPECT_EQ(deals.size(), schedule.size());
  EXPECT_EQ(blocks.size(), schedule.size());
}

TEST(ScheduleTest, SameInputSameScheduleAndSeedChangesDeals) {
  const ScheduleInput input = {
      .participants = 6, .players_per_match = 4, .format = Format::kDuplicate, .seed = 99};
  const std::vector<ScheduledMatch> a = MustSchedule(input);
  const std::vector<ScheduledMatch> b = MustSchedule(input);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].seats, b[i].seats);
    EXPECT_EQ(a[i].seed, b[i].seed);
  }
  ScheduleInput other = input;
  other.seed = 100;
  const std::vector<ScheduledMatch> c = MustSchedule(other);
  EXPECT_EQ(c[0].seats, a[0].seats);
  EXPECT_NE(c[0].seed, a[0].seed);
}

TEST(ScheduleTest, GauntletPutsOneCandidateInEveryMatch) {
  const std::vector<ScheduledMatch> schedule = MustSchedule({.participants = 5,
                                                             .players_per_match = 3,
                                                             .format = Format::kGauntlet,
                                                             .candidates = {0, 4}});
  // 2 candidates x C(3,2) field pairs x 3 rotations.
  ASSERT_EQ(schedule.size(), 18u);
  std::map<int, std::map<int, int>> candidate_seats;
  for (const ScheduledMatch& match : schedule) {
    int candidates = 0;
    for (int seat = 0; seat < 3; ++seat) {
      if (match.seats[seat] == 0 || match.seats[seat] == 4) {
        ++candidates;
        ++candidate_seats[match.seats[seat]][seat];
      }
    }
    EXPECT_EQ(candidates, 1);
  }
  for (const auto& [candidate, seats] : candidate_seats) {
    ASSERT_EQ(seats.size(), 3u);
    for (const auto& [seat, count] : seats) EXPECT_EQ(count, 3) << "candidate " << candidate;
  }
}

TEST(ScheduleTest, RejectsImpossibleInputNamingTheField) {
  EXPECT_THAT(Schedule({.participants = 3, .players_per_match = 4}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("participants: 3 participants cannot fill 4-player")));
  EXPECT_THAT(Schedule({.participants = 3, .players_per_match = 1}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("players_per_match")));
  EXPECT_THAT(Schedule({.participants = 3, .players_per_match = 2, .rounds = 0}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("rounds")));
  EXPECT_THAT(Schedule({.participants = 4, .players_per_match = 2, .format = Format::kGauntlet}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at least one candidate")));
  EXPECT_THAT(Schedule({.participants = 4,
                        .players_per_match = 4,
                        .format = Format::kGauntlet,
                        .candidates = {0, 1}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a field of 2")));
  EXPECT_THAT(Schedule({.participants = 4, .players_per_match = 2, .candidates = {0}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("only the gauntlet")));
  EXPECT_THAT(Schedule({.participants = 60, .players_per_match = 5, .rounds = 10}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the schedule would hold more than 1000000")));
}

TEST(ScheduleTest, ASwissHasItsRoundsOfTablesWithDealsAndNoSeatsYet) {
  const std::vector<ScheduledMatch> schedule = MustSchedule({.participants = 17,
                                                             .players_per_match = 3,
                                                             .format = Format::kSwiss,
                                                             .rounds = 4,
                                                             .seed = 9});
  ASSERT_EQ(schedule.size(), 20u);  // 5 tables (2 byes) a round
  std::set<std::uint64_t> deals;
  for (const ScheduledMatch& match : schedule) {
    EXPECT_EQ(match.round, match.index / 5);
    EXPECT_EQ(match.block, match.index);
    EXPECT_TRUE(match.seats.empty());  // paired round by round
    deals.insert(match.seed);
  }
  EXPECT_EQ(deals.size(), 20u);
  EXPECT_THAT(Schedule({.participants = 2001, .players_per_match = 2, .format = Format::kSwiss}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("participants: a Swiss takes at most 2000, not 2001")));
}

TEST(ScheduleTest, SizeAgreesWithTheSchedule) {
  const ScheduleInput input = {.participants = 7, .players_per_match = 4, .rounds = 3};
  absl::StatusOr<std::int64_t> size = ScheduleSize(input);
  ASSERT_THAT(size, IsOk());
  EXPECT_EQ(*size, static_cast<std::int64_t>(MustSchedule(input).size()));
  EXPECT_EQ(*size, 35 * 4 * 3);
}

}  // namespace
}  // namespace hoard::tournament
