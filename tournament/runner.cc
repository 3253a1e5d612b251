#include "tournament/runner.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iterator>
#include <set>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/player_id.h"
#include "engine/seed_commitment.h"
#include "tournament/ratings.h"
#include "tournament/secrets.h"
#include "tournament/spec.h"

namespace hoard::tournament {
namespace {

// Attempts at storing a match whose error is not one that may pass.
constexpr int kAttemptsForLastingErrors = 3;
// How long a tournament's status waits for a store that is locked or full.
constexpr absl::Duration kStatusRetryLimit = absl::Minutes(2);

using hoard::v1::Participant;
using hoard::v1::Tournament;
using hoard::v1::TournamentSpec;

constexpr double kInitialElo = 1500;

// How a participant's seats are labelled in stored matches: the prefix tells
// a built-in bot from one that plays over the network.
std::string SeatPlayerFor(const Participant& participant) {
  const std::string label = ParticipantLabel(participant);
  return (participant.has_builtin() ? engine::PlayerId::Builtin(label)
                                    : engine::PlayerId::Bot(label))
      .ToString();
}

// Pairs a Swiss tournament's rounds again, in order, from its stored
// results: fills in the seats of every paired round in `schedule` (if
// given) and adds the results to `swiss`, up to the first round not
// complete. Returns that round (spec.rounds() when all are), or kDataLoss
// when a stored match seats others than the pairing does.
absl::StatusOr<int> ReplaySwiss(const TournamentSpec& spec,
                                const std::vector<db::RatedMatch>& results, Swiss& swiss,
                                std::vector<ScheduledMatch>* schedule) {
  std::map<std::string, int> participant;
  for (int i = 0; i < spec.participants_size(); ++i) {
    participant[ParticipantLabel(spec.participants(i))] = i;
  }
  std::map<std::int64_t, const db::RatedMatch*> by_slot;
  for (const db::RatedMatch& match : results) by_slot[match.schedule_index] = &match;
  const int tables = swiss.tables_per_round();
  for (int r = 0; r < spec.rounds(); ++r) {
    const SwissRound round = swiss.PairNext();
    int stored = 0;
    for (int t = 0; t < tables; ++t) {
      const int slot = r * tables + t;
      if (schedule != nullptr) (*schedule)[slot].seats = round.tables[t];
      auto it = by_slot.find(slot);
      if (it == by_slot.end()) continue;
      SwissResult result{.round = r};
      std::vector<std::string> seated;
      for (const db::RatedSeat& seat : it->second->seats) {
        auto p = participant.find(seat.bot);
        result.seats.push_back(p == participant.end() ? -1 : p->second);
        result.ranks.push_back(seat.rank);
        seated.push_back(seat.bot);
      }
      if (result.seats != round.tables[t]) {
        return absl::DataLossError(absl::StrCat(
            "the stored match ", slot, " of the schedule seats ", absl::StrJoin(seated, ", "),
            ", not the pairing of Swiss round ", r + 1, " (",
            absl::StrJoin(round.tables[t], ", ",
                          [&](std::string* out, int p) {
                            out->append(ParticipantLabel(spec.participants(p)));
                          }),
            "): its results were not made by this pairing"));
      }
      swiss.Add(result);
      ++stored;
    }
    if (stored < tables) return r;
  }
  return spec.rounds();
}

// A Swiss tournament's standings: every participant in Swiss order, with
// the Elo and counts of `elo` where it played.
std::vector<hoard::v1::Standing> SwissStandings(const Swiss& swiss, const TournamentSpec& spec,
                                                const Standings& elo) {
  std::map<std::string, hoard::v1::Standing> played;
  for (hoard::v1::Standing& row : elo.Sorted()) played[row.bot()] = std::move(row);
  std::vector<hoard::v1::Standing> rows;
  for (const SwissRow& swiss_row : swiss.Standings()) {
    const std::string label = ParticipantLabel(spec.participants(swiss_row.participant));
    hoard::v1::Standing row;
    if (auto it = played.find(label); it != played.end()) {
      row = it->second;
    } else {
      row.set_bot(label);
      row.set_elo(kInitialElo);
    }
    row.set_points(swiss_row.points);
    row.set_buchholz(swiss_row.buchholz);
    row.set_byes(swiss_row.byes);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

void Standings::Add(int schedule_index, std::vector<db::RatedSeat> seats) {
  // Within a tournament a name is one participant: the kind of bot does not
  // tell rows apart.
  for (db::RatedSeat& seat : seats) seat.builtin = false;
  if (schedule_index < checkpoint_) return;  // counted already
  auto [added, fresh] = unsettled_.try_emplace(schedule_index, std::move(seats));
  if (!fresh) return;  // counted already
  for (const auto& [identity, seat] : RatedSeats(added->second)) {
    Entry& entry = entries_[identity.first];
    ++entry.matches;
    if (seat->rank == 1) ++entry.wins;
    entry.score_sum += seat->score;
    entry.place_sum += seat->rank;
  }
  // The slots now complete from the checkpoint on join it.
  for (auto it = unsettled_.begin(); it != unsettled_.end() && it->first == checkpoint_;
       it = unsettled_.erase(it), ++checkpoint_) {
    AddToElo(it->second, settled_elo_);
  }
}

std::vector<hoard::v1::Standing> Standings::Sorted() const {
  // The checkpoint, then the slots above it in order.
  std::map<Identity, double> elo = settled_elo_;
  for (const auto& [index, seats] : unsettled_) AddToElo(seats, elo);
  std::vector<hoard::v1::Standing> rows;
  for (const auto& [bot, entry] : entries_) {
    hoard::v1::Standing row;
    row.set_bot(bot);
    row.set_matches(entry.matches);
    row.set_wins(entry.wins);
    if (entry.matches > 0) {
      row.set_average_score(entry.score_sum / entry.matches);
      row.set_average_place(entry.place_sum / entry.matches);
    }
    const auto rating = elo.find({bot, false});
    row.set_elo(rating != elo.end() ? rating->second : kInitialElo);
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    if (a.elo() != b.elo()) return a.elo() > b.elo();
    return a.wins() > b.wins();
  });
  return rows;
}

absl::StatusOr<std::int64_t> CreateOrResume(db::MatchStore& store, const TournamentSpec& spec,
                                            bool fresh, bool* resumed) {
  *resumed = false;
  const std::string hash = SpecHash(spec);
  if (!fresh) {
    absl::StatusOr<std::optional<db::StoredTournament>> found = store.FindTournament(hash);
    if (!found.ok()) return found.status();
    if (*found) {
      *resumed = true;
      return (*found)->id;
    }
  }
  absl::StatusOr<std::int64_t> size = ScheduleSize(ScheduleInputFor(spec));
  if (!size.ok()) return size.status();
  // Committed to its master seed before its first match.
  return store.CreateTournament(spec, hash, static_cast<int>(*size), engine::NewSeedSalt());
}

bool IsLeasedWhole(const TournamentSpec& spec) {
  if (spec.format() == hoard::v1::FORMAT_SWISS) return true;
  const std::string& candidate = spec.sprt().candidate();
  return !candidate.empty() &&
         std::any_of(spec.participants().begin(), spec.participants().end(),
                     [&](const Participant& p) { return p.name() == candidate; });
}

absl::StatusOr<Tournament> LoadTournament(db::MatchStore& store, std::int64_t id) {
  absl::StatusOr<std::optional<db::StoredTournament>> stored = store.GetTournament(id);
  if (!stored.ok()) return stored.status();
  if (!*stored) return absl::NotFoundError(absl::StrCat("no tournament ", id));
  const db::StoredTournament& t = **stored;
  Tournament tournament;
  tournament.set_id(t.id);
  *tournament.mutable_spec() = t.spec;
  tournament.set_status(t.status);
  tournament.set_error(t.error);
  tournament.set_created_unix_ms(t.created_unix_ms);
  tournament.set_updated_unix_ms(t.updated_unix_ms);
  if (!t.seed_salt.empty()) {
    tournament.set_seed_commitment(engine::SeedCommitment(t.spec.seed(), t.seed_salt));
    tournament.set_seed_salt(t.seed_salt);
  }
  hoard::v1::TournamentProgress* progress = tournament.mutable_progress();
  progress->set_scheduled(t.scheduled);
  absl::StatusOr<std::vector<db::RatedMatch>> results =
      store.RatedMatches({.game = t.spec.game(), .tournament_id = id});
  if (!results.ok()) return results.status();
  absl::StatusOr<std::vector<int>> slots = store.StoredSlots(id);
  if (!slots.ok()) return slots.status();
  progress->set_finished(static_cast<int>(slots->size()));
  Standings standings;
  for (const db::RatedMatch& match : *results) standings.Add(match.schedule_index, match.seats);
  if (t.spec.format() == hoard::v1::FORMAT_SWISS) {
    if (absl::StatusOr<std::int64_t> size = ScheduleSize(ScheduleInputFor(t.spec)); !size.ok()) {
      return absl::DataLossError(
          absl::StrCat("tournament ", id, ": its stored spec: ", size.status().message()));
    }
    Swiss swiss(t.spec.participants_size(), t.spec.players_per_match());
    absl::StatusOr<int> round = ReplaySwiss(t.spec, *results, swiss, nullptr);
    if (!round.ok()) {
      return absl::Status(round.status().code(),
                          absl::StrCat("tournament ", id, ": ", round.status().message()));
    }
    progress->set_round(std::min(*round + 1, t.spec.rounds()));
    for (hoard::v1::Standing& row : SwissStandings(swiss, t.spec, standings)) {
      *progress->add_standings() = std::move(row);
    }
    return tournament;
  }
  for (hoard::v1::Standing& row : standings.Sorted()) *progress->add_standings() = std::move(row);
  return tournament;
}

TournamentRunner::TournamentRunner(db::MatchStore* store, MatchHost* host, RunnerOptions options)
    : store_(store), host_(host), options_(std::move(options)) {}

TournamentRunner::~TournamentRunner() {
  for (Supervised& launched : launched_) {
    if (launched.bot) launched.bot->Stop();
  }
}

void TournamentRunner::Cancel(hoard::v1::TournamentStatus status) {
  cancelled_as_ = status;
  cancelled_ = true;
  absl::MutexLock lock(&mu_);
  stop_ = true;
}

Tournament TournamentRunner::Current() const {
  absl::MutexLock lock(&mu_);
  return CurrentLocked();
}

Tournament TournamentRunner::CurrentLocked() const {
  Tournament tournament = tournament_;
  hoard::v1::TournamentProgress* progress = tournament.mutable_progress();
  progress->set_scheduled(static_cast<int>(schedule_.size()));
  progress->set_finished(finished_);
  progress->set_failed(failed_);
  progress->set_running(running_);
  const absl::Duration elapsed = absl::Now() - started_;
  progress->set_elapsed_ms(absl::ToInt64Milliseconds(elapsed));
  if (elapsed > absl::ZeroDuration()) {
    progress->set_matches_per_second(finished_this_run_ / absl::ToDoubleSeconds(elapsed));
  }
  const int left = static_cast<int>(schedule_.size()) - finished_;
  if (finished_this_run_ > 0 && left > 0) {
    progress->set_eta_ms(absl::ToInt64Milliseconds(elapsed / finished_this_run_ * left));
  }
  progress->clear_standings();
  if (swiss_ != nullptr) {
    progress->set_round(std::min(swiss_round_ + 1, spec_.rounds()));
    for (hoard::v1::Standing& row : SwissStandings(*swiss_, spec_, standings_)) {
      *progress->add_standings() = std::move(row);
    }
  } else {
    for (hoard::v1::Standing& row : standings_.Sorted()) {
      *progress->add_standings() = std::move(row);
    }
  }
  if (sprt_candidate_ >= 0) *progress->mutable_sprt() = sprt_;
  tournament.set_error(waiting_for_store_.empty() ? error_ : waiting_for_store_);
  return tournament;
}

void TournamentRunner::Warn(const std::string& line) {
  if (!options_.on_warning) return;
  absl::MutexLock lock(&warn_mu_);
  options_.on_warning(line);
}

void TournamentRunner::Report() {
  if (!options_.on_progress) return;
  absl::MutexLock report(&report_mu_);
  reported_at_ns_ = absl::GetCurrentTimeNanos();
  options_.on_progress(Current());
}

void TournamentRunner::ReportSampled() {
  if (absl::GetCurrentTimeNanos() - reported_at_ns_ <
      absl::ToInt64Nanoseconds(options_.progress_every)) {
    return;
  }
  Report();
}

namespace {

// How a launched participant was started, for messages: its catalog entry's
// name (a catalog's commands stay on the server) or its command.
std::string LaunchedAs(const Participant& participant) {
  if (participant.has_catalog()) return absl::StrCat("catalog bot: ", participant.catalog());
  return absl::StrCat("command: ", participant.command());
}

// " (its last line: ...)" from a launched bot's output, or "".
std::string LastWords(const LaunchedBot& bot) {
  std::string last = bot.LastLines(1);
  while (!last.empty() && (last.back() == '\n' || last.back() == '\r')) last.pop_back();
  return last.empty() ? "" : absl::StrCat(" (its last line: ", last, ")");
}

}  // namespace

std::set<int> TournamentRunner::NeededParticipants() const {
  std::set<int> needed;
  absl::MutexLock lock(&mu_);
  // A Swiss pairs its later rounds as it goes: everyone may play.
  if (swiss_ != nullptr && !pending_.empty()) {
    for (int p = 0; p < spec_.participants_size(); ++p) needed.insert(p);
  }
  for (int index : pending_) {
    for (int p : schedule_[index].seats) needed.insert(p);
  }
  return needed;
}

std::optional<hoard::v1::CatalogBot> TournamentRunner::LaunchOf(int p) {
  const Participant& participant = spec_.participants(p);
  if (!participant.has_catalog()) {
    hoard::v1::CatalogBot launch;
    launch.set_command(participant.command());
    return launch;
  }
  std::optional<hoard::v1::CatalogBot> entry;
  if (options_.catalog) entry = options_.catalog(participant.catalog());
  if (!entry) {
    unavailable_[p] = absl::StrCat("participant '", participant.name(), "': no bot '",
                                   participant.catalog(), "' in the server's catalog");
  }
  return entry;
}

void TournamentRunner::Launch(int p, const hoard::v1::CatalogBot& launch,
                              const std::vector<std::string>& addresses, LaunchedBots& launched) {
  const Participant& participant = spec_.participants(p);
  // A fresh key at every launch: the account is made for it, or re-keyed.
  const std::string key = RandomToken();
  if (absl::Status provisioned = host_->ProvisionBot(ParticipantLabel(participant), key);
      !provisioned.ok()) {
    unavailable_[p] =
        absl::StrCat("participant '", participant.name(), "': ", provisioned.message());
    return;
  }
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    std::string log;
    if (!options_.bot_log_dir.empty()) {
      std::error_code ignored;
      std::filesystem::create_directories(options_.bot_log_dir, ignored);
      log = absl::StrCat(options_.bot_log_dir, "/", participant.name(),
                         i == 0 ? "" : absl::StrCat("-", i + 1), ".log");
    }
    std::map<std::string, std::string> env(launch.environment().begin(),
                                           launch.environment().end());
    env["HOARD_SERVER"] = addresses[i];
    env["HOARD_BOT_NAME"] = ParticipantLabel(participant);
    env["HOARD_BOT_KEY"] = key;
    env["HOARD_MAX_MATCHES"] = absl::StrCat(spec_.concurrency());
    absl::StatusOr<std::unique_ptr<LaunchedBot>> bot =
        LaunchedBot::Start(launch.command(), env, log, launch.working_directory());
    if (!bot.ok()) {
      unavailable_[p] = std::string(bot.status().message());
      return;
    }
    launched[p].push_back(bot->get());
    launched_.push_back({.participant = p,
                         .command = launch.command(),
                         .env = std::move(env),
                         .log_path = log,
                         .working_directory = launch.working_directory(),
                         .bot = *std::move(bot)});
  }
}

void TournamentRunner::Supervise() {
  const absl::Time now = absl::Now();
  for (Supervised& launched : launched_) {
    if (launched.given_up || unavailable_.contains(launched.participant)) continue;
    const int p = launched.participant;
    const Participant& participant = spec_.participants(p);
    const std::string output =
        launched.log_path.empty() ? "" : absl::StrCat("; output: ", launched.log_path);
    if (launched.bot != nullptr) {
      std::optional<std::string> exit = launched.bot->Exited();
      if (!exit) continue;
      const std::string last_words = LastWords(*launched.bot);
      launched.bot.reset();
      int played;
      {
        absl::MutexLock lock(&mu_);
        played = played_through_[p];
      }
      // Matches played through since the last exit: it was making progress.
      int& in_a_row = exits_in_a_row_[p];
      in_a_row = played > played_at_exit_[p] ? 1 : in_a_row + 1;
      played_at_exit_[p] = played;
      const std::string what =
          absl::StrCat("participant '", participant.name(), "' ", *exit, last_words);
      if (in_a_row > options_.max_restarts) {
        launched.given_up = true;
        FailForParticipant(absl::StrCat(what, ": it exited ", in_a_row,
                                        " times in a row without playing a match through, so "
                                        "the tournament stops (",
                                        LaunchedAs(participant), output, ")"));
        continue;
      }
      absl::Duration delay = options_.first_restart_delay;
      for (int i = 1; i < in_a_row && delay < kMaxRestartDelay; ++i) delay *= 2;
      delay = std::min(delay, kMaxRestartDelay);
      launched.restart_at = now + delay;
      Warn(absl::StrCat(what, "; restarting it in ", absl::FormatDuration(delay), " (", in_a_row,
                        " of at most ", options_.max_restarts, " restarts in a row; ",
                        LaunchedAs(participant), output, ")"));
      continue;
    }
    if (now < launched.restart_at) continue;
    absl::StatusOr<std::unique_ptr<LaunchedBot>> bot = LaunchedBot::Start(
        launched.command, launched.env, launched.log_path, launched.working_directory);
    if (!bot.ok()) {
      launched.given_up = true;
      FailForParticipant(absl::StrCat("participant '", participant.name(),
                                      "' could not be restarted: ", bot.status().message()));
      continue;
    }
    launched.bot = *std::move(bot);
    Warn(absl::StrCat("participant '", participant.name(), "' restarted"));
  }
}

void TournamentRunner::FailForParticipant(const std::string& why) {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
    if (!participant_failed_) {
      participant_failed_ = true;
      error_ = why;
    }
  }
  Warn(why);
  Report();
}

void TournamentRunner::DropExited(const LaunchedBots& launched, std::set<int>& waiting) {
  for (auto it = waiting.begin(); it != waiting.end();) {
    std::optional<std::string> exit;
    const LaunchedBot* exited = nullptr;
    if (auto bots = launched.find(*it); bots != launched.end()) {
      for (LaunchedBot* bot : bots->second) {
        if ((exit = bot->Exited())) {
          exited = bot;
          break;
        }
      }
    }
    if (exit) {
      unavailable_[*it] = absl::StrCat(
          "participant '", spec_.participants(*it).name(), "' ", *exit, " before it connected",
          LastWords(*exited), " (", LaunchedAs(spec_.participants(*it)),
          exited->log_path().empty() ? ")" : absl::StrCat("; output: ", exited->log_path(), ")"));
      it = waiting.erase(it);
    } else {
      ++it;
    }
  }
}

std::set<int> TournamentRunner::AwaitConnected(const std::set<int>& needed,
                                               const LaunchedBots& launched) {
  std::set<int> waiting;
  for (int p : needed) {
    if (!spec_.participants(p).has_builtin() && !unavailable_.contains(p)) waiting.insert(p);
  }
  // A participant that played in this tournament before was connected
  // before a crash or a stop: it gets the resume grace to come back.
  const absl::Time start = absl::Now();
  const absl::Duration timeout = absl::Milliseconds(spec_.fault_policy().start_timeout_ms());
  const absl::Duration resume_timeout = std::max(timeout, options_.resume_grace);
  auto deadline_of = [&](int p) {
    return start + (played_before_.contains(p) ? resume_timeout : timeout);
  };
  while (!waiting.empty() && !cancelled_) {
    absl::StatusOr<hoard::v1::ListBotsResponse> bots = host_->ListBots();
    if (bots.ok()) {
      for (const hoard::v1::BotInfo& bot : bots->bots()) {
        if (!bot.connected()) continue;
        std::erase_if(waiting,
                      [&](int p) { return ParticipantLabel(spec_.participants(p)) == bot.name(); });
      }
    }
    DropExited(launched, waiting);
    const absl::Time now = absl::Now();
    if (std::all_of(waiting.begin(), waiting.end(), [&](int p) { return now >= deadline_of(p); })) {
      break;
    }
    absl::SleepFor(absl::Milliseconds(50));
  }
  return waiting;
}

std::string TournamentRunner::NotConnected(int p, const std::vector<std::string>& addresses,
                                           const LaunchedBots& launched) const {
  const Participant& participant = spec_.participants(p);
  const std::int64_t waited_ms =
      played_before_.contains(p)
          ? std::max<std::int64_t>(spec_.fault_policy().start_timeout_ms(),
                                   absl::ToInt64Milliseconds(options_.resume_grace))
          : spec_.fault_policy().start_timeout_ms();
  std::string why = absl::StrCat("participant '", participant.name(), "' did not connect to ",
                                 absl::StrJoin(addresses, " and "), " within ", waited_ms, " ms",
                                 played_before_.contains(p) ? " of the tournament resuming" : "");
  if (!participant.has_command() && !participant.has_catalog()) {
    return absl::StrCat(why, " (it must register under that name)");
  }
  auto bots = launched.find(p);
  absl::StrAppend(&why, " (", LaunchedAs(participant));
  if (bots != launched.end() && !bots->second.empty() &&
      !bots->second.front()->log_path().empty()) {
    absl::StrAppend(&why, "; output: ", bots->second.front()->log_path());
  }
  absl::StrAppend(&why, ")");
  return why;
}

void TournamentRunner::PrepareParticipants() {
  const std::set<int> needed = NeededParticipants();
  // A launched bot runs once for each server behind the host.
  const std::vector<std::string> addresses = host_->bot_addresses();
  LaunchedBots launched;
  for (int p : needed) {
    const Participant& participant = spec_.participants(p);
    if (!participant.has_command() && !participant.has_catalog()) continue;
    if (addresses.empty()) {
      unavailable_[p] = "this host takes no bots over the network";
      continue;
    }
    if (std::optional<hoard::v1::CatalogBot> launch = LaunchOf(p)) {
      Launch(p, *launch, addresses, launched);
    }
  }
  for (int p : AwaitConnected(needed, launched)) {
    unavailable_[p] = NotConnected(p, addresses, launched);
  }
  for (const auto& [p, why] : unavailable_) {
    Warn(why);
  }
}

absl::Status TournamentRunner::Load(std::int64_t id) {
  absl::StatusOr<Tournament> loaded = LoadTournament(*store_, id);
  if (!loaded.ok()) return loaded.status();
  absl::StatusOr<TournamentSpec> spec = Normalize(loaded->spec());
  if (!spec.ok()) {
    return absl::Status(spec.status().code(),
                        absl::StrCat("tournament ", id, " cannot run: ", spec.status().message()));
  }
  absl::StatusOr<std::vector<ScheduledMatch>> schedule = Schedule(ScheduleInputFor(*spec));
  if (!schedule.ok()) return schedule.status();
  absl::StatusOr<std::vector<int>> stored = store_->StoredSlots(id);
  if (!stored.ok()) return stored.status();
  absl::StatusOr<std::vector<db::RatedMatch>> results =
      store_->RatedMatches({.game = spec->game(), .tournament_id = id});
  if (!results.ok()) return results.status();

  if (options_.concurrency > 0) spec->set_concurrency(options_.concurrency);
  if (options_.fault_policy) *spec->mutable_fault_policy() = *options_.fault_policy;
  schedule_ = *std::move(schedule);
  spec_ = *spec;
  id_ = id;
  for (const Participant& p : spec->participants()) {
    if (p.name() == spec->sprt().candidate()) sprt_candidate_ = static_cast<int>(labels_.size());
    labels_.push_back(ParticipantLabel(p));
  }
  sprt_params_ = SprtParametersOf(spec->sprt());
  std::unique_ptr<Swiss> swiss;
  int swiss_round = 0;
  if (spec->format() == hoard::v1::FORMAT_SWISS) {
    swiss = std::make_unique<Swiss>(spec->participants_size(), spec->players_per_match());
    absl::StatusOr<int> round = ReplaySwiss(*spec, *results, *swiss, &schedule_);
    if (!round.ok()) {
      return absl::Status(round.status().code(),
                          absl::StrCat("tournament ", id, ": ", round.status().message()));
    }
    swiss_round = *round;
  }
  for (const db::RatedMatch& match : *results) {
    for (const db::RatedSeat& seat : match.seats) {
      auto it = std::find(labels_.begin(), labels_.end(), seat.bot);
      if (it != labels_.end()) played_before_.insert(static_cast<int>(it - labels_.begin()));
    }
  }
  stored_status_ = loaded->status();
  stored_error_ = loaded->error();
  absl::MutexLock lock(&mu_);
  tournament_ = *std::move(loaded);
  *tournament_.mutable_spec() = *spec;
  tournament_.set_status(hoard::v1::TOURNAMENT_STATUS_RUNNING);
  tournament_.set_error("");
  const std::set<int> done(stored->begin(), stored->end());
  finished_ = static_cast<int>(done.size());
  if (sprt_candidate_ >= 0) sprt_ = Sprt({}, sprt_params_, schedule_.empty());
  for (const db::RatedMatch& match : *results) {
    standings_.Add(static_cast<int>(match.schedule_index), match.seats);
    if (sprt_candidate_ >= 0) CountForSprt(match.block, match.seats);
  }
  // Played from the back: keep schedule order. A test already decided
  // plays nothing more; a Swiss plays the round it is in.
  for (int i = static_cast<int>(schedule_.size()) - 1; i >= 0 && !SprtDecided(); --i) {
    if (swiss != nullptr && schedule_[i].round != swiss_round) continue;
    if (!done.contains(i)) pending_.push_back(i);
  }
  // Servers sharing the tournament start at different places of its
  // schedule (by their names), so that they seldom reach for the same slot.
  if (!options_.lease_holder.empty() && !LeasedWhole() && !pending_.empty()) {
    const std::size_t start = std::hash<std::string>()(options_.lease_holder) % pending_.size();
    std::rotate(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(start),
                pending_.end());
  }
  if (swiss != nullptr) {
    swiss_ = std::move(swiss);
    swiss_round_ = std::min(swiss_round, spec_.rounds() - 1);
    swiss_left_ = static_cast<int>(pending_.size());
  }
  started_ = absl::Now();
  stop_ = cancelled_;
  return absl::OkStatus();
}

void TournamentRunner::PlayPending() {
  int workers;
  {
    absl::MutexLock lock(&mu_);
    // A Swiss queues its rounds one at a time: as many workers as a round
    // has tables.
    workers =
        std::min<int>(spec_.concurrency(), swiss_ != nullptr ? swiss_->tables_per_round()
                                                             : static_cast<int>(pending_.size()));
  }
  {
    absl::MutexLock lock(&queue_mu_);
    workers_done_ = false;
  }
  std::thread writer([this] { WriteResults(); });
  std::vector<std::thread> threads;
  for (int i = 0; i < workers; ++i) threads.emplace_back([this] { Work(); });
  // The launched bots are watched while the matches are played.
  std::atomic<bool> playing{true};
  std::thread supervisor([this, &playing] {
    while (playing) {
      Supervise();
      absl::SleepFor(absl::Milliseconds(50));
    }
  });
  for (std::thread& thread : threads) thread.join();
  {
    absl::MutexLock lock(&queue_mu_);
    workers_done_ = true;
  }
  writer.join();
  playing = false;
  supervisor.join();
}

void TournamentRunner::StopLaunched() {
  for (Supervised& launched : launched_) {
    if (launched.bot) launched.bot->Stop();
  }
  launched_.clear();
}

bool TournamentRunner::LeasedWhole() const { return IsLeasedWhole(spec_); }

bool TournamentRunner::CanSeat(const ScheduledMatch& match) const {
  for (int p : match.seats) {
    if (unavailable_.contains(p)) return false;
  }
  return true;
}

bool TournamentRunner::TakeInSharedProgress() {
  {
    absl::MutexLock lock(&mu_);
    if (stop_ || deferred_.empty()) return false;
    mu_.AwaitWithTimeout(absl::Condition(&stop_), options_.share_poll);
    if (stop_) return false;
  }
  absl::StatusOr<std::vector<int>> stored = store_->StoredSlots(id_);
  absl::StatusOr<std::vector<db::RatedMatch>> results =
      stored.ok() ? store_->RatedMatches({.game = spec_.game(), .tournament_id = id_})
                  : absl::StatusOr<std::vector<db::RatedMatch>>(stored.status());
  {
    absl::MutexLock lock(&mu_);
    // A store that cannot be read now is looked at again next time.
    if (!stored.ok() || !results.ok()) return !stop_;
    const std::set<int> done(stored->begin(), stored->end());
    finished_ = static_cast<int>(done.size());
    standings_ = Standings();
    for (const db::RatedMatch& match : *results) standings_.Add(match.schedule_index, match.seats);
    // The lowest slot is played first, as in the first pass.
    std::sort(deferred_.begin(), deferred_.end(), std::greater<int>());
    for (int index : deferred_) {
      if (!done.contains(index)) pending_.push_back(index);
    }
    deferred_.clear();
    if (pending_.empty()) return false;
  }
  Report();
  return true;
}

void TournamentRunner::KeepLeases(const std::atomic<bool>& done) {
  const absl::Duration every = options_.lease_ttl / 3;
  absl::Time next = absl::Now() + every;
  while (!done) {
    if (absl::Now() < next) {
      absl::SleepFor(std::min(absl::Milliseconds(50), next - absl::Now()));
      continue;
    }
    next = absl::Now() + every;
    if (absl::Status renewed = store_->RenewLeases(options_.lease_holder, options_.lease_ttl);
        !renewed.ok()) {
      Warn(absl::StrCat("cannot renew this server's leases (", renewed.message(),
                        "); other servers may play its matches again once they run out"));
    }
    // Cancelled, or ended, by another server: this one stops too.
    absl::StatusOr<std::optional<db::StoredTournament>> stored = store_->GetTournament(id_);
    if (!stored.ok() || !stored->has_value()) continue;
    const hoard::v1::TournamentStatus status = (*stored)->status;
    if (status == hoard::v1::TOURNAMENT_STATUS_CANCELLED ||
        status == hoard::v1::TOURNAMENT_STATUS_FINISHED ||
        status == hoard::v1::TOURNAMENT_STATUS_FAILED) {
      ended_elsewhere_ = true;
      Cancel(status);
    }
  }
}

Tournament TournamentRunner::Conclude() {
  absl::MutexLock lock(&mu_);
  hoard::v1::TournamentStatus status;
  if (participant_failed_) {
    // Even if the matches in flight completed the schedule: they were
    // played against a participant that was down.
    status = hoard::v1::TOURNAMENT_STATUS_FAILED;
  } else if (finished_ == static_cast<int>(schedule_.size()) || SprtDecided()) {
    status = hoard::v1::TOURNAMENT_STATUS_FINISHED;
    error_.clear();
  } else if (cancelled_) {
    status = cancelled_as_;
  } else {
    status = hoard::v1::TOURNAMENT_STATUS_FAILED;
    if (!store_broken_ && !participant_failed_) {
      error_ = absl::StrCat(failed_, " match", failed_ == 1 ? "" : "es",
                            " failed (run the tournament again to retry ",
                            failed_ == 1 ? "it" : "them", "); last: ", error_);
    }
  }
  tournament_.set_status(status);
  return CurrentLocked();
}

absl::Status TournamentRunner::SetStatusWithRetries(hoard::v1::TournamentStatus status,
                                                    const std::string& error) {
  absl::Duration pause = absl::Milliseconds(50);
  const absl::Time give_up = absl::Now() + kStatusRetryLimit;
  while (true) {
    const absl::Status saved = store_->SetTournamentStatus(id_, status, error);
    // A lock or a full disk pass: wait for them (within reason).
    if (saved.ok() || saved.code() != absl::StatusCode::kUnavailable || absl::Now() >= give_up) {
      return saved;
    }
    absl::SleepFor(pause);
    pause = std::min(pause * 2, absl::Seconds(2));
  }
}

absl::StatusOr<Tournament> TournamentRunner::Run(std::int64_t id) {
  const bool shared = !options_.lease_holder.empty();
  if (shared) {
    // Servers sharing the store look at each running tournament every
    // second: one ended or run whole by another server is left before more
    // than its row is read.
    absl::StatusOr<std::optional<db::StoredTournament>> row = store_->GetTournament(id);
    if (!row.ok()) return row.status();
    if (!*row) return absl::NotFoundError(absl::StrCat("no tournament ", id));
    const db::StoredTournament& t = **row;
    // Ended by another server since it was found running: nothing to do.
    if (t.status == hoard::v1::TOURNAMENT_STATUS_FINISHED ||
        t.status == hoard::v1::TOURNAMENT_STATUS_CANCELLED ||
        (t.status == hoard::v1::TOURNAMENT_STATUS_FAILED &&
         !absl::StartsWith(t.error, kCannotStoreResults))) {
      return LoadTournament(*store_, id);
    }
    if (IsLeasedWhole(t.spec)) {
      absl::StatusOr<bool> mine =
          store_->ClaimSlot(id, -1, options_.lease_holder, options_.lease_ttl);
      if (!mine.ok()) return mine.status();
      if (!*mine) return absl::AbortedError(absl::StrCat(kRunByAnotherServer, "tournament ", id));
    }
  }
  if (absl::Status s = Load(id); !s.ok()) {
    if (shared) store_->ReleaseLeases(id, options_.lease_holder).IgnoreError();
    return s;
  }
  // Servers that share it find it running already: none stores it again.
  if (!shared || stored_status_ != hoard::v1::TOURNAMENT_STATUS_RUNNING) {
    if (absl::Status s = SetStatusWithRetries(hoard::v1::TOURNAMENT_STATUS_RUNNING, ""); !s.ok()) {
      return s;
    }
  }
  std::atomic<bool> done{false};
  std::thread leases;
  if (shared) leases = std::thread([this, &done] { KeepLeases(done); });
  PrepareParticipants();
  Report();
  do {
    PlayPending();
  } while (shared && !LeasedWhole() && TakeInSharedProgress());
  StopLaunched();
  done = true;
  if (leases.joinable()) leases.join();
  if (shared) {
    if (ended_elsewhere_) return LoadTournament(*store_, id);
    if (cancelled_ && cancelled_as_ == hoard::v1::TOURNAMENT_STATUS_STOPPED) {
      // This server is going down; the others (or its next start) go on.
      store_->ReleaseLeases(id, options_.lease_holder).IgnoreError();
      Tournament left = Current();
      left.set_status(hoard::v1::TOURNAMENT_STATUS_RUNNING);
      return left;
    }
  }
  const Tournament final_state = Conclude();
  absl::Status saved = SetStatusWithRetries(final_state.status(), final_state.error());
  if (shared) store_->ReleaseLeases(id, options_.lease_holder).IgnoreError();
  Report();
  if (!saved.ok()) return saved;
  return final_state;
}

void TournamentRunner::CountForSprt(std::int64_t block, const std::vector<db::RatedSeat>& seats) {
  std::vector<int> places;
  int candidate = -1;
  for (const db::RatedSeat& seat : seats) {
    if (seat.bot == labels_[sprt_candidate_]) candidate = static_cast<int>(places.size());
    places.push_back(seat.rank);
  }
  if (candidate < 0) return;
  auto& [score, matches] = sprt_blocks_[block];
  score += PairwiseScore(places, candidate);
  ++matches;
  // The complete blocks at the start of the schedule, one at a time in its
  // order, until the test decides: the verdict and the figures it shows do
  // not depend on which match ends first.
  const int k = spec_.players_per_match();
  const int blocks = static_cast<int>(schedule_.size()) / k;
  for (auto it = sprt_blocks_.find(sprt_counted_);
       !SprtDecided() && it != sprt_blocks_.end() && it->second.second == k;
       it = sprt_blocks_.find(sprt_counted_)) {
    const double x = it->second.first / k;
    ++sprt_counted_;
    sprt_sum_ += x;
    sprt_squares_ += x * x;
    sprt_ = SprtFromSums(sprt_counted_, sprt_sum_, sprt_squares_, sprt_params_,
                         sprt_counted_ == blocks);
  }
  if (SprtDecided()) stop_ = true;
}

bool TournamentRunner::SprtDecided() const {
  return sprt_.result() == hoard::v1::SprtState::RESULT_H0 ||
         sprt_.result() == hoard::v1::SprtState::RESULT_H1;
}

void TournamentRunner::Work() {
  const bool claim_each = !options_.lease_holder.empty() && !LeasedWhole();
  while (true) {
    int index;
    {
      absl::MutexLock lock(&mu_);
      // A Swiss's next round is queued when its last match in flight ends.
      mu_.Await(absl::Condition(this, &TournamentRunner::WorkOrDone));
      if (stop_ || pending_.empty()) return;
      index = pending_.back();
      pending_.pop_back();
      ++running_;
    }
    if (claim_each) {
      // Shared: a slot another server holds, or whose participants this
      // server cannot seat, is left for now (TakeInSharedProgress).
      bool mine = false;
      if (CanSeat(schedule_[index])) {
        absl::StatusOr<bool> claimed =
            store_->ClaimSlot(id_, index, options_.lease_holder, options_.lease_ttl);
        mine = claimed.ok() && *claimed;
      }
      if (!mine) {
        absl::MutexLock lock(&mu_);
        deferred_.push_back(index);
        --running_;
        continue;
      }
    }
    PlayOne(schedule_[index]);
  }
}

bool TournamentRunner::WorkOrDone() const { return stop_ || !pending_.empty() || running_ == 0; }

void TournamentRunner::AfterMatch() {
  if (swiss_ == nullptr || !pending_.empty() || running_ > 0 || stop_) return;
  if (swiss_left_ > 0) {
    // A match of the round failed: the next round cannot be paired without
    // it. The tournament stops; resuming plays it again.
    stop_ = true;
    return;
  }
  if (swiss_round_ + 1 >= spec_.rounds()) return;
  ++swiss_round_;
  QueueSwissRound(swiss_->PairNext());
}

void TournamentRunner::QueueSwissRound(const SwissRound& round) {
  const int tables = swiss_->tables_per_round();
  for (int t = tables - 1; t >= 0; --t) {
    const int slot = swiss_round_ * tables + t;
    schedule_[slot].seats = round.tables[t];
    pending_.push_back(slot);
  }
  swiss_left_ = tables;
}

void TournamentRunner::Fail(const ScheduledMatch& match, const std::string& reason) {
  const std::string line =
      absl::StrCat("match ", match.index, " of the schedule (",
                   absl::StrJoin(match.seats, ", ",
                                 [this](std::string* out, int p) { out->append(labels_[p]); }),
                   ") failed: ", reason);
  {
    absl::MutexLock lock(&mu_);
    --running_;
    ++failed_;
    error_ = line;
    if (failed_ >= spec_.fault_policy().max_failed_matches()) stop_ = true;
    AfterMatch();
  }
  Warn(line);
  ReportSampled();
}

void TournamentRunner::PlayOne(const ScheduledMatch& match) {
  const TournamentSpec& spec = spec_;
  for (int p : match.seats) {
    if (auto it = unavailable_.find(p); it != unavailable_.end()) {
      Fail(match, it->second);
      return;
    }
  }
  hoard::v1::CreateMatchRequest request;
  request.set_game(spec.game());
  request.mutable_options()->insert(spec.options().begin(), spec.options().end());
  request.set_seed(match.seed);
  // Its deal derives from the tournament's seed (and a duplicate block's
  // other matches replay it): secret until the tournament is over.
  request.set_sealed(true);
  *request.mutable_time_control() = spec.time_control();
  for (int p : match.seats) {
    const Participant& participant = spec.participants(p);
    if (participant.has_builtin()) {
      request.add_seats()->set_builtin(participant.builtin());
    } else {
      request.add_seats()->set_bot(ParticipantLabel(participant));
    }
  }

  absl::StatusOr<FinishedMatch> played = host_->Play(request);
  // A bot at its limit of matches: wait for one of its matches to end.
  while (!played.ok() && played.status().code() == absl::StatusCode::kResourceExhausted &&
         !cancelled_) {
    absl::SleepFor(absl::Milliseconds(20));
    played = host_->Play(request);
  }
  if (!played.ok()) {
    Fail(match, std::string(played.status().message()));
    return;
  }

  // Seats carry the participants' names, so results are rated by them.
  hoard::v1::Match& summary = played->match;
  std::vector<db::RatedSeat> seats;
  for (int seat = 0; seat < summary.seats_size(); ++seat) {
    const Participant& participant = spec.participants(match.seats[seat]);
    summary.mutable_seats(seat)->set_player(SeatPlayerFor(participant));
    if (seat < played->record.seats_size()) {
      played->record.set_seats(seat, SeatPlayerFor(participant));
    }
    seats.push_back({.bot = labels_[match.seats[seat]],
                     .rank = summary.seats(seat).rank(),
                     .score = summary.seats(seat).score(),
                     .timeouts = summary.seats(seat).timeouts(),
                     .forfeited = summary.seats(seat).forfeited(),
                     .disconnects = summary.seats(seat).disconnects()});
  }
  {
    absl::MutexLock lock(&mu_);
    for (int seat = 0; seat < summary.seats_size(); ++seat) {
      const hoard::v1::SeatInfo& info = summary.seats(seat);
      if (info.answers() > 0 && !info.forfeited()) ++played_through_[match.seats[seat]];
    }
  }
  Store({.match = &match,
         .result = {.sequence = played->sequence,
                    .match = std::move(played->match),
                    .record = std::move(played->record),
                    .slot = db::TournamentSlot{.tournament_id = id_,
                                               .schedule_index = match.index,
                                               .block = match.block}},
         .seats = std::move(seats)});
}

void TournamentRunner::Store(Played played) {
  const std::size_t room = 2 * static_cast<std::size_t>(std::max(1, options_.results_per_commit));
  std::vector<Played> spent;  // freed once the lock is released
  absl::MutexLock lock(&queue_mu_);
  auto has_room = [this, room] {
    queue_mu_.AssertHeld();
    return queue_.size() < room;
  };
  queue_mu_.Await(absl::Condition(&has_room));
  queue_.push_back(std::move(played));
  spent.swap(spent_);
}

void TournamentRunner::WriteResults() {
  const std::size_t per_commit = std::max(1, options_.results_per_commit);
  while (true) {
    std::vector<Played> batch;
    {
      absl::MutexLock lock(&queue_mu_);
      auto some = [this] {
        queue_mu_.AssertHeld();
        return !queue_.empty() || workers_done_;
      };
      queue_mu_.Await(absl::Condition(&some));
      if (queue_.empty()) return;  // the workers are done, and so is this
      // Group commit: a moment for more results to join this transaction.
      auto full = [this, per_commit] {
        queue_mu_.AssertHeld();
        return queue_.size() >= per_commit || workers_done_;
      };
      queue_mu_.AwaitWithTimeout(absl::Condition(&full), options_.commit_wait);
      const std::size_t n = std::min(queue_.size(), per_commit);
      batch.assign(std::make_move_iterator(queue_.begin()),
                   std::make_move_iterator(queue_.begin() + n));
      queue_.erase(queue_.begin(), queue_.begin() + n);
    }
    std::vector<const db::FinishedResult*> results;
    for (const Played& played : batch) results.push_back(&played.result);
    const std::vector<absl::Status> saved = SaveWithRetries(results);
    {
      absl::MutexLock lock(&mu_);
      for (std::size_t i = 0; i < batch.size(); ++i) Count(batch[i], saved[i]);
    }
    for (std::size_t i = 0; i < batch.size(); ++i) {
      host_->Stored(batch[i].result.match.match_id(), saved[i]);
    }
    ReportSampled();
    absl::MutexLock lock(&queue_mu_);
    if (spent_.empty()) spent_.reserve(batch.size());
    std::move(batch.begin(), batch.end(), std::back_inserter(spent_));
  }
}

std::vector<absl::Status> TournamentRunner::SaveWithRetries(
    const std::vector<const db::FinishedResult*>& batch) {
  absl::Duration pause = absl::Milliseconds(50);
  bool paused = false;
  for (int attempt = 1;; ++attempt) {
    if (cancelled_ && store_failing_) {
      // Stopping with a store that keeps failing: each attempt could wait
      // for its busy timeout. The slots are played again on resumption.
      return std::vector<absl::Status>(
          batch.size(),
          absl::UnavailableError("the store was failing when the tournament stopped"));
    }
    std::vector<absl::Status> saved = store_->SaveFinishedBatch(batch);
    // A batch is stored whole, but for results stored before (kAlreadyExists),
    // or not at all: then every status is the error.
    absl::Status failure;
    for (const absl::Status& status : saved) {
      if (!status.ok() && status.code() != absl::StatusCode::kAlreadyExists) failure = status;
    }
    // Errors that may pass (a lock, a full disk) pause the tournament; it
    // goes on when the store takes the results. Others get a few attempts.
    const bool transient = failure.code() == absl::StatusCode::kUnavailable;
    store_failing_ = transient;
    if (failure.ok() || (!transient && attempt >= kAttemptsForLastingErrors) || cancelled_) {
      if (paused) {
        absl::MutexLock lock(&mu_);
        waiting_for_store_.clear();
      }
      if (paused && failure.ok()) {
        Warn(absl::StrCat("tournament ", id_, " goes on: the store took its results"));
      }
      if (!failure.ok() && !transient && !cancelled_ && batch.size() > 1) {
        // A lasting error may be one result's own: the others are stored
        // without it.
        for (std::size_t i = 0; i < batch.size(); ++i) saved[i] = SaveWithRetries({batch[i]})[0];
      }
      return saved;
    }
    if (!paused) {
      paused = true;
      {
        absl::MutexLock lock(&mu_);
        waiting_for_store_ =
            absl::StrCat("paused: cannot store results (retrying): ", failure.message());
      }
      Warn(absl::StrCat("tournament ", id_, " paused: cannot store match ",
                        batch[0]->slot ? batch[0]->slot->schedule_index : 0, " of the schedule",
                        batch.size() > 1 ? absl::StrCat(" and ", batch.size() - 1, " more") : "",
                        " (retrying): ", failure.message()));
      Report();
    }
    absl::SleepFor(pause);
    pause = std::min(pause * 2, absl::Seconds(2));
  }
}

void TournamentRunner::Count(const Played& played, const absl::Status& saved) {
  // The live standings replay Elo in schedule order, as the leaderboard
  // does, however the matches ended (Standings).
  const ScheduledMatch& match = *played.match;
  const std::vector<db::RatedSeat>& seats = played.seats;
  --running_;
  if (saved.ok()) {
    ++finished_;
    ++finished_this_run_;
    standings_.Add(match.index, seats);
    if (sprt_candidate_ >= 0) CountForSprt(match.block, seats);
    if (swiss_ != nullptr) {
      SwissResult result{.round = match.round, .seats = match.seats};
      for (const db::RatedSeat& seat : seats) result.ranks.push_back(seat.rank);
      swiss_->Add(result);
      --swiss_left_;
    }
  } else if (saved.code() == absl::StatusCode::kAlreadyExists) {
    ++finished_;  // another runner stored this slot first
    if (swiss_ != nullptr) {
      // Its result, not this one, pairs the next round: start again from
      // what is stored.
      stop_ = true;
      error_ = absl::StrCat("match ", match.index,
                            " of this Swiss tournament was stored by "
                            "another runner; run the tournament again to go on from what is "
                            "stored");
    }
  } else if (cancelled_) {
    // Stopped while the store was failing: the slot is not stored, so the
    // match is played again when the tournament resumes.
    Warn(absl::StrCat("match ", match.index, " of the schedule was not stored (", saved.message(),
                      "); it is played again when the tournament resumes"));
  } else {
    // The store refuses for good: stop rather than play matches for nothing.
    store_broken_ = true;
    stop_ = true;
    error_ = absl::StrCat(kCannotStoreResults, saved.message());
  }
  AfterMatch();
}

}  // namespace hoard::tournament
