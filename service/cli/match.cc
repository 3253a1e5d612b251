// hoard match create|get|list|watch: matches on a server.

#include <iostream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
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

const std::vector<FlagSpec>& MatchFlags() {
  static const auto* specs = new std::vector<FlagSpec>{
      {"server", "HOST:PORT", kServerHelp},
      {"token-file", "FILE",
       "the token to send (default $HOARD_TOKEN, else for create a local server's admin "
       "token)"},
      {"game", "ID", "create: the game (default village); list: only this game's matches"},
      {"seats", "A,B,...", "create: per seat open, builtin:NAME or bot:NAME"},
      {"option", "NAME=VALUE", "create: a game option (repeatable)", true},
      {"seed", "N", "create: the match seed (default: random)"},
      {"decision-ms", "MS", "create: time per decision (default 5000)"},
      {"bank-ms", "MS", "create: time bank per seat (default 30000)"},
      {"max-strikes", "N", "create: time-outs before a forfeit (default 3; 0 never)"},
      {"record", "", "get: print the full record (JSON) of a finished match"},
      {"json", "", "watch: print each event as one line of JSON (with its view)"},
      {"help", "", "show this help"},
  };
  return *specs;
}

std::string Json(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  return json;
}

void PrintMatch(const hoard::v1::Match& match) {
  std::cout << absl::StrFormat("%s  %s  %s  %d actions\n", match.match_id(), match.game(),
                               hoard::v1::MatchStatus_Name(match.status()), match.actions());
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
      PrintMatch(event.snapshot().match());
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
int Watch(const ParsedArgs& args, const std::string& id, hoard::v1::Arena::Stub& stub,
          const std::string& server, grpc::Channel& channel) {
  hoard::v1::WatchMatchRequest request;
  request.set_match_id(id);
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<hoard::v1::MatchEvent>> reader =
      stub.WatchMatch(&context, request);
  const bool json = args.Has("json");
  hoard::v1::MatchEvent event;
  while (reader->Read(&event)) {
    if (json) {
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

int Create(const ParsedArgs& args, hoard::v1::Arena::Stub& stub, const std::string& server,
           grpc::Channel& channel) {
  hoard::v1::CreateMatchRequest request;
  request.set_game(args.Get("game", "village"));
  if (!args.Has("seats")) return Fail(kExitUsage, "create needs --seats");
  for (absl::string_view seat : absl::StrSplit(args.Get("seats", ""), ',')) {
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
  std::map<std::string, std::string> options;
  if (absl::Status s = ReadOptionFlags(args, &options); !s.ok()) {
    return Fail(kExitUsage, std::string(s.message()));
  }
  request.mutable_options()->insert(options.begin(), options.end());
  if (args.Has("seed")) {
    absl::StatusOr<std::uint64_t> seed = ReadSeedFlag(args, 0);
    if (!seed.ok()) return Fail(kExitUsage, std::string(seed.status().message()));
    request.set_seed(*seed);
  }
  for (const auto& [flag, setter] :
       std::vector<std::pair<std::string, void (hoard::v1::TimeControl::*)(int32_t)>>{
           {"decision-ms", &hoard::v1::TimeControl::set_decision_ms},
           {"bank-ms", &hoard::v1::TimeControl::set_bank_ms},
           {"max-strikes", &hoard::v1::TimeControl::set_max_strikes}}) {
    if (!args.Has(flag)) continue;
    absl::StatusOr<long long> value = ParseInt(flag, args.Get(flag, ""));
    if (!value.ok()) return Fail(kExitUsage, std::string(value.status().message()));
    (request.mutable_time_control()->*setter)(static_cast<int32_t>(*value));
  }
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
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, MatchFlags());
  if (!parsed.ok()) return Fail(kExitUsage, std::string(parsed.status().message()));
  if (parsed->Has("help")) {
    std::cout << "usage: hoard match create --seats SEATS [flags]\n"
                 "       hoard match get ID [--record]\n"
                 "       hoard match list [--game ID]\n"
                 "       hoard match watch ID [--json]\n\n"
                 "Creates, shows, lists and watches matches on a Hoard server. watch\n"
                 "prints what a spectator is told, as it happens: the match, every\n"
                 "action (a sealed decision's answers once all are in), time-outs,\n"
                 "forfeits, disconnects, and the final table; it returns when the\n"
                 "match ends (a finished match: at once, with its final table).\n\n"
              << FlagsHelp(MatchFlags());
    return kExitOk;
  }
  const std::vector<std::string>& words = parsed->positionals;
  const std::string server = ServerAddress(*parsed);
  // Only create needs the admin role; the rest are reads.
  const bool create = words.size() == 1 && words[0] == "create";
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      create ? AdminChannel(server, parsed->Get("token-file", ""))
             : ReadChannel(server, parsed->Get("token-file", ""));
  if (!channel.ok()) return Fail(kExitUsage, std::string(channel.status().message()));
  auto stub = hoard::v1::Arena::NewStub(*channel);
  if (create) return Create(*parsed, *stub, server, **channel);
  if (words.size() == 2 && words[0] == "get") {
    hoard::v1::GetMatchRequest request;
    request.set_match_id(words[1]);
    hoard::v1::GetMatchResponse response;
    grpc::ClientContext context;
    const grpc::Status status = stub->GetMatch(&context, request, &response);
    if (!status.ok()) return FailWith(status, server, **channel);
    if (parsed->Has("record")) {
      if (!response.has_record()) {
        return Fail(kExitFailure, "match " + words[1] + " is not over: it has no record yet");
      }
      std::cout << Json(response.record());
      return kExitOk;
    }
    PrintMatch(response.match());
    return kExitOk;
  }
  if (words.size() == 1 && words[0] == "list") {
    hoard::v1::ListMatchesRequest request;
    request.set_game(parsed->Get("game", ""));
    for (;;) {
      hoard::v1::ListMatchesResponse response;
      grpc::ClientContext context;
      const grpc::Status status = stub->ListMatches(&context, request, &response);
      if (!status.ok()) return FailWith(status, server, **channel);
      for (const hoard::v1::Match& match : response.matches()) PrintMatch(match);
      if (response.next_page_token().empty()) return kExitOk;
      request.set_page_token(response.next_page_token());
    }
  }
  if (words.size() == 2 && words[0] == "watch") {
    return Watch(*parsed, words[1], *stub, server, **channel);
  }
  return Fail(
      kExitUsage,
      SubcommandError("match", *parsed, {"create", "get", "list", "watch"},
                      "usage: hoard match create|get ID|list|watch ID [flags] (see --help)"));
}

}  // namespace hoard::cli
