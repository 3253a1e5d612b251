// The results writer on its own: a store in memory, results made up, no
// match played.

#include "tournament/results_writer.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "db/faulty_store.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::tournament {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

// A store in memory with one tournament of `slots` slots.
struct Fixture {
  explicit Fixture(int slots) {
    absl::StatusOr<std::unique_ptr<db::MatchStore>> opened = db::OpenSqliteStore(":memory:");
    EXPECT_THAT(opened, IsOk());
    auto faulty = std::make_unique<db::FaultyStore>(*std::move(opened));
    faults = faulty.get();
    store = std::move(faulty);
    hoard::v1::TournamentSpec spec;
    spec.set_game("village");
    id = *store->CreateTournament(spec, "writer", slots, "");
  }

  // A finished two-seat match of slot `index`, numbered `sequence`.
  PlayedSlot Played(int index, int sequence) const {
    PlayedSlot played{.slot = {.index = index, .seats = {0, 1}, .block = index}};
    played.result.sequence = sequence;
    hoard::v1::Match& match = played.result.match;
    match.set_match_id(absl::StrCat("m", sequence));
    match.set_game("village");
    match.set_ruleset_version("1");
    match.set_status(hoard::v1::MATCH_STATUS_FINISHED);
    for (int seat = 0; seat < 2; ++seat) {
      hoard::v1::SeatInfo* info = match.add_seats();
      info->set_seat(seat);
      info->set_player(seat == 0 ? "builtin:a" : "builtin:b");
      info->set_rank(seat + 1);
    }
    played.result.slot =
        db::TournamentSlot{.tournament_id = id, .schedule_index = index, .block = index};
    return played;
  }

  std::unique_ptr<db::MatchStore> store;
  db::FaultyStore* faults = nullptr;
  std::int64_t id = 0;
};

// What the hooks were told, in order.
struct Told {
  absl::Mutex mu;
  std::vector<int> slots ABSL_GUARDED_BY(mu);
  std::vector<absl::Status> saved ABSL_GUARDED_BY(mu);
  std::vector<std::string> pauses ABSL_GUARDED_BY(mu);
  std::vector<std::string> warnings ABSL_GUARDED_BY(mu);
  absl::Notification paused;

  ResultsWriter::Hooks Hooks() {
    return {.on_batch =
                [this](const std::vector<PlayedSlot>& batch, const std::vector<absl::Status>& s) {
                  absl::MutexLock lock(&mu);
                  for (const PlayedSlot& played : batch) slots.push_back(played.slot.index);
                  saved.insert(saved.end(), s.begin(), s.end());
                },
            .on_pause =
                [this](const std::string& why) {
                  absl::MutexLock lock(&mu);
                  pauses.push_back(why);
                  if (!why.empty() && !paused.HasBeenNotified()) paused.Notify();
                },
            .warn =
                [this](const std::string& line) {
                  absl::MutexLock lock(&mu);
                  warnings.push_back(line);
                },
            .report = [] {}};
  }
};

TEST(ResultsWriterTest, StoresEveryResultOnceInBatchesAndTellsEachOutcome) {
  Fixture fixture(10);
  Told told;
  std::atomic<bool> cancelled{false};
  {
    ResultsWriter writer(fixture.store.get(), fixture.id, cancelled,
                         {.per_commit = 4, .commit_wait = absl::Milliseconds(20)}, told.Hooks());
    for (int i = 0; i < 10; ++i) writer.Add(fixture.Played(i, i + 1));
    writer.Add(fixture.Played(3, 100));  // a slot stored already
    writer.Close();
  }
  EXPECT_THAT(*fixture.store->StoredSlots(fixture.id), SizeIs(10));
  EXPECT_LE(fixture.faults->largest_batch(), 4);
  absl::MutexLock lock(&told.mu);
  EXPECT_THAT(told.slots, ElementsAre(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 3)) << "in the order added";
  ASSERT_THAT(told.saved, SizeIs(11));
  for (int i = 0; i < 10; ++i) EXPECT_THAT(told.saved[i], IsOk());
  EXPECT_THAT(told.saved[10], StatusIs(absl::StatusCode::kAlreadyExists, ::testing::_));
  EXPECT_THAT(told.pauses, IsEmpty());
}

TEST(ResultsWriterTest, AStoreThatIsLockedForAWhilePausesTheWritingUntilItTakesTheResults) {
  Fixture fixture(3);
  Told told;
  std::atomic<bool> cancelled{false};
  fixture.faults->SetFault(absl::UnavailableError("database is locked"));
  ResultsWriter writer(fixture.store.get(), fixture.id, cancelled, {}, told.Hooks());
  for (int i = 0; i < 3; ++i) writer.Add(fixture.Played(i, i + 1));
  ASSERT_TRUE(told.paused.WaitForNotificationWithTimeout(absl::Seconds(30)));
  fixture.faults->SetFault(absl::OkStatus());
  writer.Close();
  EXPECT_THAT(*fixture.store->StoredSlots(fixture.id), SizeIs(3));
  absl::MutexLock lock(&told.mu);
  EXPECT_THAT(told.saved, Each(IsOk()));
  ASSERT_THAT(told.pauses, SizeIs(2));
  EXPECT_THAT(told.pauses[0], HasSubstr("paused: cannot store results (retrying): database is"));
  EXPECT_EQ(told.pauses[1], "") << "the pause ends";
  ASSERT_THAT(told.warnings, SizeIs(2));
  EXPECT_THAT(told.warnings[0], HasSubstr("cannot store match 0 of the schedule"));
  EXPECT_THAT(told.warnings[1], HasSubstr("goes on: the store took its results"));
}

TEST(ResultsWriterTest, StoppingWhileTheStoreFailsGivesTheResultsUpForTheNextRun) {
  Fixture fixture(2);
  Told told;
  std::atomic<bool> cancelled{false};
  fixture.faults->SetFault(absl::UnavailableError("disk full"));
  ResultsWriter writer(fixture.store.get(), fixture.id, cancelled, {}, told.Hooks());
  writer.Add(fixture.Played(0, 1));
  writer.Add(fixture.Played(1, 2));
  ASSERT_TRUE(told.paused.WaitForNotificationWithTimeout(absl::Seconds(30)));
  cancelled = true;
  writer.Close();
  EXPECT_THAT(*fixture.store->StoredSlots(fixture.id), IsEmpty());
  absl::MutexLock lock(&told.mu);
  ASSERT_THAT(told.saved, SizeIs(2));
  EXPECT_THAT(told.saved, Each(StatusIs(absl::StatusCode::kUnavailable,
                                        HasSubstr("failing when the tournament stopped"))));
}

TEST(ResultsWriterTest, AStoreThatRefusesForGoodIsToldForEachResultAfterAFewAttempts) {
  Fixture fixture(3);
  Told told;
  std::atomic<bool> cancelled{false};
  fixture.faults->SetFault(absl::DataLossError("hoard.db: database disk image is malformed"));
  {
    ResultsWriter writer(fixture.store.get(), fixture.id, cancelled,
                         {.per_commit = 8, .commit_wait = absl::Seconds(5)}, told.Hooks());
    for (int i = 0; i < 3; ++i) writer.Add(fixture.Played(i, i + 1));
  }
  EXPECT_THAT(*fixture.store->StoredSlots(fixture.id), IsEmpty());
  absl::MutexLock lock(&told.mu);
  EXPECT_THAT(told.slots, ElementsAre(0, 1, 2));
  EXPECT_THAT(told.saved, Each(StatusIs(absl::StatusCode::kDataLoss, HasSubstr("malformed"))));
  ASSERT_THAT(told.pauses, Not(IsEmpty()));
  EXPECT_EQ(told.pauses.back(), "") << "no pause outlasts the attempts";
  EXPECT_LE(fixture.faults->failed_saves(), 3 * 3 + 3 * 3)
      << "a few attempts at the batch, then a few at each result";
}

}  // namespace
}  // namespace hoard::tournament
