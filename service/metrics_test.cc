#include "service/metrics.h"

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::service {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(MetricsTest, AHistogramCountsEachDurationInItsBucketAndEveryOneAbove) {
  Histogram histogram;
  histogram.Observe(absl::Microseconds(50));   // <= 0.0001
  histogram.Observe(absl::Microseconds(100));  // <= 0.0001: bounds are inclusive
  histogram.Observe(absl::Milliseconds(3));    // <= 0.005
  histogram.Observe(absl::Seconds(9));         // above every bound
  const std::string text = histogram.Render("x_seconds", "game=\"g\"");
  EXPECT_THAT(text, HasSubstr("x_seconds_bucket{game=\"g\",le=\"0.0001\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("x_seconds_bucket{game=\"g\",le=\"0.0025\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("x_seconds_bucket{game=\"g\",le=\"0.005\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("x_seconds_bucket{game=\"g\",le=\"5\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("x_seconds_bucket{game=\"g\",le=\"+Inf\"} 4\n"));
  EXPECT_THAT(text, HasSubstr("x_seconds_sum{game=\"g\"} 9.003150000\n"));
  EXPECT_THAT(text, HasSubstr("x_seconds_count{game=\"g\"} 4\n"));
}

TEST(MetricsTest, RunningMatchesAreThoseStartedAndNotEnded) {
  Metrics metrics;
  GameMetrics& village = metrics.Game("village");
  village.started += 5;
  village.finished += 2;
  village.aborted += 1;
  EXPECT_EQ(&metrics.Game("village"), &village);
  const std::string text = metrics.Render({.bots_connected = 3});
  EXPECT_THAT(text, HasSubstr("hoard_matches_running{game=\"village\"} 2\n"));
  EXPECT_THAT(text,
              HasSubstr("hoard_matches_ended_total{game=\"village\",status=\"aborted\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE hoard_decision_seconds histogram\n"));
  EXPECT_THAT(text, HasSubstr("hoard_bots_connected 3\n"));
}

TEST(MetricsTest, LabelValuesAreEscaped) {
  Metrics metrics;
  MetricsGauges gauges;
  gauges.tournaments.push_back({.id = 7, .game = "a\"b\\c\nd", .status = "RUNNING"});
  EXPECT_THAT(metrics.Render(gauges),
              HasSubstr("tournament=\"7\",game=\"a\\\"b\\\\c\\nd\",status=\"RUNNING\""));
}

TEST(MetricsTest, ALadderTellsItsEntrantsAndItsEvaluation) {
  Metrics metrics;
  MetricsGauges gauges;
  gauges.tournaments.push_back({.id = 3,
                                .game = "village",
                                .status = "RUNNING",
                                .ladder = "open",
                                .entrants = 9,
                                .present = 4,
                                .frozen = true,
                                .confidence = 0.75});
  gauges.tournaments.push_back({.id = 4, .game = "village", .status = "RUNNING"});
  const std::string text = metrics.Render(gauges);
  EXPECT_THAT(text, HasSubstr("hoard_ladder_entrants{tournament=\"3\",ladder=\"open\","
                              "state=\"joined\"} 9\n"));
  EXPECT_THAT(text, HasSubstr("hoard_ladder_entrants{tournament=\"3\",ladder=\"open\","
                              "state=\"present\"} 4\n"));
  EXPECT_THAT(text, HasSubstr("hoard_ladder_evaluation_confidence{tournament=\"3\","
                              "ladder=\"open\"} 0.75\n"));
  EXPECT_THAT(text, Not(HasSubstr("tournament=\"4\",ladder")));
}

}  // namespace
}  // namespace hoard::service
