#include "tournament/results_csv.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::tournament {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

MATCHER_P2(PlacedAt, bot, place, "") { return arg.bot == bot && arg.place == place; }

TEST(ResultsCsvTest, ReadsMatchesAndBotsInOrderOfFirstAppearance) {
  absl::StatusOr<ResultsTable> table = ParseResultsCsv(
      "# from the spring league\n"
      "match_id,bot,place\n"
      "m1,alpha,1\n"
      "\n"
      "m2, gamma ,2\n"
      "m1,beta,2\n"
      "m2,alpha,1\n"
      "  # a note\n"
      "m1,gamma,2\r\n");
  ASSERT_THAT(table, IsOk());
  EXPECT_THAT(table->bots, ElementsAre("alpha", "gamma", "beta"));
  ASSERT_EQ(table->matches.size(), 2u);
  EXPECT_THAT(table->matches[0].placings,
              ElementsAre(PlacedAt(0, 1), PlacedAt(2, 2), PlacedAt(1, 2)));
  EXPECT_EQ(table->matches[0].unit, 0);
  EXPECT_THAT(table->matches[1].placings, ElementsAre(PlacedAt(1, 2), PlacedAt(0, 1)));
  EXPECT_EQ(table->matches[1].unit, 1);
}

TEST(ResultsCsvTest, AHeaderAloneHasNoMatches) {
  absl::StatusOr<ResultsTable> table = ParseResultsCsv("match_id, bot, place\n");
  ASSERT_THAT(table, IsOk());
  EXPECT_TRUE(table->matches.empty());
  EXPECT_TRUE(table->bots.empty());
}

TEST(ResultsCsvTest, MistakesNameTheLine) {
  const std::string header = "match_id,bot,place\n";
  auto error = [](absl::string_view message) {
    return StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(message));
  };
  EXPECT_THAT(ParseResultsCsv(""), error("no header line"));
  EXPECT_THAT(ParseResultsCsv("# only a comment\n"), error("no header line"));
  EXPECT_THAT(ParseResultsCsv("\nmatch,bot,rank\n"),
              error("line 2: unknown header 'match,bot,rank' (expected match_id,bot,place)"));
  EXPECT_THAT(ParseResultsCsv("m1,alpha,1\n"), error("line 1: unknown header 'm1,alpha,1'"));
  EXPECT_THAT(ParseResultsCsv(header + "m1,alpha\n"), error("line 2: missing column place"));
  EXPECT_THAT(ParseResultsCsv(header + "m1\n"), error("line 2: missing column bot"));
  EXPECT_THAT(ParseResultsCsv(header + "m1,alpha,1,9\n"), error("line 2: 4 columns, expected 3"));
  EXPECT_THAT(ParseResultsCsv(header + "m1, ,1\n"), error("line 2: empty bot"));
  EXPECT_THAT(ParseResultsCsv(header + ",alpha,1\n"), error("line 2: empty match_id"));
  for (const char* place : {"0", "-1", "first", "1.5", ""}) {
    EXPECT_THAT(ParseResultsCsv(header + "m1,alpha,1\nm1,beta," + place + "\n"),
                error(absl::StrCat("line 3: place '", place, "' is not a positive integer")));
  }
  EXPECT_THAT(ParseResultsCsv(header + "m1,alpha,1\nm2,alpha,1\nm1,alpha,2\n"),
              error("line 4: bot 'alpha' is in match 'm1' twice (also on line 2)"));
  EXPECT_THAT(ParseResultsCsv(header + "m1,alpha,1\nm2,beta,1\nm1,beta,2\n"),
              error("line 3: match 'm2' has only one player"));
}

TEST(ResultsCsvTest, ACellASpreadsheetWouldTakeForAFormulaIsWrittenAsText) {
  // OWASP's list: =, +, -, @, a tab, a carriage return.
  EXPECT_EQ(CsvCell("-cmd|' /C calc'!A0"), "\"'-cmd|' /C calc'!A0\"");
  EXPECT_EQ(CsvCell("=1+2"), "\"'=1+2\"");
  EXPECT_EQ(CsvCell("+alpha"), "\"'+alpha\"");
  EXPECT_EQ(CsvCell("@SUM(A1)"), "\"'@SUM(A1)\"");
  EXPECT_EQ(CsvCell("\tbot"), "\"'\tbot\"");
  EXPECT_EQ(CsvCell("\rbot"), "\"'\rbot\"");
  // A single quote of its own is kept through a round trip.
  EXPECT_EQ(CsvCell("'quoted"), "\"''quoted\"");
  // Plain cells as they are; commas and quotes quoted the usual way.
  EXPECT_EQ(CsvCell("alpha@2"), "alpha@2");
  EXPECT_EQ(CsvCell("m17"), "m17");
  EXPECT_EQ(CsvCell("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvCell("say \"hi\""), "\"say \"\"hi\"\"\"");
}

TEST(ResultsCsvTest, WhatCsvCellWritesReadsBackAsItWas) {
  const std::vector<std::string> names = {"-minus", "=sum", "+plus",      "@at",  "'quote",
                                          "alpha",  "a,b",  "say \"hi\"", "\ttab"};
  std::string text = "match_id,bot,place\n";
  for (std::size_t i = 0; i < names.size(); ++i) {
    absl::StrAppend(&text, CsvCell("m1"), ",", CsvCell(names[i]), ",", i + 1, "\n");
  }
  absl::StatusOr<ResultsTable> table = ParseResultsCsv(text);
  ASSERT_THAT(table, IsOk()) << text;
  EXPECT_EQ(table->bots, names);
  // Cells quoted by hand read as RFC 4180 says; an unquoted ' stays.
  table = ParseResultsCsv("match_id,bot,place\n\"m1\", \"beta\" ,1\nm1,'gamma,2\n");
  ASSERT_THAT(table, IsOk());
  EXPECT_THAT(table->bots, ElementsAre("beta", "'gamma"));
  EXPECT_THAT(ParseResultsCsv("match_id,bot,place\nm1,\"beta,1\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("line 2: a quoted cell is not closed")));
  EXPECT_THAT(
      ParseResultsCsv("match_id,bot,place\nm1,\"beta\"x,1\n"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 2: text after a quoted cell")));
}

TEST(ResultsCsvTest, FilesAreReadAndTheirErrorsNamed) {
  const std::string path = ::testing::TempDir() + "/results_csv_test.csv";
  std::ofstream(path) << "match_id,bot,place\nm1,alpha,1\nm1,beta,x\n";
  EXPECT_THAT(ReadResultsCsvFile(path),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(path + ": line 3: place 'x' is not a positive integer")));
  std::ofstream(path) << "match_id,bot,place\nm1,alpha,1\nm1,beta,2\n";
  absl::StatusOr<ResultsTable> table = ReadResultsCsvFile(path);
  ASSERT_THAT(table, IsOk());
  EXPECT_EQ(table->matches.size(), 1u);
  std::remove(path.c_str());
  EXPECT_THAT(ReadResultsCsvFile(path),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("cannot open " + path)));
  EXPECT_THAT(ReadResultsCsvFile(::testing::TempDir()),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("a directory")));
}

}  // namespace
}  // namespace hoard::tournament
