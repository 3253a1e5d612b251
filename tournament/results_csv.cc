#include "tournament/results_csv.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"

namespace hoard::tournament {
namespace {

constexpr absl::string_view kColumns[] = {"match_id", "bot", "place"};

// What makes a spreadsheet read a cell as a formula (OWASP's list).
bool StartsAsFormula(absl::string_view value) {
  return !value.empty() &&
         absl::string_view("=+-@\t\r").find(value.front()) != absl::string_view::npos;
}

// The cells of `line`, as CsvCell writes them: spaces around a cell
// dropped, a quoted cell unquoted (and its leading single quote, which
// CsvCell adds, taken off). kInvalidArgument for a quote left open or
// followed by more than spaces before the comma.
absl::StatusOr<std::vector<std::string>> Fields(absl::string_view line) {
  std::vector<std::string> fields;
  std::size_t i = 0;
  while (true) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::string field;
    if (i < line.size() && line[i] == '"') {
      bool closed = false;
      for (++i; i < line.size(); ++i) {
        if (line[i] != '"') {
          field.push_back(line[i]);
        } else if (i + 1 < line.size() && line[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          closed = true;
          ++i;
          break;
        }
      }
      if (!closed) return absl::InvalidArgumentError("a quoted cell is not closed");
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (i < line.size() && line[i] != ',') {
        return absl::InvalidArgumentError("text after a quoted cell (expected a comma)");
      }
      if (!field.empty() && field.front() == '\'') field.erase(0, 1);
    } else {
      const std::size_t comma = std::min(line.find(',', i), line.size());
      field = std::string(absl::StripAsciiWhitespace(line.substr(i, comma - i)));
      i = comma;
    }
    fields.push_back(std::move(field));
    if (i >= line.size()) return fields;
    ++i;  // the comma
  }
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
    absl::StatusOr<std::vector<std::string>> cells = Fields(line);
    if (!cells.ok()) return LineError(line_number, cells.status().message());
    const std::vector<std::string>& fields = *cells;
    if (!header_seen) {
      if (fields != std::vector<std::string>(std::begin(kColumns), std::end(kColumns))) {
        return LineError(line_number,
                         absl::StrCat("unknown header '", line, "' (expected match_id,bot,place)"));
      }
      header_seen = true;
      continue;
    }
    if (fields.size() < 3) {
      return LineError(line_number, absl::StrCat("missing column ", kColumns[fields.size()],
                                                 " (expected match_id,bot,place)"));
    }
    if (fields.size() > 3) {
      return LineError(line_number,
                       absl::StrCat(fields.size(), " columns, expected 3 (match_id,bot,place)"));
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
      return LineError(rows[m][0], absl::StrCat("match '", match_ids[m], "' has only one player"));
    }
  }
  return table;
}

std::string CsvCell(absl::string_view value) {
  const bool formula = StartsAsFormula(value) || absl::StartsWith(value, "'");
  if (!formula && value.find_first_of(",\"\r\n") == absl::string_view::npos) {
    return std::string(value);
  }
  return absl::StrCat("\"", formula ? "'" : "", absl::StrReplaceAll(value, {{"\"", "\"\""}}), "\"");
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
    return absl::Status(table.status().code(), absl::StrCat(path, ": ", table.status().message()));
  }
  return table;
}

}  // namespace hoard::tournament
