// hoard export: a tournament's (or a game's) results and records, for other
// tools.

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "db/store.h"
#include "google/protobuf/util/json_util.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"
#include "tournament/results_csv.h"

namespace hoard::cli {
namespace {

constexpr char kHelp[] =
    "usage: hoard export (--tournament ID | --game ID) [--results FILE] [--records FILE]\n\n"
    "Writes finished matches from a database for other tools: the results as CSV\n"
    "in the shape 'hoard ratings --input' reads (a row per seat: match_id, the bot's\n"
    "leaderboard name, its place), in schedule order; and the full record of each\n"
    "match as one line of JSON (hoard.v1.MatchRecord, as 'hoard match get --record'\n"
    "prints it; 'hoard replay verify' checks one). With neither flag the results go\n"
    "to stdout. Aborted matches have no result or record and are left out.";

// Where output goes: a file, or stdout for "-".
class Output {
 public:
  absl::Status Open(const std::string& path) {
    if (path == "-") return absl::OkStatus();
    file_ = std::make_unique<std::ofstream>(path, std::ios::binary | std::ios::trunc);
    if (!*file_) return absl::NotFoundError(absl::StrCat("cannot write ", path));
    return absl::OkStatus();
  }
  std::ostream& stream() { return file_ ? *file_ : std::cout; }

 private:
  std::unique_ptr<std::ofstream> file_;
};

}  // namespace

int RunExport(const std::vector<std::string>& args) {
  std::string path = "hoard.db";
  std::string tournament;
  std::string game;
  std::string results_path;
  std::string records_path;
  CommandLine command("export", kHelp);
  CLI::App& app = command.app();
  app.add_option("--db", path, "the database: a SQLite file (default hoard.db) or postgresql://…")
      ->type_name("FILE|URL")
      ->check(NoPasswordInAddress());
  app.add_option("--tournament", tournament, "export this tournament's matches")->type_name("ID");
  app.add_option("--game", game, "or every stored match of this game")->type_name("ID");
  app.add_option("--results", results_path,
                 "write the results here (CSV: match_id,bot,place; '-': stdout)")
      ->type_name("FILE");
  app.add_option("--records", records_path, "write the records here (JSON lines; '-': stdout)")
      ->type_name("FILE");
  if (std::optional<int> exit = command.ParseOrExit(args)) return *exit;
  if (tournament.empty() == game.empty()) {
    return Fail(kExitUsage, "export needs --tournament ID or --game ID (one of them)");
  }
  db::MatchFilter filter;
  if (!tournament.empty() &&
      (!absl::SimpleAtoi(tournament, &filter.tournament_id) || filter.tournament_id < 1)) {
    return Fail(kExitUsage,
                "--tournament needs a tournament id (a number from 1), not '" + tournament + "'");
  }
  if (!db::IsPostgresUrl(path) && access(path.c_str(), F_OK) != 0) {
    return Fail(kExitFailure, absl::StrCat("no database ", path, " (give --db)"));
  }
  absl::StatusOr<std::unique_ptr<db::MatchStore>> store =
      db::OpenStore(path, db::StoreAccess::kReadOnly);
  if (!store.ok()) return Fail(kExitFailure, std::string(store.status().message()));
  db::RatingScope scope{.game = game, .tournament_id = filter.tournament_id};
  if (filter.tournament_id != 0) {
    absl::StatusOr<std::optional<db::StoredTournament>> t =
        (*store)->GetTournament(filter.tournament_id);
    if (!t.ok()) return Fail(kExitFailure, std::string(t.status().message()));
    if (!t->has_value()) {
      return Fail(kExitUsage, absl::StrCat("no tournament ", filter.tournament_id, " in ",
                                           db::StoreDisplayName(path)));
    }
    scope.game = (*t)->spec.game();
  }
  filter.game = scope.game;

  const bool records = !records_path.empty();
  const bool results = !results_path.empty() || !records;
  Output results_out, records_out;
  if (results) {
    if (absl::Status s = results_out.Open(results_path.empty() ? "-" : results_path); !s.ok()) {
      return Fail(kExitFailure, std::string(s.message()));
    }
  }
  if (records) {
    if (absl::Status s = records_out.Open(records_path); !s.ok()) {
      return Fail(kExitFailure, std::string(s.message()));
    }
  }

  // Every stored match in scope: ids by sequence, and the records.
  std::map<std::int64_t, std::string> ids;
  int written_records = 0;
  for (std::int64_t after = 0;;) {
    absl::StatusOr<std::vector<db::StoredMatch>> page = (*store)->List(after, 500, filter);
    if (!page.ok()) return Fail(kExitFailure, std::string(page.status().message()));
    if (page->empty()) break;
    for (const db::StoredMatch& stored : *page) {
      after = stored.sequence;
      ids[stored.sequence] = stored.match.match_id();
      if (!records) continue;
      absl::StatusOr<std::optional<hoard::v1::MatchRecord>> record =
          (*store)->GetRecord(stored.match.match_id());
      if (!record.ok()) return Fail(kExitFailure, std::string(record.status().message()));
      if (!record->has_value()) continue;  // aborted: no record
      google::protobuf::util::JsonPrintOptions options;
      options.preserve_proto_field_names = true;
      options.always_print_primitive_fields = true;  // every field, as docs/records.md says
      std::string line;
      (void)google::protobuf::util::MessageToJsonString(**record, &line, options);
      records_out.stream() << line << "\n";
      ++written_records;
    }
  }

  int written_results = 0;
  if (results) {
    absl::StatusOr<std::vector<db::RatedMatch>> rated = (*store)->RatedMatches(scope);
    if (!rated.ok()) return Fail(kExitFailure, std::string(rated.status().message()));
    std::stable_sort(rated->begin(), rated->end(),
                     [](const db::RatedMatch& a, const db::RatedMatch& b) {
                       return std::tie(a.tournament_id, a.schedule_index, a.sequence) <
                              std::tie(b.tournament_id, b.schedule_index, b.sequence);
                     });
    std::ostream& out = results_out.stream();
    out << "match_id,bot,place\n";
    for (const db::RatedMatch& match : *rated) {
      auto id = ids.find(match.sequence);
      const std::string match_id = id == ids.end() ? absl::StrCat("m", match.sequence) : id->second;
      for (const db::RatedSeat& seat : match.seats) {
        out << tournament::CsvCell(match_id) << "," << tournament::CsvCell(seat.bot) << ","
            << seat.rank << "\n";
      }
      ++written_results;
    }
  }
  for (Output* o : {&results_out, &records_out}) {
    o->stream().flush();
    if (!o->stream()) return Fail(kExitFailure, "cannot finish writing the export");
  }
  std::cerr << "hoard: exported " << written_results << " results and " << written_records
            << " records of "
            << (filter.tournament_id != 0 ? absl::StrCat("tournament ", filter.tournament_id)
                                          : absl::StrCat("game ", scope.game))
            << " from " << path << "\n";
  return kExitOk;
}

}  // namespace hoard::cli
