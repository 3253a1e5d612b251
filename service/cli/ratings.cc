// hoard ratings: ratings of bots from a file of match results.

#include "tournament/ratings.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"
#include "tournament/leaderboard.h"
#include "tournament/results_csv.h"

namespace hoard::cli {
namespace {

constexpr char kHelp[] =
    "usage: hoard ratings --input FILE --system elo|ml|openskill [flags]\n"
    "\n"
    "Rates the bots in a results file (one row per seat: match_id,bot,place;\n"
    "place 1 is first, tied players share a place) and prints them best first.\n"
    "  elo        incremental multiplayer Elo from 1500, matches in file order\n"
    "  ml         Bradley-Terry maximum likelihood with a prior of virtual ties\n"
    "             (BayesElo's), independent of the order, with finite 95%\n"
    "             intervals (the wider of a bootstrap over matches and the\n"
    "             profile likelihood)\n"
    "  openskill  OpenSkill (Weng-Lin, Plackett-Luce); rating = mu - 3 sigma\n"
    "The table ranks established ratings first and provisional ones (marked ?:\n"
    "fewer than 15 matches and, for ml, an interval wider than 400 points) below\n"
    "them; --all ranks every bot together. --json and --csv rank by rating alone.\n"
    "See docs/ratings.md.";

// One bot's line: its rating and the system's other columns (ml: low, high;
// openskill: mu, sigma).
struct Row {
  std::string bot;
  double rating = 0;
  std::vector<double> extra;
  int matches = 0;
  // ml: the bot's connected group and its tier of separation (from 0).
  int group = 0, tier = 0;
  // Too few matches, or (ml) too wide an interval: tournament::Provisional.
  bool provisional = false;
};

struct Report {
  std::string system;
  std::vector<std::string> extra_columns;  // the names of Row::extra
  std::vector<Row> rows;                   // best first once sorted
  // What the ratings were computed from: name and JSON value.
  std::vector<std::pair<std::string, std::string>> settings;
  std::vector<std::string> notes;  // printed below the table
  bool structure = false;          // ml: group and tier columns in CSV and JSON
};

// Every bit of `value`: the shortest decimal that reads back as the same
// double; "inf" and "-inf" for an unbounded end.
std::string Number(double value) {
  std::array<char, 32> buffer;
  const std::to_chars_result end =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), end.ptr);
}

// A number in JSON: null for an unbounded (infinite) end.
std::string JsonNumber(double value) { return std::isinf(value) ? "null" : Number(value); }

// `value` rounded to `decimals` places for a table, where -0.0 reads as 0.0.
double Tidy(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  const double rounded = std::round(value * scale) / scale;
  return rounded == 0 ? 0.0 : rounded;
}

std::string Matches(std::size_t count) {
  return absl::StrCat(count, count == 1 ? " match" : " matches");
}

std::string JsonString(absl::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      absl::StrAppend(&out, "\\", std::string(1, c));
    } else if (static_cast<unsigned char>(c) < 0x20) {
      absl::StrAppend(&out, absl::StrFormat("\\u%04x", c));
    } else {
      out.push_back(c);
    }
  }
  return out + "\"";
}

// 1 + the number of rows rated higher: equal ratings share a rank. With
// `established_first`, every established row ranks above the provisional.
int RankOf(const std::vector<Row>& rows, std::size_t i, bool established_first = false) {
  const Row& row = rows[i];
  int rank = 1;
  for (const Row& other : rows) {
    const bool split = established_first && other.provisional != row.provisional;
    rank += (split ? !other.provisional : other.rating > row.rating) ? 1 : 0;
  }
  return rank;
}

// `report`'s rows, best first: with `established_first`, the established
// rows before the provisional.
void PrintTable(Report report, bool established_first) {
  if (established_first) {
    std::stable_partition(report.rows.begin(), report.rows.end(),
                          [](const Row& row) { return !row.provisional; });
  }
  std::size_t width = 3;
  for (const Row& row : report.rows) width = std::max(width, row.bot.size());
  std::string header = absl::StrFormat("rank  %-*s  %8s ", width, "bot", "rating");
  if (report.system == "ml" && !report.extra_columns.empty()) {
    absl::StrAppend(&header, "  95% interval      ");
  } else if (report.system == "openskill") {
    absl::StrAppend(&header, absl::StrFormat("  %7s  %6s", "mu", "sigma"));
  }
  std::cout << header << "  matches\n";
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const Row& row = report.rows[i];
    std::string line;
    if (report.system == "openskill") {
      line = absl::StrFormat("%4d  %-*s  %8.2f%s  %7.2f  %6.2f",
                             RankOf(report.rows, i, established_first), width, row.bot,
                             Tidy(row.rating, 2), row.provisional ? "?" : " ",
                             Tidy(row.extra[0], 2), Tidy(row.extra[1], 2));
    } else {
      line = absl::StrFormat("%4d  %-*s  %8.1f%s", RankOf(report.rows, i, established_first), width,
                             row.bot, Tidy(row.rating, 1), row.provisional ? "?" : " ");
      if (!row.extra.empty()) {
        absl::StrAppend(&line, absl::StrFormat("  [%7.1f, %7.1f]", Tidy(row.extra[0], 1),
                                               Tidy(row.extra[1], 1)));
      }
    }
    std::cout << line << absl::StrFormat("  %7d\n", row.matches);
  }
  std::cout << "\n";
  for (const std::string& note : report.notes) std::cout << note << "\n";
  if (std::any_of(report.rows.begin(), report.rows.end(),
                  [](const Row& row) { return row.provisional; })) {
    std::cout << absl::StrFormat(
        "?: provisional (fewer than %d matches%s).\n", tournament::kProvisionalMatches,
        report.system == "ml" ? absl::StrFormat(" and an interval wider than %.0f points",
                                                tournament::kProvisionalWidth)
                              : "");
  }
}

void PrintCsv(const Report& report) {
  std::cout << "rank,bot,rating";
  for (const std::string& column : report.extra_columns) std::cout << "," << column;
  std::cout << ",matches" << (report.structure ? ",group,tier" : "") << "\n";
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const Row& row = report.rows[i];
    std::cout << RankOf(report.rows, i) << "," << tournament::CsvCell(row.bot) << ","
              << Number(row.rating);
    for (double value : row.extra) std::cout << "," << Number(value);
    std::cout << "," << row.matches;
    if (report.structure) std::cout << "," << row.group << "," << row.tier;
    std::cout << "\n";
  }
}

void PrintJson(const Report& report) {
  std::cout << "{\n  \"system\": " << JsonString(report.system) << ",\n";
  for (const auto& [name, value] : report.settings) {
    std::cout << "  " << JsonString(name) << ": " << value << ",\n";
  }
  std::cout << "  \"ratings\": [";
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const Row& row = report.rows[i];
    std::cout << (i == 0 ? "\n" : ",\n") << "    {\"rank\": " << RankOf(report.rows, i)
              << ", \"bot\": " << JsonString(row.bot) << ", \"rating\": " << Number(row.rating);
    for (std::size_t c = 0; c < row.extra.size(); ++c) {
      std::cout << ", " << JsonString(report.extra_columns[c]) << ": " << JsonNumber(row.extra[c]);
    }
    std::cout << ", \"matches\": " << row.matches;
    if (report.structure) std::cout << ", \"group\": " << row.group << ", \"tier\": " << row.tier;
    std::cout << "}";
  }
  std::cout << "\n  ]\n}\n";
}

// A report of `system` on `table` without ratings: each bot's name and
// number of matches, and the number of matches.
Report NewReport(const std::string& system, const tournament::ResultsTable& table) {
  Report report;
  report.system = system;
  report.rows.resize(table.bots.size());
  for (std::size_t b = 0; b < table.bots.size(); ++b) report.rows[b].bot = table.bots[b];
  for (const tournament::MatchResult& match : table.matches) {
    for (const tournament::Placing& p : match.placings) ++report.rows[p.bot].matches;
  }
  for (Row& row : report.rows) row.provisional = row.matches < tournament::kProvisionalMatches;
  report.settings.push_back({"matches", absl::StrCat(table.matches.size())});
  return report;
}

Report EloReport(const tournament::ResultsTable& table, const tournament::EloOptions& elo) {
  Report report = NewReport("elo", table);
  const std::vector<double> ratings =
      EloRatings(static_cast<int>(table.bots.size()), table.matches, elo);
  for (std::size_t b = 0; b < ratings.size(); ++b) report.rows[b].rating = ratings[b];
  report.settings.push_back({"k", Number(elo.k)});
  report.settings.push_back({"initial", Number(elo.initial)});
  report.settings.push_back({"order_dependent", "true"});
  report.notes.push_back(absl::StrCat("Incremental Elo over ", Matches(table.matches.size()),
                                      ", K=", Number(elo.k), ", every bot from ",
                                      Number(elo.initial),
                                      ": it depends on the order of the matches in the file."));
  return report;
}

// The sets of bots of `rows` (best first) for which `key` gives the same
// value: "tier 0: a, b; tier 1: c" by key when `label` is given, else in
// order of their best bot, "a, b | c".
template <typename Key>
std::string SetsOf(const std::vector<Row>& rows, Key key, const std::string& label) {
  std::vector<std::pair<int, std::vector<std::string>>> sets;
  for (const Row& row : rows) {
    auto it = std::find_if(sets.begin(), sets.end(),
                           [&](const auto& set) { return set.first == key(row); });
    if (it == sets.end()) it = sets.insert(sets.end(), {key(row), {}});
    it->second.push_back(row.bot);
  }
  if (!label.empty()) std::sort(sets.begin(), sets.end());
  std::vector<std::string> parts;
  for (const auto& [k, bots] : sets) {
    parts.push_back(label.empty() ? absl::StrJoin(bots, ", ")
                                  : absl::StrCat(label, " ", k, ": ", absl::StrJoin(bots, ", ")));
  }
  return absl::StrJoin(parts, label.empty() ? " | " : "; ");
}

Report MlReport(const tournament::ResultsTable& table, const tournament::MlOptions& ml) {
  Report report = NewReport("ml", table);
  report.structure = true;
  // Bots numbered in order of name, not of first row, so that the sums
  // (and so every bit of the intervals) do not depend on the order of the
  // file; the units' order is fixed by their contents (tournament/ratings.h).
  const int n = static_cast<int>(table.bots.size());
  std::vector<int> by_name(n);
  for (int b = 0; b < n; ++b) by_name[b] = b;
  std::sort(by_name.begin(), by_name.end(),
            [&](int x, int y) { return table.bots[x] < table.bots[y]; });
  std::vector<int> number(n);  // the file's numbering -> by name
  for (int i = 0; i < n; ++i) number[by_name[i]] = i;
  std::vector<tournament::MatchResult> matches = table.matches;
  for (tournament::MatchResult& match : matches) {
    for (tournament::Placing& p : match.placings) p.bot = number[p.bot];
  }
  const std::vector<tournament::MlRating> ratings = MlRatings(n, matches, ml);
  const std::vector<std::vector<double>> ranks =
      n <= tournament::kRankProbabilityMaxBots
          ? RankProbabilities(n, matches, {.prior_ties = ml.prior_ties})
          : std::vector<std::vector<double>>();
  for (int b = 0; b < n; ++b) {
    const tournament::MlRating& r = ratings[number[b]];
    report.rows[b].rating = r.rating;
    report.rows[b].extra = {r.low, r.high};
    if (!ranks.empty()) report.rows[b].extra.push_back(ranks[number[b]][0]);
    report.rows[b].group = r.group;
    report.rows[b].tier = r.tier;
    report.rows[b].provisional = tournament::Provisional(report.rows[b].matches, r.low, r.high);
  }
  report.extra_columns = {"low", "high"};
  // The chance of being the strongest (tournament/ratings.h, RankProbabilities):
  // in --csv and --json, not in the table.
  if (!ranks.empty()) report.extra_columns.push_back("p_first");
  const bool bootstrap = ml.bootstrap_samples > 0;
  const bool profile = n <= tournament::kMlProfileMaxBots;
  const std::string bootstrap_text = absl::StrCat(
      "percentile bootstrap over matches (", ml.bootstrap_samples, " samples, seed ", ml.seed, ")");
  const std::string method =
      bootstrap && profile ? absl::StrCat("the wider of a ", bootstrap_text,
                                          " and the profile likelihood with the prior")
      : bootstrap          ? absl::StrCat("a ", bootstrap_text, " (no profile likelihood above ",
                                          tournament::kMlProfileMaxBots, " bots)")
      : profile            ? std::string("the profile likelihood with the prior (no bootstrap)")
                           : std::string("none (--bootstrap 0 and more than 50 bots)");
  report.settings.push_back({"interval", JsonString(method)});
  report.settings.push_back({"bootstrap_samples", absl::StrCat(ml.bootstrap_samples)});
  report.settings.push_back({"seed", JsonString(absl::StrCat(ml.seed))});
  report.settings.push_back({"prior_ties", Number(ml.prior_ties)});
  const bool separated = tournament::Separated(ratings);
  const bool disconnected = tournament::Disconnected(ratings);
  report.settings.push_back({"separated", separated ? "true" : "false"});
  report.settings.push_back({"disconnected", disconnected ? "true" : "false"});
  report.notes.push_back(
      absl::StrCat("Bradley-Terry maximum likelihood over ", Matches(table.matches.size()),
                   " with ", Number(ml.prior_ties),
                   " virtual ties per bot against an average player, mean 0 over "
                   "meetings: the same in any order of the matches."));
  report.notes.push_back(
      absl::StrCat("95% intervals: ", method, "; the same in any order of the rows."));
  // The rows are sorted best first only before printing.
  std::vector<Row> ranked = report.rows;
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Row& a, const Row& b) { return a.rating > b.rating; });
  if (disconnected) {
    report.notes.push_back(absl::StrCat(
        "Disconnected: these groups never met, directly or through others, and only the "
        "prior places them against each other: ",
        SetsOf(
            ranked, [](const Row& r) { return r.group; }, ""),
        "."));
  }
  if (separated) {
    report.notes.push_back(absl::StrCat(
        "Separated: each tier never lost a meeting to the tiers below it, so the data bound "
        "the gap below only and the prior bounds it above: ",
        SetsOf(
            ranked, [](const Row& r) { return r.tier; }, "tier"),
        "."));
  }
  return report;
}

Report OpenSkillReport(const tournament::ResultsTable& table,
                       const tournament::OpenSkillOptions& openskill) {
  Report report = NewReport("openskill", table);
  const std::vector<tournament::OpenSkillRating> ratings =
      OpenSkillRatings(static_cast<int>(table.bots.size()), table.matches, openskill);
  for (std::size_t b = 0; b < ratings.size(); ++b) {
    report.rows[b].rating = ratings[b].Ordinal();
    report.rows[b].extra = {ratings[b].mu, ratings[b].sigma};
  }
  report.extra_columns = {"mu", "sigma"};
  report.settings.push_back({"tau", Number(openskill.tau)});
  report.settings.push_back({"order_dependent", "true"});
  report.notes.push_back(absl::StrCat(
      "OpenSkill (Weng-Lin, Plackett-Luce) over ", Matches(table.matches.size()),
      ", rating = mu - 3 sigma, from mu ", Number(openskill.mu), ", sigma ",
      absl::StrFormat("%.4g", openskill.sigma), ", tau ", absl::StrFormat("%.4g", openskill.tau),
      ": it depends on the order of the matches in the file."));
  return report;
}

}  // namespace

int RunRatings(const std::vector<std::string>& args) {
  std::string path;
  std::string system;
  bool json = false, csv = false, all = false;
  tournament::EloOptions elo;
  tournament::MlOptions ml;
  tournament::OpenSkillOptions openskill;
  CommandLine command("ratings", kHelp);
  CLI::App& app = command.app();
  const CLI::Validator above_zero =
      Number([](double x) { return x > 0; }, "{flag} needs a number above 0, not '{value}'");
  app.add_option("--input", path, "the results: CSV with header match_id,bot,place")
      ->type_name("FILE");
  app.add_option("--system", system, "elo, ml (maximum likelihood) or openskill")
      ->type_name("NAME");
  app.add_flag("--json", json, "print JSON instead of a table");
  app.add_flag("--csv", csv, "print CSV instead of a table");
  CLI::Option* k = app.add_option("--k", elo.k, "elo: the K factor (default 32)")
                       ->type_name("K")
                       ->transform(above_zero);
  CLI::Option* bootstrap =
      app.add_option("--bootstrap", ml.bootstrap_samples,
                     "ml: bootstrap resamples for the intervals (default 1000; 0 none)")
          ->type_name("N")
          ->transform(InRange(0, 100000));
  CLI::Option* seed =
      app.add_option("--seed", ml.seed, "ml: the seed of the resampling (default 1)")
          ->type_name("S")
          ->transform(Seed());
  CLI::Option* prior =
      app.add_option("--prior", ml.prior_ties,
                     "ml: virtual ties of each bot with an average player (default 2)")
          ->type_name("C")
          ->transform(above_zero);
  CLI::Option* tau =
      app.add_option("--tau", openskill.tau,
                     "openskill: added uncertainty per match (default 0.0833; 0 fixed bots)")
          ->type_name("T")
          ->transform(Number([](double x) { return x >= 0; },
                             "{flag} needs a number of at least 0, not '{value}'"));
  app.add_flag("--all", all, "table: rank every bot together (default: provisional ratings below)");
  if (std::optional<int> exit = command.ParseOrExit(args)) return *exit;
  if (path.empty()) return Fail(kExitUsage, "ratings needs --input FILE");
  if (system != "elo" && system != "ml" && system != "openskill") {
    return Fail(kExitUsage, !system.empty()
                                ? "unknown rating system '" + system + "' (elo, ml or openskill)"
                                : "ratings needs --system elo, ml or openskill");
  }
  if (json && csv) return Fail(kExitUsage, "give --json or --csv, not both");
  for (const auto& [flag, owner] : std::vector<std::pair<CLI::Option*, std::string>>{
           {k, "elo"}, {bootstrap, "ml"}, {seed, "ml"}, {prior, "ml"}, {tau, "openskill"}}) {
    if (flag->count() > 0 && system != owner) {
      return Fail(kExitUsage,
                  absl::StrCat(flag->get_name(), " applies to --system ", owner, " only"));
    }
  }

  absl::StatusOr<tournament::ResultsTable> table = tournament::ReadResultsCsvFile(path);
  if (!table.ok()) return Fail(kExitFailure, std::string(table.status().message()));
  if (table->matches.empty()) return Fail(kExitFailure, path + ": no matches");

  Report report = system == "elo"  ? EloReport(*table, elo)
                  : system == "ml" ? MlReport(*table, ml)
                                   : OpenSkillReport(*table, openskill);
  std::stable_sort(report.rows.begin(), report.rows.end(),
                   [](const Row& a, const Row& b) { return a.rating > b.rating; });

  if (json) {
    PrintJson(report);
  } else if (csv) {
    PrintCsv(report);
  } else {
    PrintTable(std::move(report), !all);
  }
  return kExitOk;
}

}  // namespace hoard::cli
