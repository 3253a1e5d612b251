#include "tournament/manager.h"

#include <algorithm>
#include <utility>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "engine/clip.h"
#include "engine/registry.h"
#include "tournament/leaderboard.h"
#include "tournament/secrets.h"
#include "tournament/spec.h"

namespace hoard::tournament {

using hoard::v1::Tournament;

namespace {

// Gives the pages a released runner freed back to the system. A runner of a
// large tournament frees megabytes (its schedule, its standings) in the
// middle of the allocator's arenas, which glibc keeps for good otherwise: a
// server that runs tournaments for months would hold the peak of all of them.
void ReturnFreedMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

bool Over(const Tournament& tournament) {
  return tournament.status() == hoard::v1::TOURNAMENT_STATUS_FINISHED ||
         tournament.status() == hoard::v1::TOURNAMENT_STATUS_CANCELLED;
}

// The tournament as a reader who is no admin may see it: no commands, and
// no seed (nor the salt of its commitment) until it is over.
Tournament Shown(Tournament tournament, bool admin) {
  if (admin) return tournament;
  for (hoard::v1::Participant& participant : *tournament.mutable_spec()->mutable_participants()) {
    if (!participant.has_command()) continue;
    // Nor in what went wrong with it.
    tournament.set_error(
        absl::StrReplaceAll(tournament.error(), {{participant.command(), "(its command)"}}));
    participant.clear_command();
  }
  if (!Over(tournament)) {
    tournament.mutable_spec()->clear_seed();
    tournament.clear_seed_salt();
  }
  return tournament;
}

absl::StatusOr<Tournament> Shown(absl::StatusOr<Tournament> tournament, bool admin) {
  if (!tournament.ok()) return tournament;
  return Shown(*std::move(tournament), admin);
}

// Forwards to a watcher what a non-admin may see.
class ShownWatcher final : public TournamentWatcher {
 public:
  explicit ShownWatcher(std::shared_ptr<TournamentWatcher> inner) : inner_(std::move(inner)) {}
  void Send(const Tournament& tournament) override { inner_->Send(Shown(tournament, false)); }
  void Close() override { inner_->Close(); }
  bool open() const override { return inner_->open(); }

 private:
  const std::shared_ptr<TournamentWatcher> inner_;
};

}  // namespace

TournamentManager::TournamentManager(db::MatchStore* store, MatchHost* host, RunnerOptions defaults,
                                     ManagerPolicy policy)
    : store_(store), host_(host), defaults_(std::move(defaults)), policy_(policy) {
  if (!defaults_.lease_holder.empty()) follower_ = std::thread([this] { FollowStore(); });
}

TournamentManager::~TournamentManager() {
  StopAll();
  if (follower_.joinable()) follower_.join();
  std::vector<std::thread> threads;
  {
    absl::MutexLock lock(&mu_);
    for (auto& [id, running] : running_) {
      if (running->thread.joinable()) threads.push_back(std::move(running->thread));
    }
  }
  for (std::thread& thread : threads) thread.join();
}

void TournamentManager::StopAll() {
  absl::MutexLock lock(&mu_);
  closing_ = true;
  for (auto& [id, running] : running_) {
    running->runner->Cancel(hoard::v1::TOURNAMENT_STATUS_STOPPED);
  }
}

absl::Status TournamentManager::ResumeUnfinished() {
  absl::StatusOr<std::vector<db::StoredTournament>> all = store_->ListTournaments();
  if (!all.ok()) return all.status();
  absl::MutexLock lock(&mu_);
  for (const db::StoredTournament& t : *all) {
    // One that failed because its results could not be stored failed for a
    // reason that passes (a lock, a full disk): it goes on too.
    const bool unfinished = t.status == hoard::v1::TOURNAMENT_STATUS_RUNNING ||
                            t.status == hoard::v1::TOURNAMENT_STATUS_STOPPED ||
                            (t.status == hoard::v1::TOURNAMENT_STATUS_FAILED &&
                             absl::StartsWith(t.error, kCannotStoreResults));
    if (unfinished && !running_.contains(t.id)) Start(t.id);
  }
  return absl::OkStatus();
}

void TournamentManager::FollowStore() {
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      mu_.AwaitWithTimeout(absl::Condition(&closing_), absl::Seconds(1));
      if (closing_) return;
    }
    absl::StatusOr<std::vector<db::StoredTournament>> all = store_->ListTournaments();
    if (!all.ok()) continue;  // the store may come back
    absl::MutexLock lock(&mu_);
    if (closing_) return;
    Reap();
    for (const db::StoredTournament& t : *all) {
      if (t.status == hoard::v1::TOURNAMENT_STATUS_RUNNING && !running_.contains(t.id)) {
        Start(t.id);
      }
    }
  }
}

void TournamentManager::Reap() {
  bool released = false;
  for (auto it = running_.begin(); it != running_.end();) {
    if (!it->second->done) {
      ++it;
      continue;
    }
    // Done is set as the runner's thread ends: it takes mu_ no more.
    if (it->second->thread.joinable()) it->second->thread.join();
    it = running_.erase(it);
    released = true;
  }
  if (released) ReturnFreedMemory();
}

void TournamentManager::Start(std::int64_t id, const std::string& creator) {
  Reap();
  auto running = std::make_unique<Run>();
  running->creator = creator;
  RunnerOptions options = defaults_;
  options.on_progress = [this, id](const Tournament& tournament) {
    Broadcast(id, tournament, /*last=*/false);
  };
  running->runner = std::make_unique<TournamentRunner>(store_, host_, std::move(options));
  TournamentRunner* runner = running->runner.get();
  running->thread = std::thread([this, id, runner] {
    absl::StatusOr<Tournament> final_state = runner->Run(id);
    if (!final_state.ok() && final_state.status().code() == absl::StatusCode::kAborted &&
        absl::StartsWith(final_state.status().message(), kRunByAnotherServer)) {
      // Another server runs it whole for now: it is left to it (and looked
      // at again by FollowStore). Its state is read from the store only for
      // watchers, since every server looks every second.
      while (true) {
        if (!Watched(id)) {
          if (EndUnwatched(id)) return;
          continue;  // a watcher came meanwhile
        }
        absl::StatusOr<Tournament> stored = LoadTournament(*store_, id);
        Broadcast(id, stored.ok() ? *stored : runner->Current(), /*last=*/true);
        return;
      }
    }
    Tournament last = final_state.ok() ? *final_state : runner->Current();
    if (!final_state.ok()) {
      last.set_status(hoard::v1::TOURNAMENT_STATUS_FAILED);
      // The store could not be written (or read): marked so that the next
      // start resumes it.
      last.set_error(final_state.status().code() == absl::StatusCode::kUnavailable
                         ? absl::StrCat(kCannotStoreResults, final_state.status().message())
                         : std::string(final_state.status().message()));
      store_->SetTournamentStatus(id, last.status(), last.error()).IgnoreError();
    }
    // Leaderboards are ready when the tournament is.
    CurrentRatings(*store_, {.game = last.spec().game(), .tournament_id = id}).IgnoreError();
    Broadcast(id, last, /*last=*/true);
  });
  running_[id] = std::move(running);
}

bool TournamentManager::Watched(std::int64_t id) {
  absl::MutexLock lock(&mu_);
  auto it = running_.find(id);
  if (it == running_.end()) return false;
  return std::any_of(it->second->watchers.begin(), it->second->watchers.end(),
                     [](const auto& w) { return w->open(); });
}

bool TournamentManager::EndUnwatched(std::int64_t id) {
  absl::MutexLock lock(&mu_);
  auto it = running_.find(id);
  if (it == running_.end()) return true;
  std::vector<std::shared_ptr<TournamentWatcher>>& watchers = it->second->watchers;
  std::erase_if(watchers, [](const auto& w) { return !w->open(); });
  if (!watchers.empty()) return false;
  it->second->done = true;
  return true;
}

void TournamentManager::Broadcast(std::int64_t id, const Tournament& tournament, bool last) {
  absl::MutexLock lock(&mu_);
  auto it = running_.find(id);
  if (it == running_.end()) return;
  std::vector<std::shared_ptr<TournamentWatcher>>& watchers = it->second->watchers;
  std::erase_if(watchers, [](const auto& w) { return !w->open(); });
  if (watchers.empty() && !last) return;
  // Taken under the lock, as a new watcher's first update is: a watcher
  // never sees progress go back.
  const Tournament now = last ? tournament : it->second->runner->Current();
  for (const auto& watcher : watchers) {
    watcher->Send(now);
    if (last) watcher->Close();
  }
  if (last) {
    watchers.clear();
    it->second->done = true;
  }
}

absl::Status TournamentManager::CheckNetworkSpec(const hoard::v1::TournamentSpec& spec) const {
  if (spec.ladder().has_final_evaluation()) {
    return absl::InvalidArgumentError(
        "ladder.final_evaluation: is set by FreezeLadder, not by the ladder's creator");
  }
  for (int i = 0; i < spec.participants_size(); ++i) {
    const hoard::v1::Participant& p = spec.participants(i);
    const std::string field = absl::StrCat("participants[", i, "]");
    const std::string label = ParticipantLabel(p);
    if (p.has_command()) {
      return absl::InvalidArgumentError(
          absl::StrCat(field,
                       ".command: a tournament created over the network cannot run a command; "
                       "name a bot of the server's catalog (catalog: NAME)"));
    }
    if (p.has_catalog()) {
      if (!defaults_.catalog || !defaults_.catalog(p.catalog())) {
        return absl::InvalidArgumentError(absl::StrCat(
            field, ".catalog: no bot '", engine::Clip(p.catalog()), "' in the server's catalog"));
      }
      if (policy_.account_launched && policy_.account_launched(label) == false) {
        return absl::InvalidArgumentError(absl::StrCat(
            field, ".name: '", engine::Clip(label),
            "' is the name of a bot account of its own; a catalog participant needs another"));
      }
    }
    if (p.has_registered() && policy_.account_launched &&
        !policy_.account_launched(label).has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": no bot account '", engine::Clip(label),
                       "' (an admin adds it with 'hoard bots add ", engine::Clip(label), "')"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Tournament> TournamentManager::Create(
    const hoard::v1::CreateTournamentRequest& request, const std::string& creator) {
  hoard::v1::TournamentSpec asked = request.spec();
  if (absl::Status s = CheckNetworkSpec(asked); !s.ok()) return s;
  // A seed nobody chose is one nobody can know.
  while (asked.seed() == 0) asked.set_seed(RandomSeed());
  absl::StatusOr<hoard::v1::TournamentSpec> spec = Normalize(asked);
  if (!spec.ok()) return spec.status();
  absl::StatusOr<std::int64_t> size = ScheduledAtStart(*spec);
  if (!size.ok()) return size.status();
  if (*size > policy_.max_tournament_matches) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the tournament would play ", *size, " matches; this server plays at most ",
                     policy_.max_tournament_matches, " in one (--max-tournament-matches)"));
  }
  {
    absl::MutexLock lock(&mu_);
    if (closing_) return absl::UnavailableError("the server is shutting down");
    int mine = 0;
    for (const auto& [id, running] : running_) {
      if (!running->done && !creator.empty() && running->creator == creator) ++mine;
    }
    if (!creator.empty() && mine >= policy_.max_tournaments_per_creator) {
      return absl::ResourceExhaustedError(
          absl::StrCat("this token already runs ", mine,
                       " tournaments, its limit (--max-tournaments-per-creator)"));
    }
  }
  if (spec->format() == hoard::v1::FORMAT_LADDER) {
    // Bots join a ladder by its name.
    absl::StatusOr<std::vector<db::StoredTournament>> all = store_->ListTournaments();
    if (!all.ok()) return all.status();
    for (const db::StoredTournament& t : *all) {
      if (t.spec.format() == hoard::v1::FORMAT_LADDER && t.spec.name() == spec->name() &&
          (t.status == hoard::v1::TOURNAMENT_STATUS_RUNNING ||
           t.status == hoard::v1::TOURNAMENT_STATUS_STOPPED)) {
        return absl::AlreadyExistsError(
            absl::StrCat("ladder '", spec->name(), "' already runs (tournament ", t.id, ")"));
      }
    }
  }
  bool resumed = false;
  absl::StatusOr<std::int64_t> id = CreateOrResume(*store_, *spec, /*fresh=*/true, &resumed);
  if (!id.ok()) return id.status();
  {
    absl::MutexLock lock(&mu_);
    if (closing_) return absl::UnavailableError("the server is shutting down");
    if (auto it = running_.find(*id); it != running_.end()) {
      it->second->creator = creator;  // FollowStore found it in the store first
    } else {
      Start(*id, creator);
    }
  }
  hoard::v1::GetTournamentRequest get;
  get.set_id(*id);
  return Get(get, /*admin=*/true);
}

absl::StatusOr<Tournament> TournamentManager::Get(const hoard::v1::GetTournamentRequest& request,
                                                  bool admin) {
  {
    absl::MutexLock lock(&mu_);
    Reap();
    auto it = running_.find(request.id());
    if (it != running_.end() && !it->second->done) {
      Tournament live = it->second->runner->Current();
      if (live.id() != 0) return Shown(std::move(live), admin);  // else the store knows
    }
  }
  return Shown(LoadTournament(*store_, request.id()), admin);
}

absl::StatusOr<hoard::v1::ListTournamentsResponse> TournamentManager::List(bool admin) {
  {
    absl::MutexLock lock(&mu_);
    Reap();
  }
  absl::StatusOr<std::vector<db::StoredTournament>> all = store_->ListTournaments();
  if (!all.ok()) return all.status();
  hoard::v1::ListTournamentsResponse response;
  for (const db::StoredTournament& t : *all) {
    hoard::v1::GetTournamentRequest get;
    get.set_id(t.id);
    absl::StatusOr<Tournament> tournament = Get(get, admin);
    if (!tournament.ok()) return tournament.status();
    *response.add_tournaments() = *std::move(tournament);
  }
  return response;
}

std::vector<Tournament> TournamentManager::Running() {
  absl::MutexLock lock(&mu_);
  std::vector<Tournament> running;
  for (const auto& [id, run] : running_) {
    if (!run->done) running.push_back(run->runner->Current());
  }
  return running;
}

absl::Status TournamentManager::Watch(const hoard::v1::WatchTournamentRequest& request,
                                      std::shared_ptr<TournamentWatcher> watcher, bool admin) {
  if (!admin) watcher = std::make_shared<ShownWatcher>(std::move(watcher));
  {
    absl::MutexLock lock(&mu_);
    auto it = running_.find(request.id());
    if (it != running_.end() && !it->second->done) {
      Tournament live = it->second->runner->Current();
      if (live.id() != 0) {
        watcher->Send(live);
      } else if (absl::StatusOr<Tournament> stored = LoadTournament(*store_, request.id());
                 stored.ok()) {
        watcher->Send(*stored);  // still starting: as the store has it
      }
      it->second->watchers.push_back(std::move(watcher));
      return absl::OkStatus();
    }
  }
  hoard::v1::GetTournamentRequest get;
  get.set_id(request.id());
  // The watcher shows what its reader may see.
  absl::StatusOr<Tournament> tournament = Get(get, /*admin=*/true);
  if (!tournament.ok()) return tournament.status();
  watcher->Send(*tournament);
  watcher->Close();
  return absl::OkStatus();
}

absl::StatusOr<Tournament> TournamentManager::Cancel(
    const hoard::v1::CancelTournamentRequest& request) {
  {
    absl::MutexLock lock(&mu_);
    auto it = running_.find(request.id());
    if (it != running_.end() && !it->second->done) {
      it->second->runner->Cancel();
      Tournament live = it->second->runner->Current();
      if (live.id() != 0) return live;
      // Still starting: it stops before its first match.
      absl::StatusOr<Tournament> stored = LoadTournament(*store_, request.id());
      if (stored.ok()) stored->set_status(hoard::v1::TOURNAMENT_STATUS_CANCELLED);
      return stored;
    }
  }
  hoard::v1::GetTournamentRequest get;
  get.set_id(request.id());
  absl::StatusOr<Tournament> tournament = Get(get, /*admin=*/true);
  if (!tournament.ok()) return tournament.status();
  if (tournament->status() == hoard::v1::TOURNAMENT_STATUS_RUNNING ||
      tournament->status() == hoard::v1::TOURNAMENT_STATUS_STOPPED) {
    // Stored as running, but no runner here: nothing plays it any more.
    if (absl::Status s = store_->SetTournamentStatus(
            request.id(), hoard::v1::TOURNAMENT_STATUS_CANCELLED, tournament->error());
        !s.ok()) {
      return s;
    }
    tournament->set_status(hoard::v1::TOURNAMENT_STATUS_CANCELLED);
    return tournament;
  }
  return absl::FailedPreconditionError(
      absl::StrCat("tournament ", request.id(), " is already ",
                   hoard::v1::TournamentStatus_Name(tournament->status())));
}

absl::StatusOr<Tournament> TournamentManager::FreezeLadder(
    const hoard::v1::FreezeLadderRequest& request) {
  absl::StatusOr<std::optional<db::StoredTournament>> stored = store_->GetTournament(request.id());
  if (!stored.ok()) return stored.status();
  if (!*stored) return absl::NotFoundError(absl::StrCat("no tournament ", request.id()));
  hoard::v1::TournamentSpec spec = (*stored)->spec;
  if (spec.format() != hoard::v1::FORMAT_LADDER) {
    return absl::FailedPreconditionError(
        absl::StrCat("tournament ", request.id(), " is no ladder: only a ladder is frozen"));
  }
  if ((*stored)->status != hoard::v1::TOURNAMENT_STATUS_RUNNING &&
      (*stored)->status != hoard::v1::TOURNAMENT_STATUS_STOPPED) {
    return absl::FailedPreconditionError(
        absl::StrCat("ladder '", spec.name(), "' is already ",
                     hoard::v1::TournamentStatus_Name((*stored)->status)));
  }
  if (spec.ladder().has_final_evaluation()) {
    return absl::FailedPreconditionError(
        absl::StrCat("ladder '", spec.name(), "' is already in its final evaluation"));
  }
  absl::StatusOr<hoard::v1::FinalEvaluation> evaluation =
      CheckFinalEvaluation(request.evaluation());
  if (!evaluation.ok()) return evaluation.status();
  absl::StatusOr<std::vector<int>> slots = store_->StoredSlots(request.id());
  if (!slots.ok()) return slots.status();
  evaluation->set_first_slot(slots->empty() ? 0 : slots->back() + 1);
  *spec.mutable_ladder()->mutable_final_evaluation() = *evaluation;
  if (absl::Status s = store_->SetTournamentSpec(request.id(), spec); !s.ok()) return s;
  hoard::v1::GetTournamentRequest get;
  get.set_id(request.id());
  absl::StatusOr<Tournament> frozen = Get(get, /*admin=*/true);
  // A live run takes the freeze in within kSpecPoll: say it now.
  if (frozen.ok()) *frozen->mutable_spec()->mutable_ladder() = spec.ladder();
  return frozen;
}

absl::StatusOr<db::RatingScope> TournamentManager::ScopeOf(const std::string& game,
                                                           std::int64_t tournament_id) {
  db::RatingScope scope{.game = game, .tournament_id = tournament_id};
  if (tournament_id != 0) {
    absl::StatusOr<std::optional<db::StoredTournament>> t = store_->GetTournament(tournament_id);
    if (!t.ok()) return t.status();
    if (!*t) return absl::NotFoundError(absl::StrCat("no tournament ", tournament_id));
    if (!game.empty() && game != (*t)->spec.game()) {
      return absl::InvalidArgumentError(
          absl::StrCat("tournament ", tournament_id, " plays ", (*t)->spec.game(), ", not ", game));
    }
    scope.game = (*t)->spec.game();
  }
  if (scope.game.empty()) {
    return absl::InvalidArgumentError("name a game (or a tournament)");
  }
  if (absl::StatusOr<const engine::Game*> known = engine::FindGame(scope.game); !known.ok()) {
    return known.status();
  }
  return scope;
}

absl::StatusOr<hoard::v1::Leaderboard> TournamentManager::GetLeaderboard(
    const hoard::v1::GetLeaderboardRequest& request) {
  if (!hoard::v1::RatingSystem_IsValid(request.system())) {
    return absl::InvalidArgumentError("system: unknown rating system");
  }
  absl::StatusOr<db::RatingScope> scope = ScopeOf(request.game(), request.tournament_id());
  if (!scope.ok()) return scope.status();
  absl::StatusOr<hoard::v1::RatingSnapshot> snapshot = CurrentRatings(*store_, *scope);
  if (!snapshot.ok()) return snapshot.status();
  hoard::v1::Leaderboard board = RankBy(*snapshot, request.system());
  return request.all() ? board : EstablishedFirst(std::move(board));
}

absl::StatusOr<hoard::v1::HeadToHeadTable> TournamentManager::GetHeadToHead(
    const hoard::v1::GetHeadToHeadRequest& request) {
  absl::StatusOr<db::RatingScope> scope = ScopeOf(request.game(), request.tournament_id());
  if (!scope.ok()) return scope.status();
  absl::StatusOr<hoard::v1::RatingSnapshot> snapshot = CurrentRatings(*store_, *scope);
  if (!snapshot.ok()) return snapshot.status();
  return snapshot->head_to_head();
}

absl::StatusOr<hoard::v1::ListResultsResponse> TournamentManager::ListResults(
    const hoard::v1::ListResultsRequest& request, bool admin) {
  int page_size = request.page_size() == 0 ? 100 : request.page_size();
  if (page_size < 1 || page_size > 1000) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_size: must be from 1 to 1000, not ", request.page_size()));
  }
  std::int64_t after = 0;
  if (!request.page_token().empty() &&
      (!absl::SimpleAtoi(request.page_token(), &after) || after < 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_token: '", request.page_token(), "' is not one this server gave"));
  }
  db::MatchFilter filter{
      .game = request.game(), .tournament_id = request.tournament_id(), .rated_bot = request.bot()};
  absl::StatusOr<std::vector<db::StoredMatch>> page = store_->List(after, page_size + 1, filter);
  if (!page.ok()) return page.status();
  hoard::v1::ListResultsResponse response;
  for (int i = 0; i < static_cast<int>(page->size()) && i < page_size; ++i) {
    hoard::v1::Match* match = response.add_matches();
    *match = (*page)[i].match;
    if (!admin && !SealLifted(*match, store_)) HideDeal(*match);
  }
  if (static_cast<int>(page->size()) > page_size) {
    response.set_next_page_token(absl::StrCat((*page)[page_size - 1].sequence));
  }
  return response;
}

}  // namespace hoard::tournament
