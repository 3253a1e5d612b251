#ifndef HOARD_TOURNAMENT_RESULTS_CSV_H_
#define HOARD_TOURNAMENT_RESULTS_CSV_H_

// Match results as a plain CSV file: a header, then one row per seat.
//
//   # a comment
//   match_id,bot,place
//   m1,alpha,1
//   m1,beta,2
//   m2,beta,1
//   m2,alpha,1
//
// Place 1 is first; players tied share a place, and only the order of the
// places in a match counts. The rows of a match need not be next to each
// other. Spaces around a value are ignored, as are blank lines and lines
// starting with '#'.
//
// Quoting: a cell may be quoted as in RFC 4180 ("a,b" for a,b; "" inside
// for a quote). A cell that a spreadsheet would take for a formula (one
// starting with =, +, -, @, a tab or a carriage return) is written quoted
// with a single quote before it, as OWASP advises ('-bot becomes "'-bot"),
// so that it opens as text; the reader takes the single quote off a quoted
// cell that starts with one, so what CsvCell writes reads back as it was.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tournament/ratings.h"

namespace hoard::tournament {

struct ResultsTable {
  // Bot b's name is bots[b]; bots are numbered in order of first appearance.
  std::vector<std::string> bots;
  // In order of each match's first row; each its own unit (its index).
  std::vector<MatchResult> matches;
};

// The results in `text`. kInvalidArgument, naming the line ("line 7: ..."),
// for a header other than match_id,bot,place (or none), a row without
// exactly those three columns, an empty match_id or bot, a place that is no
// positive integer, a bot twice in one match, or a match of one player.
absl::StatusOr<ResultsTable> ParseResultsCsv(absl::string_view text);

// `value` as one CSV cell of text (a name, an id; numbers are written as
// they are, a minus sign and all), for every CSV file Hoard writes: as it is when it
// is plain, quoted when it holds a comma, a quote or a line break, and
// quoted after a single quote when it starts with a character that makes a
// spreadsheet read it as a formula (or with a single quote itself, so that
// reading it back takes off only what was put on).
std::string CsvCell(absl::string_view value);

// The results in the file at `path`: kNotFound ("cannot open PATH") if it
// cannot be read, else as ParseResultsCsv with "PATH: " before the message.
absl::StatusOr<ResultsTable> ReadResultsCsvFile(const std::string& path);

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_RESULTS_CSV_H_
