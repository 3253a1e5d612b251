#include "service/event_log.h"

#include <sstream>

#include "absl/time/time.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::service {
namespace {

using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;

const absl::Time kTime = absl::FromUnixMillis(1795423200123);  // 2026-11-23T08:40:00.123Z

TEST(EventLogTest, TextLinesQuoteOnlyWhatNeedsIt) {
  EXPECT_EQ(FormatEvent(LogFormat::kText, kTime, "match_finished",
                        {{"match", "m3"},
                         {"ranks", "1,3,2"},
                         {"why", "a wrong key"},
                         {"empty", ""},
                         {"odd", "a=b\"c"}}),
            "2026-11-23T08:40:00.123Z match_finished match=m3 ranks=1,3,2 why=\"a wrong key\" "
            "empty=\"\" odd=\"a=b\\\"c\"");
}

TEST(EventLogTest, JsonLinesEscapeEveryValue) {
  EXPECT_EQ(FormatEvent(LogFormat::kJson, kTime, "bot_refused",
                        {{"bot", "x\"y"}, {"refused", "line\nbreak\\\t\x01"}}),
            "{\"ts\":\"2026-11-23T08:40:00.123Z\",\"event\":\"bot_refused\",\"bot\":\"x\\\"y\","
            "\"refused\":\"line\\nbreak\\\\\\t\\u0001\"}");
}

TEST(EventLogTest, WritesWholeLines) {
  std::ostringstream out;
  EventLog log(LogFormat::kJson, &out);
  log.Sink()("server_started", {{"listen", "0.0.0.0:50051"}});
  log.Write("server_stopped", {});
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("\"event\":\"server_started\",\"listen\":\"0.0.0.0:50051\"}\n"));
  EXPECT_THAT(text, HasSubstr("\"event\":\"server_stopped\"}\n"));
}

TEST(EventLogTest, OnlyTextAndJsonAreFormats) {
  EXPECT_EQ(*ParseLogFormat("json"), LogFormat::kJson);
  EXPECT_EQ(*ParseLogFormat("text"), LogFormat::kText);
  EXPECT_THAT(ParseLogFormat("xml"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown log format 'xml' (formats: text, json)")));
}

}  // namespace
}  // namespace hoard::service
