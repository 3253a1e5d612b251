#include "db/store_writer.h"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "db/faulty_store.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::db {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

FinishedResult Result(std::int64_t sequence) {
  FinishedResult result;
  result.sequence = sequence;
  hoard::v1::Match& match = result.match;
  match.set_match_id(absl::StrCat("m", sequence));
  match.set_game("village");
  match.set_ruleset_version("1");
  match.set_status(hoard::v1::MATCH_STATUS_FINISHED);
  match.set_actions(7);
  for (int seat = 0; seat < 2; ++seat) {
    hoard::v1::SeatInfo* info = match.add_seats();
    info->set_seat(seat);
    info->set_player("builtin:random");
    info->set_rank(seat + 1);
  }
  result.record.set_format("hoard.match_record.v1");
  result.record.set_game("village");
  return result;
}

std::string TempPath(const std::string& name) {
  const std::string path = absl::StrCat(::testing::TempDir(), "/", name);
  for (const char* suffix : {"", "-wal", "-shm", ".unstored"}) {
    std::remove((path + suffix).c_str());
  }
  return path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// What the writer reported, by match id.
class Outcomes {
 public:
  StoreWriter::OnOutcome Sink() {
    return [this](const std::string& id, const ResultOutcome& outcome) {
      absl::MutexLock lock(&mu_);
      outcomes_[id].push_back(outcome);
    };
  }
  // Waits (up to 20 s) until `n` results are reported.
  std::map<std::string, std::vector<ResultOutcome>> Await(int n) {
    absl::MutexLock lock(&mu_);
    auto enough = [this, n]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
      int reported = 0;
      for (const auto& [id, all] : outcomes_) reported += static_cast<int>(all.size());
      return reported >= n;
    };
    mu_.AwaitWithTimeout(absl::Condition(&enough), absl::Seconds(20));
    return outcomes_;
  }
  int Count() {
    absl::MutexLock lock(&mu_);
    int reported = 0;
    for (const auto& [id, all] : outcomes_) reported += static_cast<int>(all.size());
    return reported;
  }

 private:
  absl::Mutex mu_;
  std::map<std::string, std::vector<ResultOutcome>> outcomes_ ABSL_GUARDED_BY(mu_);
};

StoreWriterOptions Quick(const std::string& spill = "") {
  return {.first_retry = absl::Milliseconds(5),
          .max_retry = absl::Milliseconds(20),
          .attempts_for_lasting_errors = 3,
          .id_block = 10,
          .spill_path = spill};
}

TEST(StoreWriterTest, StoresEveryResultAndReportsItOnce) {
  FaultyStore store(*OpenSqliteStore(":memory:"));
  Outcomes outcomes;
  absl::StatusOr<std::unique_ptr<StoreWriter>> writer =
      StoreWriter::Open(&store, Quick(), outcomes.Sink());
  ASSERT_THAT(writer, IsOk());
  for (int i = 1; i <= 25; ++i) (*writer)->Add(Result(i));
  const auto reported = outcomes.Await(25);
  ASSERT_EQ(reported.size(), 25u);
  for (const auto& [id, all] : reported) {
    ASSERT_EQ(all.size(), 1u) << id;
    EXPECT_EQ(all[0].kind, ResultOutcome::Kind::kStored) << id;
    EXPECT_THAT(store.Get(id), IsOk());
    EXPECT_TRUE(store.Get(id)->has_value()) << id << " reported stored but is not in the store";
  }
  EXPECT_EQ((*writer)->counts().stored, 25);
  EXPECT_EQ((*writer)->Close(absl::Seconds(1)), 0);
}

TEST(StoreWriterTest, ATransientFaultHoldsResultsBackUntilItPasses) {
  FaultyStore store(*OpenSqliteStore(":memory:"));
  Outcomes outcomes;
  StoreWriterOptions options = Quick();
  options.max_queued_bytes = 3 * Result(1).match.ByteSizeLong();
  std::unique_ptr<StoreWriter> writer = *StoreWriter::Open(&store, options, outcomes.Sink());
  store.SetFault(absl::UnavailableError("hoard.db: database is locked"));
  EXPECT_THAT(writer->CheckRoom(), IsOk());
  for (int i = 1; i <= 10; ++i) writer->Add(Result(i));
  absl::SleepFor(absl::Milliseconds(200));
  // Nothing reported while the store refuses, nothing dropped, and no room
  // for new matches: the message names the store and its error.
  EXPECT_EQ(outcomes.Count(), 0);
  EXPECT_GT(store.failed_saves(), 3);
  EXPECT_EQ(writer->counts().waiting, 10);
  EXPECT_THAT(writer->CheckRoom(),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("match store is behind: 10 finished matches")));
  EXPECT_THAT(writer->CheckRoom(),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("database is locked")));
  store.SetFault(absl::OkStatus());
  const auto reported = outcomes.Await(10);
  ASSERT_EQ(reported.size(), 10u);
  for (const auto& [id, all] : reported) {
    EXPECT_EQ(all.at(0).kind, ResultOutcome::Kind::kStored) << id;
    EXPECT_TRUE(store.Get(id)->has_value()) << id;
  }
  EXPECT_THAT(writer->CheckRoom(), IsOk());
}

TEST(StoreWriterTest, ALastingErrorKeepsTheResultForTheNextStart) {
  const std::string db = TempPath("writer_lasting.db");
  const std::string spill = SpillPathFor(db);
  {
    FaultyStore store(*OpenSqliteStore(db));
    Outcomes outcomes;
    std::unique_ptr<StoreWriter> writer = *StoreWriter::Open(&store, Quick(spill), outcomes.Sink());
    store.SetFault(absl::DataLossError("hoard.db: database disk image is malformed"));
    const mode_t umask_was = ::umask(022);  // the usual one, which leaves files 0644
    writer->Add(Result(1));
    writer->Add(Result(2));
    const auto reported = outcomes.Await(2);
    ::umask(umask_was);
    ASSERT_EQ(reported.size(), 2u);
    for (const auto& [id, all] : reported) {
      EXPECT_EQ(all.at(0).kind, ResultOutcome::Kind::kSpilled) << id;
      EXPECT_EQ(all.at(0).spill_path, spill);
      EXPECT_THAT(all.at(0).error, StatusIs(absl::StatusCode::kDataLoss, HasSubstr("malformed")));
    }
    EXPECT_GE(store.failed_saves(), 2 * 3);  // attempts_for_lasting_errors each
    EXPECT_EQ(writer->Close(absl::Seconds(1)), 2);
  }
  EXPECT_FALSE(ReadFile(spill).empty());
  struct stat info;
  ASSERT_EQ(::stat(spill.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u) << "the spill file holds what the database would";
  // The next start stores them first and removes the file.
  std::unique_ptr<MatchStore> store = *OpenSqliteStore(db);
  Outcomes outcomes;
  std::unique_ptr<StoreWriter> writer =
      *StoreWriter::Open(store.get(), Quick(spill), outcomes.Sink());
  EXPECT_EQ(writer->counts().recovered, 2);
  for (const char* id : {"m1", "m2"}) {
    absl::StatusOr<std::optional<StoredMatch>> stored = store->Get(id);
    ASSERT_THAT(stored, IsOk());
    ASSERT_TRUE(stored->has_value()) << id;
    EXPECT_EQ((*stored)->match.actions(), 7);
  }
  EXPECT_FALSE(std::ifstream(spill).good());
}

TEST(StoreWriterTest, OneResultTheStoreRefusesDoesNotKeepTheOthersOfItsBatchOut) {
  FaultyStore store(*OpenSqliteStore(":memory:"));
  // Another match holds sequence 3.
  FinishedResult other = Result(3);
  other.match.set_match_id("x3");
  ASSERT_THAT(store.SaveFinished(3, other.match, other.record, nullptr), IsOk());
  Outcomes outcomes;
  std::unique_ptr<StoreWriter> writer = *StoreWriter::Open(&store, Quick(), outcomes.Sink());
  // Held back while they queue up, so that they go in one batch.
  store.SetFault(absl::UnavailableError("hoard.db: database is locked"));
  for (int i = 1; i <= 5; ++i) writer->Add(Result(i));
  absl::SleepFor(absl::Milliseconds(50));
  store.SetFault(absl::OkStatus());
  const auto reported = outcomes.Await(5);
  ASSERT_EQ(reported.size(), 5u);
  for (const auto& [id, all] : reported) {
    if (id == "m3") {
      EXPECT_NE(all.at(0).kind, ResultOutcome::Kind::kStored);
      EXPECT_THAT(all.at(0).error.message(), HasSubstr("sequence 3 belongs to another match"));
    } else {
      EXPECT_EQ(all.at(0).kind, ResultOutcome::Kind::kStored) << id;
      EXPECT_TRUE(store.Get(id)->has_value()) << id;
    }
  }
}

TEST(StoreWriterTest, CloseSpillsWhatTheStoreDidNotTakeInTime) {
  const std::string db = TempPath("writer_close.db");
  const std::string spill = SpillPathFor(db);
  FaultyStore store(*OpenSqliteStore(db));
  Outcomes outcomes;
  std::unique_ptr<StoreWriter> writer = *StoreWriter::Open(&store, Quick(spill), outcomes.Sink());
  store.SetFault(absl::UnavailableError("hoard.db: database or disk is full"));
  for (int i = 1; i <= 5; ++i) writer->Add(Result(i));
  const absl::Time start = absl::Now();
  EXPECT_EQ(writer->Close(absl::Milliseconds(100)), 5);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5)) << "Close waited far past its deadline";
  const auto reported = outcomes.Await(5);
  ASSERT_EQ(reported.size(), 5u);
  for (const auto& [id, all] : reported) {
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all[0].kind, ResultOutcome::Kind::kSpilled) << id;
  }
  // A match that ends after the close is kept at once.
  writer->Add(Result(6));
  EXPECT_EQ(outcomes.Await(6).at("m6").at(0).kind, ResultOutcome::Kind::kSpilled);
}

TEST(StoreWriterTest, ADatabaseDeletedUnderTheWriterSpillsEveryResultAndRefusesNewMatches) {
  const std::string db = TempPath("writer_deleted.db");
  const std::string spill = SpillPathFor(db);
  std::remove((db + ".rescued").c_str());
  {
    std::unique_ptr<MatchStore> store = *OpenSqliteStore(db);
    Outcomes outcomes;
    absl::Mutex mu;
    std::vector<std::string> lost;
    StoreWriterOptions options = Quick(spill);
    options.on_store_lost = [&](const absl::Status& why) {
      absl::MutexLock lock(&mu);
      lost.emplace_back(why.message());
    };
    std::unique_ptr<StoreWriter> writer = *StoreWriter::Open(store.get(), options, outcomes.Sink());
    writer->Add(Result(1));
    ASSERT_EQ(outcomes.Await(1).at("m1").at(0).kind, ResultOutcome::Kind::kStored);
    ASSERT_EQ(std::remove(db.c_str()), 0);
    // Idle, the writer still finds out, and new matches are refused.
    const absl::Time give_up = absl::Now() + absl::Seconds(20);
    while (writer->CheckRoom().ok() && absl::Now() < give_up)
      absl::SleepFor(absl::Milliseconds(20));
    EXPECT_THAT(writer->CheckRoom(),
                StatusIs(absl::StatusCode::kUnavailable,
                         AllOf(HasSubstr("the database " + db + " was deleted"),
                               HasSubstr("kept in " + spill))));
    writer->Add(Result(2));
    writer->Add(Result(3));
    const auto reported = outcomes.Await(3);
    for (const char* id : {"m2", "m3"}) {
      const ResultOutcome& outcome = reported.at(id).at(0);
      EXPECT_EQ(outcome.kind, ResultOutcome::Kind::kSpilled) << id;
      EXPECT_THAT(outcome.error,
                  StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("was deleted")));
    }
    EXPECT_EQ(writer->Close(absl::Seconds(1)), 2);
    absl::MutexLock lock(&mu);
    ASSERT_EQ(lost.size(), 1u) << "said once";
    EXPECT_THAT(lost[0], HasSubstr("copied to " + db + ".rescued"));
  }
  // Put back, the database and the spill file hold every result once.
  ASSERT_EQ(std::rename((db + ".rescued").c_str(), db.c_str()), 0);
  std::unique_ptr<MatchStore> store = *OpenSqliteStore(db);
  Outcomes outcomes;
  std::unique_ptr<StoreWriter> writer =
      *StoreWriter::Open(store.get(), Quick(spill), outcomes.Sink());
  EXPECT_EQ(writer->counts().recovered, 2);
  std::vector<StoredMatch> all = *store->List(0, 10, {});
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].match.match_id(), "m1");
  EXPECT_EQ(all[2].match.match_id(), "m3");
}

TEST(StoreWriterTest, AResultThatCannotBeKeptAnywhereIsReportedLostWithBothReasons) {
  FaultyStore store(*OpenSqliteStore(":memory:"));
  Outcomes outcomes;
  std::unique_ptr<StoreWriter> writer = *StoreWriter::Open(
      &store, Quick(absl::StrCat(::testing::TempDir(), "/no/such/dir/x.unstored")),
      outcomes.Sink());
  store.SetFault(absl::DataLossError("database disk image is malformed"));
  writer->Add(Result(1));
  const ResultOutcome lost = outcomes.Await(1).at("m1").at(0);
  EXPECT_EQ(lost.kind, ResultOutcome::Kind::kLost);
  EXPECT_THAT(lost.error.message(), HasSubstr("malformed"));
  EXPECT_THAT(lost.error.message(), HasSubstr("cannot open"));
}

TEST(StoreWriterTest, AnUnreadableSpillFileStopsTheStartAndIsLeftAsItWas) {
  const std::string db = TempPath("writer_bad_spill.db");
  const std::string spill = SpillPathFor(db);
  std::ofstream(spill, std::ios::binary) << "\x7f"
                                         << "not a result";
  const std::string before = ReadFile(spill);
  std::unique_ptr<MatchStore> store = *OpenSqliteStore(db);
  Outcomes outcomes;
  EXPECT_THAT(StoreWriter::Open(store.get(), Quick(spill), outcomes.Sink()),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("move it aside")));
  EXPECT_EQ(ReadFile(spill), before);
}

TEST(StoreWriterTest, MatchIdsNeverRepeatAcrossRestartsOrWriters) {
  const std::string db = TempPath("writer_ids.db");
  std::set<std::int64_t> given;
  auto take = [&](StoreWriter& writer, int n) {
    for (int i = 0; i < n; ++i) {
      absl::StatusOr<std::int64_t> id = writer.NextSequence();
      ASSERT_THAT(id, IsOk());
      EXPECT_TRUE(given.insert(*id).second) << "id " << *id << " handed out twice";
    }
  };
  std::unique_ptr<MatchStore> first_store = *OpenSqliteStore(db);
  std::unique_ptr<MatchStore> second_store = *OpenSqliteStore(db);
  Outcomes outcomes;
  {
    // Two servers on one database, each past several blocks.
    std::unique_ptr<StoreWriter> a =
        *StoreWriter::Open(first_store.get(), Quick(), outcomes.Sink());
    std::unique_ptr<StoreWriter> b =
        *StoreWriter::Open(second_store.get(), Quick(), outcomes.Sink());
    for (int round = 0; round < 6; ++round) {
      take(*a, 4);
      take(*b, 4);
      absl::SleepFor(absl::Milliseconds(30));  // the next block is reserved on the thread
    }
    // Neither stored a match: a "crash" leaves the store knowing nothing
    // but the reservations.
  }
  std::unique_ptr<StoreWriter> again =
      *StoreWriter::Open(first_store.get(), Quick(), outcomes.Sink());
  for (int round = 0; round < 5; ++round) {
    take(*again, 5);
    absl::SleepFor(absl::Milliseconds(30));
  }
  EXPECT_EQ(given.size(), 6u * 8 + 25);
}

TEST(StoreWriterTest, IdsRunOutOnlyWhenTheStoreCannotReserveMore) {
  FaultyStore store(*OpenSqliteStore(":memory:"));
  Outcomes outcomes;
  std::unique_ptr<StoreWriter> writer = *StoreWriter::Open(&store, Quick(), outcomes.Sink());
  store.SetFault(absl::UnavailableError("hoard.db: database is locked"));
  int handed = 0;
  while (writer->NextSequence().ok()) ++handed;
  EXPECT_EQ(handed, 10);                    // the block reserved at the start
  absl::SleepFor(absl::Milliseconds(100));  // the writer tries to reserve more
  EXPECT_THAT(writer->NextSequence(),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("database is locked")));
  store.SetFault(absl::OkStatus());
  absl::StatusOr<std::int64_t> next;
  for (int tries = 0; tries < 200 && !(next = writer->NextSequence()).ok(); ++tries) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_THAT(next, IsOk());
  EXPECT_GT(*next, 10);
}

}  // namespace
}  // namespace hoard::db
