// The arena with a store that fails: play goes on, results wait for the
// store and are stored when it is back, and the log says `stored=yes` only
// for what is committed.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "db/faulty_store.h"
#include "engine/record_json.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "service/arena.h"

namespace hoard::service {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;

struct Event {
  std::string name;
  LogFields fields;
  std::string Field(const std::string& key) const {
    for (const auto& [k, v] : fields) {
      if (k == key) return v;
    }
    return "";
  }
};

class ArenaStoreFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto faulty = std::make_unique<db::FaultyStore>(*db::OpenSqliteStore(":memory:"));
    store_ = faulty.get();
    arena_.SetEventSink([this](absl::string_view name, const LogFields& fields) {
      Event event{std::string(name), fields};
      // What the log calls stored must be in the store when it says so.
      if (event.Field("stored") == "yes") {
        absl::StatusOr<std::optional<db::StoredMatch>> there = store_->Get(event.Field("match"));
        if (!there.ok() || !there->has_value()) {
          ADD_FAILURE() << event.Field("match") << " logged stored=yes before it was stored";
        }
      }
      absl::MutexLock lock(&mu_);
      events_.push_back(std::move(event));
    });
    ASSERT_THAT(
        arena_.UseStore(std::move(faulty),
                        {.max_queued_bytes = 1,  // one result waiting holds new matches back
                         .first_retry = absl::Milliseconds(5),
                         .max_retry = absl::Milliseconds(50)}),
        IsOk());
  }

  static hoard::v1::CreateMatchRequest TwoRandomBots() {
    hoard::v1::CreateMatchRequest request;
    request.set_game("village");
    request.add_seats()->set_builtin("random");
    request.add_seats()->set_builtin("random");
    return request;
  }

  std::string CreateBuiltIn(const hoard::v1::CreateMatchRequest& request = TwoRandomBots()) {
    absl::StatusOr<hoard::v1::CreateMatchResponse> created = arena_.CreateMatch(request);
    EXPECT_THAT(created, IsOk());
    return created.ok() ? created->match_id() : "";
  }

  hoard::v1::MatchStatus StatusOf(const std::string& id) {
    hoard::v1::GetMatchRequest get;
    get.set_match_id(id);
    absl::StatusOr<hoard::v1::GetMatchResponse> got = arena_.GetMatch(get, /*admin=*/true);
    return got.ok() ? got->match().status() : hoard::v1::MATCH_STATUS_UNSPECIFIED;
  }

  void AwaitFinished(const std::string& id) {
    for (int tries = 0; tries < 2000 && StatusOf(id) != hoard::v1::MATCH_STATUS_FINISHED; ++tries) {
      absl::SleepFor(absl::Milliseconds(5));
    }
    ASSERT_EQ(StatusOf(id), hoard::v1::MATCH_STATUS_FINISHED) << id;
  }

  std::vector<Event> Events(const std::string& name) {
    absl::MutexLock lock(&mu_);
    std::vector<Event> found;
    for (const Event& event : events_) {
      if (event.name == name) found.push_back(event);
    }
    return found;
  }

  db::FaultyStore* store_ = nullptr;
  absl::Mutex mu_;
  std::vector<Event> events_ ABSL_GUARDED_BY(mu_);
  Arena arena_;
};

TEST_F(ArenaStoreFaultTest, AMatchOfBotsThatDecideAtOnceIsPlayedThroughAsItWouldBeHosted) {
  hoard::v1::CreateMatchRequest request;
  request.set_game("village");
  request.set_seed(77);
  for (const char* bot : {"random", "first", "random", "first"}) {
    request.add_seats()->set_builtin(bot);
  }
  // Played through on this thread: over when the call returns.
  absl::StatusOr<EndedMatch> ended = arena_.PlayToEnd(request);
  ASSERT_THAT(ended, IsOk());
  const std::string id = ended->match.match_id();
  EXPECT_EQ(id, absl::StrCat("m", ended->sequence));
  EXPECT_EQ(ended->match.status(), hoard::v1::MATCH_STATUS_FINISHED);
  ASSERT_GT(ended->match.actions(), 0);
  // Counted and logged as any match; its end once its caller has stored it.
  GameMetrics& metrics = arena_.metrics().Game("village");
  EXPECT_EQ(metrics.started, 1);
  EXPECT_EQ(metrics.finished, 1);
  EXPECT_EQ(metrics.builtin_decisions, ended->match.actions());
  ASSERT_EQ(Events("match_started").size(), 1u);
  EXPECT_EQ(Events("match_started")[0].Field("match"), id);
  EXPECT_TRUE(Events("match_finished").empty());

  // The same request hosted (its bots thinking on the worker pool) plays
  // the same match: every action, its words and fingerprints, the result.
  const std::string hosted = CreateBuiltIn(request);
  AwaitFinished(hosted);
  hoard::v1::GetMatchRequest get;
  get.set_match_id(hosted);
  absl::StatusOr<hoard::v1::GetMatchResponse> got = arena_.GetMatch(get, /*admin=*/true);
  ASSERT_THAT(got, IsOk());
  absl::StatusOr<hoard::v1::MatchRecord> through = engine::ExpandRecordProto(ended->record);
  ASSERT_THAT(through, IsOk());
  hoard::v1::MatchRecord was_hosted = got->record();
  for (hoard::v1::MatchRecord* record : {&*through, &was_hosted}) {
    record->clear_seed_salt();  // each match has a salt of its own
    record->clear_seed_commitment();
  }
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*through, was_hosted));
  EXPECT_EQ(through->actions_size(), ended->match.actions());

  // Stored by its caller, it is logged stored=yes and read as any match.
  ASSERT_THAT(store_->SaveFinished(ended->sequence, ended->match, ended->record, nullptr), IsOk());
  arena_.OnStoredByCaller(id, absl::OkStatus());
  std::vector<Event> ends;
  for (const Event& end : Events("match_finished")) {
    if (end.Field("match") == id) ends.push_back(end);
  }
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0].Field("stored"), "yes");
  EXPECT_EQ(ends[0].Field("actions"), absl::StrCat(ended->match.actions()));
  get.set_match_id(id);
  got = arena_.GetMatch(get, /*admin=*/true);
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->match().status(), hoard::v1::MATCH_STATUS_FINISHED);
  EXPECT_EQ(got->record().actions_size(), ended->match.actions());
}

TEST_F(ArenaStoreFaultTest, AMatchPlaysOnWhileTheStoreIsLockedAndIsStoredAfter) {
  store_->SetFault(absl::UnavailableError("hoard.db: database is locked"));
  const std::vector<std::string> ids = {CreateBuiltIn()};
  // It finishes, and reads as finished, while the store refuses it.
  for (const std::string& id : ids) AwaitFinished(id);
  absl::SleepFor(absl::Milliseconds(100));  // the writer tries, and tries again
  EXPECT_GT(store_->failed_saves(), 1);
  EXPECT_TRUE(Events("match_finished").empty()) << "an end was logged before it was stored";
  for (const std::string& id : ids) EXPECT_FALSE((*store_->Get(id)).has_value());
  // With the writer behind, no new match starts, and the refusal says why.
  hoard::v1::CreateMatchRequest request;
  request.set_game("village");
  request.add_seats()->set_builtin("random");
  request.add_seats()->set_builtin("random");
  EXPECT_THAT(arena_.CreateMatch(request),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("match store is behind: 1 finished match (")));
  EXPECT_THAT(arena_.CreateMatch(request),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("database is locked")));

  store_->SetFault(absl::OkStatus());
  for (int tries = 0; tries < 2000 && Events("match_finished").empty(); ++tries) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  const std::vector<Event> finished = Events("match_finished");
  ASSERT_EQ(finished.size(), 1u);
  for (const Event& event : finished) EXPECT_EQ(event.Field("stored"), "yes");
  for (const std::string& id : ids) {
    EXPECT_TRUE((*store_->Get(id)).has_value()) << id;
    EXPECT_EQ(StatusOf(id), hoard::v1::MATCH_STATUS_FINISHED);  // now from the store
  }
  EXPECT_THAT(arena_.CreateMatch(request), IsOk());
}

TEST_F(ArenaStoreFaultTest, AResultTheStoreRefusesForGoodIsLoggedAsNotStoredWithTheReason) {
  store_->SetFault(absl::DataLossError("hoard.db: database disk image is malformed"));
  const std::string id = CreateBuiltIn();
  AwaitFinished(id);
  for (int tries = 0; tries < 2000 && Events("match_not_stored").empty(); ++tries) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  const std::vector<Event> lost = Events("match_not_stored");
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].Field("match"), id);
  EXPECT_EQ(lost[0].Field("stored"), "no");
  EXPECT_THAT(lost[0].Field("reason"), HasSubstr("malformed"));
  // A store in memory has no spill file.
  EXPECT_EQ(lost[0].Field("kept"), "no (lost)");
  EXPECT_TRUE(Events("match_finished").empty());
  // Still readable from memory.
  EXPECT_EQ(StatusOf(id), hoard::v1::MATCH_STATUS_FINISHED);
}

}  // namespace
}  // namespace hoard::service
