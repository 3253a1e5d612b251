#ifndef HOARD_TOURNAMENT_RUNNER_H_
#define HOARD_TOURNAMENT_RUNNER_H_

// The tournament runner: plays a stored tournament's slots on a match
// host, several matches at once, and stores every finished match with its
// seats and record. It only plays slots: its format (format.h) says which
// slots come next and when the tournament is complete, a BotSupervisor
// (bot_supervisor.h) launches and watches the participants' bot processes,
// a ResultsWriter (results_writer.h) stores the results, and a LeaseKeeper
// (lease_keeper.h) holds its leases when it shares the tournament.
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
#include "tournament/bot_supervisor.h"
#include "tournament/format.h"
#include "tournament/host.h"
#include "tournament/lease_keeper.h"
#include "tournament/results_writer.h"
#include "tournament/schedule.h"
#include "tournament/standings.h"

namespace hoard::tournament {

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

// IsLeasedWhole (which formats are leased whole) is in format.h;
// kMaxRestartDelay (the longest pause before a restart) in bot_supervisor.h.

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
  // Sharing, before anything else: the leases, and the tournament's row.
  // What Run returns for a tournament another server ended or runs whole,
  // or nullopt: this server runs it.
  std::optional<absl::StatusOr<hoard::v1::Tournament>> JoinOthers(std::int64_t id);
  // Launches or awaits every participant that is not built in (the
  // supervisor says which cannot be seated).
  void PrepareParticipants();
  // Reads tournament `id`, its spec, its format and what is stored of it,
  // and queues the slots the format hands out first.
  absl::Status Load(std::int64_t id);
  // Plays the queued slots on spec concurrency workers, storing their
  // results with a writer of this pass.
  void PlayPending();
  // Sharing: whether this server runs the tournament alone at a time (a
  // format whose next matches depend on the last results).
  bool LeasedWhole() const;
  // Sharing, between passes: takes in what the other servers stored and
  // queues the slots they held that are still not stored. False once there
  // is nothing left to wait for.
  bool TakeInSharedProgress();
  // Whether this server can seat every participant of the match.
  bool CanSeat(const ScheduledMatch& match) const;
  // The participants that still have matches to play (or may have: a
  // format that seats its later slots from the results).
  std::set<int> NeededParticipants() const;
  // The final status: FINISHED, cancelled as asked, or FAILED with why.
  hoard::v1::Tournament Conclude();
  // Stores the tournament's status, waiting out errors that may pass.
  absl::Status SetStatusWithRetries(hoard::v1::TournamentStatus status, const std::string& error);
  void Work();
  // Who sits at a slot: each seat's participant and label.
  struct Seated {
    std::vector<hoard::v1::Participant> players;
    std::vector<std::string> labels;
  };
  Seated SeatedAt(const ScheduledMatch& match) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  const hoard::v1::Participant& ParticipantLocked(int p) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A standing format: tells it who is present every kPresencePoll, takes
  // in the participants it admitted and queues what it hands out, until
  // the run stops.
  void FollowPresence();
  // Adds the participants the format admitted to joined_.
  void TakeInJoined() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Plays `match` and hands it to the writer, or fails it.
  void PlayOne(const ScheduledMatch& match, const Seated& seated);
  // The sealed match of `match`'s seats and deal that the host creates.
  hoard::v1::CreateMatchRequest RequestFor(const ScheduledMatch& match, const Seated& seated) const;
  // Counts the results of a batch the writer stored (or refused), in the
  // order stored.
  void CountBatch(const std::vector<PlayedSlot>& batch, const std::vector<absl::Status>& saved);
  void Count(const PlayedSlot& played, const absl::Status& saved)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Called after every slot ends, stored or failed: queues what the format
  // hands out next, and stops once it says the tournament is complete.
  void AfterMatch() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Puts `slots` (in the order to play them) on pending_.
  void Queue(const std::vector<ScheduledMatch>& slots) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether a worker has a match to take or nothing more to wait for.
  bool WorkOrDone() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Report(), unless one was made less than progress_every ago.
  void ReportSampled();
  void Fail(const ScheduledMatch& match, const std::string& reason);
  hoard::v1::Tournament CurrentLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Report();
  // Passes `line` to options_.on_warning, one call at a time.
  void Warn(const std::string& line);
  // Stops the tournament because of a participant: `why` becomes its error.
  void FailForParticipant(const std::string& why);

  db::MatchStore* const store_;
  MatchHost* const host_;
  const RunnerOptions options_;
  std::atomic<bool> cancelled_{false};
  std::atomic<hoard::v1::TournamentStatus> cancelled_as_{hoard::v1::TOURNAMENT_STATUS_CANCELLED};

  // Set by Run before any worker starts; read-only after.
  std::int64_t id_ = 0;
  hoard::v1::TournamentSpec spec_;
  std::vector<std::string> labels_;  // per participant
  // The tournament's status as stored when Load read it.
  hoard::v1::TournamentStatus stored_status_ = hoard::v1::TOURNAMENT_STATUS_UNSPECIFIED;
  // Participants that played in the tournament before this run.
  std::set<int> played_before_;
  // The bot processes (made by Run), the results writer of the pass being
  // played, and the leases (sharing only).
  std::unique_ptr<BotSupervisor> supervisor_;
  std::unique_ptr<ResultsWriter> writer_;
  std::unique_ptr<LeaseKeeper> leases_;

  mutable absl::Mutex mu_;
  hoard::v1::Tournament tournament_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<TournamentFormat> format_ ABSL_GUARDED_BY(mu_);
  std::vector<ScheduledMatch> pending_ ABSL_GUARDED_BY(mu_);  // next last
  // A standing format's participants beyond the spec's, numbered after
  // them (format.h, Joined).
  std::vector<hoard::v1::Participant> joined_ ABSL_GUARDED_BY(mu_);
  // Failed matches since the last one stored (a standing format stops on
  // these).
  int failed_in_a_row_ ABSL_GUARDED_BY(mu_) = 0;
  // Sharing: slots left this pass to other servers (leased by them, or
  // with participants this server cannot seat).
  std::vector<ScheduledMatch> deferred_ ABSL_GUARDED_BY(mu_);
  Standings standings_ ABSL_GUARDED_BY(mu_);
  int finished_ ABSL_GUARDED_BY(mu_) = 0;
  int finished_this_run_ ABSL_GUARDED_BY(mu_) = 0;
  int failed_ ABSL_GUARDED_BY(mu_) = 0;
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::string error_ ABSL_GUARDED_BY(mu_);
  bool store_broken_ ABSL_GUARDED_BY(mu_) = false;
  bool participant_failed_ ABSL_GUARDED_BY(mu_) = false;
  // While the store refuses results: why (the tournament shows it).
  std::string waiting_for_store_ ABSL_GUARDED_BY(mu_);
  // When progress was last reported (ReportSampled).
  std::atomic<std::int64_t> reported_at_ns_{0};
  absl::Time started_ = absl::Now();
  absl::Mutex report_mu_;  // keeps progress callbacks from overlapping
  absl::Mutex warn_mu_;    // and warnings
};

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_RUNNER_H_
