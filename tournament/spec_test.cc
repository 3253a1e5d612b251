#include "tournament/spec.h"

#include "absl/strings/str_cat.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::tournament {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using hoard::v1::TournamentSpec;
using ::testing::HasSubstr;

TournamentSpec Parse(const std::string& text) {
  absl::StatusOr<TournamentSpec> spec = ParseSpec(text, "spec.txtpb");
  EXPECT_THAT(spec, IsOk());
  return spec.ok() ? *spec : TournamentSpec();
}

// Normalizing `text` fails with `message`.
void ExpectRejected(const std::string& text, const std::string& message) {
  EXPECT_THAT(Normalize(Parse(text)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(message)))
      << text;
}

constexpr char kFourBots[] = R"pb(
  game: "village"
  participants { name: "a" builtin: "random" }
  participants { name: "b" builtin: "random" }
  participants { name: "c" builtin: "first" }
  participants { name: "d" builtin: "first" }
)pb";

TEST(SpecTest, TheDefaultSpecIsAValidDuplicateLeagueOf120Matches) {
  absl::StatusOr<TournamentSpec> spec = Normalize(DefaultSpec());
  ASSERT_THAT(spec, IsOk());
  EXPECT_EQ(spec->game(), "village");
  EXPECT_EQ(spec->players_per_match(), 3);
  EXPECT_EQ(spec->format(), hoard::v1::FORMAT_DUPLICATE);
  // The bots that show what Hoard is for: search and rules of thumb against
  // the baselines.
  ASSERT_EQ(spec->participants_size(), 4);
  EXPECT_EQ(spec->participants(0).builtin(), "mcts");
  EXPECT_EQ(spec->participants(1).builtin(), "heuristic");
  // 4 trios, 3 rotations each, 10 rounds.
  EXPECT_EQ(*ScheduleSize(ScheduleInputFor(*spec)), 120);
}

TEST(SpecTest, NormalizingFillsTheDefaults) {
  absl::StatusOr<TournamentSpec> spec = Normalize(Parse(kFourBots));
  ASSERT_THAT(spec, IsOk());
  EXPECT_EQ(spec->players_per_match(), 4) << "as many as the participants";
  EXPECT_EQ(spec->format(), hoard::v1::FORMAT_ROUND_ROBIN);
  EXPECT_EQ(spec->rounds(), 1);
  EXPECT_EQ(spec->concurrency(), kDefaultConcurrency);
  EXPECT_EQ(spec->fault_policy().start_timeout_ms(), kDefaultStartTimeoutMs);
  EXPECT_EQ(spec->fault_policy().max_failed_matches(), kDefaultMaxFailedMatches);
}

TEST(SpecTest, ASwissPlaysLog2OfTheFieldRoundsUnlessTold) {
  TournamentSpec spec = Parse(kFourBots);
  spec.set_format(hoard::v1::FORMAT_SWISS);
  spec.set_players_per_match(2);
  EXPECT_EQ(Normalize(spec)->rounds(), 2);  // log2(4)
  for (int i = 4; i < 17; ++i) {
    hoard::v1::Participant* p = spec.add_participants();
    p->set_name(absl::StrCat("r", i));
    p->set_builtin("random");
  }
  EXPECT_EQ(Normalize(spec)->rounds(), 5);  // 17 participants: 2^5 = 32 >= 17
  spec.set_rounds(9);
  EXPECT_EQ(Normalize(spec)->rounds(), 9);
}

TEST(SpecTest, JsonAndTextFormatReadTheSameSpec) {
  absl::StatusOr<TournamentSpec> json = ParseSpec(R"({
      "game": "village", "playersPerMatch": 2, "format": "FORMAT_DUPLICATE",
      "participants": [{"name": "a", "builtin": "random"},
                       {"name": "b", "command": "hoard bot"}]})",
                                                  "spec.json");
  ASSERT_THAT(json, IsOk());
  const TournamentSpec text = Parse(R"pb(
    game: "village"
    players_per_match: 2
    format: FORMAT_DUPLICATE
    participants { name: "a" builtin: "random" }
    participants { name: "b" command: "hoard bot" })pb");
  EXPECT_EQ(json->SerializeAsString(), text.SerializeAsString());
}

TEST(SpecTest, UnreadableTextNamesTheFileLineAndField) {
  EXPECT_THAT(
      ParseSpec("game: \"village\"\nplayers: 4\n", "my.txtpb"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               ::testing::AllOf(HasSubstr("my.txtpb"), HasSubstr("line 2"), HasSubstr("players"))));
  EXPECT_THAT(ParseSpec("{\"game\": 3}", "my.json"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("my.json")));
  EXPECT_THAT(ReadSpecFile("/nonexistent/spec.txtpb"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("cannot read")));
}

TEST(SpecTest, BadSpecsAreRejectedWithTheFieldAndTheReason) {
  ExpectRejected(R"pb(game: "chess")pb", "game: unknown game 'chess'");
  ExpectRejected(R"pb(participants { name: "a" builtin: "random" })pb", "game: missing");
  ExpectRejected(std::string(kFourBots) + "players_per_match: 5",
                 "participants: 4 participants cannot fill 5-player matches");
  ExpectRejected(std::string(kFourBots) + "players_per_match: 9",
                 "players_per_match: village takes 2 to 5 players, not 9");
  ExpectRejected(R"pb(game: "village"
                      participants { name: "a" builtin: "random" }
                      participants { name: "b" builtin: "genius" })pb",
                 "participants[1].builtin: no built-in bot 'genius' for village "
                 "(built-in bots: first, random, heuristic, mcts)");
  ExpectRejected(R"pb(game: "village"
                      participants { name: "a" builtin: "random" }
                      participants { name: "a" builtin: "random" })pb",
                 "participants[1].name: 'a' is also participants[0]");
  ExpectRejected(R"pb(game: "village"
                      participants { name: "a b" builtin: "random" }
                      participants { name: "c" builtin: "random" })pb",
                 "participants[0].name: 'a b' holds ' ', which is not a letter");
  ExpectRejected(R"pb(game: "village"
                      participants { name: "a" builtin: "random" }
                      participants { name: "b" })pb",
                 "participants[1]: says neither builtin, registered, command nor catalog");
  ExpectRejected(std::string(kFourBots) + R"pb(options { key: "dragons" value: "2" })pb",
                 "options: village has no option 'dragons'");
  ExpectRejected(std::string(kFourBots) + R"pb(options { key: "hand_size" value: "40" })pb",
                 "options: ");
  ExpectRejected(R"pb(game: "village"
                      participants { name: "a" builtin: "random" }
                      participants {
                        name: "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
                        version: "vvvvvvvvvvvvvvvvvvvv"
                        builtin: "random"
                      })pb",
                 "bot name has 65 characters, more than 64");
  ExpectRejected(std::string(kFourBots) +
                     "format: FORMAT_GAUNTLET players_per_match: 2 candidates: \"a\" "
                     "candidates: \"a\"",
                 "candidates[1]: 'a' is named twice");
  ExpectRejected(std::string(kFourBots) + "concurrency: -1", "concurrency: must be from 1");
  ExpectRejected(std::string(kFourBots) + "rounds: -2", "rounds: must be 1 or more");
  ExpectRejected(std::string(kFourBots) + "time_control { decision_ms: 0 }",
                 "time_control.decision_ms must be from 1");
  ExpectRejected(std::string(kFourBots) + "format: FORMAT_GAUNTLET players_per_match: 2",
                 "candidates: a gauntlet needs at least one candidate");
  ExpectRejected(std::string(kFourBots) + "format: FORMAT_GAUNTLET candidates: \"z\"",
                 "candidates[0]: no participant is named 'z'");
  ExpectRejected(std::string(kFourBots) + "players_per_match: 2 candidates: \"a\"",
                 "candidates: only the gauntlet format has candidates");
}

TEST(SpecTest, ASequentialTestIsCheckedAndGetsItsDefaults) {
  const std::string duplicate = std::string(kFourBots) + "format: FORMAT_DUPLICATE ";
  absl::StatusOr<TournamentSpec> spec =
      Normalize(Parse(duplicate + R"pb(sprt { candidate: "a" elo1: 5 })pb"));
  ASSERT_THAT(spec, IsOk());
  EXPECT_EQ(spec->sprt().alpha(), 0.05);
  EXPECT_EQ(spec->sprt().beta(), 0.05);
  ExpectRejected(duplicate + R"pb(sprt { candidate: "z" elo1: 5 })pb",
                 "sprt.candidate: no participant is named 'z'");
  ExpectRejected(std::string(kFourBots) + R"pb(sprt { candidate: "a" elo1: 5 })pb",
                 "sprt: needs format FORMAT_DUPLICATE");
  ExpectRejected(duplicate + R"pb(players_per_match: 3
                                  sprt { candidate: "a" elo1: 5 })pb",
                 "sprt: needs as many participants as seats (3)");
  ExpectRejected(duplicate + R"pb(sprt { candidate: "a" elo0: 5 elo1: 5 })pb",
                 "sprt.elo1: must be more than elo0 (5), not 5");
  ExpectRejected(duplicate + R"pb(sprt { candidate: "a" elo1: 5 alpha: 0.7 })pb",
                 "sprt.alpha: must be above 0 and below 0.5, not 0.7");
  ExpectRejected(duplicate + R"pb(sprt { elo1: 5 })pb", "sprt.candidate: names no participant");
}

TEST(SpecTest, TheHashIdentifiesTheTournamentButNotHowItRuns) {
  TournamentSpec a = *Normalize(Parse(kFourBots));
  TournamentSpec b = a;
  b.set_concurrency(64);
  b.mutable_fault_policy()->set_start_timeout_ms(99999);
  EXPECT_EQ(SpecHash(a), SpecHash(b));
  b.set_seed(a.seed() + 1);
  EXPECT_NE(SpecHash(a), SpecHash(b));
  EXPECT_EQ(SpecHash(a).size(), 16u);
}

TEST(SpecTest, GauntletCandidatesBecomeParticipantNumbers) {
  TournamentSpec spec =
      *Normalize(Parse(std::string(kFourBots) + "format: FORMAT_GAUNTLET players_per_match: 2 "
                                                "candidates: \"c\""));
  const ScheduleInput input = ScheduleInputFor(spec);
  EXPECT_EQ(input.format, Format::kGauntlet);
  EXPECT_THAT(input.candidates, ::testing::ElementsAre(2));
}

}  // namespace
}  // namespace hoard::tournament
