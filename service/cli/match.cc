// hoard match create|get|list|watch: matches on a server.

#include <iostream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "engine/player_id.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/grpcpp.h"
#include "hoard/v1/arena.grpc.pb.h"
#include "service/cli/channel.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"

namespace hoard::cli {
namespace {

// What the flags of hoard match say.
struct MatchFlags {
  std::string server;
  std::string token_file;
  std::string game;
  std::string seats;
  std::map<std::string, std::string> options;
  std::optional<std::uint64_t> seed;
  std::optional<int> decision_ms, bank_ms, max_strikes;
  bool record = false;
  bool json = false;
  int limit = 50;
  std::string status;
  std::vector<std::string> words;
};

std::string Json(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  return json;
}

void PrintMatch(const hoard::v1::Match& match) {
  std::cout << absl::StrFormat("%s  %s  %s  %s\n", match.match_id(), match.game(),
                               hoard::v1::MatchStatus_Name(match.status()),
                               Counted(match.actions(), "action", "actions"));
  for (const hoard::v1::SeatInfo& seat : match.seats()) {
    std::cout << absl::StrFormat(
        "  seat %d  %-20s %s  score %g  rank %d  time-outs %d  illegal %d  disconnects %d%s\n",
        seat.seat(), seat.player(), seat.connected() ? "connected   " : "disconnected",
        seat.score(), seat.rank(), seat.timeouts(), seat.illegal_answers(), seat.disconnects(),
        seat.forfeited() ? "  forfeited" : "");
  }
}

// One line per event: what a spectator is told, as it happens.
void PrintEvent(const hoard::v1::MatchEvent& event) {
  switch (event.kind_case()) {
    case hoard::v1::MatchEvent::kSnapshot:
      // A match that is over is told at once with its `finished` event,
      // which shows the same table.
      if (event.snapshot().match().status() == hoard::v1::MATCH_STATUS_RUNNING) {
        PrintMatch(event.snapshot().match());
      }
      break;
    case hoard::v1::MatchEvent::kActionTaken: {
      const hoard::v1::ActionTaken& taken = event.action_taken();
      std::cout << absl::StrFormat("%4d. seat %d: %s%s\n", event.step(), taken.seat(), taken.text(),
                                   taken.by_default() ? " (played for it)" : "");
      break;
    }
    case hoard::v1::MatchEvent::kFault: {
      std::string kind = hoard::v1::SeatFault::Kind_Name(event.fault().kind());
      absl::AsciiStrToLower(&kind);
      std::cout << absl::StrFormat(
          "      seat %d: %s\n", event.fault().seat(),
          absl::StrReplaceAll(absl::StripPrefix(kind, "kind_"), {{"_", " "}}));
      break;
    }
    case hoard::v1::MatchEvent::kFinished:
      std::cout << "match over\n";
      PrintMatch(event.finished().match());
      break;
    case hoard::v1::MatchEvent::KIND_NOT_SET:
      break;
  }
  std::cout.flush();
}

// Follows a match until it ends: each event as it comes.
int Watch(const MatchFlags& flags, const std::string& id, hoard::v1::Arena::Stub& stub,
          const std::string& server, grpc::Channel& channel) {
  hoard::v1::WatchMatchRequest request;
  request.set_match_id(id);
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<hoard::v1::MatchEvent>> reader =
      stub.WatchMatch(&context, request);
  hoard::v1::MatchEvent event;
  while (reader->Read(&event)) {
    if (flags.json) {
      google::protobuf::util::JsonPrintOptions options;
      options.preserve_proto_field_names = true;
      std::string line;
      (void)google::protobuf::util::MessageToJsonString(event, &line, options);
      std::cout << line << "\n" << std::flush;
    } else {
      PrintEvent(event);
    }
  }
  const grpc::Status status = reader->Finish();
  if (!status.ok()) return FailWith(status, server, channel);
  return kExitOk;
}

// --status NAME: a MatchStatus by its name in lower case, without its
// prefix ("running" for MATCH_STATUS_RUNNING); "" for any.
absl::StatusOr<hoard::v1::MatchStatus> StatusFromFlag(const std::string& name) {
  if (name.empty()) return hoard::v1::MATCH_STATUS_UNSPECIFIED;
  std::vector<std::string> names;
  for (int i = hoard::v1::MatchStatus_MIN + 1; i <= hoard::v1::MatchStatus_MAX; ++i) {
    if (!hoard::v1::MatchStatus_IsValid(i)) continue;
    const auto status = static_cast<hoard::v1::MatchStatus>(i);
    names.push_back(absl::AsciiStrToLower(
        absl::StripPrefix(hoard::v1::MatchStatus_Name(status), "MATCH_STATUS_")));
    if (names.back() == name) return status;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--status: '", name, "' is none of ", absl::StrJoin(names, ", ")));
}

// The matches the flags ask for, newest first, at most --limit of them
// (0: all), and how many more there are.
int List(const MatchFlags& flags, hoard::v1::Arena::Stub& stub, const std::string& server,
         grpc::Channel& channel) {
  absl::StatusOr<hoard::v1::MatchStatus> status = StatusFromFlag(flags.status);
  if (!status.ok()) return Fail(kExitUsage, std::string(status.status().message()));
  hoard::v1::ListMatchesRequest request;
  request.set_game(flags.game);
  request.set_status(*status);
  request.set_page_size(500);  // the server's largest page
  // The server lists newest first: the first --limit are shown, the rest
  // only counted.
  std::int64_t shown = 0;
  std::int64_t more = 0;
  for (;;) {
    hoard::v1::ListMatchesResponse response;
    grpc::ClientContext context;
    const grpc::Status listed = stub.ListMatches(&context, request, &response);
    if (!listed.ok()) return FailWith(listed, server, channel);
    for (const hoard::v1::Match& match : response.matches()) {
      if (flags.limit > 0 && shown >= flags.limit) {
        ++more;
      } else {
        PrintMatch(match);
        ++shown;
      }
    }
    if (response.next_page_token().empty()) break;
    request.set_page_token(response.next_page_token());
  }
  if (more > 0) {
    std::cout << absl::StrFormat(
        "... and %d older match%s: --limit %d shows them all (0: no limit)\n", more,
        more == 1 ? "" : "es", shown + more);
  }
  return kExitOk;
}

int Create(const MatchFlags& flags, hoard::v1::Arena::Stub& stub, const std::string& server,
           grpc::Channel& channel) {
  hoard::v1::CreateMatchRequest request;
  request.set_game(flags.game.empty() ? "village" : flags.game);
  if (flags.seats.empty()) return Fail(kExitUsage, "create needs --seats");
  for (absl::string_view seat : absl::StrSplit(flags.seats, ',')) {
    hoard::v1::SeatSpec* spec = request.add_seats();
    if (seat == engine::kOpenSeat) {
      spec->set_open(true);
      continue;
    }
    absl::StatusOr<engine::PlayerId> player = engine::PlayerId::Parse(seat);
    if (!player.ok()) {
      return Fail(kExitUsage,
                  absl::StrCat("a seat is open, builtin:NAME or bot:NAME, not '", seat, "'"));
    }
    if (player->is_builtin()) {
      spec->set_builtin(player->name());
    } else {
      spec->set_bot(player->name());
    }
  }
  request.mutable_options()->insert(flags.options.begin(), flags.options.end());
  if (flags.seed) request.set_seed(*flags.seed);
  if (flags.decision_ms) request.mutable_time_control()->set_decision_ms(*flags.decision_ms);
  if (flags.bank_ms) request.mutable_time_control()->set_bank_ms(*flags.bank_ms);
  if (flags.max_strikes) request.mutable_time_control()->set_max_strikes(*flags.max_strikes);
  hoard::v1::CreateMatchResponse response;
  grpc::ClientContext context;
  const grpc::Status status = stub.CreateMatch(&context, request, &response);
  if (!status.ok()) return FailWith(status, server, channel);
  std::cout << "match " << response.match_id() << "\n";
  for (const hoard::v1::SeatToken& token : response.seat_tokens()) {
    std::cout << "seat " << token.seat() << " token " << token.token() << "\n";
  }
  return kExitOk;
}

}  // namespace

int RunMatch(const std::vector<std::string>& args) {
  MatchFlags flags;
  CommandLine command("match",
                      "usage: hoard match create --seats SEATS [flags]\n"
                      "       hoard match get ID [--record]\n"
                      "       hoard match list [--limit N] [--status STATUS] [--game ID]\n"
                      "       hoard match watch ID [--json]\n\n"
                      "Creates, shows, lists and watches matches on a Hoard server. watch\n"
                      "prints what a spectator is told, as it happens: the match, every\n"
                      "action (a sealed decision's answers once all are in), time-outs,\n"
                      "forfeits, disconnects, and the final table; it returns when the\n"
                      "match ends (a match that is over: at once, with its final table).\n"
                      "list prints the newest matches first, --limit of them, and says how\n"
                      "many older ones it left out.");
  CLI::App& app = command.app();
  app.add_option("--server", flags.server, kServerHelp)->type_name("HOST:PORT");
  app.add_option("--token-file", flags.token_file,
                 "the token to send (default $HOARD_TOKEN, else for create a local server's "
                 "admin token)")
      ->type_name("FILE");
  app.add_option("--game", flags.game,
                 "create: the game (default village); list: only this game's matches")
      ->type_name("ID");
  app.add_option("--seats", flags.seats, "create: per seat open, builtin:NAME or bot:NAME")
      ->type_name("A,B,...");
  AddGameOptionFlag(app, &flags.options, "create: a game option (repeatable)");
  app.add_option("--seed", flags.seed, "create: the match seed (default: random)")
      ->type_name("N")
      ->transform(Seed());
  app.add_option("--decision-ms", flags.decision_ms, "create: time per decision (default 5000)")
      ->type_name("MS")
      ->transform(WholeNumber());
  app.add_option("--bank-ms", flags.bank_ms, "create: time bank per seat (default 30000)")
      ->type_name("MS")
      ->transform(WholeNumber());
  app.add_option("--max-strikes", flags.max_strikes,
                 "create: time-outs before a forfeit (default 3; 0 never)")
      ->type_name("N")
      ->transform(WholeNumber());
  app.add_option("--limit", flags.limit, "list: at most N matches, the newest (default 50; 0: all)")
      ->type_name("N")
      ->transform(InRange(0, 1000000));
  app.add_option("--status", flags.status,
                 "list: only the matches of this status: running, finished or aborted")
      ->type_name("STATUS");
  app.add_flag("--record", flags.record, "get: print the full record (JSON) of a finished match");
  app.add_flag("--json", flags.json, "watch: print each event as one line of JSON (with its view)");
  command.Words(&flags.words);
  if (std::optional<int> exit = command.ParseOrExit(args)) return *exit;
  const std::vector<std::string>& words = flags.words;
  const std::string server = ServerAddress(flags.server);
  // Only create needs the admin role; the rest are reads.
  const bool create = words.size() == 1 && words[0] == "create";
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      create ? AdminChannel(server, flags.token_file) : ReadChannel(server, flags.token_file);
  if (!channel.ok()) return Fail(kExitUsage, std::string(channel.status().message()));
  auto stub = hoard::v1::Arena::NewStub(*channel);
  if (create) return Create(flags, *stub, server, **channel);
  if (words.size() == 2 && words[0] == "get") {
    hoard::v1::GetMatchRequest request;
    request.set_match_id(words[1]);
    hoard::v1::GetMatchResponse response;
    grpc::ClientContext context;
    const grpc::Status status = stub->GetMatch(&context, request, &response);
    if (!status.ok()) return FailWith(status, server, **channel);
    if (flags.record) {
      if (!response.has_record()) {
        return Fail(kExitFailure, "match " + words[1] + " is not over: it has no record yet");
      }
      std::cout << Json(response.record());
      return kExitOk;
    }
    PrintMatch(response.match());
    return kExitOk;
  }
  if (words.size() == 1 && words[0] == "list") return List(flags, *stub, server, **channel);
  if (words.size() == 2 && words[0] == "watch") {
    return Watch(flags, words[1], *stub, server, **channel);
  }
  return Fail(
      kExitUsage,
      SubcommandError("match", words, {"create", "get", "list", "watch"},
                      "usage: hoard match create|get ID|list|watch ID [flags] (see --help)"));
}

}  // namespace hoard::cli
