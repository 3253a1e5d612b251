#include "engine/record.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "engine/record_json.h"
#include "engine/registry.h"
#include "engine/seed_commitment.h"
#include "engine/testing/random_record.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::engine {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;

MatchRecord PlayRandomMatch(int players, std::uint64_t seed) {
  return ::hoard::testing::PlayRandomRecord("village", players, seed);
}

TEST(RecordTest, AFreshRecordVerifies) {
  for (int players = 2; players <= 5; ++players) {
    const MatchRecord record = PlayRandomMatch(players, 100 + players);
    EXPECT_EQ(record.seats.size(), static_cast<std::size_t>(players));
    EXPECT_FALSE(record.actions.empty());
    EXPECT_THAT(VerifyRecord(record), IsOk());
  }
}

TEST(RecordTest, JsonRoundTripKeepsEverything) {
  const MatchRecord record = PlayRandomMatch(4, 7);
  const std::string json = RecordToJson(record);
  EXPECT_THAT(json, HasSubstr("\"game\": \"village\""));
  EXPECT_THAT(json, HasSubstr("\"format\": \"hoard.match_record.v2\""));
  absl::StatusOr<MatchRecord> back = RecordFromJson(json);
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(*back, record);
}

TEST(RecordTest, AnAlteredActionIsCaughtAtItsStep) {
  MatchRecord record = PlayRandomMatch(3, 11);
  // Replace step 10 by a different legal action, with a matching text.
  const Game& game = **FindGame("village");
  std::unique_ptr<State> state = *game.NewMatch({.num_players = 3, .seed = record.seed});
  for (int i = 0; i < 9; ++i) {
    ASSERT_THAT(state->Apply(record.actions[i].seat, record.actions[i].action), IsOk());
  }
  RecordedAction& step = record.actions[9];
  for (Action other : state->LegalActions(step.seat)) {
    if (other == step.action) continue;
    step.action = other;
    step.text = state->ActionToString(step.seat, other);
    break;
  }
  EXPECT_THAT(VerifyRecord(record),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("step 10 ")));
}

TEST(RecordTest, TextThatDisagreesWithTheCodeIsCaught) {
  MatchRecord record = PlayRandomMatch(2, 5);
  record.actions[3].text = "draw a card, honestly";
  EXPECT_THAT(VerifyRecord(record),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("step 4 (seat 1): the action's code reads")));
}

TEST(RecordTest, AnotherSeedDealsDifferently) {
  MatchRecord record = PlayRandomMatch(4, 21);
  record.seed += 1;
  EXPECT_THAT(VerifyRecord(record),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("initial deal differs")));
}

TEST(RecordTest, TruncatedAndTamperedResultsAreCaught) {
  MatchRecord truncated = PlayRandomMatch(3, 2);
  truncated.actions.pop_back();
  EXPECT_THAT(VerifyRecord(truncated),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("match is not over")));
  MatchRecord scores = PlayRandomMatch(3, 2);
  scores.scores[0] += 5;
  EXPECT_THAT(VerifyRecord(scores),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("final scores are")));
  MatchRecord ranks = PlayRandomMatch(3, 2);
  ranks.ranks = {3, 3, 3};
  EXPECT_THAT(VerifyRecord(ranks),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("final ranks are")));
}

TEST(RecordTest, OtherGamesAndRulesetsAreNamed) {
  MatchRecord record = PlayRandomMatch(2, 3);
  record.ruleset_version = "0";
  EXPECT_THAT(VerifyRecord(record),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("ruleset version 0")));
  record.game = "tic_tac_toe";
  EXPECT_THAT(VerifyRecord(record),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("unknown game 'tic_tac_toe'")));
}

TEST(RecordTest, CorruptJsonIsRefusedWithAReason) {
  EXPECT_THAT(RecordFromJson("{\"game\": "),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a match record")));
  EXPECT_THAT(RecordFromJson("{\"game\": \"village\"}"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("format is ''")));
  EXPECT_THAT(ReadRecordFile("/nonexistent/record.json"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("cannot open")));
}

TEST(RecordTest, UnknownFormatsAreRefusedWithTheOnesKnown) {
  std::string json = RecordToJson(PlayRandomMatch(2, 4));
  json.replace(json.find("match_record.v2"), 15, "match_record.v9");
  EXPECT_THAT(RecordFromJson(json),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("format is 'hoard.match_record.v9', expected "
                                 "'hoard.match_record.v2' (or an older "
                                 "'hoard.match_record.v1')")));
  MatchRecord record = PlayRandomMatch(2, 4);
  record.format_version = 3;
  EXPECT_THAT(VerifyRecord(record),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("in format 3")));
}

// A match's record with the commitment to its deal, as the server and
// `hoard play --record` write it.
MatchRecord CommittedRecord(std::uint64_t seed) {
  MatchRecord record = PlayRandomMatch(3, seed);
  record.seed_salt = NewSeedSalt();
  record.seed_commitment = SeedCommitment(seed, record.seed_salt);
  return record;
}

TEST(RecordTest, ARecordVerifiesOnlyWithTheSeedAndSaltItCommittedTo) {
  const MatchRecord good = CommittedRecord(21);
  EXPECT_THAT(VerifyRecord(good), IsOk());

  // Another seed fails on the commitment, before any step is replayed.
  MatchRecord wrong_seed = good;
  wrong_seed.seed = 22;
  EXPECT_THAT(VerifyRecord(wrong_seed),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("its seed and salt do not hash to its seed_commitment")));

  MatchRecord wrong_salt = good;
  wrong_salt.seed_salt[0] = wrong_salt.seed_salt[0] == '0' ? '1' : '0';
  EXPECT_THAT(VerifyRecord(wrong_salt),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("its seed and salt do not hash to its seed_commitment")));

  MatchRecord no_salt = good;
  no_salt.seed_salt.clear();
  EXPECT_THAT(VerifyRecord(no_salt),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no seed_salt")));

  // Without a commitment, the record verifies as before.
  MatchRecord uncommitted = good;
  uncommitted.seed_commitment.clear();
  uncommitted.seed_salt.clear();
  EXPECT_THAT(VerifyRecord(uncommitted), IsOk());
}

TEST(RecordTest, JsonCarriesBothFieldsOnlyWhenSet) {
  const MatchRecord record = CommittedRecord(5);
  const std::string json = RecordToJson(record);
  EXPECT_THAT(json, HasSubstr("\"seed_commitment\": \"" + record.seed_commitment + "\""));
  EXPECT_THAT(json, HasSubstr("\"seed_salt\": \"" + record.seed_salt + "\""));
  EXPECT_THAT(json, HasSubstr("\"format\": \"hoard.match_record.v2\""));
  absl::StatusOr<MatchRecord> back = RecordFromJson(json);
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(*back, record);

  MatchRecord uncommitted = record;
  uncommitted.seed_commitment.clear();
  uncommitted.seed_salt.clear();
  EXPECT_THAT(RecordToJson(uncommitted), ::testing::Not(HasSubstr("seed_")));
}

// Records written in format 1 (fingerprints of the state's text) by an
// earlier build, one per game: they still verify, step by step.
TEST(RecordTest, FormatOneRecordsOfEveryGameStillVerify) {
  for (const char* game : {"village", "dragons_gold", "frost_dragon", "hedonia"}) {
    SCOPED_TRACE(game);
    absl::StatusOr<MatchRecord> record =
        ReadRecordFile(absl::StrCat(HOARD_ENGINE_TESTDATA, "/", game, "_v1.json"));
    ASSERT_THAT(record, IsOk());
    EXPECT_EQ(record->format_version, 1);
    EXPECT_TRUE(record->seed_commitment.empty()) << "written before commitments";
    EXPECT_THAT(VerifyRecord(*record), IsOk());
    // Written back, it stays in format 1 and keeps its fingerprints.
    EXPECT_THAT(RecordToJson(*record), HasSubstr("\"format\": \"hoard.match_record.v1\""));

    // Its fingerprints are format 1's: read as format 2, step 1 differs.
    MatchRecord as_two = *record;
    as_two.format_version = 2;
    EXPECT_THAT(VerifyRecord(as_two),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("step 1 ")));
    // And a tampered fingerprint is caught at its step.
    MatchRecord tampered = *record;
    tampered.actions[4].state_after ^= 1;
    EXPECT_THAT(VerifyRecord(tampered),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("step 5 ")));
  }
}

}  // namespace
}  // namespace hoard::engine
