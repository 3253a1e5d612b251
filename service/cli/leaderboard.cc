// hoard leaderboard: ratings from a database, or from a server over gRPC.

#include "tournament/leaderboard.h"

#include <iostream>
#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "hoard/v1/tournament.grpc.pb.h"
#include "service/cli/channel.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"
#include "service/cli/json.h"
#include "tournament/manager.h"

namespace hoard::cli {
namespace {

absl::Status FromGrpc(const grpc::Status& status, const std::string& server,
                      grpc::Channel& channel) {
  if (status.ok()) return absl::OkStatus();
  if (NoServerAnswers(status.error_code(), status.error_message(), channel)) {
    return absl::UnavailableError(NoServerHint(server));
  }
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      absl::StrCat(server, ": ", status.error_message()));
}

// What `hoard leaderboard` reads from its command line.
struct LeaderboardFlags {
  std::string game;
  std::string tournament;
  std::string system_name = "ml";
  std::string path;
  std::string server;
  std::string token_file;
  bool remote = false, head_to_head = false, ranks = false, all = false, json = false, csv = false;
};

void AddLeaderboardFlags(CLI::App& app, LeaderboardFlags* f) {
  app.add_option("--game", f->game, "the game (or give --tournament)")->type_name("ID");
  app.add_option("--tournament", f->tournament, "only this tournament's matches")->type_name("ID");
  app.add_option("--system", f->system_name, "rank by ml (default), elo or openskill")
      ->type_name("NAME");
  app.add_option("--db", f->path,
                 "read this database: a SQLite file (default hoard.db) or postgresql://…")
      ->type_name("FILE|URL")
      ->check(NoPasswordInAddress());
  app.add_option("--server", f->server, "ask this server instead of reading a database")
      ->type_name("HOST:PORT");
  app.add_flag("--remote", f->remote,
               "ask the server of $HOARD_SERVER (else 127.0.0.1:50051) instead");
  app.add_option("--token-file", f->token_file, "the token to send (default $HOARD_TOKEN)")
      ->type_name("FILE");
  app.add_flag("--head-to-head", f->head_to_head, "print the head-to-head table too");
  app.add_flag("--ranks", f->ranks, "print each bot's probability of each place too");
  app.add_flag("--all", f->all, "rank every bot together (default: provisional ratings below)");
  app.add_flag("--json", f->json, "print JSON");
  app.add_flag("--csv", f->csv, "print CSV");
}

void PrintTables(const LeaderboardFlags& f, const hoard::v1::Leaderboard& board,
                 const hoard::v1::HeadToHeadTable& table) {
  if (f.json && f.head_to_head) {
    hoard::v1::RatingSnapshot both;  // {"leaderboard": ..., "head_to_head": ...}
    *both.mutable_leaderboard() = board;
    *both.mutable_head_to_head() = table;
    std::cout << ToJson(both);
  } else if (f.json) {
    std::cout << ToJson(board);
  } else if (f.csv) {
    std::cout << tournament::LeaderboardCsv(board);
  } else {
    std::cout << tournament::FormatLeaderboard(board, /*mark_provisional=*/true);
    if (f.ranks) std::cout << "\n" << tournament::RankProbabilityText(board);
    if (f.head_to_head) std::cout << "\n" << tournament::HeadToHeadText(table);
  }
}

}  // namespace

int RunLeaderboard(const std::vector<std::string>& args) {
  LeaderboardFlags flags;
  CommandLine command(
      "leaderboard",
      "usage: hoard leaderboard --game ID [--tournament ID] [--system NAME] [--json|--csv]\n"
      "       [--db FILE | --server HOST:PORT | --remote]\n\n"
      "Ratings of every bot that played the game (or one tournament): maximum likelihood\n"
      "with 95% intervals, Elo and OpenSkill, with matches, wins, average score\n"
      "and place. docs/ratings.md gives the formulas.\n\n"
      "The table ranks established ratings first and provisional ones (marked ?:\n"
      "fewer than 15 matches and an ML interval wider than 400 points) below them;\n"
      "--all ranks every bot together. --json and --csv keep the same order and say\n"
      "which ratings are provisional.\n\n"
      "--ranks adds who is likely best: each bot's probability of each place in the\n"
      "order of strength (the first ten), from the ML model's posterior; --json\n"
      "always carries them (rank_probabilities), --csv the first (p_first).\n\n"
      "It reads a database (--db, default hoard.db) unless --server or --remote asks\n"
      "a server instead; $HOARD_SERVER is read only with --remote.");
  AddLeaderboardFlags(command.app(), &flags);
  if (std::optional<int> exit = command.ParseOrExit(args)) return *exit;
  auto& [game, tournament, system_name, path, server, token_file, remote, head_to_head, ranks, all,
         json, csv] = flags;
  if (json && csv) return Fail(kExitUsage, "give --json or --csv, not both");
  if ((csv || json) && ranks) {
    return Fail(kExitUsage, "--ranks prints as a table; --json and --csv carry the probabilities");
  }
  if (csv && head_to_head) {
    return Fail(kExitUsage, "--head-to-head prints as a table or with --json, not as CSV");
  }
  absl::StatusOr<hoard::v1::RatingSystem> system = tournament::ParseRatingSystem(system_name);
  if (!system.ok()) return Fail(kExitUsage, "--system: " + std::string(system.status().message()));
  std::int64_t tournament_id = 0;
  if (!tournament.empty() && (!absl::SimpleAtoi(tournament, &tournament_id) || tournament_id < 1)) {
    return Fail(kExitUsage, "--tournament needs a tournament id (a number from 1)");
  }
  if (game.empty() && tournament_id == 0) return Fail(kExitUsage, "give --game (or --tournament)");
  remote = remote || !server.empty();
  if (remote && !path.empty()) {
    return Fail(kExitUsage, "give --db, or --server (--remote), not both");
  }
  hoard::v1::GetLeaderboardRequest request;
  request.set_game(game);
  request.set_tournament_id(tournament_id);
  request.set_system(*system);
  request.set_all(all);
  hoard::v1::GetHeadToHeadRequest h2h_request;
  h2h_request.set_game(request.game());
  h2h_request.set_tournament_id(tournament_id);

  absl::StatusOr<hoard::v1::Leaderboard> board;
  absl::StatusOr<hoard::v1::HeadToHeadTable> table = hoard::v1::HeadToHeadTable();
  if (remote) {
    server = ServerAddress(server);
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = ReadChannel(server, token_file);
    if (!channel.ok()) return Fail(kExitUsage, std::string(channel.status().message()));
    auto stub = hoard::v1::Tournaments::NewStub(*channel);
    hoard::v1::Leaderboard response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    absl::Status status =
        FromGrpc(stub->GetLeaderboard(&context, request, &response), server, **channel);
    board = status.ok() ? absl::StatusOr<hoard::v1::Leaderboard>(response) : status;
    if (board.ok() && head_to_head) {
      grpc::ClientContext h2h_context;
      h2h_context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
      hoard::v1::HeadToHeadTable h2h;
      absl::Status s =
          FromGrpc(stub->GetHeadToHead(&h2h_context, h2h_request, &h2h), server, **channel);
      table = s.ok() ? absl::StatusOr<hoard::v1::HeadToHeadTable>(h2h) : s;
    }
  } else {
    if (path.empty()) path = "hoard.db";
    if (path != ":memory:" && !db::IsPostgresUrl(path) && access(path.c_str(), F_OK) != 0) {
      const char* env = std::getenv("HOARD_SERVER");
      return Fail(kExitFailure,
                  absl::StrCat("no database ", path, " (run a tournament first, or give --db",
                               env != nullptr && *env != '\0'
                                   ? absl::StrCat("; --remote asks the server at ", env)
                                   : "",
                               ")"));
    }
    absl::StatusOr<std::unique_ptr<db::MatchStore>> store =
        db::OpenStore(path, db::StoreAccess::kReadOnly);
    if (!store.ok()) return Fail(kExitFailure, std::string(store.status().message()));
    tournament::TournamentManager reader(store->get(), nullptr);
    board = reader.GetLeaderboard(request);
    if (board.ok() && head_to_head) table = reader.GetHeadToHead(h2h_request);
  }
  if (!board.ok()) {
    const int code = board.status().code() == absl::StatusCode::kInvalidArgument ||
                             board.status().code() == absl::StatusCode::kNotFound
                         ? kExitUsage
                         : kExitFailure;
    return Fail(code, std::string(board.status().message()));
  }
  if (!table.ok()) return Fail(kExitFailure, std::string(table.status().message()));

  PrintTables(flags, *board, *table);
  return kExitOk;
}

}  // namespace hoard::cli
