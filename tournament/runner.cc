#include "tournament/runner.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/player_id.h"
#include "engine/seed_commitment.h"
#include "tournament/spec.h"

namespace hoard::tournament {
namespace {

// How much nicer than the process the runner's workers are (setpriority):
// a tenth of the weight of a thread at the process's own priority.
constexpr int kWorkerNice = 10;

// How long a tournament's status waits for a store that is locked or full.
constexpr absl::Duration kStatusRetryLimit = absl::Minutes(2);

using hoard::v1::Participant;
using hoard::v1::Tournament;
using hoard::v1::TournamentSpec;

// How a participant's seats are labelled in stored matches: the prefix tells
// a built-in bot from one that plays over the network.
std::string SeatPlayerFor(const Participant& participant) {
  const std::string label = ParticipantLabel(participant);
  return (participant.has_builtin() ? engine::PlayerId::Builtin(label)
                                    : engine::PlayerId::Bot(label))
      .ToString();
}

}  // namespace

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
  absl::StatusOr<std::int64_t> size = ScheduledAtStart(spec);
  if (!size.ok()) return size.status();
  // Committed to its master seed before its first match.
  return store.CreateTournament(spec, hash, static_cast<int>(*size), engine::NewSeedSalt());
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
  // A ladder numbers its slots as it chooses them: those stored are those known.
  if (t.spec.format() == hoard::v1::FORMAT_LADDER) progress->set_scheduled(progress->finished());
  if (absl::Status described = DescribeStored(t.spec, *results, *progress); !described.ok()) {
    return absl::Status(described.code(),
                        absl::StrCat("tournament ", id, ": ", described.message()));
  }
  return tournament;
}

TournamentRunner::TournamentRunner(db::MatchStore* store, MatchHost* host, RunnerOptions options)
    : store_(store), host_(host), options_(std::move(options)) {}

TournamentRunner::~TournamentRunner() = default;

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
  const int scheduled = format_ != nullptr ? format_->scheduled() : 0;
  progress->set_scheduled(scheduled);
  progress->set_finished(finished_);
  progress->set_failed(failed_);
  progress->set_running(running_);
  const absl::Duration elapsed = absl::Now() - started_;
  progress->set_elapsed_ms(absl::ToInt64Milliseconds(elapsed));
  if (elapsed > absl::ZeroDuration()) {
    progress->set_matches_per_second(finished_this_run_ / absl::ToDoubleSeconds(elapsed));
  }
  const int left = scheduled - finished_;
  const bool standing = format_ != nullptr && format_->Standing();
  if (finished_this_run_ > 0 && left > 0 && !standing) {
    progress->set_eta_ms(absl::ToInt64Milliseconds(elapsed / finished_this_run_ * left));
  }
  progress->clear_standings();
  if (format_ != nullptr) format_->Describe(standings_, *progress);
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

std::set<int> TournamentRunner::NeededParticipants() const {
  std::set<int> needed;
  absl::MutexLock lock(&mu_);
  if (format_->Standing()) {
    // Its bot accounts come and go; the bots it launches play throughout.
    for (int p = 0; p < spec_.participants_size(); ++p) {
      if (spec_.participants(p).has_command() || spec_.participants(p).has_catalog()) {
        needed.insert(p);
      }
    }
    return needed;
  }
  // A format that seats its later slots as it goes: everyone may play.
  if (!format_->SeatsKnownAhead() && !pending_.empty()) {
    for (int p = 0; p < spec_.participants_size(); ++p) needed.insert(p);
  }
  for (const ScheduledMatch& slot : pending_) {
    for (int p : slot.seats) needed.insert(p);
  }
  return needed;
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

absl::Status TournamentRunner::Load(std::int64_t id) {
  absl::StatusOr<Tournament> loaded = LoadTournament(*store_, id);
  if (!loaded.ok()) return loaded.status();
  absl::StatusOr<TournamentSpec> spec = Normalize(loaded->spec());
  if (!spec.ok()) {
    return absl::Status(spec.status().code(),
                        absl::StrCat("tournament ", id, " cannot run: ", spec.status().message()));
  }
  absl::StatusOr<std::unique_ptr<TournamentFormat>> format = MakeFormat(*spec);
  if (!format.ok()) return format.status();
  absl::StatusOr<std::vector<int>> stored = store_->StoredSlots(id);
  if (!stored.ok()) return stored.status();
  absl::StatusOr<std::vector<db::RatedMatch>> results =
      store_->RatedMatches({.game = spec->game(), .tournament_id = id});
  if (!results.ok()) return results.status();
  const std::set<int> done(stored->begin(), stored->end());
  if (absl::Status resumed = (*format)->Resume(done, *results); !resumed.ok()) {
    return absl::Status(resumed.code(), absl::StrCat("tournament ", id, ": ", resumed.message()));
  }

  if (options_.concurrency > 0) spec->set_concurrency(options_.concurrency);
  if (options_.fault_policy) *spec->mutable_fault_policy() = *options_.fault_policy;
  spec_ = *spec;
  id_ = id;
  for (const Participant& p : spec->participants()) labels_.push_back(ParticipantLabel(p));
  for (const db::RatedMatch& match : *results) {
    for (const db::RatedSeat& seat : match.seats) {
      auto it = std::find(labels_.begin(), labels_.end(), seat.bot);
      if (it != labels_.end()) played_before_.insert(static_cast<int>(it - labels_.begin()));
    }
  }
  stored_status_ = loaded->status();
  absl::MutexLock lock(&mu_);
  tournament_ = *std::move(loaded);
  *tournament_.mutable_spec() = *spec;
  tournament_.set_status(hoard::v1::TOURNAMENT_STATUS_RUNNING);
  tournament_.set_error("");
  finished_ = static_cast<int>(done.size());
  for (const db::RatedMatch& match : *results) {
    standings_.Add(static_cast<int>(match.schedule_index), match.seats);
  }
  format_ = *std::move(format);
  TakeInJoined();
  Queue(format_->Next());
  // Servers sharing the tournament start at different places of its
  // schedule (by their names), so that they seldom reach for the same slot.
  if (!options_.lease_holder.empty() && !LeasedWhole() && !pending_.empty()) {
    const std::size_t start = std::hash<std::string>()(options_.lease_holder) % pending_.size();
    std::rotate(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(start),
                pending_.end());
  }
  started_ = absl::Now();
  // A ladder whose final evaluation settled just before a stop.
  stop_ = cancelled_ || format_->Complete(finished_);
  return absl::OkStatus();
}

void TournamentRunner::TakeInJoined() {
  for (hoard::v1::Participant& p : format_->Joined()) joined_.push_back(std::move(p));
}

const Participant& TournamentRunner::ParticipantLocked(int p) const {
  return p < spec_.participants_size() ? spec_.participants(p)
                                       : joined_[p - spec_.participants_size()];
}

TournamentRunner::Seated TournamentRunner::SeatedAt(const ScheduledMatch& match) const {
  Seated seated;
  for (int p : match.seats) {
    seated.players.push_back(ParticipantLocked(p));
    seated.labels.push_back(ParticipantLabel(seated.players.back()));
  }
  return seated;
}

void TournamentRunner::FollowPresence() {
  absl::Time spec_read = absl::Now();
  while (true) {
    // Asked without the lock: a host of several servers asks each.
    absl::StatusOr<hoard::v1::ListBotsResponse> bots = host_->ListBots();
    absl::StatusOr<std::optional<db::StoredTournament>> stored = std::nullopt;
    if (absl::Now() - spec_read >= kSpecPoll) {
      stored = store_->GetTournament(id_);
      spec_read = absl::Now();
    }
    absl::MutexLock lock(&mu_);
    if (stop_) return;
    // A store that cannot be read now is read again next time.
    if (stored.ok() && stored->has_value()) {
      format_->Update((*stored)->spec);
      if ((*stored)->spec.ladder().has_final_evaluation()) {
        *tournament_.mutable_spec()->mutable_ladder() = (*stored)->spec.ladder();
      }
      if (format_->Complete(finished_)) {
        stop_ = true;
        return;
      }
    }
    if (bots.ok()) {
      format_->Present(*bots);
      TakeInJoined();
      Queue(format_->Next());
    }
    mu_.AwaitWithTimeout(absl::Condition(&stop_), kPresencePoll);
    if (stop_) return;
  }
}

void TournamentRunner::Queue(const std::vector<ScheduledMatch>& slots) {
  // Played from the back: keep the format's order.
  pending_.insert(pending_.begin(), slots.rbegin(), slots.rend());
}

void TournamentRunner::PlayPending() {
  int workers;
  {
    absl::MutexLock lock(&mu_);
    // A format that hands out its slots as it goes (a Swiss round's tables)
    // keeps as many workers as it may hand out at once.
    workers = std::min<int>(spec_.concurrency(), std::max<int>(static_cast<int>(pending_.size()),
                                                               format_->MostAtOnce()));
  }
  writer_ = std::make_unique<ResultsWriter>(
      store_, id_, cancelled_,
      ResultsWriter::Options{.per_commit = options_.results_per_commit,
                             .commit_wait = options_.commit_wait},
      ResultsWriter::Hooks{
          .on_batch = [this](const std::vector<PlayedSlot>& batch,
                             const std::vector<absl::Status>& saved) { CountBatch(batch, saved); },
          .on_pause =
              [this](const std::string& why) {
                absl::MutexLock lock(&mu_);
                waiting_for_store_ = why;
              },
          .warn = [this](const std::string& line) { Warn(line); },
          .report = [this] { Report(); }});
  std::vector<std::thread> threads;
  for (int i = 0; i < workers; ++i) threads.emplace_back([this] { Work(); });
  bool standing;
  {
    absl::MutexLock lock(&mu_);
    standing = format_->Standing();
  }
  std::thread presence;
  if (standing) presence = std::thread([this] { FollowPresence(); });
  // The launched bots are watched while the matches are played.
  supervisor_->Watch();
  for (std::thread& thread : threads) thread.join();
  if (presence.joinable()) presence.join();
  writer_->Close();
  writer_.reset();
  supervisor_->StopWatching();
}

bool TournamentRunner::LeasedWhole() const { return IsLeasedWhole(spec_); }

bool TournamentRunner::CanSeat(const ScheduledMatch& match) const {
  for (int p : match.seats) {
    if (supervisor_->Unavailable(p) != nullptr) return false;
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
    std::sort(deferred_.begin(), deferred_.end(),
              [](const ScheduledMatch& a, const ScheduledMatch& b) { return a.index > b.index; });
    for (ScheduledMatch& slot : deferred_) {
      if (!done.contains(slot.index)) pending_.push_back(std::move(slot));
    }
    deferred_.clear();
    if (pending_.empty()) return false;
  }
  Report();
  return true;
}

Tournament TournamentRunner::Conclude() {
  absl::MutexLock lock(&mu_);
  hoard::v1::TournamentStatus status;
  if (participant_failed_) {
    // Even if the matches in flight completed the schedule: they were
    // played against a participant that was down.
    status = hoard::v1::TOURNAMENT_STATUS_FAILED;
  } else if (format_->Complete(finished_)) {
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

std::optional<absl::StatusOr<Tournament>> TournamentRunner::JoinOthers(std::int64_t id) {
  leases_ = std::make_unique<LeaseKeeper>(
      store_, id, options_.lease_holder, options_.lease_ttl,
      LeaseKeeper::Hooks{
          .warn = [this](const std::string& line) { Warn(line); },
          .on_ended = [this](hoard::v1::TournamentStatus status) { Cancel(status); }});
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
    absl::StatusOr<bool> mine = leases_->ClaimWhole();
    if (!mine.ok()) return mine.status();
    if (!*mine) return absl::AbortedError(absl::StrCat(kRunByAnotherServer, "tournament ", id));
  }
  return std::nullopt;
}

void TournamentRunner::PrepareParticipants() {
  supervisor_ = std::make_unique<BotSupervisor>(
      spec_, host_, cancelled_,
      BotSupervisor::Options{.bot_log_dir = options_.bot_log_dir,
                             .catalog = options_.catalog,
                             .resume_grace = options_.resume_grace,
                             .max_restarts = options_.max_restarts,
                             .first_restart_delay = options_.first_restart_delay},
      BotSupervisor::Hooks{.warn = [this](const std::string& line) { Warn(line); },
                           .give_up = [this](const std::string& why) { FailForParticipant(why); }});
  supervisor_->Prepare(NeededParticipants(), played_before_);
}

absl::StatusOr<Tournament> TournamentRunner::Run(std::int64_t id) {
  const bool shared = !options_.lease_holder.empty();
  if (shared) {
    if (std::optional<absl::StatusOr<Tournament>> left = JoinOthers(id)) return *std::move(left);
  }
  if (absl::Status s = Load(id); !s.ok()) {
    if (shared) leases_->Release();
    return s;
  }
  // Servers that share it find it running already: none stores it again.
  if (!shared || stored_status_ != hoard::v1::TOURNAMENT_STATUS_RUNNING) {
    if (absl::Status s = SetStatusWithRetries(hoard::v1::TOURNAMENT_STATUS_RUNNING, ""); !s.ok()) {
      return s;
    }
  }
  if (shared) leases_->Start();
  PrepareParticipants();
  Report();
  do {
    PlayPending();
  } while (shared && !LeasedWhole() && TakeInSharedProgress());
  supervisor_->Stop();
  if (shared) {
    leases_->Stop();
    if (leases_->ended_elsewhere()) return LoadTournament(*store_, id);
    if (cancelled_ && cancelled_as_ == hoard::v1::TOURNAMENT_STATUS_STOPPED) {
      // This server is going down; the others (or its next start) go on.
      leases_->Release();
      Tournament left = Current();
      left.set_status(hoard::v1::TOURNAMENT_STATUS_RUNNING);
      return left;
    }
  }
  const Tournament final_state = Conclude();
  absl::Status saved = SetStatusWithRetries(final_state.status(), final_state.error());
  if (shared) leases_->Release();
  Report();
  if (!saved.ok()) return saved;
  return final_state;
}

void TournamentRunner::Work() {
  // Below the threads that serve and the results writer, which every
  // result passes through: workers playing bots that decide at once keep
  // the cores busy, and would otherwise leave those waiting their turn.
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kWorkerNice);
  const bool claim_each = leases_ != nullptr && !LeasedWhole();
  while (true) {
    ScheduledMatch slot;
    Seated seated;
    {
      absl::MutexLock lock(&mu_);
      // A format's next slots are queued when the slots in flight end.
      mu_.Await(absl::Condition(this, &TournamentRunner::WorkOrDone));
      if (stop_ || pending_.empty()) return;
      slot = std::move(pending_.back());
      pending_.pop_back();
      seated = SeatedAt(slot);
      ++running_;
    }
    // Shared: a slot another server holds, or whose participants this
    // server cannot seat, is left for now (TakeInSharedProgress).
    if (claim_each && !(CanSeat(slot) && leases_->Claim(slot.index))) {
      absl::MutexLock lock(&mu_);
      deferred_.push_back(std::move(slot));
      --running_;
      continue;
    }
    PlayOne(slot, seated);
  }
}

bool TournamentRunner::WorkOrDone() const {
  // A standing format hands out more as entrants come: its workers wait.
  return stop_ || !pending_.empty() || (running_ == 0 && !format_->Standing());
}

void TournamentRunner::AfterMatch() {
  if (stop_) return;
  if (format_->Complete(finished_)) {
    stop_ = true;
    return;
  }
  Queue(format_->Next());
}

void TournamentRunner::Fail(const ScheduledMatch& match, const std::string& reason) {
  std::string line;
  {
    absl::MutexLock lock(&mu_);
    line = absl::StrCat("match ", match.index, " of the schedule (",
                        absl::StrJoin(SeatedAt(match).labels, ", "), ") failed: ", reason);
    --running_;
    ++failed_;
    ++failed_in_a_row_;
    error_ = line;
    // A ladder's entrants come and go, and a match may fail as one leaves:
    // only failures without a match stored in between stop it.
    const int counted = format_->Standing() ? failed_in_a_row_ : failed_;
    if (counted >= spec_.fault_policy().max_failed_matches()) stop_ = true;
    format_->Lost(match);
    AfterMatch();
  }
  Warn(line);
  ReportSampled();
}

hoard::v1::CreateMatchRequest TournamentRunner::RequestFor(const ScheduledMatch& match,
                                                           const Seated& seated) const {
  const TournamentSpec& spec = spec_;
  hoard::v1::CreateMatchRequest request;
  request.set_game(spec.game());
  request.mutable_options()->insert(spec.options().begin(), spec.options().end());
  request.set_seed(match.seed);
  // Its deal derives from the tournament's seed (and a duplicate block's
  // other matches replay it): secret until the tournament is over.
  request.set_sealed(true);
  *request.mutable_time_control() = spec.time_control();
  for (const Participant& participant : seated.players) {
    if (participant.has_builtin()) {
      request.add_seats()->set_builtin(participant.builtin());
    } else {
      request.add_seats()->set_bot(ParticipantLabel(participant));
    }
  }
  return request;
}

void TournamentRunner::PlayOne(const ScheduledMatch& match, const Seated& seated) {
  for (int p : match.seats) {
    if (const std::string* why = supervisor_->Unavailable(p)) {
      Fail(match, *why);
      return;
    }
  }
  const hoard::v1::CreateMatchRequest request = RequestFor(match, seated);
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
    const Participant& participant = seated.players[seat];
    summary.mutable_seats(seat)->set_player(SeatPlayerFor(participant));
    if (seat < played->record.seats_size()) {
      played->record.set_seats(seat, SeatPlayerFor(participant));
    }
    seats.push_back({.bot = seated.labels[seat],
                     .rank = summary.seats(seat).rank(),
                     .score = summary.seats(seat).score(),
                     .timeouts = summary.seats(seat).timeouts(),
                     .forfeited = summary.seats(seat).forfeited(),
                     .disconnects = summary.seats(seat).disconnects()});
  }
  for (int seat = 0; seat < summary.seats_size(); ++seat) {
    const hoard::v1::SeatInfo& info = summary.seats(seat);
    if (info.answers() > 0 && !info.forfeited()) supervisor_->PlayedThrough(match.seats[seat]);
  }
  PlayedSlot result{.slot = match,
                    .result = {.sequence = played->sequence,
                               .match = std::move(played->match),
                               .record = std::move(played->record),
                               .slot = db::TournamentSlot{.tournament_id = id_,
                                                          .schedule_index = match.index,
                                                          .block = match.block}},
                    .seats = std::move(seats)};
  // Here, not on the writer's one thread: what it stores is made ready.
  store_->Encode(result.result);
  writer_->Add(std::move(result));
}

void TournamentRunner::CountBatch(const std::vector<PlayedSlot>& batch,
                                  const std::vector<absl::Status>& saved) {
  // The host logs each outcome before the counts show it, so whoever sees
  // the tournament finished finds every match's end in the log.
  for (std::size_t i = 0; i < batch.size(); ++i) {
    host_->Stored(batch[i].result.match.match_id(), saved[i]);
  }
  {
    absl::MutexLock lock(&mu_);
    for (std::size_t i = 0; i < batch.size(); ++i) Count(batch[i], saved[i]);
  }
  ReportSampled();
}

void TournamentRunner::Count(const PlayedSlot& played, const absl::Status& saved) {
  // The live standings replay Elo in schedule order, as the leaderboard
  // does, however the matches ended (Standings).
  const ScheduledMatch& match = played.slot;
  const std::vector<db::RatedSeat>& seats = played.seats;
  --running_;
  if (saved.ok()) {
    ++finished_;
    ++finished_this_run_;
    failed_in_a_row_ = 0;
    standings_.Add(match.index, seats);
    format_->Stored(match, seats);
  } else if (saved.code() == absl::StatusCode::kAlreadyExists) {
    ++finished_;  // another runner stored this slot first
    if (absl::Status goes_on = format_->StoredElsewhere(match); !goes_on.ok()) {
      stop_ = true;
      error_ = std::string(goes_on.message());
    }
  } else if (cancelled_) {
    // Stopped while the store was failing: the slot is not stored, so the
    // match is played again when the tournament resumes.
    Warn(absl::StrCat("match ", match.index, " of the schedule was not stored (", saved.message(),
                      "); it is played again when the tournament resumes"));
    format_->Lost(match);
  } else {
    // The store refuses for good: stop rather than play matches for nothing.
    store_broken_ = true;
    stop_ = true;
    error_ = absl::StrCat(kCannotStoreResults, saved.message());
    format_->Lost(match);
  }
  AfterMatch();
}

}  // namespace hoard::tournament
