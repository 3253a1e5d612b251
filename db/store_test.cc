#include "db/store.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::db {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;

hoard::v1::Match Finished(std::int64_t sequence, const std::string& game,
                          const std::string& bot) {
  hoard::v1::Match match;
  match.set_match_id(absl::StrCat("m", sequence));
  match.set_game(game);
  match.set_ruleset_version("1");
  match.set_status(hoard::v1::MATCH_STATUS_FINISHED);
  match.set_seed(0xfedcba9876543210ULL);
  match.set_actions(42);
  for (int seat = 0; seat < 2; ++seat) {
    hoard::v1::SeatInfo* info = match.add_seats();
    info->set_seat(seat);
    info->set_player(seat == 0 ? "bot:" + bot : "builtin:random");
    info->set_score(10.5 - seat);
    info->set_rank(seat + 1);
  }
  return match;
}

hoard::v1::MatchRecord RecordOf(const hoard::v1::Match& match) {
  hoard::v1::MatchRecord record;
  record.set_format("hoard.match_record.v1");
  record.set_game(match.game());
  record.set_seed(match.seed());
  return record;
}

std::string TempPath(const std::string& name) {
  const std::string path = absl::StrCat(::testing::TempDir(), "/", name);
  std::remove(path.c_str());
  std::remove((path + "-wal").c_str());
  std::remove((path + "-shm").c_str());
  return path;
}

TEST(StoreTest, SavesAndReadsBackMatchesAndRecords) {
  absl::StatusOr<std::unique_ptr<MatchStore>> store = OpenSqliteStore(":memory:");
  ASSERT_THAT(store, IsOk());
  const hoard::v1::Match match = Finished(3, "village", "alice");
  ASSERT_THAT((*store)->SaveFinished(3, match, RecordOf(match)), IsOk());
  absl::StatusOr<std::optional<StoredMatch>> got = (*store)->Get("m3");
  ASSERT_THAT(got, IsOk());
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->sequence, 3);
  EXPECT_EQ((*got)->match.SerializeAsString(), match.SerializeAsString());
  absl::StatusOr<std::optional<hoard::v1::MatchRecord>> record = (*store)->GetRecord("m3");
  ASSERT_THAT(record, IsOk());
  ASSERT_TRUE(record->has_value());
  EXPECT_EQ((*record)->seed(), 0xfedcba9876543210ULL);
  EXPECT_FALSE((*(*store)->Get("m4")).has_value());
  EXPECT_THAT((*store)->SaveFinished(3, match, RecordOf(match)),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("m3 is already stored")));
  EXPECT_EQ(*(*store)->LastSequence(), 3);
}

TEST(StoreTest, ListsInOrderWithFiltersAndPages) {
  std::unique_ptr<MatchStore> store = *OpenSqliteStore(":memory:");
  for (int i = 1; i <= 6; ++i) {
    const hoard::v1::Match match =
        Finished(i, i % 2 == 0 ? "village" : "hedonia", i <= 3 ? "alice" : "bob");
    ASSERT_THAT(store->SaveFinished(i, match, RecordOf(match)), IsOk());
  }
  auto ids = [&](std::int64_t after, int limit, MatchFilter filter) {
    std::vector<std::string> out;
    absl::StatusOr<std::vector<StoredMatch>> listed = store->List(after, limit, filter);
    EXPECT_THAT(listed, IsOk());
    for (const StoredMatch& m : *listed) out.push_back(m.match.match_id());
    return out;
  };
  EXPECT_THAT(ids(0, 4, {}), ::testing::ElementsAre("m1", "m2", "m3", "m4"));
  EXPECT_THAT(ids(4, 4, {}), ::testing::ElementsAre("m5", "m6"));
  EXPECT_THAT(ids(0, 10, {.game = "village"}), ::testing::ElementsAre("m2", "m4", "m6"));
  EXPECT_THAT(ids(0, 10, {.bot = "bob"}), ::testing::ElementsAre("m4", "m5", "m6"));
  EXPECT_THAT(ids(0, 10, {.game = "village", .bot = "alice"}), ::testing::ElementsAre("m2"));
}

TEST(StoreTest, AFileSurvivesReopeningInWalMode) {
  const std::string path = TempPath("hoard_store_test.db");
  {
    std::unique_ptr<MatchStore> store = *OpenSqliteStore(path);
    const hoard::v1::Match match = Finished(7, "village", "alice");
    ASSERT_THAT(store->SaveFinished(7, match, RecordOf(match)), IsOk());
  }
  std::unique_ptr<MatchStore> again = *OpenSqliteStore(path);  // migrations run once
  EXPECT_EQ(*again->LastSequence(), 7);
  EXPECT_TRUE((*again->Get("m7")).has_value());
  std::ifstream header(path, std::ios::binary);
  std::string magic(16, '\0');
  header.read(magic.data(), 16);
  EXPECT_EQ(magic.substr(0, 15), "SQLite format 3");
}

TEST(StoreTest, AFileThatIsNoDatabaseIsNamed) {
  const std::string path = TempPath("hoard_not_a_db.db");
  std::ofstream(path) << "this is not a database, just some text that is long enough to matter";
  EXPECT_THAT(OpenSqliteStore(path), StatusIs(absl::StatusCode::kDataLoss,
                                              HasSubstr("is not a Hoard database")));
  EXPECT_THAT(OpenSqliteStore("/nonexistent/dir/hoard.db"),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("cannot open")));
}

}  // namespace
}  // namespace hoard::db
