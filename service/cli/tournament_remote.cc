// hoard tournament create|list|get|watch|cancel: tournaments a server runs.

#include <iostream>
#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "hoard/v1/tournament.grpc.pb.h"
#include "service/cli/channel.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"
#include "service/cli/json.h"
#include "service/cli/tournament_cli.h"
#include "tournament/leaderboard.h"

namespace hoard::cli {
namespace {

using hoard::v1::Tournament;

std::string Title(const Tournament& t) {
  return t.spec().name().empty() ? t.spec().game()
                                 : absl::StrCat(t.spec().name(), ", ", t.spec().game());
}

// One line: id, status, what, progress, when.
std::string ListLine(const Tournament& t) {
  return absl::StrFormat(
      "%4d  %-9s  %-32s  %d/%d matches%s  created %s", t.id(), StatusName(t.status()), Title(t),
      t.progress().finished(), t.progress().scheduled(),
      t.progress().failed() > 0 ? absl::StrCat(", ", t.progress().failed(), " failed") : "",
      absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", absl::FromUnixMillis(t.created_unix_ms()),
                       absl::UTCTimeZone()));
}

void PrintTournament(const Tournament& t) {
  const hoard::v1::TournamentProgress& p = t.progress();
  std::cout << absl::StrFormat("Tournament %d (%s): %s, %d of %d matches finished", t.id(),
                               Title(t), StatusName(t.status()), p.finished(), p.scheduled());
  if (p.running() > 0) std::cout << ", " << p.running() << " running";
  if (p.failed() > 0) std::cout << ", " << p.failed() << " failed";
  if (t.status() == hoard::v1::TOURNAMENT_STATUS_RUNNING && p.eta_ms() > 0) {
    std::cout << absl::StrFormat(", %.1f matches/s, ETA %s", p.matches_per_second(),
                                 Clock(p.eta_ms()));
  }
  std::cout << "\n";
  if (!t.error().empty()) std::cout << "error: " << t.error() << "\n";
  if (t.spec().format() == hoard::v1::FORMAT_SWISS) {
    std::cout << "Swiss round " << p.round() << " of " << t.spec().rounds() << "\n";
  }
  std::cout << StandingLines(t, p.standings_size());
}

absl::StatusOr<std::int64_t> TournamentId(const std::vector<std::string>& words) {
  std::int64_t id = 0;
  if (words.size() != 2 || !absl::SimpleAtoi(words[1], &id) || id < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("tournament ", words[0], " needs the tournament's id (a number from 1)"));
  }
  return id;
}

class Client {
 public:
  Client(const TournamentFlags& flags, std::string server, std::shared_ptr<grpc::Channel> channel)
      : flags_(flags),
        server_(std::move(server)),
        channel_(std::move(channel)),
        stub_(hoard::v1::Tournaments::NewStub(channel_)) {}

  int Create() {
    absl::StatusOr<hoard::v1::TournamentSpec> spec = SpecToRun(flags_);
    if (!spec.ok()) return Fail(kExitUsage, std::string(spec.status().message()));
    hoard::v1::CreateTournamentRequest request;
    *request.mutable_spec() = *std::move(spec);
    Tournament created;
    grpc::ClientContext context;
    if (grpc::Status s = stub_->CreateTournament(&context, request, &created); !s.ok()) {
      return FailWith(s, server_, *channel_);
    }
    if (flags_.watch) return Watch(created.id());
    if (flags_.json) {
      std::cout << ToJson(created);
    } else {
      std::cout << "tournament " << created.id() << "\n";
    }
    return kExitOk;
  }

  int List() {
    hoard::v1::ListTournamentsResponse response;
    grpc::ClientContext context;
    if (grpc::Status s = stub_->ListTournaments(&context, {}, &response); !s.ok()) {
      return FailWith(s, server_, *channel_);
    }
    if (flags_.json) {
      std::cout << ToJson(response);
      return kExitOk;
    }
    if (response.tournaments().empty()) std::cout << "no tournaments\n";
    for (const Tournament& t : response.tournaments()) std::cout << ListLine(t) << "\n";
    return kExitOk;
  }

  int Get(std::int64_t id) {
    hoard::v1::GetTournamentRequest request;
    request.set_id(id);
    Tournament t;
    grpc::ClientContext context;
    if (grpc::Status s = stub_->GetTournament(&context, request, &t); !s.ok()) {
      return FailWith(s, server_, *channel_);
    }
    if (flags_.json) {
      std::cout << ToJson(t);
    } else {
      PrintTournament(t);
    }
    return kExitOk;
  }

  int Cancel(std::int64_t id) {
    hoard::v1::CancelTournamentRequest request;
    request.set_id(id);
    Tournament t;
    grpc::ClientContext context;
    if (grpc::Status s = stub_->CancelTournament(&context, request, &t); !s.ok()) {
      return FailWith(s, server_, *channel_);
    }
    std::cout << "tournament " << id << ": " << StatusName(t.status())
              << " (matches in flight finish and are stored)\n";
    return kExitOk;
  }

  // Progress on stderr until it ends; then its leaderboard, and the exit
  // status of how it ended.
  int Watch(std::int64_t id) {
    hoard::v1::WatchTournamentRequest request;
    request.set_id(id);
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReader<Tournament>> reader =
        stub_->WatchTournament(&context, request);
    ProgressDisplay display(flags_.quiet);
    Tournament t;
    Tournament last;
    bool any = false;
    while (reader->Read(&t)) {
      display.Update(t, false);
      last = t;
      any = true;
    }
    if (grpc::Status s = reader->Finish(); !s.ok()) return FailWith(s, server_, *channel_);
    if (!any) return Fail(kExitFailure, absl::StrCat("tournament ", id, ": nothing to watch"));
    display.Update(last, true);
    if (int printed = PrintLeaderboard(last); printed != kExitOk) return printed;
    switch (last.status()) {
      case hoard::v1::TOURNAMENT_STATUS_FINISHED:
        return kExitOk;
      case hoard::v1::TOURNAMENT_STATUS_CANCELLED:
        return Fail(kExitFailure, absl::StrCat("tournament ", id, " was cancelled"));
      default:
        return Fail(kExitFailure,
                    absl::StrCat("tournament ", id, " ended ", StatusName(last.status()),
                                 last.error().empty() ? "" : ": ", last.error()));
    }
  }

 private:
  int PrintLeaderboard(const Tournament& t) {
    hoard::v1::GetLeaderboardRequest request;
    request.set_game(t.spec().game());
    request.set_tournament_id(t.id());
    hoard::v1::Leaderboard board;
    grpc::ClientContext context;
    if (grpc::Status s = stub_->GetLeaderboard(&context, request, &board); !s.ok()) {
      return FailWith(s, server_, *channel_);
    }
    if (flags_.json) {
      std::cout << ToJson(board);
      return kExitOk;
    }
    std::cout << absl::StrFormat("Tournament %d (%s): %s, %d of %d matches\n\n", t.id(), Title(t),
                                 StatusName(t.status()), t.progress().finished(),
                                 t.progress().scheduled())
              << SwissTable(t)
              << (board.matches() == 0 ? "no match stored\n"
                                       : tournament::FormatLeaderboard(board));
    return kExitOk;
  }

  const TournamentFlags& flags_;
  const std::string server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<hoard::v1::Tournaments::Stub> stub_;
};

}  // namespace

std::string StatusName(hoard::v1::TournamentStatus status) {
  return hoard::v1::TournamentStatus_Name(status).substr(sizeof("TOURNAMENT_STATUS_") - 1);
}

int RunTournamentOnServer(const TournamentFlags& flags) {
  const std::vector<std::string>& words = flags.words;
  const std::string& verb = words[0];
  const std::vector<std::string> verbs = {"create", "list", "get", "watch", "cancel"};
  if (std::find(verbs.begin(), verbs.end(), verb) == verbs.end()) {
    const std::string likely = DidYouMean(verb, verbs);
    return Fail(kExitUsage,
                absl::StrCat("unknown tournament command '", verb, "' (",
                             likely.empty() ? "commands: create, list, get, watch, cancel; "
                                              "one run here takes flags only"
                                            : absl::StrCat("did you mean '", likely, "'?"),
                             ")"));
  }
  const bool takes_id = verb == "get" || verb == "watch" || verb == "cancel";
  absl::StatusOr<std::int64_t> id = takes_id ? TournamentId(words) : 0;
  if (!id.ok()) return Fail(kExitUsage, std::string(id.status().message()));
  if (!takes_id && words.size() > 1) {
    return Fail(kExitUsage,
                absl::StrCat("tournament ", verb, " takes no argument, got '", words[1], "'"));
  }
  const std::string server = ServerAddress(flags.servers.empty() ? "" : flags.servers.back());
  // create and cancel need the admin role; list, get and watch are reads.
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      verb == "create" || verb == "cancel" ? AdminChannel(server, flags.token_file)
                                           : ReadChannel(server, flags.token_file);
  if (!channel.ok()) return Fail(kExitUsage, std::string(channel.status().message()));
  Client client(flags, server, *channel);
  if (verb == "create") return client.Create();
  if (verb == "list") return client.List();
  if (verb == "get") return client.Get(*id);
  if (verb == "watch") return client.Watch(*id);
  return client.Cancel(*id);
}

}  // namespace hoard::cli
