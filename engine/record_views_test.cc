#include "engine/record_views.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/play_by_play.h"
#include "engine/record_json.h"
#include "engine/registry.h"
#include "engine/testing/random_record.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace hoard::engine {
namespace {

using ::google::protobuf::Value;
using ::hoard::testing::IsOk;
using ::hoard::testing::PlayRandomRecord;
using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;

constexpr const char* kGames[] = {"village", "dragons_gold", "frost_dragon", "hedonia"};

Value Json(const std::string& text) {
  Value value;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(text, &value).ok()) << text;
  return value;
}

std::string Printed(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string json;
  EXPECT_TRUE(google::protobuf::util::MessageToJsonString(message, &json, options).ok());
  return json;
}

bool Same(const Value& a, const Value& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

// Every step of every perspective of a match of each game, rebuilt from the
// changes alone, is the whole view; and the changes of a perspective take a
// small multiple of the record's bytes where the whole views take hundreds.
TEST(RecordViewsTest, ChangesRebuildEveryViewOfEveryGameInASmallMultipleOfTheRecord) {
  for (const char* id : kGames) {
    const int players = (*FindGame(id))->info().min_players + 1;
    const MatchRecord record = PlayRandomRecord(id, players, 7);
    const std::size_t record_bytes = RecordToJson(record).size();
    std::size_t changes_bytes = 0;
    std::size_t views_bytes = 0;
    for (Seat observer = kSpectator; observer < players; ++observer) {
      SCOPED_TRACE(absl::StrCat(id, " seen by ", observer));
      absl::StatusOr<hoard::v1::ReplayMatchResponse> views = ReplayViews(record, observer);
      absl::StatusOr<hoard::v1::ReplayMatchResponse> changes =
          ReplayViews(record, observer, ReplayForm::kChanges);
      ASSERT_THAT(views, IsOk());
      ASSERT_THAT(changes, IsOk());
      views_bytes += Printed(*views).size();
      changes_bytes += Printed(*changes).size();
      ASSERT_EQ(changes->steps_size(), static_cast<int>(record.actions.size()) + 1);
      ASSERT_EQ(changes->steps_size(), views->steps_size());
      Value seen = Json("{}");
      for (int step = 0; step < changes->steps_size(); ++step) {
        const hoard::v1::ReplayStep& compact = changes->steps(step);
        const hoard::v1::ReplayStep& whole = views->steps(step);
        EXPECT_FALSE(compact.has_view());
        seen = ApplyViewChange(seen, compact.change());
        // The whole view as the web face prints it.
        ASSERT_TRUE(Same(seen, Json(Printed(whole.view())))) << "step " << step;
        EXPECT_EQ(compact.text(), whole.text());
        EXPECT_EQ(compact.seat(), whole.seat());
        EXPECT_EQ(compact.revealed_size(), whole.revealed_size());
      }
    }
    RecordProperty(absl::StrCat(id, "_bytes"),
                   absl::StrCat(record_bytes, " ", changes_bytes, " ", views_bytes));
    // Per perspective, as the web app's replay fetches it.
    EXPECT_LE(changes_bytes, 10 * record_bytes * (players + 1)) << id;
    EXPECT_LT(changes_bytes * 3, views_bytes) << id;
  }
}

// The changes a view's parts can go through, each rebuilt exactly: keys
// added and removed, arrays grown, shrunk in the middle and at either end,
// and a value that changes its kind.
TEST(RecordViewsTest, ChangesCoverEveryKindOfEdit) {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {R"({})", R"({"a": 1, "b": {"c": [1, 2]}})"},
      {R"({"a": 1, "b": 2})", R"({"a": 1})"},
      {R"({"l": [1, 2, 3, 4, 5, 6, 7, 8]})", R"({"l": [1, 2, 4, 5, 6, 7, 8]})"},
      {R"({"l": [1, 2, 3, 4, 5, 6, 7, 8]})", R"({"l": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]})"},
      {R"({"l": [{"x": 1, "y": "long text"}, {"x": 2, "y": "long text"}]})",
       R"({"l": [{"x": 1, "y": "long text"}, {"x": 3, "y": "long text"}, {"x": 4}]})"},
      {R"({"l": [1, 2]})", R"({"l": []})"},
      {R"({"l": [1, 2]})", R"({"l": {"now": "an object"}})"},
      {R"({"s": "text"})", R"({"s": {"@": 1, "=": 2}})"},
  };
  for (const auto& [before, after] : pairs) {
    const Value change = ViewChange(Json(before), Json(after));
    EXPECT_TRUE(Same(ApplyViewChange(Json(before), change), Json(after)))
        << before << " -> " << after << " by " << Printed(change);
  }
  EXPECT_EQ(ViewChange(Json(R"({"a": [1]})"), Json(R"({"a": [1]})")).kind_case(),
            Value::KIND_NOT_SET);
}

// A sealed answer is told only once the last answer of its decision is in:
// until then its step reads "answered (sealed)" and no step says what it
// was; the step that completes the decision reveals every answer of it.
TEST(RecordViewsTest, ASealedAnswerIsShownOnlyOnceItsDecisionIsComplete) {
  int sealed_decisions = 0;
  for (const char* id : kGames) {
    const Game& game = **FindGame(id);
    const int players = game.info().max_players;
    const MatchRecord record = PlayRandomRecord(id, players, 11);
    absl::StatusOr<hoard::v1::ReplayMatchResponse> replay = ReplayViews(record, 0);
    ASSERT_THAT(replay, IsOk());
    std::unique_ptr<State> state =
        *game.NewMatch({.num_players = players, .seed = record.seed, .options = record.options});
    std::vector<std::size_t> withheld;  // the actions told as sealed, not yet revealed
    for (std::size_t i = 0; i < record.actions.size(); ++i) {
      SCOPED_TRACE(absl::StrCat(id, " action ", i + 1));
      const RecordedAction& action = record.actions[i];
      const hoard::v1::ReplayStep& step = replay->steps(static_cast<int>(i) + 1);
      const bool sealed = state->SeatsToAct().size() > 1 || !withheld.empty();
      const bool completes = sealed && state->SeatsToAct().size() == 1;
      ASSERT_THAT(state->Apply(action.seat, action.action), IsOk());
      EXPECT_EQ(step.seat(), action.seat);
      if (!sealed) {
        EXPECT_EQ(step.text(), action.text);
        EXPECT_EQ(step.revealed_size(), 0);
        continue;
      }
      EXPECT_EQ(step.text(), kSealedAnswerText);
      withheld.push_back(i);
      if (!completes) {
        EXPECT_EQ(step.revealed_size(), 0);
        continue;
      }
      ++sealed_decisions;
      ASSERT_EQ(step.revealed_size(), static_cast<int>(withheld.size()));
      for (std::size_t k = 0; k < withheld.size(); ++k) {
        EXPECT_EQ(step.revealed(static_cast<int>(k)).seat(), record.actions[withheld[k]].seat);
        EXPECT_EQ(step.revealed(static_cast<int>(k)).text(), record.actions[withheld[k]].text);
        EXPECT_TRUE(step.revealed(static_cast<int>(k)).has_action());
      }
      withheld.clear();
    }
    EXPECT_TRUE(withheld.empty()) << id;
  }
  EXPECT_GT(sealed_decisions, 0);
}

TEST(RecordViewsTest, AnObserverThatIsNoSeatIsRefused) {
  const MatchRecord record = PlayRandomRecord("village", 3, 5);
  EXPECT_THAT(ReplayViews(record, 3, ReplayForm::kChanges),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("seat 3 is no seat")));
  EXPECT_THAT(ReplayViews(record, -2),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("seat -2 is no seat")));
}

}  // namespace
}  // namespace hoard::engine
