// hoard ladder create|list|show|close: the standing ladders a server runs.
// A ladder is a tournament of FORMAT_LADDER (docs/tournaments.md,
// "Ladders"), found here by its name.

#include <iostream>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "hoard/v1/tournament.grpc.pb.h"
#include "service/cli/channel.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"
#include "service/cli/json.h"
#include "service/cli/tournament_cli.h"
#include "tournament/leaderboard.h"
#include "tournament/spec.h"

namespace hoard::cli {
namespace {

using hoard::v1::Tournament;

constexpr char kHelp[] =
    "usage: hoard ladder create NAME --game ID [--players N] [--open] [--participant "
    "NAME=KIND]...\n"
    "       hoard ladder freeze NAME [--top K] [--confidence P] [--budget N]\n"
    "       hoard ladder list|show NAME|close NAME [--server HOST:PORT] [--json]\n"
    "\n"
    "A ladder is a tournament that never ends: the server makes its own matches among\n"
    "the bots present, each next table chosen for what its result teaches about the\n"
    "ranking, for as long as the ladder runs. Bots join it by its name (hoard bot\n"
    "--ladder NAME, or the SDKs' --ladder) and leave by disconnecting; a bot that comes\n"
    "back keeps its rating. Its built-in participants are always present.\n"
    "\n"
    "create starts one (admin token); list shows the ladders; show NAME its standings\n"
    "and leaderboard (maximum likelihood over all its matches); close NAME ends it\n"
    "(admin token; the matches in flight finish and are stored); freeze NAME starts\n"
    "its final evaluation (admin token): no bot joins any more, and it plays on until\n"
    "the order of its best K is settled with probability P, or N more matches are\n"
    "played, then ends FINISHED. They talk to\n"
    "--server, else $HOARD_SERVER, else 127.0.0.1:50051.";

struct LadderFlags {
  std::string server;
  std::string token_file;
  bool json = false;
  // create
  std::string config;
  std::optional<std::string> game;
  std::optional<int> players;
  std::vector<std::string> participants;
  bool open = false;
  std::optional<int> per_bot;
  std::optional<int> placement;
  std::optional<int> concurrency;
  std::optional<std::uint64_t> seed;
  std::map<std::string, std::string> options;
  // freeze
  hoard::v1::FinalEvaluation evaluation;
  std::vector<std::string> words;
};

void AddLadderFlags(CLI::App& app, LadderFlags* flags) {
  app.add_option("--server", flags->server, kServerHelp)->type_name("HOST:PORT");
  app.add_option("--token-file", flags->token_file,
                 "the token to send (default $HOARD_TOKEN; create and close need the admin's)")
      ->type_name("FILE");
  app.add_flag("--json", flags->json, "print JSON");
  app.add_option("--config", flags->config,
                 "create: a tournament spec to start from (text format or JSON)")
      ->type_name("FILE");
  app.add_option("--game", flags->game, "create: the game")->type_name("ID");
  app.add_option("--players", flags->players, "create: players per match (default the fewest)")
      ->type_name("N")
      ->transform(InRange(2, 1000));
  app.add_option("--participant", flags->participants,
                 "create, repeatable: a participant always listed; KIND is builtin:BOT or "
                 "registered (who may join a ladder that is not open)")
      ->type_name("NAME=KIND");
  app.add_flag("--open", flags->open, "create: any bot account may join (default: the listed)");
  app.add_option("--per-bot", flags->per_bot, "create: matches one bot plays at once (default 1)")
      ->type_name("N")
      ->transform(InRange(1, tournament::kMaxLadderBotConcurrency));
  app.add_option("--placement", flags->placement,
                 "create: placement matches of a new entrant (default 3)")
      ->type_name("N")
      ->transform(InRange(1, 100));
  app.add_option("--concurrency", flags->concurrency, "create: matches at once (default 8)")
      ->type_name("N")
      ->transform(InRange(1, 10000));
  app.add_option("--seed", flags->seed, "create: seed of every deal (default: the server picks)")
      ->type_name("N")
      ->transform(Seed());
  AddGameOptionFlag(app, &flags->options, "create: a game option (repeatable)");
  app.add_option_function<int>(
         "--top", [flags](int top) { flags->evaluation.set_top(top); },
         "freeze: the places whose order the evaluation settles (default 3)")
      ->type_name("K")
      ->transform(InRange(1, 50));
  app.add_option_function<double>(
         "--confidence", [flags](double p) { flags->evaluation.set_confidence(p); },
         "freeze: the probability of that order it ends at (default 0.95)")
      ->type_name("P")
      ->transform(Number([](double p) { return p > 0 && p < 1; },
                         "{flag} needs a number above 0 and below 1, not '{value}'"));
  app.add_option_function<int>(
         "--budget", [flags](int n) { flags->evaluation.set_match_budget(n); },
         "freeze: the most matches it plays after the freeze (default 10000)")
      ->type_name("N")
      ->transform(InRange(1, 1000000));
}

// "final evaluation of the top 3: 97.1% sure of their order after 214
// matches (settled; goal 95%, budget 2000)", or "" before the freeze.
std::string EvaluationLine(const Tournament& t) {
  const hoard::v1::LadderState& state = t.progress().ladder();
  const hoard::v1::FinalEvaluation& e = t.spec().ladder().final_evaluation();
  if (!t.spec().ladder().has_final_evaluation()) return "";
  const bool over = state.settled() || t.status() == hoard::v1::TOURNAMENT_STATUS_FINISHED;
  return absl::StrFormat(
      "final evaluation of the top %d: %.1f%% sure of their order after %s (%s; goal "
      "%g%%, budget %d)\n",
      e.top(), 100 * state.confidence(), Counted(state.evaluation_matches(), "match", "matches"),
      state.settled() ? "settled"
      : over          ? "budget spent"
                      : "playing",
      100 * e.confidence(), e.match_budget());
}

// The spec create sends: --config's, changed by the flags.
absl::StatusOr<hoard::v1::TournamentSpec> LadderSpec(const LadderFlags& flags,
                                                     const std::string& name) {
  hoard::v1::TournamentSpec spec;
  if (!flags.config.empty()) {
    absl::StatusOr<hoard::v1::TournamentSpec> read = tournament::ReadSpecFile(flags.config);
    if (!read.ok()) return read.status();
    spec = *std::move(read);
  }
  spec.set_name(name);
  spec.set_format(hoard::v1::FORMAT_LADDER);
  if (flags.game) spec.set_game(*flags.game);
  if (flags.players) spec.set_players_per_match(*flags.players);
  if (!flags.participants.empty()) spec.clear_participants();
  for (const std::string& entry : flags.participants) {
    if (absl::Status s = ParticipantFromFlag(entry, spec.add_participants()); !s.ok()) return s;
  }
  if (flags.open) spec.mutable_ladder()->set_open(true);
  if (flags.per_bot) spec.mutable_ladder()->set_per_bot_concurrency(*flags.per_bot);
  if (flags.placement) spec.mutable_ladder()->set_placement_matches(*flags.placement);
  if (flags.concurrency) spec.set_concurrency(*flags.concurrency);
  if (flags.seed) spec.set_seed(*flags.seed);
  for (const auto& [option, value] : flags.options) (*spec.mutable_options())[option] = value;
  if (spec.game().empty()) return absl::InvalidArgumentError("create needs --game (or --config)");
  return spec;
}

bool Live(const Tournament& t) {
  return t.status() == hoard::v1::TOURNAMENT_STATUS_RUNNING ||
         t.status() == hoard::v1::TOURNAMENT_STATUS_STOPPED;
}

std::string Who(const Tournament& t) {
  return t.spec().ladder().open() ? "open to any bot" : "listed bots only";
}

class LadderClient {
 public:
  LadderClient(const LadderFlags& flags, std::string server, std::shared_ptr<grpc::Channel> channel)
      : flags_(flags),
        server_(std::move(server)),
        channel_(std::move(channel)),
        stub_(hoard::v1::Tournaments::NewStub(channel_)) {}

  int Create(const std::string& name) {
    absl::StatusOr<hoard::v1::TournamentSpec> spec = LadderSpec(flags_, name);
    if (!spec.ok()) return Fail(kExitUsage, std::string(spec.status().message()));
    hoard::v1::CreateTournamentRequest request;
    *request.mutable_spec() = *std::move(spec);
    Tournament created;
    grpc::ClientContext context;
    if (grpc::Status s = stub_->CreateTournament(&context, request, &created); !s.ok()) {
      return FailWith(s, server_, *channel_);
    }
    if (flags_.json) {
      std::cout << ToJson(created);
    } else {
      std::cout << absl::StrFormat(
          "ladder %s (tournament %d, %s, %d to a table, %s): bots join it with --ladder %s\n", name,
          created.id(), created.spec().game(), created.spec().players_per_match(), Who(created),
          name);
    }
    return kExitOk;
  }

  int List() {
    absl::StatusOr<std::vector<Tournament>> ladders = Ladders();
    if (!ladders.ok()) return kExitFailure;
    if (flags_.json) {
      hoard::v1::ListTournamentsResponse response;
      for (const Tournament& t : *ladders) *response.add_tournaments() = t;
      std::cout << ToJson(response);
      return kExitOk;
    }
    if (ladders->empty()) std::cout << "no ladders\n";
    for (const Tournament& t : *ladders) {
      std::cout << absl::StrFormat(
          "%-24s  %-9s  %-14s  %d to a table  %7d matches  %s  (tournament %d)\n", t.spec().name(),
          StatusName(t.status()), t.spec().game(), t.spec().players_per_match(),
          t.progress().finished(), Who(t), t.id());
    }
    return kExitOk;
  }

  int Show(const std::string& name) {
    absl::StatusOr<Tournament> t = Find(name);
    if (!t.ok()) return kExitFailure;
    hoard::v1::GetLeaderboardRequest request;
    request.set_game(t->spec().game());
    request.set_tournament_id(t->id());
    hoard::v1::Leaderboard board;
    grpc::ClientContext context;
    if (grpc::Status s = stub_->GetLeaderboard(&context, request, &board); !s.ok()) {
      return FailWith(s, server_, *channel_);
    }
    if (flags_.json) {
      std::cout << ToJson(board);
      return kExitOk;
    }
    const hoard::v1::TournamentProgress& p = t->progress();
    std::cout << absl::StrFormat("Ladder %s (%s, %d to a table, %s): %s, %s played", name,
                                 t->spec().game(), t->spec().players_per_match(), Who(*t),
                                 StatusName(t->status()),
                                 Counted(p.finished(), "match", "matches"));
    if (p.running() > 0) std::cout << ", " << p.running() << " running";
    if (p.failed() > 0) std::cout << ", " << p.failed() << " failed";
    std::cout << "\n";
    if (!t->error().empty()) std::cout << "last error: " << t->error() << "\n";
    std::cout << EvaluationLine(*t);
    std::cout << "\n"
              << (board.matches() == 0 ? "no match stored yet\n"
                                       : tournament::FormatLeaderboard(board));
    return kExitOk;
  }

  int Freeze(const std::string& name) {
    absl::StatusOr<Tournament> t = Find(name);
    if (!t.ok()) return kExitFailure;
    hoard::v1::FreezeLadderRequest request;
    request.set_id(t->id());
    *request.mutable_evaluation() = flags_.evaluation;
    Tournament frozen;
    grpc::ClientContext context;
    if (grpc::Status s = stub_->FreezeLadder(&context, request, &frozen); !s.ok()) {
      return FailWith(s, server_, *channel_);
    }
    if (flags_.json) {
      std::cout << ToJson(frozen);
      return kExitOk;
    }
    const hoard::v1::FinalEvaluation& e = frozen.spec().ladder().final_evaluation();
    std::cout << absl::StrFormat(
        "ladder %s: entries frozen; it plays on until the order of its top %d is %g%% sure, or "
        "%d more matches are played\n",
        name, e.top(), 100 * e.confidence(), e.match_budget());
    return kExitOk;
  }

  int Close(const std::string& name) {
    absl::StatusOr<Tournament> t = Find(name);
    if (!t.ok()) return kExitFailure;
    hoard::v1::CancelTournamentRequest request;
    request.set_id(t->id());
    Tournament closed;
    grpc::ClientContext context;
    if (grpc::Status s = stub_->CancelTournament(&context, request, &closed); !s.ok()) {
      return FailWith(s, server_, *channel_);
    }
    if (closed.status() == hoard::v1::TOURNAMENT_STATUS_RUNNING) {
      std::cout << "ladder " << name << ": closing after " << closed.progress().finished()
                << " matches (no match starts; those in flight finish and are stored)\n";
    } else {
      std::cout << "ladder " << name << ": " << StatusName(closed.status()) << " after "
                << closed.progress().finished() << " matches\n";
    }
    return kExitOk;
  }

 private:
  // Every ladder the server holds, newest first; an error is printed.
  absl::StatusOr<std::vector<Tournament>> Ladders() {
    hoard::v1::ListTournamentsResponse response;
    grpc::ClientContext context;
    if (grpc::Status s = stub_->ListTournaments(&context, {}, &response); !s.ok()) {
      FailWith(s, server_, *channel_);
      return absl::UnavailableError("listed");
    }
    std::vector<Tournament> ladders;
    for (const Tournament& t : response.tournaments()) {
      if (t.spec().format() == hoard::v1::FORMAT_LADDER) ladders.push_back(t);
    }
    return ladders;
  }

  // The ladder of that name that runs, else the newest of that name; an
  // error is printed.
  absl::StatusOr<Tournament> Find(const std::string& name) {
    absl::StatusOr<std::vector<Tournament>> ladders = Ladders();
    if (!ladders.ok()) return ladders.status();
    std::optional<Tournament> newest;
    for (const Tournament& t : *ladders) {
      if (t.spec().name() != name) continue;
      if (Live(t)) return t;
      if (!newest) newest = t;
    }
    if (newest) return *newest;
    const std::string missing =
        absl::StrCat("no ladder '", name, "' on ", server_, " ('hoard ladder list' names them)");
    Fail(kExitFailure, missing);
    return absl::NotFoundError(missing);
  }

  const LadderFlags& flags_;
  const std::string server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<hoard::v1::Tournaments::Stub> stub_;
};

}  // namespace

int RunLadder(const std::vector<std::string>& args) {
  LadderFlags flags;
  CommandLine command("ladder", kHelp);
  AddLadderFlags(command.app(), &flags);
  command.Words(&flags.words);
  if (std::optional<int> exit = command.ParseOrExit(args)) return *exit;
  const std::vector<std::string>& words = flags.words;
  const std::vector<std::string> verbs = {"create", "list", "show", "freeze", "close"};
  if (words.empty()) {
    return Fail(kExitUsage, "say create, list, show, freeze or close (see --help)");
  }
  const std::string& verb = words[0];
  if (std::find(verbs.begin(), verbs.end(), verb) == verbs.end()) {
    const std::string likely = DidYouMean(verb, verbs);
    return Fail(kExitUsage,
                absl::StrCat("unknown ladder command '", verb, "' (",
                             likely.empty() ? "commands: create, list, show, freeze, close"
                                            : absl::StrCat("did you mean '", likely, "'?"),
                             ")"));
  }
  const bool named = verb != "list";
  if (named && words.size() != 2) {
    return Fail(kExitUsage, absl::StrCat("ladder ", verb, " needs the ladder's name"));
  }
  if (!named && words.size() > 1) {
    return Fail(kExitUsage, absl::StrCat("ladder list takes no argument, got '", words[1], "'"));
  }
  const std::string server = ServerAddress(flags.server);
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      verb == "create" || verb == "close" || verb == "freeze"
          ? AdminChannel(server, flags.token_file)
          : ReadChannel(server, flags.token_file);
  if (!channel.ok()) return Fail(kExitUsage, std::string(channel.status().message()));
  LadderClient client(flags, server, *channel);
  if (verb == "create") return client.Create(words[1]);
  if (verb == "list") return client.List();
  if (verb == "show") return client.Show(words[1]);
  if (verb == "freeze") return client.Freeze(words[1]);
  return client.Close(words[1]);
}

}  // namespace hoard::cli
