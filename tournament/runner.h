#ifndef HOARD_TOURNAMENT_RUNNER_H_
#define HOARD_TOURNAMENT_RUNNER_H_

// The tournament runner: plays a stored tournament's schedule on a match
// host, several matches at once, and stores every finished match with its
// seats and record.
//
// Storing. The workers that play matches hand each finished one to the
// runner's results writer and go on to the next match; the writer stores
// what has gathered in one transaction (group commit: up to
// RunnerOptions::results_per_commit results, waiting at most commit_wait for
// more), holding none of the workers' locks while the store works. A result
// is counted — in the progress and standings the runner reports, the
// display, the API — only once its transaction has committed: that is what
// "acknowledged" means, and no acknowledged result is lost, even to SIGKILL.
// At most two batches' worth of results wait; a worker with another waits
// for room.
//
// Resuming. What is stored is done: a runner started on a tournament that
// was stopped at any moment — even by SIGKILL — plays only the matches of
// the schedule that are not stored, each from its own seed. A slot is
// stored at most once (the store refuses a second), so two runners on one
// tournament never double a match either.
//
// Sharing. With RunnerOptions::lease_holder set, the runner shares its
// tournament with the runners of other servers on the same database (each
// server runs every tournament the database holds as running). It leases
// each slot before playing it (MatchStore::ClaimSlot) and leaves the slots
// other servers hold to them; once its own are played it looks again, every
// share_poll, at what the others have stored, and plays the slots whose
// leases ran out (their server died), until every slot is stored. Its
// leases are renewed every third of lease_ttl. A server plays only the
// matches whose participants it can seat (built-in, launched by it, or
// connected to it); the others wait for a server that can. A Swiss or SPRT
// tournament, whose next matches depend on the last results, is leased
// whole: one server at a time runs it, and another takes it over once that
// lease runs out. A tournament cancelled or ended by another server ends
// here too, without this runner storing a status; a server going down
// leaves its tournaments running for the others (and for its next start).
//
// Participants. Built-in bots are seated by name. Registered participants
// must be connected to the host, and launched ones are started (with the
// host's address and their credentials in the environment) and must connect,
// within the fault policy's start timeout; otherwise their matches fail
// with that reason. After max_failed_matches failures the run stops.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "db/store.h"
#include "hoard/v1/tournament.pb.h"
#include "tournament/host.h"
#include "tournament/launcher.h"
#include "tournament/leaderboard.h"
#include "tournament/schedule.h"
#include "tournament/sprt.h"
#include "tournament/swiss.h"

namespace hoard::tournament {

// Results so far, per participant, with incremental Elo replayed in
// schedule order (by slot) whatever order the matches ended in: the Elo of
// the tournament's leaderboard (EloInScheduleOrder), at every moment of the
// run over the matches stored so far. Slots below the lowest one not yet
// added are folded into a checkpoint as they complete, so a report replays
// only the matches above it (about the run's concurrency, more where slots
// failed).
class Standings {
 public:
  // The match of slot `schedule_index` (each slot once).
  void Add(int schedule_index, std::vector<db::RatedSeat> seats);
  // Best first: by Elo, then by wins.
  std::vector<hoard::v1::Standing> Sorted() const;

 private:
  struct Entry {
    int matches = 0;
    int wins = 0;
    double score_sum = 0;
    double place_sum = 0;
  };
  std::map<std::string, Entry> entries_;
  // Elo after every slot below checkpoint_ (each was added).
  std::map<Identity, double> settled_elo_;
  int checkpoint_ = 0;
  // Added matches of the slots above the checkpoint, by slot.
  std::map<int, std::vector<db::RatedSeat>> unsettled_;
};

// How the error of a tournament that failed because its results could not
// be stored begins. The store's own troubles pass (a lock, a full disk: the
// runner pauses and retries those); a server resumes such a tournament when
// it starts.
inline constexpr char kCannotStoreResults[] = "cannot store results: ";

struct RunnerOptions {
  // Called with the tournament's progress as results are stored — at most
  // once per `progress_every`, and always for the first and the last
  // state — and when the tournament pauses for the store (calls do not
  // overlap).
  std::function<void(const hoard::v1::Tournament&)> on_progress;
  // One line about something that went wrong: a failed match, a bot that
  // did not connect, a pause for the store (calls do not overlap).
  std::function<void(const std::string&)> on_warning;
  // Directory for launched bots' output (<name>.log); empty: discarded.
  std::string bot_log_dir;
  // The entry of the server's catalog that a `catalog` participant names,
  // or nullopt; unset: no catalog.
  std::function<std::optional<hoard::v1::CatalogBot>(const std::string&)> catalog;
  // What this run uses instead of the stored spec's values (which leave
  // the tournament's identity alone): 0 / unset keep the stored ones.
  int concurrency = 0;
  std::optional<hoard::v1::FaultPolicy> fault_policy;
  // When a tournament resumes, how long it waits for the participants that
  // played in it before (bots that were connected before a crash or a
  // stop, now reconnecting), if that is longer than the start timeout.
  absl::Duration resume_grace = absl::Seconds(60);
  // Supervision of launched bots: one that exits while the tournament plays
  // is started again after a pause that doubles from `first_restart_delay`
  // (at most kMaxRestartDelay), with a warning each time. A participant
  // whose bot exits more than `max_restarts` times in a row without playing
  // a match through in between (answering in it, not forfeiting) fails the
  // tournament, saying why: no match starts after that, and it ends FAILED
  // once the matches in flight are over (their seats of it time out).
  int max_restarts = 5;
  absl::Duration first_restart_delay = absl::Milliseconds(100);
  // Group commit (above): the most results stored in one transaction, and
  // how long the writer waits for a fuller batch once one result waits.
  int results_per_commit = 256;
  absl::Duration commit_wait = absl::Milliseconds(20);
  // How often on_progress is called at most while results are stored.
  absl::Duration progress_every = absl::Milliseconds(200);
  // Sharing (above): this server's name in the store's leases; empty: the
  // runner plays its tournament alone. How long a lease runs unless it is
  // renewed, and how often a runner waiting for other servers' slots looks
  // at the store again.
  std::string lease_holder;
  absl::Duration lease_ttl = absl::Seconds(10);
  absl::Duration share_poll = absl::Milliseconds(500);
};

// What Run returns (kAborted, starting with this) for a tournament that
// another server runs whole (a Swiss or an SPRT while its lease runs).
inline constexpr char kRunByAnotherServer[] = "run by another server: ";

// Whether servers sharing a store run a tournament of `spec` one at a time,
// whole (leasing slot -1): a format whose next matches depend on the last
// results (Swiss, an SPRT test).
bool IsLeasedWhole(const hoard::v1::TournamentSpec& spec);

// The longest pause before a launched bot is started again.
inline constexpr absl::Duration kMaxRestartDelay = absl::Seconds(8);

// Stores a new tournament for `spec` (normalized), or, unless `fresh` is
// set, returns the newest stored one with the same spec (*resumed = true),
// whatever its status: running it again resumes it, or does nothing if it
// is finished.
absl::StatusOr<std::int64_t> CreateOrResume(db::MatchStore& store,
                                            const hoard::v1::TournamentSpec& spec, bool fresh,
                                            bool* resumed);

// The stored tournament as the API shows it, with the progress the store
// alone can tell (no live counts).
absl::StatusOr<hoard::v1::Tournament> LoadTournament(db::MatchStore& store, std::int64_t id);

class TournamentRunner {
 public:
  TournamentRunner(db::MatchStore* store, MatchHost* host, RunnerOptions options = {});
  ~TournamentRunner();

  // Runs tournament `id` until every match of its schedule is stored, it is
  // cancelled, or too many matches fail; stores and returns its final
  // state. Call once, from a thread that lives until it returns (launched
  // bots are tied to it).
  absl::StatusOr<hoard::v1::Tournament> Run(std::int64_t id);
  // Stops scheduling; the matches in flight finish and are stored. The
  // tournament ends with `status`: CANCELLED by its user, or STOPPED by a
  // server going down (it resumes when the server comes back).
  void Cancel(hoard::v1::TournamentStatus status = hoard::v1::TOURNAMENT_STATUS_CANCELLED);
  // The tournament as it is now (any thread).
  hoard::v1::Tournament Current() const;

 private:
  // Reads tournament `id`, its schedule and what is stored of it, and
  // queues the matches left to play.
  absl::Status Load(std::int64_t id);
  // Plays the queued matches on spec concurrency workers.
  void PlayPending();
  // Stops the launched bots.
  void StopLaunched();
  // Sharing: whether this server runs the tournament alone at a time (a
  // format whose next matches depend on the last results).
  bool LeasedWhole() const;
  // Sharing, between passes: takes in what the other servers stored and
  // queues the slots they held that are still not stored. False once there
  // is nothing left to wait for.
  bool TakeInSharedProgress();
  // Sharing: renews this server's leases every third of their time and
  // follows the tournament's stored status, until `done`.
  void KeepLeases(const std::atomic<bool>& done);
  // Whether this server can seat every participant of the match.
  bool CanSeat(const ScheduledMatch& match) const;
  // The final status: FINISHED, cancelled as asked, or FAILED with why.
  hoard::v1::Tournament Conclude();
  // Stores the tournament's status, waiting out errors that may pass.
  absl::Status SetStatusWithRetries(hoard::v1::TournamentStatus status, const std::string& error);
  void Work();
  void PlayOne(const ScheduledMatch& match);

  // A played match on its way to the store.
  struct Played {
    const ScheduledMatch* match = nullptr;
    db::FinishedResult result;
    std::vector<db::RatedSeat> seats;
  };
  // Hands a played match to the results writer (waiting while
  // kMaxUncommittedResults wait).
  void Store(Played played);
  // The results writer's thread: stores batches until the workers are done
  // and nothing waits, counting each result once its batch is stored.
  void WriteResults();
  // Saves a batch, retrying errors that may pass (the tournament is paused
  // meanwhile) until it is stored or the run is cancelled; a few attempts
  // for other errors, then each result on its own. A status per result.
  std::vector<absl::Status> SaveWithRetries(const std::vector<const db::FinishedResult*>& batch);
  // Counts a stored (or refused) result, in the order stored.
  void Count(const Played& played, const absl::Status& saved) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Report(), unless one was made less than kProgressEvery ago.
  void ReportSampled();
  void Fail(const ScheduledMatch& match, const std::string& reason);
  hoard::v1::Tournament CurrentLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Report();
  // Passes `line` to options_.on_warning, one call at a time.
  void Warn(const std::string& line);
  // Launches or awaits every participant that is not built in; the ones
  // that are not connected in time go to unavailable_.
  void PrepareParticipants();

  // The steps of PrepareParticipants, each on the participants (by index)
  // and the bots launched for them, one per server behind the host.
  using LaunchedBots = std::map<int, std::vector<LaunchedBot*>>;
  // The participants that still have matches to play.
  std::set<int> NeededParticipants() const;
  // What to launch for a command or catalog participant; nullopt (and the
  // reason in unavailable_) for a catalog entry the server does not have.
  std::optional<hoard::v1::CatalogBot> LaunchOf(int p);
  // Gives the bot's account a fresh key and starts it once per address.
  void Launch(int p, const hoard::v1::CatalogBot& launch, const std::vector<std::string>& addresses,
              LaunchedBots& launched);
  // Waits (within the start timeout) for every participant in `needed` that
  // is not built in to be connected; returns those that are not.
  std::set<int> AwaitConnected(const std::set<int>& needed, const LaunchedBots& launched);
  // Moves the waiting participants whose launched bot has exited to
  // unavailable_, with how it exited.
  void DropExited(const LaunchedBots& launched, std::set<int>& waiting);
  // Why participant `p` is not connected after the start timeout.
  std::string NotConnected(int p, const std::vector<std::string>& addresses,
                           const LaunchedBots& launched) const;

  db::MatchStore* const store_;
  MatchHost* const host_;
  const RunnerOptions options_;
  std::atomic<bool> cancelled_{false};
  std::atomic<hoard::v1::TournamentStatus> cancelled_as_{hoard::v1::TOURNAMENT_STATUS_CANCELLED};

  mutable absl::Mutex mu_;
  hoard::v1::Tournament tournament_ ABSL_GUARDED_BY(mu_);
  // Set by Run before any worker starts; read-only after.
  std::int64_t id_ = 0;
  hoard::v1::TournamentSpec spec_;
  std::vector<ScheduledMatch> schedule_;
  std::vector<std::string> labels_;         // per participant
  std::map<int, std::string> unavailable_;  // participant -> why
  // A bot launched for a participant, kept running while the tournament
  // plays (Supervise).
  struct Supervised {
    int participant = 0;
    std::string command;
    std::map<std::string, std::string> env;
    std::string log_path;
    std::string working_directory;
    std::unique_ptr<LaunchedBot> bot;  // null while it waits to restart
    absl::Time restart_at = absl::InfinitePast();
    bool given_up = false;
  };
  // Restarts the launched bots that exited, or fails the tournament for a
  // participant that keeps exiting. Called by PlayPending's supervisor.
  void Supervise();
  // Stops the tournament because of participant `p`: `why` becomes its error.
  void FailForParticipant(const std::string& why);
  std::vector<Supervised> launched_;
  // Per participant: exits in a row without a match played through in
  // between, and the matches it played through in this run (answering, not
  // forfeiting) when it last exited, and now.
  std::map<int, int> exits_in_a_row_;
  std::map<int, int> played_at_exit_;
  std::map<int, int> played_through_ ABSL_GUARDED_BY(mu_);
  bool participant_failed_ ABSL_GUARDED_BY(mu_) = false;
  // With a spec's sprt: the candidate's participant number (-1: no test),
  // each block's summed scores and stored matches, and where the test stands.
  // Counts a stored match; stops the tournament once the test decides.
  void CountForSprt(std::int64_t block, const std::vector<db::RatedSeat>& seats)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool SprtDecided() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int sprt_candidate_ = -1;
  SprtParameters sprt_params_;
  std::map<std::int64_t, std::pair<double, int>> sprt_blocks_ ABSL_GUARDED_BY(mu_);
  // The complete blocks at the start of the schedule counted so far: how
  // many, and their scores summed and squared and summed.
  int sprt_counted_ ABSL_GUARDED_BY(mu_) = 0;
  double sprt_sum_ ABSL_GUARDED_BY(mu_) = 0;
  double sprt_squares_ ABSL_GUARDED_BY(mu_) = 0;
  hoard::v1::SprtState sprt_ ABSL_GUARDED_BY(mu_);
  // Swiss: the pairing (null in other formats), the round being played
  // (from 0) and its matches not stored yet. A round is paired once every
  // match of the one before is stored; a round that loses a match stops
  // the tournament (resuming plays it again).
  std::unique_ptr<Swiss> swiss_ ABSL_GUARDED_BY(mu_);
  int swiss_round_ ABSL_GUARDED_BY(mu_) = 0;
  int swiss_left_ ABSL_GUARDED_BY(mu_) = 0;
  // Called after every match ends, stored or failed: pairs and queues the
  // next Swiss round when this one is complete.
  void AfterMatch() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void QueueSwissRound(const SwissRound& round) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether a worker has a match to take or nothing more to wait for.
  bool WorkOrDone() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<int> pending_ ABSL_GUARDED_BY(mu_);  // schedule indexes, next last
  // Sharing: slots left this pass to other servers (leased by them, or
  // with participants this server cannot seat).
  std::vector<int> deferred_ ABSL_GUARDED_BY(mu_);
  // Sharing: the tournament was cancelled or ended by another server.
  std::atomic<bool> ended_elsewhere_{false};
  // The tournament's status as stored when Load read it.
  hoard::v1::TournamentStatus stored_status_ = hoard::v1::TOURNAMENT_STATUS_UNSPECIFIED;
  std::string stored_error_;
  std::size_t next_ ABSL_GUARDED_BY(mu_) = 0;
  Standings standings_ ABSL_GUARDED_BY(mu_);
  int finished_ ABSL_GUARDED_BY(mu_) = 0;
  int finished_this_run_ ABSL_GUARDED_BY(mu_) = 0;
  int failed_ ABSL_GUARDED_BY(mu_) = 0;
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::string error_ ABSL_GUARDED_BY(mu_);
  bool store_broken_ ABSL_GUARDED_BY(mu_) = false;
  // Whether the last attempt to store a match met an error that may pass.
  std::atomic<bool> store_failing_{false};
  // While the store refuses results: why (the tournament shows it).
  std::string waiting_for_store_ ABSL_GUARDED_BY(mu_);
  // Participants that played in the tournament before this run.
  std::set<int> played_before_;
  // The results writer's queue; workers_done_ once no worker adds more.
  absl::Mutex queue_mu_;
  std::vector<Played> queue_ ABSL_GUARDED_BY(queue_mu_);
  bool workers_done_ ABSL_GUARDED_BY(queue_mu_) = false;
  // Results the writer has stored, freed by the next worker that queues one
  // (their records are large: freeing them would slow the one writer).
  std::vector<Played> spent_ ABSL_GUARDED_BY(queue_mu_);
  // When progress was last reported (ReportSampled).
  std::atomic<std::int64_t> reported_at_ns_{0};
  absl::Time started_ = absl::Now();
  absl::Mutex report_mu_;  // keeps progress callbacks from overlapping
  absl::Mutex warn_mu_;    // and warnings
};

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_RUNNER_H_
