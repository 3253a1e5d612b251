#include "tournament/results_csv.h"

#include <filesystem>
#include <fstream>
#include <iterator>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace hoard::tournament {
namespace {

constexpr absl::string_view kColumns[] = {"match_id", "bot", "place"};

std::vector<absl::string_view> Fields(absl::string_view line) {
  std::vector<absl::string_view> fields = absl::StrSplit(line, ',');
  for (absl::string_view& field : fields) field = absl::StripAsciiWhitespace(field);
  return fields;
}

absl::Status LineError(int line, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("line ", line, ": ", problem));
}

}  // namespace

absl::StatusOr<ResultsTable> ParseResultsCsv(absl::string_view text) {
  ResultsTable table;
  absl::flat_hash_map<std::string, int> bot_numbers, match_numbers;
  // rows[m][i]: the line of match m's placing i.
  std::vector<std::vector<int>> rows;
  std::vector<std::string> match_ids;
  bool header_seen = false;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line.front() == '#') continue;
    const std::vector<absl::string_view> fields = Fields(line);
    if (!header_seen) {
      if (fields != std::vector<absl::string_view>(std::begin(kColumns), std::end(kColumns))) {
        return LineError(line_number, absl::StrCat("unknown header '", line,
                                                   "' (expected match_id,bot,place)"));
      }
      header_seen = true;
      continue;
    }
    if (fields.size() < 3) {
      return LineError(line_number, absl::StrCat("missing column ", kColumns[fields.size()],
                                                 " (expected match_id,bot,place)"));
    }
    if (fields.size() > 3) {
      return LineError(line_number, absl::StrCat(fields.size(),
                                                 " columns, expected 3 (match_id,bot,place)"));
    }
    for (int column : {0, 1}) {
      if (fields[column].empty()) {
        return LineError(line_number, absl::StrCat("empty ", kColumns[column]));
      }
    }
    int place = 0;
    if (!absl::SimpleAtoi(fields[2], &place) || place < 1) {
      return LineError(line_number,
                       absl::StrCat("place '", fields[2], "' is not a positive integer"));
    }
    const auto [match, new_match] =
        match_numbers.try_emplace(fields[0], static_cast<int>(table.matches.size()));
    if (new_match) {
      table.matches.push_back({.unit = match->second});
      rows.emplace_back();
      match_ids.emplace_back(fields[0]);
    }
    const auto [bot, new_bot] =
        bot_numbers.try_emplace(fields[1], static_cast<int>(table.bots.size()));
    if (new_bot) table.bots.emplace_back(fields[1]);
    MatchResult& result = table.matches[match->second];
    for (std::size_t i = 0; i < result.placings.size(); ++i) {
      if (result.placings[i].bot == bot->second) {
        return LineError(line_number,
                         absl::StrCat("bot '", fields[1], "' is in match '", fields[0],
                                      "' twice (also on line ", rows[match->second][i], ")"));
      }
    }
    result.placings.push_back({bot->second, place});
    rows[match->second].push_back(line_number);
  }
  if (!header_seen) {
    return absl::InvalidArgumentError("no header line (expected match_id,bot,place)");
  }
  for (std::size_t m = 0; m < table.matches.size(); ++m) {
    if (table.matches[m].placings.size() < 2) {
      return LineError(rows[m][0], absl::StrCat("match '", match_ids[m],
                                                "' has only one player"));
    }
  }
  return table;
}

absl::StatusOr<ResultsTable> ReadResultsCsvFile(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    return absl::NotFoundError(absl::StrCat("cannot open ", path, ": a directory"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StatusOr<ResultsTable> table = ParseResultsCsv(text);
  if (!table.ok()) {
    return absl::Status(table.status().code(),
                        absl::StrCat(path, ": ", table.status().message()));
  }
  return table;
}

}  // namespace hoard::tournament
