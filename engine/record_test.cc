#include "engine/record.h"

#include <algorithm>
#include <memory>

#include "absl/numeric/int128.h"
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

TEST(RecordTest, SeatsThatForfeitedMayBeRankedLast) {
  // A host ranks the seats that forfeited after every other, keeping the
  // rules' order among them; any other change of the ranks is refused.
  const MatchRecord played = PlayRandomMatch(4, 2);
  ASSERT_THAT(played.ranks, ::testing::UnorderedElementsAre(1, 2, 3, 4));
  std::vector<int> winner_first(4);
  for (int seat = 0; seat < 4; ++seat) winner_first[played.ranks[seat] - 1] = seat;
  MatchRecord winner_forfeited = played;
  std::vector<std::pair<int, int>> keys;
  for (int seat = 0; seat < 4; ++seat) {
    keys.emplace_back(seat == winner_first[0] ? 0 : 1, -played.ranks[seat]);
  }
  winner_forfeited.ranks = RanksFromKeys(keys);
  ASSERT_NE(winner_forfeited.ranks, played.ranks);
  EXPECT_EQ(winner_forfeited.ranks[winner_first[0]], 4);
  EXPECT_THAT(VerifyRecord(winner_forfeited), IsOk());
  // Reversed, the winner last: no set of forfeits ranks the rules' last
  // seat first and the others in the reverse of the rules' order.
  MatchRecord reversed = played;
  for (int& rank : reversed.ranks) rank = 5 - rank;
  EXPECT_THAT(VerifyRecord(reversed),
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
                                 "'hoard.match_record.v2' (or the compact "
                                 "'hoard.match_record.v3', or an older "
                                 "'hoard.match_record.v1')")));
  MatchRecord record = PlayRandomMatch(2, 4);
  record.format_version = 4;
  EXPECT_THAT(VerifyRecord(record),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("in format 4")));
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

// Compact records written by an earlier build (testdata/*_v3.json, made by
// `hoard replay compact` of `hoard play --record` files of each game) still
// replay: a store's records stay readable as long as the rules' version.
TEST(RecordTest, FormatThreeRecordsOfEveryGameStillVerify) {
  for (const char* game : {"village", "dragons_gold", "frost_dragon", "hedonia"}) {
    SCOPED_TRACE(game);
    absl::StatusOr<MatchRecord> record =
        ReadRecordFile(absl::StrCat(HOARD_ENGINE_TESTDATA, "/", game, "_v3.json"));
    ASSERT_THAT(record, IsOk());
    EXPECT_EQ(record->format_version, 3);
    EXPECT_THAT(VerifyRecord(*record), IsOk());
    absl::StatusOr<MatchRecord> expanded = ExpandRecord(*record);
    ASSERT_THAT(expanded, IsOk());
    EXPECT_THAT(VerifyRecord(*expanded), IsOk());
    EXPECT_EQ(*CompactRecord(*expanded), *record);
  }
}

// Format 3: the compact form keeps only what cannot be derived, and
// expands back to the very record it came from.
TEST(CompactRecordTest, ExpandsBackToTheSameRecordInEveryGame) {
  for (const char* id : {"village", "dragons_gold", "frost_dragon", "hedonia"}) {
    const Game& game = **FindGame(id);
    for (int players = game.info().min_players; players <= game.info().max_players; ++players) {
      MatchConfig config{.num_players = players, .seed = 40u + players};
      std::unique_ptr<State> state = *game.NewMatch(config);
      MatchRecorder recorder(game.info(), config, std::vector<std::string>(players, "r"), *state);
      Rng rng(players);
      std::vector<Action> legal;
      while (!state->IsOver()) {
        const Seat seat = state->SeatsToAct()[0];
        state->LegalActions(seat, &legal);
        const Action action = legal[rng.Uniform(legal.size())];
        std::string text = state->ActionToString(seat, action);
        ASSERT_THAT(state->Apply(seat, action), IsOk());
        recorder.Record(seat, action, text, *state);
      }
      const MatchRecord record = recorder.Finish(*state);
      absl::StatusOr<MatchRecord> compact = CompactRecord(record);
      ASSERT_THAT(compact, IsOk());
      EXPECT_EQ(compact->format_version, 3);
      EXPECT_TRUE(compact->setup.empty());
      EXPECT_TRUE(compact->actions.empty());
      EXPECT_EQ(compact->final_state, state->Fingerprint());
      EXPECT_EQ(compact->checkpoints.size(), (record.actions.size() - 1) / kCheckpointEvery) << id;
      EXPECT_THAT(VerifyRecord(*compact), IsOk()) << id << " " << players;
      // Through the protocol and JSON, as a store and a file keep it.
      absl::StatusOr<MatchRecord> read = RecordFromProto(RecordToProto(*compact));
      ASSERT_THAT(read, IsOk());
      EXPECT_EQ(*read, *compact);
      absl::StatusOr<MatchRecord> from_json = RecordFromJson(RecordToJson(*compact));
      ASSERT_THAT(from_json, IsOk());
      EXPECT_EQ(*from_json, *compact);
      absl::StatusOr<MatchRecord> expanded = ExpandRecord(*read);
      ASSERT_THAT(expanded, IsOk());
      EXPECT_EQ(*expanded, record) << id << " " << players;
    }
  }
}

TEST(CompactRecordTest, IsSmall) {
  const MatchRecord record = PlayRandomMatch(4, 7);
  const MatchRecord compact = *CompactRecord(record);
  // Most actions are a place in a short legal list: a byte each.
  EXPECT_LT(compact.moves.size(), record.actions.size() * 5 / 4)
      << compact.moves.size() << " bytes for " << record.actions.size() << " actions";
  const std::string full = RecordToProto(record).SerializeAsString();
  const std::string small = RecordToProto(compact).SerializeAsString();
  EXPECT_LT(small.size() * 20, full.size()) << small.size() << " against " << full.size();
}

TEST(CompactRecordTest, AnAlteredMoveIsCaughtAtTheFinalStateOrTheRules) {
  const MatchRecord record = PlayRandomMatch(3, 11);
  MatchRecord compact = *CompactRecord(record);
  // Step 5's place in its list, one further on: still a legal move, but
  // not the one played.
  compact.moves[4] = static_cast<char>(compact.moves[4] + 3);
  EXPECT_THAT(VerifyRecord(compact), StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  EXPECT_THAT(ExpandRecord(compact), StatusIs(absl::StatusCode::kDataLoss, ::testing::_));
  compact = *CompactRecord(record);
  compact.final_state ^= 1;
  EXPECT_THAT(ExpandRecord(compact),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("the final state's fingerprint")));
  compact = *CompactRecord(record);
  compact.scores[0] += 1;
  EXPECT_THAT(VerifyRecord(compact),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("final scores")));
}

TEST(CompactRecordTest, ACheckpointNamesTheStepWhereTheMatchParts) {
  // A long Frost Dragon match has checkpoints on the way.
  const Game& game = **FindGame("frost_dragon");
  MatchConfig config{.num_players = 4, .seed = 3};
  std::unique_ptr<State> state = *game.NewMatch(config);
  MatchRecorder recorder(game.info(), config, std::vector<std::string>(4, "r"), *state);
  std::vector<Action> legal;
  while (!state->IsOver()) {
    const Seat seat = state->SeatsToAct()[0];
    state->LegalActions(seat, &legal);
    std::string text = state->ActionToString(seat, legal[0]);
    ASSERT_THAT(state->Apply(seat, legal[0]), IsOk());
    recorder.Record(seat, legal[0], text, *state);
  }
  MatchRecord compact = *CompactRecord(recorder.Finish(*state));
  ASSERT_FALSE(compact.checkpoints.empty());
  compact.checkpoints[0].state ^= 1;
  EXPECT_THAT(ExpandRecord(compact),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr(absl::StrCat("step ", kCheckpointEvery, " "))));
}

TEST(CompactRecordTest, DamagedMovesAreRefusedNamingTheStep) {
  const MatchRecord record = PlayRandomMatch(2, 5);
  MatchRecord compact = *CompactRecord(record);
  compact.moves.back() = static_cast<char>(0x80);
  EXPECT_THAT(ExpandRecord(compact),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("end inside a move")));
  compact.moves = std::string(12, '\xff');
  EXPECT_THAT(ExpandRecord(compact),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("step 1: a packed move runs on")));
  // Seat 1 to act first: village's first decision is seat 0's.
  compact.moves = std::string("\x01");
  EXPECT_THAT(ExpandRecord(compact),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("step 1 (seat 1): the seat is not")));
  compact.moves = std::string("\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 10);
  EXPECT_THAT(ExpandRecord(compact),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("out of range")));
}

// An action outside its seat's listed examples (a game whose lists are not
// complete) is packed by its code and comes back the same.
TEST(CompactRecordTest, AnActionOutsideItsListKeepsItsCode) {
  const MatchRecord record = PlayRandomMatch(2, 9);
  MatchRecord compact = *CompactRecord(record);
  const Game& game = **FindGame("village");
  std::unique_ptr<State> state = *game.NewMatch({.num_players = 2, .seed = record.seed});
  const std::vector<Action> legal = state->LegalActions(record.actions[0].seat);
  const std::size_t place =
      std::find(legal.begin(), legal.end(), record.actions[0].action) - legal.begin();
  ASSERT_LT(place, legal.size());
  // Step 1 written as the list's length plus its code instead.
  std::string moves;
  absl::uint128 number = (absl::uint128(legal.size()) + record.actions[0].action.code()) * 2 +
                         static_cast<std::uint64_t>(record.actions[0].seat);
  while (number >= 0x80) {
    moves.push_back(static_cast<char>((absl::Uint128Low64(number) & 0x7f) | 0x80));
    number >>= 7;
  }
  moves.push_back(static_cast<char>(absl::Uint128Low64(number)));
  std::size_t first = 0;
  while (static_cast<unsigned char>(compact.moves[first]) & 0x80) ++first;
  compact.moves = moves + compact.moves.substr(first + 1);
  absl::StatusOr<MatchRecord> expanded = ExpandRecord(compact);
  ASSERT_THAT(expanded, IsOk());
  EXPECT_EQ(*expanded, record);
}

TEST(CompactRecordTest, ARecordThatDoesNotReplayIsNotMadeCompact) {
  MatchRecord record = PlayRandomMatch(2, 5);
  record.actions.pop_back();
  EXPECT_THAT(CompactRecord(record),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("the match is not over")));
  // Expanding what is not compact gives it back as it is.
  EXPECT_EQ(*ExpandRecord(record), record);
}

}  // namespace
}  // namespace hoard::engine
