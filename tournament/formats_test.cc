// The formats fed results directly: no match is played and nothing stored.

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tournament/fixed_schedule.h"
#include "tournament/format.h"
#include "tournament/ladder_format.h"
#include "tournament/spec.h"
#include "tournament/sprt_format.h"
#include "tournament/swiss_format.h"

namespace hoard::tournament {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using hoard::v1::TournamentSpec;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

TournamentSpec SpecOf(const std::string& text) {
  absl::StatusOr<TournamentSpec> parsed = ParseSpec(text, "spec.txtpb");
  EXPECT_THAT(parsed, IsOk());
  absl::StatusOr<TournamentSpec> spec = Normalize(parsed.ok() ? *parsed : TournamentSpec());
  EXPECT_THAT(spec, IsOk());
  return spec.ok() ? *spec : TournamentSpec();
}

std::unique_ptr<TournamentFormat> FormatOf(const TournamentSpec& spec) {
  absl::StatusOr<std::unique_ptr<TournamentFormat>> format = MakeFormat(spec);
  EXPECT_THAT(format, IsOk());
  return format.ok() ? *std::move(format) : nullptr;
}

// The format of `spec` resumed from `done` and `stored` (null if either
// fails).
std::unique_ptr<TournamentFormat> Started(const TournamentSpec& spec,
                                          const std::set<int>& done = {},
                                          const std::vector<db::RatedMatch>& stored = {}) {
  std::unique_ptr<TournamentFormat> format = FormatOf(spec);
  if (format == nullptr) return nullptr;
  const absl::Status resumed = format->Resume(done, stored);
  EXPECT_THAT(resumed, IsOk());
  return resumed.ok() ? std::move(format) : nullptr;
}

// The seats of a match of `slot` that the participant in its first seat
// wins, the others following in seat order.
std::vector<db::RatedSeat> FirstSeatWins(const TournamentSpec& spec, const ScheduledMatch& slot) {
  std::vector<db::RatedSeat> seats;
  for (int p : slot.seats) {
    seats.push_back({.bot = ParticipantLabel(spec.participants(p)),
                     .rank = static_cast<int>(seats.size()) + 1});
  }
  return seats;
}

// As the store gives them back, for resuming.
db::RatedMatch Stored(const ScheduledMatch& slot, std::vector<db::RatedSeat> seats) {
  return {.block = slot.block, .schedule_index = slot.index, .seats = std::move(seats)};
}

std::vector<int> Indexes(const std::vector<ScheduledMatch>& slots) {
  std::vector<int> indexes;
  for (const ScheduledMatch& slot : slots) indexes.push_back(slot.index);
  return indexes;
}

constexpr char kRoundRobin[] = R"pb(
  game: "village"
  players_per_match: 2
  participants { name: "a" builtin: "random" }
  participants { name: "b" builtin: "random" }
  participants { name: "c" builtin: "first" }
)pb";

TEST(FixedScheduleTest, HandsOutEverySlotNotStoredOnceInScheduleOrder) {
  const TournamentSpec spec = SpecOf(kRoundRobin);
  std::unique_ptr<TournamentFormat> format = Started(spec, {1, 4});
  ASSERT_NE(format, nullptr);
  EXPECT_NE(dynamic_cast<FixedSchedule*>(format.get()), nullptr);
  EXPECT_FALSE(IsLeasedWhole(spec));
  EXPECT_EQ(format->scheduled(), 6) << "3 pairs, 2 rotations";
  const std::vector<ScheduledMatch> ready = format->Next();
  EXPECT_THAT(Indexes(ready), ElementsAre(0, 2, 3, 5));
  EXPECT_THAT(format->Next(), IsEmpty()) << "each slot is handed out once";
  for (const ScheduledMatch& slot : ready) {
    EXPECT_FALSE(format->Complete(2 + slot.index));
    format->Stored(slot, FirstSeatWins(spec, slot));
  }
  EXPECT_TRUE(format->Complete(6));
  EXPECT_FALSE(format->Complete(5));
  EXPECT_THAT(format->Next(), IsEmpty());
}

constexpr char kSwiss[] = R"pb(
  game: "village"
  format: FORMAT_SWISS
  players_per_match: 2
  rounds: 3
  participants { name: "a" builtin: "random" }
  participants { name: "b" builtin: "random" }
  participants { name: "c" builtin: "first" }
  participants { name: "d" builtin: "first" }
  participants { name: "e" builtin: "first" }
  participants { name: "f" builtin: "first" }
)pb";

TEST(SwissFormatTest, PairsARoundOnlyOnceTheOneBeforeIsStoredWhole) {
  const TournamentSpec spec = SpecOf(kSwiss);
  std::unique_ptr<TournamentFormat> format = Started(spec);
  ASSERT_NE(format, nullptr);
  EXPECT_NE(dynamic_cast<SwissFormat*>(format.get()), nullptr);
  EXPECT_TRUE(IsLeasedWhole(spec));
  EXPECT_FALSE(format->SeatsKnownAhead());
  EXPECT_EQ(format->MostAtOnce(), 3);
  EXPECT_EQ(format->scheduled(), 9);
  std::vector<ScheduledMatch> round = format->Next();
  ASSERT_THAT(Indexes(round), ElementsAre(0, 1, 2));
  std::set<int> seated;
  for (const ScheduledMatch& slot : round) seated.insert(slot.seats.begin(), slot.seats.end());
  EXPECT_THAT(seated, SizeIs(6)) << "everyone plays round 1";
  format->Stored(round[0], FirstSeatWins(spec, round[0]));
  format->Stored(round[1], FirstSeatWins(spec, round[1]));
  EXPECT_THAT(format->Next(), IsEmpty()) << "a match of round 1 is still in flight";
  format->Stored(round[2], FirstSeatWins(spec, round[2]));
  round = format->Next();
  EXPECT_THAT(Indexes(round), ElementsAre(3, 4, 5));
  // The winners of round 1 meet at the top table.
  hoard::v1::TournamentProgress progress;
  format->Describe(Standings(), progress);
  EXPECT_EQ(progress.round(), 2);
  ASSERT_THAT(progress.standings(), SizeIs(6));
  EXPECT_EQ(progress.standings(0).points(), 1);
  EXPECT_EQ(progress.standings(3).points(), 0);
}

TEST(SwissFormatTest, ARoundThatLosesAMatchHandsOutNothingMore) {
  const TournamentSpec spec = SpecOf(kSwiss);
  std::unique_ptr<TournamentFormat> format = Started(spec);
  ASSERT_NE(format, nullptr);
  const std::vector<ScheduledMatch> round = format->Next();
  ASSERT_THAT(round, SizeIs(3));
  format->Stored(round[0], FirstSeatWins(spec, round[0]));
  format->Lost(round[1]);
  EXPECT_THAT(format->StoredElsewhere(round[2]),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("another runner")));
  EXPECT_THAT(format->Next(), IsEmpty());
  EXPECT_FALSE(format->Complete(3));
}

TEST(SwissFormatTest, ResumingPairsTheStoredRoundsAgainAndGoesOnFromTheFirstNotComplete) {
  const TournamentSpec spec = SpecOf(kSwiss);
  // One run stores round 1 and two matches of round 2.
  std::unique_ptr<TournamentFormat> first = Started(spec);
  ASSERT_NE(first, nullptr);
  std::vector<db::RatedMatch> stored;
  std::set<int> done;
  std::vector<ScheduledMatch> round = first->Next();
  for (const ScheduledMatch& slot : round) {
    first->Stored(slot, FirstSeatWins(spec, slot));
    stored.push_back(Stored(slot, FirstSeatWins(spec, slot)));
    done.insert(slot.index);
  }
  const std::vector<ScheduledMatch> second_round = first->Next();
  ASSERT_THAT(second_round, SizeIs(3));
  for (int t = 0; t < 2; ++t) {
    stored.push_back(Stored(second_round[t], FirstSeatWins(spec, second_round[t])));
    done.insert(second_round[t].index);
  }
  // Another resumes from what is stored: the missing table, seated alike.
  std::unique_ptr<TournamentFormat> resumed = Started(spec, done, stored);
  ASSERT_NE(resumed, nullptr);
  const std::vector<ScheduledMatch> left = resumed->Next();
  ASSERT_THAT(left, SizeIs(1));
  EXPECT_EQ(left[0].index, second_round[2].index);
  EXPECT_EQ(left[0].seats, second_round[2].seats);
  resumed->Stored(left[0], FirstSeatWins(spec, left[0]));
  EXPECT_THAT(Indexes(resumed->Next()), ElementsAre(6, 7, 8));
}

TEST(SwissFormatTest, AStoredMatchThePairingDoesNotSeatIsDataLoss) {
  const TournamentSpec spec = SpecOf(kSwiss);
  std::unique_ptr<TournamentFormat> format = FormatOf(spec);
  ASSERT_NE(format, nullptr);
  std::unique_ptr<TournamentFormat> pairing = Started(spec);
  ASSERT_NE(pairing, nullptr);
  ScheduledMatch slot = pairing->Next()[0];
  std::swap(slot.seats[0], slot.seats[1]);  // not who the pairing seats where
  EXPECT_THAT(format->Resume({0}, {Stored(slot, FirstSeatWins(spec, slot))}),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("not the pairing of Swiss round 1")));
}

constexpr char kSprt[] = R"pb(
  game: "village"
  format: FORMAT_DUPLICATE
  players_per_match: 2
  rounds: 100
  participants { name: "strong" builtin: "heuristic" }
  participants { name: "weak" builtin: "random" }
  sprt { candidate: "strong" elo0: 0 elo1: 20 }
)pb";

// The candidate wins, or loses, every match of `slot`.
std::vector<db::RatedSeat> CandidateResult(const TournamentSpec& spec, const ScheduledMatch& slot,
                                           bool wins) {
  std::vector<db::RatedSeat> seats;
  for (int p : slot.seats) {
    const bool candidate = p == 0;
    seats.push_back(
        {.bot = ParticipantLabel(spec.participants(p)), .rank = candidate == wins ? 1 : 2});
  }
  return seats;
}

TEST(SprtFormatTest, ACandidateThatWinsEveryBlockIsFoundStrongerAndNothingMoreIsHandedOut) {
  const TournamentSpec spec = SpecOf(kSprt);
  std::unique_ptr<TournamentFormat> format = Started(spec);
  ASSERT_NE(format, nullptr);
  auto* sprt = dynamic_cast<SprtFormat*>(format.get());
  ASSERT_NE(sprt, nullptr);
  EXPECT_TRUE(IsLeasedWhole(spec));
  const std::vector<ScheduledMatch> ready = format->Next();
  ASSERT_THAT(ready, SizeIs(200));
  int stored = 0;
  for (const ScheduledMatch& slot : ready) {
    if (format->Complete(stored)) break;
    format->Stored(slot, CandidateResult(spec, slot, true));
    ++stored;
  }
  EXPECT_EQ(sprt->state().result(), hoard::v1::SprtState::RESULT_H1);
  EXPECT_LT(stored, 200) << "the test stops the schedule early";
  EXPECT_TRUE(format->Complete(stored));
  EXPECT_THAT(format->Next(), IsEmpty());
  hoard::v1::TournamentProgress progress;
  format->Describe(Standings(), progress);
  EXPECT_EQ(progress.sprt().result(), hoard::v1::SprtState::RESULT_H1);
}

TEST(SprtFormatTest, TheVerdictDoesNotDependOnWhichMatchOfABlockEndsFirst) {
  const TournamentSpec spec = SpecOf(kSprt);
  std::unique_ptr<TournamentFormat> in_order = Started(spec);
  std::unique_ptr<TournamentFormat> reversed = Started(spec);
  ASSERT_NE(in_order, nullptr);
  ASSERT_NE(reversed, nullptr);
  const std::vector<ScheduledMatch> ready = in_order->Next();
  ASSERT_THAT(reversed->Next(), SizeIs(ready.size()));
  // The first 20 slots (10 blocks), the candidate winning one match in
  // three; fed in order to one, last first to the other.
  for (int i = 0; i < 20; ++i) {
    in_order->Stored(ready[i], CandidateResult(spec, ready[i], i % 3 == 0));
  }
  for (int i = 19; i >= 0; --i) {
    reversed->Stored(ready[i], CandidateResult(spec, ready[i], i % 3 == 0));
  }
  const auto& a = dynamic_cast<SprtFormat&>(*in_order).state();
  const auto& b = dynamic_cast<SprtFormat&>(*reversed).state();
  EXPECT_GT(a.blocks(), 0);
  EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString());
  // Resuming from the same results gives the same state.
  std::vector<db::RatedMatch> stored;
  std::set<int> done;
  for (int i = 0; i < 20; ++i) {
    stored.push_back(Stored(ready[i], CandidateResult(spec, ready[i], i % 3 == 0)));
    done.insert(ready[i].index);
  }
  std::unique_ptr<TournamentFormat> resumed = Started(spec, done, stored);
  ASSERT_NE(resumed, nullptr);
  EXPECT_EQ(dynamic_cast<SprtFormat&>(*resumed).state().SerializeAsString(), a.SerializeAsString());
  EXPECT_THAT(resumed->Next(), SizeIs(dynamic_cast<SprtFormat&>(*in_order).Decided() ? 0 : 180));
}

TEST(FormatTest, AStoredTournamentShowsItsStandingsWithoutBeingRun) {
  const TournamentSpec spec = SpecOf(kSwiss);
  std::unique_ptr<TournamentFormat> format = Started(spec);
  ASSERT_NE(format, nullptr);
  std::vector<db::RatedMatch> stored;
  for (const ScheduledMatch& slot : format->Next()) {
    stored.push_back(Stored(slot, FirstSeatWins(spec, slot)));
  }
  hoard::v1::TournamentProgress progress;
  ASSERT_THAT(DescribeStored(spec, stored, progress), IsOk());
  EXPECT_EQ(progress.round(), 2) << "round 1 is complete";
  ASSERT_THAT(progress.standings(), SizeIs(6));
  EXPECT_EQ(progress.standings(0).points(), 1);
  EXPECT_EQ(progress.standings(0).matches(), 1);
}

// ---- Ladders ------------------------------------------------------------------

constexpr char kLadderSpec[] = R"pb(
  name: "village-open"
  game: "village"
  format: FORMAT_LADDER
  seed: 7
  concurrency: 3
  ladder { open: true }
  participants { name: "house" builtin: "random" }
  participants { name: "member" registered: true }
)pb";

hoard::v1::BotInfo Bot(const std::string& name, std::vector<std::string> ladders,
                       int max_matches = 1, int running = 0) {
  hoard::v1::BotInfo bot;
  bot.set_name(name);
  bot.set_connected(true);
  bot.set_max_matches(max_matches);
  bot.set_running_matches(running);
  for (const std::string& ladder : ladders) bot.add_ladders(ladder);
  return bot;
}

hoard::v1::ListBotsResponse BotsOf(std::vector<hoard::v1::BotInfo> bots) {
  hoard::v1::ListBotsResponse response;
  for (hoard::v1::BotInfo& bot : bots) *response.add_bots() = std::move(bot);
  return response;
}

TEST(LadderFormatTest, SeatsOnlyTheEntrantsPresentAndNamesTheNewOnes) {
  const TournamentSpec spec = SpecOf(kLadderSpec);
  EXPECT_EQ(spec.players_per_match(), 2);  // the fewest village takes
  EXPECT_EQ(spec.ladder().per_bot_concurrency(), 1);
  std::unique_ptr<TournamentFormat> format = Started(spec);
  ASSERT_NE(format, nullptr);
  EXPECT_TRUE(format->Standing());
  EXPECT_FALSE(format->Complete(1000));
  // Nobody but the built-in bot: no table.
  EXPECT_THAT(format->Next(), IsEmpty());
  // The listed member connected for other things, a bot of another ladder,
  // and a stranger who joins this one.
  format->Present(
      BotsOf({Bot("member", {}), Bot("elsewhere", {"other"}), Bot("stranger", {"village-open"})}));
  std::vector<hoard::v1::Participant> joined = format->Joined();
  ASSERT_THAT(joined, SizeIs(1));
  EXPECT_EQ(joined[0].name(), "stranger");
  EXPECT_TRUE(joined[0].registered());
  EXPECT_THAT(format->Joined(), IsEmpty());  // told once
  std::vector<ScheduledMatch> slots = format->Next();
  ASSERT_THAT(slots, SizeIs(1));  // house and the stranger, each once at a time
  EXPECT_THAT(std::set<int>(slots[0].seats.begin(), slots[0].seats.end()),
              ::testing::UnorderedElementsAre(0, 2));
  EXPECT_EQ(slots[0].index, 0);
  EXPECT_EQ(format->scheduled(), 1);
  EXPECT_THAT(format->Next(), IsEmpty());  // both are playing
  // The member names the ladder: it and the house's next match.
  format->Present(BotsOf({Bot("member", {"village-open"}), Bot("stranger", {"village-open"})}));
  format->Stored(slots[0], FirstSeatWins(spec, ScheduledMatch{.seats = {0, 1}}));
  std::vector<ScheduledMatch> next = format->Next();
  ASSERT_THAT(next, SizeIs(1));
  EXPECT_EQ(next[0].index, 1);
  EXPECT_NE(next[0].seed, slots[0].seed);
}

TEST(LadderFormatTest, ALadderThatIsNotOpenSeatsOnlyItsList) {
  TournamentSpec spec = SpecOf(kLadderSpec);
  spec.mutable_ladder()->set_open(false);
  std::unique_ptr<TournamentFormat> format = Started(spec);
  ASSERT_NE(format, nullptr);
  format->Present(BotsOf({Bot("stranger", {"village-open"})}));
  EXPECT_THAT(format->Joined(), IsEmpty());
  EXPECT_THAT(format->Next(), IsEmpty());
  format->Present(BotsOf({Bot("stranger", {"village-open"}), Bot("member", {"village-open"})}));
  std::vector<ScheduledMatch> slots = format->Next();
  ASSERT_THAT(slots, SizeIs(1));
  EXPECT_THAT(std::set<int>(slots[0].seats.begin(), slots[0].seats.end()),
              ::testing::UnorderedElementsAre(0, 1));
}

TEST(LadderFormatTest, KeepsWithinEachBotsLimitsAndTheLaddersTables) {
  TournamentSpec spec = SpecOf(kLadderSpec);
  spec.mutable_ladder()->set_per_bot_concurrency(5);
  std::unique_ptr<TournamentFormat> format = Started(spec);
  ASSERT_NE(format, nullptr);
  // The member accepts 2 at once and plays one elsewhere: 1 here.
  format->Present(BotsOf({Bot("member", {"village-open"}, 2, 1), Bot("a", {"village-open"}, 9),
                          Bot("b", {"village-open"}, 9)}));
  format->Joined();
  std::vector<ScheduledMatch> slots = format->Next();
  ASSERT_THAT(slots, SizeIs(3));  // the ladder's concurrency
  int member = 0;
  for (const ScheduledMatch& slot : slots) {
    member += static_cast<int>(std::count(slot.seats.begin(), slot.seats.end(), 1));
  }
  EXPECT_LE(member, 1);
  format->Lost(slots[0]);
  EXPECT_THAT(format->Next(), SizeIs(1));  // one table freed
}

TEST(LadderFormatTest, ResumesWithItsEntrantsAndGoesOnNumbering) {
  const TournamentSpec spec = SpecOf(kLadderSpec);
  std::vector<db::RatedMatch> stored = {
      {.schedule_index = 0,
       .seats = {{.bot = "house", .rank = 1, .builtin = true}, {.bot = "alice", .rank = 2}}},
      {.schedule_index = 4, .seats = {{.bot = "bob", .rank = 1}, {.bot = "alice", .rank = 2}}}};
  std::unique_ptr<TournamentFormat> format = Started(spec, {0, 4}, stored);
  ASSERT_NE(format, nullptr);
  std::vector<hoard::v1::Participant> joined = format->Joined();
  ASSERT_THAT(joined, SizeIs(2));  // in the order they first played
  EXPECT_EQ(joined[0].name(), "alice");
  EXPECT_EQ(joined[1].name(), "bob");
  EXPECT_EQ(format->scheduled(), 5);
  format->Present(BotsOf({Bot("bob", {"village-open"})}));
  EXPECT_THAT(format->Joined(), IsEmpty());  // bob came back: the same entrant
  std::vector<ScheduledMatch> slots = format->Next();
  ASSERT_THAT(slots, SizeIs(1));
  EXPECT_EQ(slots[0].index, 5);
  EXPECT_THAT(std::set<int>(slots[0].seats.begin(), slots[0].seats.end()),
              ::testing::UnorderedElementsAre(0, 3));
  // A built-in bot the spec does not have cannot be the ladder's.
  std::vector<db::RatedMatch> foreign = {
      {.schedule_index = 0,
       .seats = {{.bot = "ghost", .rank = 1, .builtin = true}, {.bot = "alice", .rank = 2}}}};
  std::unique_ptr<TournamentFormat> other = FormatOf(spec);
  ASSERT_NE(other, nullptr);
  EXPECT_THAT(other->Resume({0}, foreign),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("ghost")));
}

TEST(LadderFormatTest, AFinalEvaluationClosesEntriesAndEndsOnceTheTopIsSettled) {
  TournamentSpec spec = SpecOf(kLadderSpec);
  std::unique_ptr<TournamentFormat> format = Started(spec);
  ASSERT_NE(format, nullptr);
  format->Present(BotsOf({Bot("member", {"village-open"}), Bot("a", {"village-open"})}));
  ASSERT_THAT(format->Joined(), SizeIs(1));
  hoard::v1::FinalEvaluation* evaluation = spec.mutable_ladder()->mutable_final_evaluation();
  evaluation->set_top(2);
  evaluation->set_confidence(0.9);
  evaluation->set_match_budget(500);
  format->Update(spec);
  format->Present(BotsOf({Bot("member", {"village-open"}), Bot("a", {"village-open"}),
                          Bot("late", {"village-open"})}));
  EXPECT_THAT(format->Joined(), IsEmpty()) << "entries are closed";
  // house (0) always beats member (1), who always beats a (2).
  int played = 0;
  while (!format->Complete(0) && played < 500) {
    std::vector<ScheduledMatch> slots = format->Next();
    ASSERT_THAT(slots, ::testing::Not(IsEmpty()));
    for (const ScheduledMatch& slot : slots) {
      std::vector<db::RatedSeat> seats;
      for (int p : slot.seats) seats.push_back({.bot = "x", .rank = p + 1});
      format->Stored(slot, seats);
      ++played;
    }
  }
  hoard::v1::TournamentProgress progress;
  format->Describe(Standings(), progress);
  EXPECT_TRUE(format->Complete(0));
  EXPECT_TRUE(progress.ladder().frozen());
  EXPECT_TRUE(progress.ladder().settled());
  EXPECT_GE(progress.ladder().confidence(), 0.9);
  EXPECT_EQ(progress.ladder().evaluation_matches(), played);
  EXPECT_LT(played, 100);
  EXPECT_THAT(format->Next(), IsEmpty());

  // A budget spent first ends it unsettled.
  TournamentSpec tight = SpecOf(kLadderSpec);
  tight.mutable_ladder()->mutable_final_evaluation()->set_top(2);
  tight.mutable_ladder()->mutable_final_evaluation()->set_confidence(0.999999);
  tight.mutable_ladder()->mutable_final_evaluation()->set_match_budget(3);
  std::unique_ptr<TournamentFormat> spent = FormatOf(tight);
  ASSERT_NE(spent, nullptr);
  const std::vector<db::RatedMatch> stored = {
      {.schedule_index = 0,
       .seats = {{.bot = "house", .rank = 1, .builtin = true}, {.bot = "member", .rank = 2}}},
      {.schedule_index = 1,
       .seats = {{.bot = "house", .rank = 2, .builtin = true}, {.bot = "member", .rank = 1}}},
      {.schedule_index = 2,
       .seats = {{.bot = "house", .rank = 1, .builtin = true}, {.bot = "member", .rank = 1}}}};
  ASSERT_THAT(spent->Resume({0, 1, 2}, stored), IsOk());
  hoard::v1::TournamentProgress resumed;
  spent->Describe(Standings(), resumed);
  EXPECT_TRUE(spent->Complete(0));
  EXPECT_FALSE(resumed.ladder().settled());
  EXPECT_EQ(resumed.ladder().evaluation_matches(), 3);
}

TEST(LadderFormatTest, DealsAreOneWayAndDistinct) {
  std::set<std::uint64_t> seeds;
  for (int i = 0; i < 1000; ++i) seeds.insert(LadderDealSeed(7, i));
  EXPECT_THAT(seeds, SizeIs(1000));
  EXPECT_NE(LadderDealSeed(7, 0), LadderDealSeed(8, 0));
  EXPECT_EQ(LadderDealSeed(7, 3), LadderDealSeed(7, 3));
}

TEST(LadderFormatTest, SpecsOfLaddersAreChecked) {
  for (const auto& [text, field] : std::vector<std::pair<std::string, std::string>>{
           {R"pb(game: "village" format: FORMAT_LADDER)pb", "name"},
           {R"pb(name: "a b" game: "village" format: FORMAT_LADDER)pb", "name"},
           {R"pb(name: "l" game: "village" format: FORMAT_LADDER rounds: 3)pb", "rounds"},
           {R"pb(name: "l"
                 game: "village"
                 format: FORMAT_LADDER
                 ladder { per_bot_concurrency: 1000 })pb",
            "ladder.per_bot_concurrency"},
           {R"pb(name: "l"
                 game: "village"
                 ladder { open: true }
                 participants { name: "a" builtin: "random" }
                 participants { name: "b" builtin: "random" })pb",
            "ladder"}}) {
    absl::StatusOr<TournamentSpec> parsed = ParseSpec(text, "spec");
    ASSERT_THAT(parsed, IsOk());
    EXPECT_THAT(Normalize(*parsed),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(field + ":")))
        << text;
  }
}

}  // namespace
}  // namespace hoard::tournament
