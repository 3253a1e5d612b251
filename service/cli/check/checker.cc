#include "service/cli/check/checker.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "engine/registry.h"
#include "engine/status_macros.h"
#include "service/cli/check/tcp_relay.h"
#include "service/grpc_server.h"
#include "tournament/launcher.h"
#include "tournament/secrets.h"

namespace hoard::service {
namespace {

using hoard::v1::DefaultReason;
using hoard::v1::Match;
using hoard::v1::SeatInfo;

constexpr char kDefaultName[] = "checked";
// A test match that has not ended by then is given up (its clocks normally
// end it much sooner: a silent bot forfeits).
constexpr absl::Duration kMatchTimeout = absl::Minutes(10);
// The share of its decisions a bot may get wrong in each way (late, refused,
// failed) and still pass: a rare hiccup, not a habit.
constexpr double kMostFaultShare = 0.02;
// How much of a dead bot's output the report shows.
constexpr int kLastLines = 12;

// What the bot's seat did in the test matches, summed from the server's
// counts (SeatInfo).
struct Conduct {
  int matches = 0;
  int answers = 0;
  int timeouts = 0;
  int illegal = 0;
  int default_answers = 0;
  int forfeits = 0;
  double round_trip_us_sum = 0;        // answers × mean round trip, summed
  std::vector<std::string> timed_out;  // "m3 (2)": the matches with time-outs
  std::vector<std::string> forfeited;  // their ids
  // Every decision the bot was asked for: answered, or timed out.
  int decisions() const { return answers + timeouts; }
};

// What the bot's flawed answers were (the arena's on_flawed_answer hook),
// with the first of each kind as an example.
struct Flaws {
  // Default actions its client sent (and the server accepted), by reason,
  // and in all.
  std::map<DefaultReason, int> defaults;
  int all_defaults = 0;
  std::map<DefaultReason, std::string> default_example;
  // The first answer refused as illegal (INVALID_ARGUMENT).
  std::string refused_example;
};

class Checker {
 public:
  Checker(const CheckOptions& options, const CheckCallbacks& callbacks)
      : options_(options), callbacks_(callbacks) {}
  ~Checker() {
    launched_.reset();  // stopped before its log goes
    if (!own_log_.empty()) std::remove(own_log_.c_str());
  }

  absl::StatusOr<CheckReport> Run();

 private:
  absl::Status Validate();
  void Report(std::string name, bool passed, std::string detail);
  // Waits for the bot to be connected; the time it took, or nullopt.
  std::optional<absl::Duration> AwaitConnected(absl::Duration timeout);
  // Why a launched bot has stopped ("the bot exited with status 1"), or
  // empty while it runs (and for a bot started by hand).
  std::string Exited();
  // "; its last output: ..." — what a launched bot wrote last, indented,
  // the first time it is asked for; empty after that, or for a bot started
  // by hand.
  std::string LastOutput();
  // True, with `check` reported failed, when the launched bot has stopped
  // (the check is not run).
  bool Gone(const std::string& check);

  // Starts a match of `game` with the bot in seat 0 and built-in `opponent`
  // bots in the others; calls `done` when it ends.
  absl::StatusOr<std::string> StartMatch(const std::string& game, int index,
                                         const std::string& opponent = "random");
  // Waits for the match `id` to end; its summary, or nullopt on time-out.
  std::optional<Match> AwaitFinished(const std::string& id, absl::Duration timeout);
  // The bot's seat of a finished match, counted into conduct_.
  const SeatInfo& Count(const Match& match);
  // Keeps what an answer the server refused, or that the bot's client sent
  // as a default, says about the bot.
  void Note(const hoard::v1::Answer& answer, const hoard::v1::AnswerResult& result);
  // The registered bot's max_matches, or 0 if it is not registered.
  int MaxMatches();

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
  // The launched bot's output when no log was asked for: removed at the end.
  std::string own_log_;
  bool last_output_shown_ = false;
  CheckReport report_;
  Conduct conduct_;

  absl::Mutex mu_;
  std::map<std::string, Match> finished_ ABSL_GUARDED_BY(mu_);
  Flaws flaws_ ABSL_GUARDED_BY(mu_);
};

absl::Status Checker::Validate() {
  if (options_.command.empty() && options_.bot_name.empty()) {
    return absl::InvalidArgumentError("give the bot's command to launch, or its name");
  }
  if (options_.decision_ms <= 0 || options_.bank_ms < 0) {
    return absl::InvalidArgumentError(
        "the decision time must be positive and the bank not negative");
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
  if (!passed) {
    // Whatever failed, a bot that died says why in its last words.
    const std::string exited = Exited();
    if (!exited.empty()) {
      if (!absl::StartsWith(detail, exited)) absl::StrAppend(&detail, "; ", exited);
      absl::StrAppend(&detail, LastOutput());
    }
  }
  report_.checks.push_back({std::move(name), passed, std::move(detail)});
  if (callbacks_.on_result) callbacks_.on_result(report_.checks.back());
}

std::string Checker::Exited() {
  if (launched_ == nullptr) return "";
  std::optional<std::string> exit = launched_->Exited();
  return exit ? absl::StrCat("the bot ", *exit) : "";
}

std::string Checker::LastOutput() {
  if (last_output_shown_ || launched_ == nullptr) return "";
  last_output_shown_ = true;
  const std::string where =
      options_.log_path.empty() ? "" : absl::StrCat(" (all of it in ", options_.log_path, ")");
  const std::string tail = launched_->LastLines(kLastLines);
  if (tail.empty()) return "; it wrote nothing";
  std::string shown = absl::StrCat("; its last output", where, ":");
  for (absl::string_view line : absl::StrSplit(tail, '\n')) {
    absl::StrAppend(&shown, "\n        | ", line);
  }
  return shown;
}

bool Checker::Gone(const std::string& check) {
  const std::string exited = Exited();
  if (exited.empty()) return false;
  Report(check, false, absl::StrCat(exited, ": not checked"));
  return true;
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
  hooks.on_finished = [this](Match match, hoard::v1::MatchRecord) {
    absl::MutexLock lock(&mu_);
    std::string id = match.match_id();
    finished_[std::move(id)] = std::move(match);
  };
  hooks.on_flawed_answer = [this](const hoard::v1::Answer& answer,
                                  const hoard::v1::AnswerResult& result) { Note(answer, result); };
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
  Conduct& c = conduct_;
  ++c.matches;
  c.answers += seat.answers();
  c.timeouts += seat.timeouts();
  c.illegal += seat.illegal_answers();
  c.default_answers += seat.default_answers();
  c.round_trip_us_sum += static_cast<double>(seat.answers()) * seat.mean_round_trip_us();
  if (seat.timeouts() > 0) {
    c.timed_out.push_back(absl::StrCat(match.match_id(), " (", seat.timeouts(), ")"));
  }
  if (seat.forfeited()) {
    ++c.forfeits;
    c.forfeited.push_back(match.match_id());
  }
  return seat;
}

// "legal_index 999" or "action { village { draw {} } }": what a bot answered.
std::string Answered(const hoard::v1::Answer& answer) {
  if (answer.choice_case() == hoard::v1::Answer::kLegalIndex) {
    return absl::StrCat("legal_index ", answer.legal_index());
  }
  if (answer.choice_case() == hoard::v1::Answer::kAction) {
    return absl::StrCat("action { ", answer.action().ShortDebugString(), " }");
  }
  return "neither legal_index nor action";
}

void Checker::Note(const hoard::v1::Answer& answer, const hoard::v1::AnswerResult& result) {
  const std::string request =
      absl::StrCat("match ", answer.match_id(), ", request ", answer.request_id());
  absl::MutexLock lock(&mu_);
  if (!result.accepted()) {
    if (result.code() == static_cast<int>(absl::StatusCode::kInvalidArgument) &&
        flaws_.refused_example.empty()) {
      flaws_.refused_example = absl::StrCat(request, ": the bot answered ", Answered(answer),
                                            ", refused: ", result.reason());
    }
    return;
  }
  const DefaultReason reason = answer.default_reason();
  if (reason == hoard::v1::DEFAULT_REASON_UNSPECIFIED) return;
  ++flaws_.all_defaults;
  if (++flaws_.defaults[reason] == 1) flaws_.default_example[reason] = request;
}

int Checker::MaxMatches() {
  const hoard::v1::ListBotsResponse bots = server_->arena().ListBots();
  for (const hoard::v1::BotInfo& bot : bots.bots()) {
    if (bot.name() == name_) return bot.max_matches();
  }
  return 0;
}

// "3 time-outs, 2 illegal answers, forfeited" — what went wrong in a seat.
std::string Faults(const SeatInfo& seat) {
  std::vector<std::string> faults;
  if (seat.timeouts() > 0) faults.push_back(absl::StrCat(seat.timeouts(), " time-outs"));
  if (seat.illegal_answers() > 0) {
    faults.push_back(absl::StrCat(seat.illegal_answers(), " illegal answers"));
  }
  if (seat.default_answers() > 0) {
    faults.push_back(absl::StrCat(seat.default_answers(), " default actions sent by its client"));
  }
  if (seat.forfeited()) faults.push_back("forfeited");
  return faults.empty() ? "no faults" : absl::StrJoin(faults, ", ");
}

// Whether `faults` of `decisions` is more than a bot may get wrong.
bool TooMany(int faults, int decisions) { return faults > kMostFaultShare * decisions; }

// "3 of 94" with the share, as the checks report a count.
std::string OfDecisions(int count, int decisions) {
  return absl::StrFormat("%d of %d decisions (%.0f%%)", count, decisions,
                         decisions == 0 ? 0.0 : 100.0 * count / decisions);
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
      const int max_matches = MaxMatches();
      const std::string hint =
          max_matches > 0 && max_matches < options_.concurrent_matches
              ? absl::StrCat("; the bot registered with max_matches ", max_matches,
                             "; start it with --max-matches ", options_.concurrent_matches,
                             " (or max_matches in its hello) to play several at once")
              : "";
      return Report(name, false,
                    absl::StrCat("offered ", options_.concurrent_matches,
                                 " matches at once (HOARD_MAX_MATCHES), but match ", i + 1,
                                 " could not start: ", id.status().message(), hint));
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
  Report(
      name, true,
      absl::StrCat(ids.size(), " matches of ", game, " at once, all finished without time-outs"));
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
    return Report(
        name, false,
        absl::StrCat("connected again but forfeited match ", *id, " (", Faults(seat), ")"));
  }
  Report(name, true,
         absl::StrFormat("connection cut in the middle of match %s; back in %.0f ms, and the "
                         "match finished (%s)",
                         *id, absl::ToDoubleMilliseconds(took), Faults(seat)));
}

void Checker::CheckConduct() {
  const Conduct& c = conduct_;
  Flaws flaws;
  {
    // The hook of a match's last answer runs after the match has ended:
    // wait until it has seen every default the server counted.
    absl::MutexLock lock(&mu_);
    auto all_seen = [this, &c]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
      return flaws_.all_defaults >= c.default_answers;
    };
    mu_.AwaitWithTimeout(absl::Condition(&all_seen), absl::Seconds(1));
    flaws = flaws_;
  }
  const int decisions = c.decisions();
  const std::string allowed = absl::StrFormat("at most %.0f%% may be", 100 * kMostFaultShare);
  const std::string round_trip =
      c.answers == 0
          ? "no answer accepted"
          : absl::StrFormat("mean round trip %.1f ms", c.round_trip_us_sum / c.answers / 1000.0);
  auto example = [&flaws](DefaultReason reason) {
    return flaws.default_example.contains(reason)
               ? absl::StrCat(" (e.g. ", flaws.default_example[reason], ")")
               : std::string();
  };

  // In time: the server's time-outs, and the defaults the bot's client sent
  // because the bot's own decision was about to time out.
  const std::string limit =
      absl::StrCat(options_.decision_ms, " ms a decision + ", options_.bank_ms, " ms bank");
  const int late_defaults = flaws.defaults[hoard::v1::DEFAULT_REASON_LATE];
  const int late = c.timeouts + late_defaults;
  if (late == 0 && c.forfeits == 0) {
    Report(
        "answers in time", true,
        absl::StrCat(decisions, " decisions in ", c.matches, c.matches == 1 ? " match" : " matches",
                     ", none late (", limit, "); ", round_trip));
  } else if (!TooMany(late, decisions) && c.forfeits == 0) {
    Report("answers in time", true,
           absl::StrCat(OfDecisions(late, decisions), " late, ", allowed, " (", limit, "); ",
                        round_trip));
  } else {
    std::vector<std::string> why;
    if (c.timeouts > 0) {
      why.push_back(absl::StrCat(c.timeouts, " timed out, the server playing the default action (",
                                 absl::StrJoin(c.timed_out, ", "), ")"));
    }
    if (late_defaults > 0) {
      why.push_back(absl::StrCat(late_defaults,
                                 " not decided in time: the bot's client sent the default action "
                                 "just before the deadline",
                                 example(hoard::v1::DEFAULT_REASON_LATE)));
    }
    if (c.forfeits > 0) {
      why.push_back(absl::StrCat("forfeited ", absl::StrJoin(c.forfeited, ", ")));
    }
    Report("answers in time", false,
           absl::StrCat(OfDecisions(late, decisions), " late (", limit, "; ", allowed,
                        "): ", absl::StrJoin(why, "; "), "; ", round_trip));
  }

  // Legal: the server's refusals of illegal answers; the bot's client may
  // have covered each with the default action.
  const int refused_defaults = flaws.defaults[hoard::v1::DEFAULT_REASON_REFUSED];
  const std::string refused =
      absl::StrCat(c.illegal, " answers refused as illegal in ", decisions, " decisions");
  if (c.answers == 0 && c.illegal == 0) {
    Report("legal answers", false, "the bot gave no answer to judge");
  } else if (c.illegal == 0) {
    Report("legal answers", true, absl::StrCat("all ", c.answers, " answers legal"));
  } else if (!TooMany(c.illegal, decisions)) {
    Report("legal answers", true, absl::StrCat(refused, ", ", allowed));
  } else {
    std::string detail = absl::StrCat(refused, " (", allowed, ")");
    if (!flaws.refused_example.empty()) {
      absl::StrAppend(&detail, "; e.g. ", flaws.refused_example);
    }
    if (refused_defaults > 0) {
      absl::StrAppend(&detail, "; the bot's client answered ", refused_defaults,
                      " of them again with the default action");
    }
    Report("legal answers", false, detail);
  }

  // Decided: defaults the bot's client sent because the bot's own decision
  // failed (for any reason but the two above).
  int failed = 0;
  DefaultReason failed_reason = hoard::v1::DEFAULT_REASON_FAILED;
  for (const auto& [reason, count] : flaws.defaults) {
    if (reason == hoard::v1::DEFAULT_REASON_LATE || reason == hoard::v1::DEFAULT_REASON_REFUSED) {
      continue;
    }
    failed += count;
    failed_reason = reason;
  }
  const std::string why =
      "the bot's code raised an error, and its client sent the default action instead";
  if (failed == 0) {
    Report("decisions succeed", true, "no decision failed");
  } else if (!TooMany(failed, decisions)) {
    Report("decisions succeed", true,
           absl::StrCat(OfDecisions(failed, decisions), " failed, ", allowed, ": ", why));
  } else {
    Report("decisions succeed", false,
           absl::StrCat(OfDecisions(failed, decisions), " failed (", allowed, "): ", why,
                        example(failed_reason), LastOutput()));
  }
}

// A file for a launched bot's output, in the temporary directory; empty if
// none can be made (its output is then lost).
std::string MakeOwnLog() {
  const char* dir = getenv("TMPDIR");
  std::string path =
      absl::StrCat(dir != nullptr && *dir != '\0' ? dir : "/tmp", "/hoard-check-bot-XXXXXX");
  const int fd = mkstemp(path.data());
  if (fd < 0) return "";
  close(fd);
  return path;
}

absl::StatusOr<CheckReport> Checker::Run() {
  RETURN_IF_ERROR(Validate());
  name_ = options_.bot_name.empty() ? kDefaultName : options_.bot_name;

  ServerOptions server_options;
  server_options.grpc.listen = "127.0.0.1:0";
  server_options.serve_tournaments = false;
  // The checker's own server: the bot under test names itself.
  server_options.core.limits.open_registration = true;
  ASSIGN_OR_RETURN(server_, ArenaServer::Start(server_options));
  ASSIGN_OR_RETURN(relay_, TcpRelay::Start(server_->port()));
  const std::string address = absl::StrCat("127.0.0.1:", relay_->port());
  if (callbacks_.on_listening) callbacks_.on_listening(address);

  if (!options_.command.empty()) {
    std::string log_path = options_.log_path;
    if (log_path.empty()) log_path = own_log_ = MakeOwnLog();
    ASSIGN_OR_RETURN(launched_,
                     tournament::LaunchedBot::Start(
                         options_.command,
                         {{"HOARD_SERVER", address},
                          {"HOARD_BOT_NAME", name_},
                          {"HOARD_BOT_KEY", tournament::RandomToken()},
                          {"HOARD_MAX_MATCHES", absl::StrCat(options_.concurrent_matches)}},
                         log_path));
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
  Report(
      "registers", true,
      absl::StrFormat("registered as '%s' in %.0f ms", name_, absl::ToDoubleMilliseconds(*took)));

  for (int i = 0; i < static_cast<int>(options_.games.size()); ++i) {
    if (!Gone(absl::StrCat("plays ", options_.games[i]))) CheckGame(options_.games[i], i);
  }
  if (!Gone("several matches at once")) CheckSeveralAtOnce();
  if (!Gone("survives a reconnect")) CheckReconnect();
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
