// hoard tournament: run (or resume) a tournament and print its leaderboard.

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <iostream>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "bots/balanced_channel.h"
#include "engine/player_id.h"
#include "engine/status_macros.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/grpcpp.h"
#include "hoard/v1/arena.grpc.pb.h"
#include "service/arena.h"
#include "service/arena_host.h"
#include "service/cli/channel.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"
#include "service/cli/json.h"
#include "service/cli/tournament_cli.h"
#include "service/grpc_server.h"
#include "tournament/host.h"
#include "tournament/leaderboard.h"
#include "tournament/runner.h"
#include "tournament/spec.h"

namespace hoard::cli {

using hoard::v1::Tournament;
using hoard::v1::TournamentSpec;

namespace {

// The H1 of --sprt without --elo1.
constexpr double kDefaultSprtElo1 = 10;

constexpr char kHelp[] =
    "usage: hoard tournament [--config FILE | spec flags] [flags]\n"
    "       hoard tournament create [--config FILE | spec flags] [--watch] [--server HOST:PORT]\n"
    "       hoard tournament list|get ID|watch ID|cancel ID [--server HOST:PORT] [--json]\n\n"
    "Runs a tournament: schedules its matches, plays them (several at once),\n"
    "stores each result in the database as it ends, shows progress with live\n"
    "standings, and prints the leaderboard. Stopped at any moment (even kill -9),\n"
    "the same command resumes it. With no spec it runs the embedded default: the\n"
    "search bot and the heuristic against random and first, three to a village\n"
    "match, 120 duplicate matches.\n\n"
    "Its matches are played inside this process unless --server or --remote names\n"
    "a server; $HOARD_SERVER is read only with --remote.\n\n"
    "create, list, get, watch and cancel manage tournaments that a server runs\n"
    "itself (they outlive this command; the server resumes them when it restarts):\n"
    "create sends the spec (participants built-in, registered or from the server's\n"
    "catalog; creating and cancelling need the admin token), watch follows one\n"
    "until it ends, printing progress on stderr and its leaderboard at the end.\n"
    "They talk to --server, else $HOARD_SERVER, else 127.0.0.1:50051.";

// Declares hoard tournament's flags on `app`, bound to *flags.
void AddTournamentFlags(CLI::App& app, TournamentFlags* flags) {
  app.add_option("--config", flags->config,
                 "the tournament spec (text format or JSON; default: the embedded one)")
      ->type_name("FILE");
  app.add_option("--db", flags->db,
                 "database for results: a SQLite file (default hoard.db) or postgresql://…")
      ->type_name("FILE|URL")
      ->check(NoPasswordInAddress());
  app.add_option("--server", flags->servers,
                 "play on this Hoard server (default: one inside this process); repeat it to "
                 "spread the matches over several servers")
      ->type_name("HOST:PORT");
  app.add_flag("--remote", flags->remote,
               "play on the server of $HOARD_SERVER (else 127.0.0.1:50051)");
  app.add_option("--token-file", flags->token_file,
                 "the token to send (default $HOARD_TOKEN, else to play, create or cancel a "
                 "local server's admin token)")
      ->type_name("FILE");
  app.add_option("--listen", flags->listen,
                 "where the inner server takes external bots (default 127.0.0.1:0, any free "
                 "port)")
      ->type_name("HOST:PORT");
  app.add_flag("--fresh", flags->fresh, "start a new tournament even if this spec was run before");
  app.add_option("--game", flags->game, "spec from flags: the game")->type_name("ID");
  app.add_option("--players", flags->players, "spec from flags: players per match")
      ->type_name("N")
      ->transform(InRange(1, 1000));
  app.add_option("--participant", flags->participants,
                 "spec from flags, repeatable: KIND is builtin:BOT, registered, or command:CMD")
      ->type_name("NAME=KIND");
  app.add_option("--format", flags->format, "round-robin (default), duplicate, gauntlet or swiss")
      ->type_name("NAME");
  app.add_option("--candidate", flags->candidates, "gauntlet: a candidate (repeatable)")
      ->type_name("NAME");
  app.add_option("--sprt", flags->sprt,
                 "test whether participant NAME is stronger than the others, stopping as soon as "
                 "the evidence is enough (duplicate format; --rounds caps the blocks)")
      ->type_name("NAME");
  const CLI::Validator number =
      Number([](double) { return true; }, "{flag} needs a number, not '{value}'");
  app.add_option("--elo0", flags->elo0, "sprt: H0, NAME is this much stronger or less (default 0)")
      ->type_name("ELO")
      ->transform(number);
  app.add_option("--elo1", flags->elo1, "sprt: H1, NAME is this much stronger or more (default 10)")
      ->type_name("ELO")
      ->transform(number);
  app.add_option("--alpha", flags->alpha,
                 "sprt: the chance of accepting H1 when H0 holds (default 0.05)")
      ->type_name("P")
      ->transform(number);
  app.add_option("--beta", flags->beta,
                 "sprt: the chance of accepting H0 when H1 holds (default 0.05)")
      ->type_name("P")
      ->transform(number);
  AddGameOptionFlag(app, &flags->options, "a game option (repeatable)");
  app.add_option("--rounds", flags->rounds,
                 "repeat the schedule N times; swiss: its rounds (default log2 of the "
                 "participants, rounded up) (overrides the spec)")
      ->type_name("N")
      ->transform(InRange(1, 1000000000));
  app.add_option("--seed", flags->seed, "seed of every deal (overrides the spec)")
      ->type_name("N")
      ->transform(Seed());
  app.add_option("--concurrency", flags->concurrency,
                 "matches at once (overrides the spec; resuming may change it)")
      ->type_name("N")
      ->transform(InRange(1, 1000000000));
  app.add_option("--start-timeout-ms", flags->start_timeout_ms,
                 "wait this long for external bots to connect")
      ->type_name("N")
      ->transform(InRange(1, 1000000000));
  app.add_option("--bot-logs", flags->bot_logs,
                 "where launched bots' output goes (default hoard-bot-logs)")
      ->type_name("DIR");
  app.add_option("--system", flags->system,
                 "rank the final leaderboard by ml (default), elo or openskill")
      ->type_name("NAME");
  app.add_flag("--print-spec", flags->print_spec, "print the spec (defaults filled in) and exit");
  app.add_flag("--quiet", flags->quiet, "no progress display");
  app.add_flag("--json", flags->json,
               "print the final leaderboard as JSON (get, list: the tournaments)");
  app.add_flag("--watch", flags->watch, "create: then follow it until it ends, as watch does");
}

absl::StatusOr<hoard::v1::Format> FormatFromFlag(const std::string& format) {
  if (format == "round-robin") return hoard::v1::FORMAT_ROUND_ROBIN;
  if (format == "duplicate") return hoard::v1::FORMAT_DUPLICATE;
  if (format == "gauntlet") return hoard::v1::FORMAT_GAUNTLET;
  if (format == "swiss") return hoard::v1::FORMAT_SWISS;
  return absl::InvalidArgumentError(absl::StrCat(
      "--format: '", format,
      "' is none of round-robin, duplicate, gauntlet, swiss (a ladder: hoard ladder create)"));
}

absl::Status SpecFromFlags(const TournamentFlags& flags, TournamentSpec* spec) {
  if (flags.game) spec->set_game(*flags.game);
  if (flags.players) spec->set_players_per_match(*flags.players);
  if (!flags.participants.empty()) {
    spec->clear_participants();
    for (const std::string& entry : flags.participants) {
      RETURN_IF_ERROR(ParticipantFromFlag(entry, spec->add_participants()));
    }
  }
  if (flags.format) {
    absl::StatusOr<hoard::v1::Format> format = FormatFromFlag(*flags.format);
    if (!format.ok()) return format.status();
    spec->set_format(*format);
  }
  if (!flags.candidates.empty()) {
    spec->clear_candidates();
    for (const std::string& c : flags.candidates) spec->add_candidates(c);
  }
  if (flags.sprt) {
    hoard::v1::SprtSpec* sprt = spec->mutable_sprt();
    sprt->set_candidate(*flags.sprt);
    sprt->set_elo1(kDefaultSprtElo1);
    if (!flags.format) spec->set_format(hoard::v1::FORMAT_DUPLICATE);
  }
  for (const auto& [flag, value, setter] : std::vector<
           std::tuple<const char*, std::optional<double>, void (hoard::v1::SprtSpec::*)(double)>>{
           {"elo0", flags.elo0, &hoard::v1::SprtSpec::set_elo0},
           {"elo1", flags.elo1, &hoard::v1::SprtSpec::set_elo1},
           {"alpha", flags.alpha, &hoard::v1::SprtSpec::set_alpha},
           {"beta", flags.beta, &hoard::v1::SprtSpec::set_beta}}) {
    if (!value) continue;
    if (!flags.sprt && !spec->has_sprt()) {
      return absl::InvalidArgumentError(absl::StrCat("--", flag, " is for --sprt NAME"));
    }
    (spec->mutable_sprt()->*setter)(*value);
  }
  for (const auto& [name, value] : flags.options) (*spec->mutable_options())[name] = value;
  if (flags.rounds) spec->set_rounds(*flags.rounds);
  if (flags.concurrency) spec->set_concurrency(*flags.concurrency);
  if (flags.start_timeout_ms) {
    spec->mutable_fault_policy()->set_start_timeout_ms(*flags.start_timeout_ms);
  }
  if (flags.seed) spec->set_seed(*flags.seed);
  return absl::OkStatus();
}

}  // namespace

absl::Status ParticipantFromFlag(const std::string& entry, hoard::v1::Participant* p) {
  const std::size_t eq = entry.find('=');
  if (eq == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--participant needs NAME=KIND (builtin:BOT, registered or command:CMD), got '", entry,
        "'"));
  }
  std::string name = entry.substr(0, eq);
  const std::size_t at = name.find('@');
  if (at != std::string::npos) {
    p->set_version(name.substr(at + 1));
    name = name.substr(0, at);
  }
  p->set_name(name);
  const std::string kind = entry.substr(eq + 1);
  if (absl::StatusOr<engine::PlayerId> builtin = engine::PlayerId::Parse(kind);
      builtin.ok() && builtin->is_builtin()) {
    p->set_builtin(builtin->name());
  } else if (kind == "registered") {
    p->set_registered(true);
  } else if (kind.rfind("command:", 0) == 0) {
    p->set_command(kind.substr(8));
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--participant ", name, ": '", kind,
                     "' is no kind of participant (builtin:BOT, registered or command:CMD)"));
  }
  return absl::OkStatus();
}

std::string SprtLine(const Tournament& t) {
  const hoard::v1::SprtSpec& spec = t.spec().sprt();
  const hoard::v1::SprtState& s = t.progress().sprt();
  std::string verdict;
  switch (s.result()) {
    case hoard::v1::SprtState::RESULT_H1:
      verdict = absl::StrFormat(": H1 accepted, %s is at least %g Elo stronger", spec.candidate(),
                                spec.elo1());
      break;
    case hoard::v1::SprtState::RESULT_H0:
      verdict = absl::StrFormat(": H0 accepted, %s is not %g Elo stronger", spec.candidate(),
                                spec.elo1());
      break;
    case hoard::v1::SprtState::RESULT_UNDECIDED:
      verdict = ": undecided, every block played";
      break;
    default:
      break;
  }
  return absl::StrFormat(
      "SPRT %s [elo0 %g, elo1 %g, alpha %g, beta %g]: LLR %.2f in (%.2f, %.2f) after %d "
      "blocks, score %.3f (Elo %+.0f)%s",
      spec.candidate(), spec.elo0(), spec.elo1(), spec.alpha(), spec.beta(), s.llr(),
      s.lower_bound(), s.upper_bound(), s.blocks(), s.score(), s.elo(), verdict);
}

std::string StandingLines(const Tournament& t, int most) {
  const bool swiss = t.spec().format() == hoard::v1::FORMAT_SWISS;
  std::string text;
  int shown = 0;
  for (const hoard::v1::Standing& s : t.progress().standings()) {
    if (++shown > most) {
      absl::StrAppend(&text, "  ... ", t.progress().standings_size() - most, " more\n");
      break;
    }
    if (swiss) {
      absl::StrAppendFormat(
          &text,
          "  %d. %-20s %5.2f points  Buchholz %6.2f  %3d matches  %3d wins"
          "%s  Elo %5.0f\n",
          shown, s.bot(), s.points(), s.buchholz(), s.matches(), s.wins(),
          s.byes() > 0 ? absl::StrFormat("  %d bye%s", s.byes(), s.byes() == 1 ? "" : "s") : "",
          s.elo());
    } else {
      absl::StrAppendFormat(&text, "  %d. %-20s Elo %5.0f  %4d matches  %4d wins  avg place %.2f\n",
                            shown, s.bot(), s.elo(), s.matches(), s.wins(), s.average_place());
    }
  }
  return text;
}

std::string SwissTable(const Tournament& t) {
  if (t.spec().format() != hoard::v1::FORMAT_SWISS) return "";
  const int rounds = t.progress().finished() == t.progress().scheduled()
                         ? t.spec().rounds()
                         : std::max(0, t.progress().round() - 1);
  return absl::StrCat("Swiss standings after ", rounds, " of ", t.spec().rounds(), " rounds:\n",
                      StandingLines(t, t.progress().standings_size()), "\n");
}

std::string Clock(std::int64_t ms) {
  const std::int64_t s = (ms + 999) / 1000;
  if (s >= 3600) return absl::StrFormat("%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  return absl::StrFormat("%d:%02d", s / 60, s % 60);
}

ProgressDisplay::ProgressDisplay(bool quiet) : quiet_(quiet), tty_(isatty(STDERR_FILENO) == 1) {}

void ProgressDisplay::Warn(const std::string& line) {
  absl::MutexLock lock(&mu_);
  std::fprintf(stderr, "hoard: %s\n", line.c_str());
  std::fflush(stderr);
  lines_ = 0;  // keep what is above; redraw the progress below it
}

void ProgressDisplay::Update(const Tournament& t, bool last) {
  if (quiet_) return;
  absl::MutexLock lock(&mu_);
  const hoard::v1::TournamentProgress& p = t.progress();
  const absl::Time now = absl::Now();
  const int tenth = p.finished() * 10 / std::max(1, p.scheduled());
  if (!last) {
    if (tty_ && now - drawn_ < absl::Milliseconds(100)) return;
    if (!tty_ && tenth == last_tenth_ && now - drawn_ < absl::Seconds(10)) return;
  } else if (!tty_ && p.finished() == shown_finished_) {
    return;  // the last lines already say it
  }
  drawn_ = now;
  last_tenth_ = tenth;
  shown_finished_ = p.finished();
  const double fraction = p.scheduled() > 0 ? double(p.finished()) / p.scheduled() : 1;
  const int width = 30;
  const int filled = static_cast<int>(fraction * width);
  const double rate = p.matches_per_second();
  std::string text =
      absl::StrFormat("tournament %d: %d/%d matches [%s%s] %3.0f%%  %.1f/s  elapsed %s  ETA %s",
                      t.id(), p.finished(), p.scheduled(), std::string(filled, '#'),
                      std::string(width - filled, '.'), 100 * fraction, rate, Clock(p.elapsed_ms()),
                      p.finished() < p.scheduled() && p.eta_ms() > 0 ? Clock(p.eta_ms()) : "-");
  if (p.failed() > 0) absl::StrAppend(&text, "  failed ", p.failed());
  text += "\n";
  if (t.spec().has_sprt()) absl::StrAppend(&text, "  ", SprtLine(t), "\n");
  if (t.spec().format() == hoard::v1::FORMAT_SWISS) {
    absl::StrAppend(&text, "  Swiss round ", p.round(), " of ", t.spec().rounds(), "\n");
  }
  text += StandingLines(t, 8);
  if (tty_ && lines_ > 0) std::fprintf(stderr, "\x1b[%dA\x1b[J", lines_);
  std::fputs(text.c_str(), stderr);
  lines_ = tty_ ? static_cast<int>(std::count(text.begin(), text.end(), '\n')) : 0;
  std::fflush(stderr);
}

absl::StatusOr<TournamentSpec> SpecToRun(const TournamentFlags& flags) {
  TournamentSpec spec;
  if (!flags.config.empty()) {
    absl::StatusOr<TournamentSpec> read = tournament::ReadSpecFile(flags.config);
    if (!read.ok()) return read.status();
    spec = *std::move(read);
  } else if (!flags.game && flags.participants.empty()) {
    spec = tournament::DefaultSpec();
  }
  RETURN_IF_ERROR(SpecFromFlags(flags, &spec));
  absl::StatusOr<TournamentSpec> normalized = tournament::Normalize(spec);
  if (!normalized.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad tournament spec: ", normalized.status().message()));
  }
  return normalized;
}

namespace {

// Where the tournament's matches are played and stored.
struct Venue {
  std::unique_ptr<service::ArenaServer> server;  // external bots, in process
  std::unique_ptr<service::Arena> arena;         // built-in bots only
  std::unique_ptr<db::MatchStore> own_store;     // with --server
  std::unique_ptr<tournament::MatchHost> host;
  db::MatchStore* store = nullptr;
};

// The servers of --server (or --remote), with a store of this process's
// own. Each must answer before the tournament is recorded.
int OpenRemoteVenue(const TournamentFlags& flags, Venue& venue) {
  const std::vector<std::string> addresses =
      !flags.servers.empty() ? flags.servers : std::vector<std::string>{ServerAddress("")};
  // Each match is one call: with several servers, on a channel that spreads
  // calls over them.
  std::shared_ptr<grpc::Channel> play;
  if (addresses.size() > 1) {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> balanced =
        BalancedAdminChannel(addresses, flags.token_file);
    if (!balanced.ok()) return Fail(kExitUsage, std::string(balanced.status().message()));
    play = *std::move(balanced);
  }
  std::vector<tournament::RemoteServer> servers;
  for (const std::string& address : addresses) {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
        AdminChannel(address, flags.token_file);
    if (!channel.ok()) return Fail(kExitUsage, std::string(channel.status().message()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    hoard::v1::ListGamesResponse games;
    const grpc::Status status =
        hoard::v1::Arena::NewStub(*channel)->ListGames(&context, {}, &games);
    if (!status.ok()) return FailWith(status, address, **channel);
    servers.push_back({.address = address, .channel = *channel});
  }
  if (play == nullptr) {
    play = servers.front().channel;
  } else {
    bots::AwaitEveryServer(*play, servers.size(), absl::Seconds(5));
  }
  absl::StatusOr<std::unique_ptr<db::MatchStore>> opened = db::OpenStore(flags.db);
  if (!opened.ok()) return Fail(kExitFailure, std::string(opened.status().message()));
  venue.own_store = *std::move(opened);
  venue.store = venue.own_store.get();
  venue.host = tournament::RemoteHost(std::move(play), std::move(servers));
  return kExitOk;
}

// A server in this process, for participants that play over the network.
int OpenServerVenue(const TournamentFlags& flags, Venue& venue) {
  service::ServerOptions options;
  options.grpc.listen = flags.listen;
  options.core.db_path = flags.db;
  options.serve_tournaments = false;
  // The operator's own server: registered participants claim their names.
  options.core.limits.open_registration = true;
  absl::StatusOr<std::unique_ptr<service::ArenaServer>> started =
      service::ArenaServer::Start(options);
  if (!started.ok()) return Fail(kExitFailure, std::string(started.status().message()));
  venue.server = *std::move(started);
  venue.store = venue.server->arena().store();
  const std::string address =
      absl::StrCat(service::LoopbackHost(options.grpc.listen), ":", venue.server->port());
  venue.host = service::ArenaHost(&venue.server->arena(), address);
  if (!flags.quiet) std::cerr << "hoard: bots connect to " << address << std::endl;
  return kExitOk;
}

// An arena in this process without the network: built-in bots only.
int OpenLocalVenue(const std::string& db_path, Venue& venue) {
  absl::StatusOr<std::unique_ptr<db::MatchStore>> opened = db::OpenStore(db_path);
  if (!opened.ok()) return Fail(kExitFailure, std::string(opened.status().message()));
  venue.arena = std::make_unique<service::Arena>();
  if (absl::Status s = venue.arena->UseStore(*std::move(opened)); !s.ok()) {
    return Fail(kExitFailure, std::string(s.message()));
  }
  venue.store = venue.arena->store();
  venue.host = service::ArenaHost(venue.arena.get(), "");
  return kExitOk;
}

// Says on stderr whether the tournament runs, resumes or is already over.
void Announce(db::MatchStore& store, std::int64_t id, bool resumed, const std::string& title,
              const std::string& db_path) {
  absl::StatusOr<std::optional<db::StoredTournament>> stored = store.GetTournament(id);
  const bool finished =
      stored.ok() && *stored && (*stored)->status == hoard::v1::TOURNAMENT_STATUS_FINISHED;
  std::cerr << "hoard: "
            << (finished  ? "this spec's tournament already finished; its results follow "
                            "(--fresh runs a new one): "
                : resumed ? "resuming "
                          : "running ")
            << "tournament " << id << " (" << title << ") in " << db::StoreDisplayName(db_path)
            << std::endl;
}

// SIGINT and SIGTERM, blocked in this thread and every thread started after
// it, so that only RunStoppably's waiter takes them.
sigset_t BlockStopSignals() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  return stop_signals;
}

// Runs tournament `id`. The first stop signal cancels it (matches in flight
// finish and are stored), a second one exits at once.
absl::StatusOr<Tournament> RunStoppably(tournament::TournamentRunner& runner, std::int64_t id,
                                        sigset_t stop_signals) {
  std::atomic<bool> done{false};
  std::thread stopper([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    if (done) return;
    std::cerr << "hoard: stopping: the matches in flight finish and are stored "
                 "(again to quit at once)"
              << std::endl;
    runner.Cancel();
    sigwait(&stop_signals, &signal);
    if (!done) _exit(kExitFailure);
  });
  absl::StatusOr<Tournament> final_state = runner.Run(id);
  done = true;
  pthread_kill(stopper.native_handle(), SIGTERM);
  stopper.join();
  return final_state;
}

// The leaderboard of the tournament as it ended, and the exit status.
int PrintResults(const TournamentFlags& flags, db::MatchStore& store, std::int64_t id,
                 const std::string& game, hoard::v1::RatingSystem system,
                 const Tournament& final_state, const std::string& title) {
  absl::StatusOr<hoard::v1::RatingSnapshot> ratings =
      tournament::CurrentRatings(store, {.game = game, .tournament_id = id});
  if (!ratings.ok()) return Fail(kExitFailure, std::string(ratings.status().message()));
  // Ranked as every leaderboard is: the established ratings first.
  const hoard::v1::Leaderboard board =
      tournament::EstablishedFirst(tournament::RankBy(*ratings, system));
  if (flags.json) {
    std::cout << ToJson(board);
  } else if (board.matches() == 0) {
    std::cout << absl::StrFormat("Tournament %d (%s): %s, no match stored\n", id, title,
                                 hoard::v1::TournamentStatus_Name(final_state.status()).substr(18));
  } else {
    const hoard::v1::TournamentProgress& p = final_state.progress();
    std::cout << absl::StrFormat(
                     "Tournament %d (%s): %s, %d of %d matches stored in %s (this run: %.0f "
                     "matches/s over %.1f s)\n\n",
                     id, title, hoard::v1::TournamentStatus_Name(final_state.status()).substr(18),
                     p.finished(), p.scheduled(), db::StoreDisplayName(flags.db),
                     p.matches_per_second(), p.elapsed_ms() / 1000.0)
              << SwissTable(final_state)
              << tournament::FormatLeaderboard(board, /*mark_provisional=*/true);
    if (final_state.spec().has_sprt()) std::cout << SprtLine(final_state) << "\n";
  }
  switch (final_state.status()) {
    case hoard::v1::TOURNAMENT_STATUS_FINISHED:
      return kExitOk;
    case hoard::v1::TOURNAMENT_STATUS_CANCELLED:
      return Fail(kExitFailure, "stopped before the end; run the same command to resume");
    default:
      return Fail(kExitFailure, final_state.error());
  }
}

}  // namespace

int RunTournament(const std::vector<std::string>& args) {
  TournamentFlags flags;
  CommandLine command("tournament", kHelp);
  AddTournamentFlags(command.app(), &flags);
  command.Words(&flags.words);
  if (std::optional<int> exit = command.ParseOrExit(args)) return *exit;
  if (!flags.words.empty()) return RunTournamentOnServer(flags);
  absl::StatusOr<hoard::v1::RatingSystem> system = tournament::ParseRatingSystem(flags.system);
  if (!system.ok()) return Fail(kExitUsage, "--system: " + std::string(system.status().message()));
  absl::StatusOr<TournamentSpec> normalized = SpecToRun(flags);
  if (!normalized.ok()) return Fail(kExitUsage, std::string(normalized.status().message()));
  if (flags.print_spec) {
    std::string text;
    google::protobuf::TextFormat::PrintToString(*normalized, &text);
    std::cout << text;
    return kExitOk;
  }
  bool external = false;
  for (const hoard::v1::Participant& p : normalized->participants()) {
    external = external || !p.has_builtin();
  }

  const sigset_t stop_signals = BlockStopSignals();
  Venue venue;
  const bool remote = !flags.servers.empty() || flags.remote;
  const int opened = remote     ? OpenRemoteVenue(flags, venue)
                     : external ? OpenServerVenue(flags, venue)
                                : OpenLocalVenue(flags.db, venue);
  if (opened != kExitOk) return opened;

  bool resumed = false;
  absl::StatusOr<std::int64_t> id =
      tournament::CreateOrResume(*venue.store, *normalized, flags.fresh, &resumed);
  if (!id.ok()) return Fail(kExitFailure, std::string(id.status().message()));
  const bool quiet = flags.quiet;
  const std::string title = normalized->name().empty()
                                ? normalized->game()
                                : absl::StrCat(normalized->name(), ", ", normalized->game());
  if (!quiet) Announce(*venue.store, *id, resumed, title, flags.db);

  ProgressDisplay display(quiet);
  tournament::RunnerOptions options;
  options.on_progress = [&display](const Tournament& t) { display.Update(t, false); };
  options.on_warning = [&display](const std::string& line) { display.Warn(line); };
  options.bot_log_dir = flags.bot_logs;
  options.concurrency = normalized->concurrency();
  options.fault_policy = normalized->fault_policy();
  tournament::TournamentRunner runner(venue.store, venue.host.get(), options);
  absl::StatusOr<Tournament> final_state = RunStoppably(runner, *id, stop_signals);
  if (!final_state.ok()) return Fail(kExitFailure, std::string(final_state.status().message()));
  display.Update(*final_state, true);
  return PrintResults(flags, *venue.store, *id, normalized->game(), *system, *final_state, title);
}

}  // namespace hoard::cli
