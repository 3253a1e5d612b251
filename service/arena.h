#ifndef HOARD_SERVICE_ARENA_H_
#define HOARD_SERVICE_ARENA_H_

// The arena: every match the server hosts, the registered bots, and the
// handlers behind each RPC of hoard.v1.Arena. Transport-free: the API
// (service/api.h) unpacks a call, calls one method here and maps the status;
// tests call these methods directly.
//
// Errors use the most specific code: kInvalidArgument for a malformed
// request, kNotFound for an unknown game, bot or match, kUnauthenticated for
// missing or wrong credentials, kPermissionDenied for credentials that do
// not cover what was asked, kResourceExhausted for a limit, with a message
// that says which.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "db/store.h"
#include "db/store_writer.h"
#include "hoard/v1/arena.pb.h"
#include "service/auth.h"
#include "service/challenges.h"
#include "service/connection.h"
#include "service/event_log.h"
#include "service/match.h"
#include "service/timer.h"
#include "service/worker_pool.h"

namespace hoard::service {

struct ArenaLimits {
  // Matches running at once.
  int max_running_matches = 20000;
  // Running matches one creator (an admin token) may have made.
  int max_matches_per_creator = 1000;
  // Matches one registered bot may play at once (a bot may ask for fewer).
  int max_matches_per_bot = 1000;
  // Spectator streams per match.
  int max_watchers_per_match = 64;
  // Finished matches kept in memory for GetMatch and ListMatches when there
  // is no store (the oldest go first); with a store they are read from it.
  int max_finished_in_memory = 1000;
  // Bot accounts the server keeps.
  int max_bot_accounts = 10000;
  // A Play stream that has not said hello by then is closed.
  int hello_timeout_ms = 10000;
  // Not a limit but its absence: a registration under an unknown name makes
  // its account (with the key it gives) instead of being refused.
  bool open_registration = false;
};

// What an in-process caller of CreateMatch may ask for beside the request.
using FlawedAnswerHook =
    std::function<void(const hoard::v1::Answer&, const hoard::v1::AnswerResult&)>;

struct MatchHooks {
  // Runs once when the match ends, with its summary and record, on the
  // thread that ended it (a worker of the pool where built-in bots think, a
  // transport thread, the timer's). The bots' places are free again by then.
  // Both are the hook's to keep.
  std::function<void(hoard::v1::Match, hoard::v1::MatchRecord)> on_finished;
  // Runs for each answer in the match that the server refused, or that the
  // bot's client sent as the default action (Answer.default_reason), with
  // the server's reply, on the transport thread that received it (for the
  // answer that ends the match, after on_finished). What a checker counts
  // and shows as examples.
  FlawedAnswerHook on_flawed_answer;
  // False: the arena does not keep the match in its store; the caller does
  // (a tournament stores its matches with their place in its schedule).
  bool store = true;
};

// A match PlayToEnd played: its summary and compact (format 3) record, and
// its place in the arena's numbering (its id is "m<sequence>").
struct EndedMatch {
  hoard::v1::Match match;
  hoard::v1::MatchRecord record;
  std::int64_t sequence = 0;
};

class Arena {
 public:
  explicit Arena(ArenaLimits limits = {});
  ~Arena();

  // Keeps every finished match in `store` too, so GetMatch and ListMatches
  // find them after a restart. Matches are stored by a writer on its own
  // thread (db/store_writer.h): play never waits on the database, a match
  // stays in memory until it is stored, and while the writer is behind
  // CreateMatch refuses new matches (kResourceExhausted). Match ids come from
  // blocks the store reserves, so none is handed out twice, even across a
  // crash. First stores what the spill file of an earlier run holds. Call
  // before serving.
  absl::Status UseStore(std::unique_ptr<db::MatchStore> store, db::StoreWriterOptions writer = {});

  // The caller that played the match `match_id` without the arena's store
  // (a tournament: MatchHooks::store false) has stored it, or could not
  // (`saved`): its end is logged then, with whether it was stored.
  void OnStoredByCaller(const std::string& match_id, const absl::Status& saved);

  // Reports matches starting and ending, bots coming and going and the
  // server's own stalls (see service/event_log.h). Call before serving.
  void SetEventSink(EventSink sink);

  hoard::v1::ListGamesResponse ListGames() const;
  // Starts a match and returns at once: built-in bots play on the worker
  // pool, even when they hold every seat. `creator` names who asks
  // (Principal::name), for the per-creator limit; empty for the process
  // itself (its tournaments), which it does not bind.
  absl::StatusOr<hoard::v1::CreateMatchResponse> CreateMatch(
      const hoard::v1::CreateMatchRequest& request, MatchHooks hooks = {},
      const std::string& creator = "");
  // For an in-process caller that stores the match itself (a tournament's
  // runner): plays the match to its end and gives its summary and record;
  // kAborted if the server stopped it first. A match whose every seat is a
  // built-in bot that decides at once (engine::Bot::Instant) is played
  // through on the calling thread, in one go and unheard: no worker, no
  // hand-off per decision, no words or play-by-play for a table nobody can
  // watch; it is listed once its caller has stored it. Any other match is
  // hosted as CreateMatch's (its end logged when the caller reports it
  // stored, OnStoredByCaller) and waited for.
  absl::StatusOr<EndedMatch> PlayToEnd(const hoard::v1::CreateMatchRequest& request);
  // `admin`: the reader sees sealed matches' seeds and records too.
  absl::StatusOr<hoard::v1::GetMatchResponse> GetMatch(const hoard::v1::GetMatchRequest& request,
                                                       bool admin = false) const;
  // The match step by step from its record, as the request's seat (or a
  // spectator) saw it; kFailedPrecondition while GetMatch would not give
  // the record (running, or sealed until its tournament is over).
  absl::StatusOr<hoard::v1::ReplayMatchResponse> ReplayMatch(
      const hoard::v1::ReplayMatchRequest& request, bool admin = false) const;
  // Matches newest first (by creation), those kept in memory and those in
  // the store together, a page at a time; each page links to the older and
  // the newer one.
  absl::StatusOr<hoard::v1::ListMatchesResponse> ListMatches(
      const hoard::v1::ListMatchesRequest& request, bool admin = false) const;
  // Streams the match's events to `watcher`: a snapshot (with from_start,
  // then the play so far), then every event until it ends. A match that is over (in memory or in
  // the store) gets what the spectators of its end were told, its snapshot and its `finished` event
  // (with the spectator's view of the final table where the record gives it), and `watcher` is
  // closed. kNotFound for a match the server does not know.
  absl::Status WatchMatch(const hoard::v1::WatchMatchRequest& request,
                          std::shared_ptr<EventOutbox> watcher);
  // A spectator stream that WatchMatch accepted has ended.
  void OnWatchEnded(const std::string& match_id);

  // One message of a Play stream, which came at `received` (an answer is
  // judged by then). A non-OK status ends the stream with it (a first
  // message that is no valid hello, wrong credentials); problems with later
  // messages are answered on the stream and keep it open.
  //
  // `checked`: the outcome of BeforeBotMessage for this message; a failed one
  // is the message's refusal.
  absl::Status OnBotMessage(const std::shared_ptr<Connection>& connection,
                            const hoard::v1::BotMessage& message,
                            SteadyClock::time_point received = SteadyClock::now(),
                            absl::Status checked = absl::OkStatus());
  // What must happen before `message` is handled and may be slow: the key
  // check of a registering hello (under open registration, the hash of a new
  // account's key) runs on the bot accounts' checker thread, and `then` is
  // called there with its outcome; for anything else, and for a key that
  // needs no slow check, `then(OK)` is called at once, here. Pass the
  // outcome to OnBotMessage. The transport does not handle the stream's
  // next message meanwhile.
  void BeforeBotMessage(const std::shared_ptr<Connection>& connection,
                        const hoard::v1::BotMessage& message,
                        absl::AnyInvocable<void(absl::Status) &&> then);
  // The Play stream has ended: its seats wait for a reconnect.
  void OnStreamClosed(const std::shared_ptr<Connection>& connection);

  // Every bot account, with whether it is connected and what it plays.
  hoard::v1::ListBotsResponse ListBots() const;
  // Bot accounts (admin). A replaced key or a revoked account ends the
  // bot's streams.
  absl::StatusOr<hoard::v1::AddBotResponse> AddBot(const hoard::v1::AddBotRequest& request,
                                                   bool launched = false);
  absl::StatusOr<hoard::v1::RevokeBotResponse> RevokeBot(
      const hoard::v1::RevokeBotRequest& request);
  BotAccounts& accounts() { return accounts_; }

  // A new Play stream: closed if it has not said hello in time.
  void ExpectHello(const std::shared_ptr<Connection>& connection);

  // The store given to UseStore, or null.
  db::MatchStore* store() const { return store_.get(); }
  // Counters of matches, decisions and the store (service/metrics.h).
  Metrics& metrics() { return metrics_; }
  int connected_bots() const;

  int running_matches() const;

  // Stopping the server. After BeginShutdown, CreateMatch refuses new
  // matches (kUnavailable); running ones go on. AbortRunning then aborts
  // every match still running (HostedMatch::Abort), stores each as aborted
  // (without a record) and returns how many it aborted.
  void BeginShutdown();
  int AbortRunning();
  // Stores the finished matches still waiting for the store, for at most
  // `timeout`; the rest go to the spill file (logged). Returns how many
  // matches were not stored since the start. After it, matches that end are
  // spilled at once.
  int FlushStore(absl::Duration timeout);
  // The store's writer, or null without a store.
  const db::StoreWriter* store_writer() const { return writer_.get(); }

 private:
  // ListMatches' page: the `limit` matches the request's filters pass that
  // are nearest `from`, older than it (0: the newest) or newer, by sequence.
  absl::StatusOr<std::map<std::int64_t, hoard::v1::Match>> MatchesFrom(
      const hoard::v1::ListMatchesRequest& request, std::int64_t from, bool older, int limit) const;
  struct RegisteredBot {
    int max_matches = 1;
    std::vector<std::string> ladders;  // as its last registration named them
    std::shared_ptr<Connection> connection;
    int running = 0;
  };
  struct TokenTarget {
    std::string match_id;
    engine::Seat seat = 0;
  };

  // A match asked for, checked and set up but not yet admitted.
  struct PreparedMatch {
    MatchSetup setup;
    std::unique_ptr<engine::State> state;
    // Registered bot -> the seats it takes.
    std::map<std::string, int> bot_seats;
  };

  // The steps of CreateMatch. PrepareMatch checks the request and sets the
  // match up, without the lock. CheckRoom refuses it if the server, its
  // creator or one of its bots is at a limit (or the server is stopping).
  // Admit numbers it, gives out its seat tokens, seats its connected bots
  // and keeps it; `response` gets its id, seed and tokens.
  absl::StatusOr<PreparedMatch> PrepareMatch(const hoard::v1::CreateMatchRequest& request);
  absl::Status CheckRoom(const std::string& creator, const std::map<std::string, int>& bot_seats)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::shared_ptr<HostedMatch> Admit(PreparedMatch prepared, std::int64_t sequence,
                                     MatchHooks hooks, const std::string& creator,
                                     hoard::v1::CreateMatchResponse& response)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // CreateMatch's work once the request is prepared: admits the match and
  // starts it.
  absl::StatusOr<hoard::v1::CreateMatchResponse> Host(PreparedMatch prepared, MatchHooks hooks,
                                                      const std::string& creator);
  // PlayToEnd's two ways.
  absl::StatusOr<EndedMatch> HostAndWait(PreparedMatch prepared);
  absl::StatusOr<EndedMatch> PlayThrough(PreparedMatch prepared);
  // The next match's number: from the store's reserved blocks, or the
  // arena's own count without a store.
  absl::StatusOr<std::int64_t> NextSequenceLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // What the end of `described` is logged with (its id, game, actions,
  // ranks unless aborted, faults).
  static LogFields EndFields(const hoard::v1::Match& described);
  // Reports match_started to the event sink, if there is one.
  void LogMatchStarted(const HostedMatch& match, const std::string& game,
                       const std::string& creator);

  // Replaces the ladders of the registered bot on `connection`.
  absl::Status SetLadders(const std::shared_ptr<Connection>& connection,
                          const hoard::v1::Ladders& ladders);
  absl::Status Register(const std::shared_ptr<Connection>& connection,
                        const hoard::v1::Register& request);
  absl::Status Join(const std::shared_ptr<Connection>& connection, const hoard::v1::Join& request);
  void SendError(const std::shared_ptr<Connection>& connection, const absl::Status& status,
                 const std::string& match_id);
  void OnMatchFinished(const std::string& match_id);
  // The match's on_flawed_answer hook, or null.
  FlawedAnswerHook FindFlawedAnswerHook(const std::string& match_id);
  // The writer's report on a finished match: it leaves memory once stored,
  // and its end is logged with what became of it.
  void OnStoreOutcome(const std::string& match_id, const db::ResultOutcome& outcome);
  // Keeps a finished match that is not in the store in memory (the newest
  // max_finished_in_memory of them).
  void KeepInMemory(const std::string& match_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Ends the registered bot's stream, if it has one, with `why`; its seats
  // wait for a reconnect. Returns how many streams it ended (0 or 1).
  int DisconnectBot(const std::string& name, const absl::Status& why);
  // Whether a non-admin may see the seed and record of `match`.
  bool Unsealed(const hoard::v1::Match& match) const;
  // Frees what a finished match held: its bots' places, tokens, streams.
  // What becomes of a finished match's entry once it is released.
  enum class Afterwards {
    kKeepInMemory,  // no store: among the newest max_finished_in_memory
    kAwaitStore,    // stays until the writer reports (OnStoreOutcome)
    kForget,        // its creator stores it (a tournament's match)
  };
  void ReleaseFinished(const std::string& match_id, const hoard::v1::Match& described,
                       Afterwards afterwards);
  std::shared_ptr<HostedMatch> FindMatch(const std::string& id) const;
  // Tells `watcher` what the spectators of a stored match's end were told
  // (its snapshot and `finished` event, from `got`, what GetMatch gives an
  // admin) and closes it.
  void TellEnd(hoard::v1::GetMatchResponse got, EventOutbox& watcher) const;

  const ArenaLimits limits_;
  // Before the matches, which count into it: destroyed after them.
  Metrics metrics_;
  EventSink events_;
  BotAccounts accounts_;
  std::unique_ptr<db::MatchStore> store_;
  // Declared after the store: closed before it goes.
  std::unique_ptr<db::StoreWriter> writer_;
  // Declared first, destroyed last: matches cancel their timers as they go.
  // ~Arena stops its thread before any match is destroyed.
  TimerQueue timers_;
  // Where built-in bots think; ~Arena stops it first.
  WorkerPool thinkers_{WorkerPool::DefaultThreads()};
  // Bots' challenges to each other (its timeouts run on timers_).
  std::unique_ptr<ChallengeBoard> challenges_;

  mutable absl::Mutex mu_;
  // The next match's sequence when there is no store (with one, the
  // store's writer hands them out).
  std::int64_t next_sequence_ ABSL_GUARDED_BY(mu_) = 1;
  // Every match kept, by creation order, and by id.
  std::map<std::int64_t, std::shared_ptr<HostedMatch>> matches_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::shared_ptr<HostedMatch>> by_id_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> watchers_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, MatchHooks> hooks_ ABSL_GUARDED_BY(mu_);
  // Who created each running match, and how many each creator runs.
  std::map<std::string, std::string> creator_of_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> running_by_creator_ ABSL_GUARDED_BY(mu_);
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  // Finished matches kept in memory that are not in the store, oldest first
  // (by sequence).
  std::deque<std::int64_t> finished_ ABSL_GUARDED_BY(mu_);
  // The event that reports a match's end, written once the writer says what
  // became of it.
  std::map<std::string, std::pair<std::string, LogFields>> end_events_ ABSL_GUARDED_BY(mu_);
  // Bots connected or playing; forgotten when neither (their accounts stay).
  std::map<std::string, RegisteredBot> bots_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, TokenTarget> tokens_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::vector<std::string>> tokens_of_ ABSL_GUARDED_BY(mu_);
  // The matches each stream holds seats in.
  std::map<const Connection*, std::set<std::string>> held_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hoard::service

#endif  // HOARD_SERVICE_ARENA_H_
