// The lease keeper on its own: two servers' keepers on one store in memory.

#include "tournament/lease_keeper.h"

#include <memory>

#include "absl/synchronization/notification.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::tournament {
namespace {

using ::hoard::testing::IsOkAndHolds;

std::unique_ptr<db::MatchStore> StoreWithATournament(std::int64_t* id) {
  std::unique_ptr<db::MatchStore> store = *db::OpenSqliteStore(":memory:");
  hoard::v1::TournamentSpec spec;
  spec.set_game("village");
  *id = *store->CreateTournament(spec, "leases", 10, "");
  return store;
}

TEST(LeaseKeeperTest, ATournamentLeasedWholeIsHeldByOneServerAtATime) {
  std::int64_t id = 0;
  std::unique_ptr<db::MatchStore> store = StoreWithATournament(&id);
  LeaseKeeper a(store.get(), id, "a", absl::Seconds(30), {});
  LeaseKeeper b(store.get(), id, "b", absl::Seconds(30), {});
  EXPECT_THAT(a.ClaimWhole(), IsOkAndHolds(true));
  EXPECT_THAT(b.ClaimWhole(), IsOkAndHolds(false));
  EXPECT_THAT(a.ClaimWhole(), IsOkAndHolds(true)) << "its own lease";
  a.Release();
  EXPECT_THAT(b.ClaimWhole(), IsOkAndHolds(true));
}

TEST(LeaseKeeperTest, LeasesAreRenewedWhileItRunsAndRunOutOnceItStops) {
  std::int64_t id = 0;
  std::unique_ptr<db::MatchStore> store = StoreWithATournament(&id);
  const absl::Duration ttl = absl::Seconds(1);
  LeaseKeeper a(store.get(), id, "a", ttl, {});
  LeaseKeeper b(store.get(), id, "b", ttl, {});
  ASSERT_TRUE(a.Claim(3));
  a.Start();
  absl::SleepFor(3 * ttl);
  EXPECT_FALSE(b.Claim(3)) << "renewed three times a lease";
  EXPECT_TRUE(b.Claim(4));
  a.Stop();
  absl::SleepFor(2 * ttl);
  EXPECT_TRUE(b.Claim(3)) << "run out";
  EXPECT_FALSE(a.ended_elsewhere());
}

TEST(LeaseKeeperTest, ATournamentCancelledByAnotherServerIsFollowed) {
  std::int64_t id = 0;
  std::unique_ptr<db::MatchStore> store = StoreWithATournament(&id);
  absl::Notification ended;
  hoard::v1::TournamentStatus status = hoard::v1::TOURNAMENT_STATUS_UNSPECIFIED;
  LeaseKeeper a(store.get(), id, "a", absl::Milliseconds(300),
                {.on_ended = [&](hoard::v1::TournamentStatus s) {
                  if (ended.HasBeenNotified()) return;
                  status = s;
                  ended.Notify();
                }});
  a.Start();
  ASSERT_TRUE(store->SetTournamentStatus(id, hoard::v1::TOURNAMENT_STATUS_CANCELLED, "").ok());
  ASSERT_TRUE(ended.WaitForNotificationWithTimeout(absl::Seconds(30)));
  a.Stop();
  EXPECT_EQ(status, hoard::v1::TOURNAMENT_STATUS_CANCELLED);
  EXPECT_TRUE(a.ended_elsewhere());
}

}  // namespace
}  // namespace hoard::tournament
