#include "service/check/checker.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "engine/registry.h"
#include "engine/status_macros.h"
#include "service/check/tcp_relay.h"
#include "service/grpc_server.h"
#include "tournament/launcher.h"
#include "tournament/secrets.h"

namespace hoard::service {
namespace {

using hoard::v1::Match;
using hoard::v1::SeatInfo;

constexpr char kDefaultName[] = "checked";
// A test match that has not ended by then is given up (its clocks normally
// end it much sooner: a silent bot forfeits).
constexpr absl::Duration kMatchTimeout = absl::Minutes(10);

// What the bot's seat did in the test matches, summed.
struct Conduct {
  int matches = 0;
  int answers = 0;
  int timeouts = 0;
  int illegal = 0;
  int forfeits = 0;
  double round_trip_us_sum = 0;  // answers × mean round trip, summed
};

class Checker {
 public:
  Checker(const CheckOptions& options, const CheckCallbacks& callbacks)
      : options_(options), callbacks_(callbacks) {}

  absl::StatusOr<CheckReport> Run();

 private:
  absl::Status Validate();
  void Report(std::string name, bool passed, std::string detail);
  // Waits for the bot to be connected; the time it took, or nullopt.
  std::optional<absl::Duration> AwaitConnected(absl::Duration timeout);
  // Why a launched bot has stopped, or empty.
  std::string Exited();

  // Starts a match of `game` with the bot in seat 0 and built-in `opponent`
  // bots in the others; calls `done` when it ends.
  absl::StatusOr<std::string> StartMatch(const std::string& game, int index,
                                         const std::string& opponent = "random");
  // Waits for the match `id` to end; its summary, or nullopt on time-out.
  std::optional<Match> AwaitFinished(const std::string& id, absl::Duration timeout);
  // The bot's seat of a finished match, counted into conduct_.
  const SeatInfo& Count(const Match& match);

  void CheckGame(const std::string& game, int index);
  void CheckSeveralAtOnce();
  void CheckReconnect();
  void CheckConduct();

  const CheckOptions& options_;
  const CheckCallbacks& callbacks_;
  std::string name_;
  std::unique_ptr<ArenaServer> server_;
  std::unique_ptr<TcpRelay> relay_;
  std::unique_ptr<tournament::LaunchedBot> launched_;
  CheckReport report_;
  Conduct conduct_;

  absl::Mutex mu_;
  std::map<std::string, Match> finished_ ABSL_GUARDED_BY(mu_);
};

absl::Status Checker::Validate() {
  if (options_.command.empty() && options_.bot_name.empty()) {
    return absl::InvalidArgumentError("give the bot's command to launch, or its name");
  }
  if (options_.decision_ms <= 0 || options_.bank_ms < 0) {
    return absl::InvalidArgumentError("the decision time must be positive and the bank not negative");
  }
  if (options_.concurrent_matches < 2) {
    return absl::InvalidArgumentError("offer at least 2 matches at once");
  }
  for (const std::string& game : options_.games) {
    RETURN_IF_ERROR(engine::FindGame(game).status());
  }
  return absl::OkStatus();
}

void Checker::Report(std::string name, bool passed, std::string detail) {
  report_.checks.push_back({std::move(name), passed, std::move(detail)});
  if (callbacks_.on_result) callbacks_.on_result(report_.checks.back());
}

std::string Checker::Exited() {
  if (launched_ == nullptr) return "";
  std::optional<std::string> exit = launched_->Exited();
  if (!exit) return "";
  return absl::StrCat("the bot ", *exit,
                      launched_->log_path().empty()
                          ? ""
                          : absl::StrCat(" (its output: ", launched_->log_path(), ")"));
}

std::optional<absl::Duration> Checker::AwaitConnected(absl::Duration timeout) {
  const absl::Time start = absl::Now();
  for (;;) {
    const hoard::v1::ListBotsResponse bots = server_->arena().ListBots();
    for (const hoard::v1::BotInfo& bot : bots.bots()) {
      if (bot.name() == name_ && bot.connected()) return absl::Now() - start;
    }
    if (!Exited().empty() || absl::Now() - start >= timeout) return std::nullopt;
    absl::SleepFor(absl::Milliseconds(20));
  }
}

absl::StatusOr<std::string> Checker::StartMatch(const std::string& game, int index,
                                                const std::string& opponent) {
  const engine::GameInfo& info = (*engine::FindGame(game))->info();
  hoard::v1::CreateMatchRequest request;
  request.set_game(game);
  request.add_seats()->set_bot(name_);
  for (int seat = 1; seat < std::max(info.min_players, 3); ++seat) {
    request.add_seats()->set_builtin(opponent);
  }
  request.set_seed(options_.seed + static_cast<std::uint64_t>(index));
  request.mutable_time_control()->set_decision_ms(options_.decision_ms);
  request.mutable_time_control()->set_bank_ms(options_.bank_ms);
  request.mutable_time_control()->set_max_strikes(3);
  MatchHooks hooks;
  hooks.on_finished = [this](const Match& match, const hoard::v1::MatchRecord&) {
    absl::MutexLock lock(&mu_);
    finished_[match.match_id()] = match;
  };
  ASSIGN_OR_RETURN(hoard::v1::CreateMatchResponse created,
                   server_->arena().CreateMatch(request, std::move(hooks)));
  return created.match_id();
}

std::optional<Match> Checker::AwaitFinished(const std::string& id, absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto done = [this, &id]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return finished_.contains(id); };
  if (!mu_.AwaitWithTimeout(absl::Condition(&done), timeout)) return std::nullopt;
  return finished_[id];
}

const SeatInfo& Checker::Count(const Match& match) {
  const SeatInfo& seat = match.seats(0);
  ++conduct_.matches;
  conduct_.answers += seat.answers();
  conduct_.timeouts += seat.timeouts();
  conduct_.illegal += seat.illegal_answers();
  conduct_.forfeits += seat.forfeited() ? 1 : 0;
  conduct_.round_trip_us_sum += static_cast<double>(seat.answers()) * seat.mean_round_trip_us();
  return seat;
}

// "3 time-outs, 2 illegal answers, forfeited" — what went wrong in a seat.
std::string Faults(const SeatInfo& seat) {
  std::vector<std::string> faults;
  if (seat.timeouts() > 0) faults.push_back(absl::StrCat(seat.timeouts(), " time-outs"));
  if (seat.illegal_answers() > 0) {
    faults.push_back(absl::StrCat(seat.illegal_answers(), " illegal answers"));
  }
  if (seat.forfeited()) faults.push_back("forfeited");
  return faults.empty() ? "no faults" : absl::StrJoin(faults, ", ");
}

void Checker::CheckGame(const std::string& game, int index) {
  const std::string name = absl::StrCat("plays ", game);
  absl::StatusOr<std::string> id = StartMatch(game, index);
  if (!id.ok()) return Report(name, false, absl::StrCat("no match: ", id.status().message()));
  std::optional<Match> match = AwaitFinished(*id, kMatchTimeout);
  if (!match) return Report(name, false, absl::StrCat("match ", *id, " did not end in time"));
  const SeatInfo& seat = Count(*match);
  if (seat.forfeited()) {
    return Report(name, false, absl::StrCat("forfeited match ", *id, " (", Faults(seat), ")"));
  }
  Report(name, true,
         absl::StrCat("match ", *id, " played to the end: ", match->actions(), " actions, ",
                      seat.answers(), " answers, ", Faults(seat)));
}

void Checker::CheckSeveralAtOnce() {
  const std::string name = "several matches at once";
  const std::string game = options_.games.front();
  std::vector<std::string> ids;
  for (int i = 0; i < options_.concurrent_matches; ++i) {
    absl::StatusOr<std::string> id = StartMatch(game, 100 + i);
    if (!id.ok()) {
      for (const std::string& started : ids) AwaitFinished(started, kMatchTimeout);
      return Report(name, false,
                    absl::StrCat("offered ", options_.concurrent_matches,
                                 " matches at once (HOARD_MAX_MATCHES), but match ", i + 1,
                                 " could not start: ", id.status().message()));
    }
    ids.push_back(*id);
  }
  std::vector<std::string> problems;
  for (const std::string& id : ids) {
    std::optional<Match> match = AwaitFinished(id, kMatchTimeout);
    if (!match) {
      problems.push_back(absl::StrCat(id, " did not end in time"));
      continue;
    }
    const SeatInfo& seat = Count(*match);
    if (seat.forfeited() || seat.timeouts() > 0) {
      problems.push_back(absl::StrCat(id, ": ", Faults(seat)));
    }
  }
  if (!problems.empty()) return Report(name, false, absl::StrJoin(problems, "; "));
  Report(name, true, absl::StrCat(ids.size(), " matches of ", game,
                                  " at once, all finished without time-outs"));
}

void Checker::CheckReconnect() {
  const std::string name = "survives a reconnect";
  // Opponents that think 20 ms a move keep the match going long enough to
  // be cut in its middle, however fast the bot answers.
  absl::StatusOr<std::string> id = StartMatch(options_.games.front(), 200, "mcts-20ms");
  if (!id.ok()) return Report(name, false, absl::StrCat("no match: ", id.status().message()));
  // Cut the connection once the bot is in the middle of the match.
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  bool cut = false;
  while (absl::Now() < give_up) {
    absl::StatusOr<hoard::v1::GetMatchResponse> got = server_->arena().GetMatch([&] {
      hoard::v1::GetMatchRequest request;
      request.set_match_id(*id);
      return request;
    }());
    if (!got.ok() || got->match().status() != hoard::v1::MATCH_STATUS_RUNNING) break;
    if (got->match().seats(0).answers() >= 2) {
      relay_->DropConnections();
      cut = true;
      break;
    }
    absl::SleepFor(absl::Milliseconds(2));
  }
  if (!cut) {
    std::optional<Match> match = AwaitFinished(*id, kMatchTimeout);
    if (match) Count(*match);
    return Report(name, false, "the bot answered too little of a match to cut it in the middle");
  }
  const int connections = relay_->connections();
  // Connected again through the relay, and seated again.
  const absl::Time cut_at = absl::Now();
  bool back = false;
  while (absl::Now() - cut_at < absl::Milliseconds(options_.connect_timeout_ms)) {
    if (relay_->connections() > connections && AwaitConnected(absl::ZeroDuration())) {
      back = true;
      break;
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
  const absl::Duration took = absl::Now() - cut_at;
  std::optional<Match> match = AwaitFinished(*id, kMatchTimeout);
  if (!back) {
    if (match) Count(*match);
    return Report(name, false,
                  absl::StrCat("did not connect again within ", options_.connect_timeout_ms,
                               " ms of its connection being cut"));
  }
  if (!match) return Report(name, false, absl::StrCat("match ", *id, " did not end in time"));
  const SeatInfo& seat = Count(*match);
  if (seat.forfeited()) {
    return Report(name, false, absl::StrCat("connected again but forfeited match ", *id, " (",
                                            Faults(seat), ")"));
  }
  Report(name, true,
         absl::StrFormat("connection cut in the middle of match %s; back in %.0f ms, and the "
                         "match finished (%s)",
                         *id, absl::ToDoubleMilliseconds(took), Faults(seat)));
}

void Checker::CheckConduct() {
  const Conduct& c = conduct_;
  const std::string limit =
      absl::StrCat(options_.decision_ms, " ms a decision + ", options_.bank_ms, " ms bank");
  if (c.timeouts == 0) {
    Report("answers in time", true,
           absl::StrFormat("%d answers in %d matches, none late (%s); mean round trip %.1f ms",
                           c.answers, c.matches, limit,
                           c.answers == 0 ? 0.0 : c.round_trip_us_sum / c.answers / 1000.0));
  } else {
    Report("answers in time", false,
           absl::StrCat(c.timeouts, " decisions timed out in ", c.matches, " matches (", limit,
                        ")", c.forfeits > 0 ? absl::StrCat("; forfeited ", c.forfeits) : ""));
  }
  if (c.answers == 0 && c.illegal == 0) {
    Report("legal answers", false, "the bot gave no answer to judge");
  } else if (c.illegal == 0) {
    Report("legal answers", true, absl::StrCat("all ", c.answers, " answers legal"));
  } else if (c.timeouts == 0 && c.forfeits == 0) {
    Report("legal answers", true,
           absl::StrCat(c.illegal, " answers were refused as illegal, and the bot answered "
                                   "each again legally in time"));
  } else {
    Report("legal answers", false,
           absl::StrCat(c.illegal, " answers were refused as illegal, and the bot did not "
                                   "recover: ",
                        c.timeouts, " time-outs, ", c.forfeits, " forfeits"));
  }
}

absl::StatusOr<CheckReport> Checker::Run() {
  RETURN_IF_ERROR(Validate());
  name_ = options_.bot_name.empty() ? kDefaultName : options_.bot_name;

  ServerOptions server_options;
  server_options.listen = "127.0.0.1:0";
  server_options.serve_tournaments = false;
  // The checker's own server: the bot under test names itself.
  server_options.limits.open_registration = true;
  ASSIGN_OR_RETURN(server_, ArenaServer::Start(server_options));
  ASSIGN_OR_RETURN(relay_, TcpRelay::Start(server_->port()));
  const std::string address = absl::StrCat("127.0.0.1:", relay_->port());
  if (callbacks_.on_listening) callbacks_.on_listening(address);

  if (!options_.command.empty()) {
    ASSIGN_OR_RETURN(launched_,
                     tournament::LaunchedBot::Start(
                         options_.command,
                         {{"HOARD_SERVER", address},
                          {"HOARD_BOT_NAME", name_},
                          {"HOARD_BOT_KEY", tournament::RandomToken()},
                          {"HOARD_MAX_MATCHES", absl::StrCat(options_.concurrent_matches)}},
                         options_.log_path));
  }
  std::optional<absl::Duration> took =
      AwaitConnected(absl::Milliseconds(options_.connect_timeout_ms));
  if (!took) {
    const std::string exited = Exited();
    Report("registers", false,
           !exited.empty() ? absl::StrCat(exited, " before registering")
                           : absl::StrCat("no bot registered as '", name_, "' at ", address,
                                          " within ", options_.connect_timeout_ms, " ms"));
    return report_;
  }
  Report("registers", true,
         absl::StrFormat("registered as '%s' in %.0f ms", name_, absl::ToDoubleMilliseconds(*took)));

  for (int i = 0; i < static_cast<int>(options_.games.size()); ++i) CheckGame(options_.games[i], i);
  CheckSeveralAtOnce();
  CheckReconnect();
  CheckConduct();
  if (launched_ != nullptr) launched_->Stop();
  return report_;
}

}  // namespace

bool CheckReport::passed() const {
  return !checks.empty() &&
         std::all_of(checks.begin(), checks.end(), [](const CheckResult& c) { return c.passed; });
}

absl::StatusOr<CheckReport> CheckBot(const CheckOptions& options, const CheckCallbacks& callbacks) {
  CheckOptions filled = options;
  if (filled.games.empty()) filled.games = {"village"};
  return Checker(filled, callbacks).Run();
}

}  // namespace hoard::service
