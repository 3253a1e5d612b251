#ifndef HOARD_SERVICE_MATCH_H_
#define HOARD_SERVICE_MATCH_H_

// One match hosted by the server: its seats, clocks, decision requests and
// answers, faults, and the spectators watching it. Transport-free: it talks
// to streams only through Connection and EventOutbox.
//
// Decisions. When a seat must act the match sends its player a
// DecisionRequest (its view, its legal actions, a deadline) and waits. A
// built-in bot decides on the server's worker pool, from a copy of its view,
// holding no lock; its decision is applied when it comes (dropped if the
// match has ended meanwhile). A seat that forfeited is
// played by the default action at once. The first legal action is the
// default action; it is also played when a request times out. Where a seat
// has too many legal actions to list, its request lists examples and states
// the constraints, and a typed answer that is not among the examples is
// checked by applying it to a copy of the state.
//
// Clocks. Each request gives decision_ms plus the seat's bank, from when it
// is handed to the bot's transport (service/decision_clock.h); time beyond
// decision_ms comes out of the bank. A time-out empties the bank, plays the
// default action and counts a strike; at max_strikes the seat forfeits and
// finishes last, whatever its score.
//
// Sealed decisions. When several seats must act at once, each answer is
// applied as it comes (the engine keeps it sealed), but events only say that
// a seat answered; the actions are published once every seat of the group
// has answered (engine/play_by_play.h decides).
//
// Events. Spectators and seats are told the same events (MatchEvent), each
// with its own view: a spectator's, or the seat's. A seat hears them as its
// stream asked in its hello (EventDelivery): each on the stream, gathered
// into its next decision request, or not at all.
//
// Thread safety: every public method may be called from any thread.

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "bots/bot.h"
#include "engine/codec.h"
#include "engine/game.h"
#include "engine/play_by_play.h"
#include "engine/record.h"
#include "hoard/v1/arena.pb.h"
#include "service/connection.h"
#include "service/decision_clock.h"
#include "service/metrics.h"
#include "service/timer.h"
#include "service/worker_pool.h"
#include "tournament/match_request.h"

namespace hoard::service {

// Who plays a seat.
struct SeatPlayer {
  enum class Kind { kBuiltin, kBot, kOpen };
  Kind kind = Kind::kOpen;
  // The built-in bot's or the registered bot's name.
  std::string name;
  // kBuiltin: the bot itself.
  std::unique_ptr<bots::Bot> builtin;
  // kOpen: the secret that joins the seat.
  std::string token;
};

struct MatchSetup {
  std::string id;
  // The arena's creation order of the match.
  std::int64_t sequence = 0;
  const engine::Game* game = nullptr;
  const engine::GameCodec* codec = nullptr;
  engine::MatchConfig config;
  tournament::TimeControl time_control;
  std::vector<SeatPlayer> seats;
  // The seed stays out of events even after the end (Match.sealed).
  bool sealed = false;
  // Left out of every leaderboard (Match.unrated).
  bool unrated = false;
  // The salt of the match's seed commitment (engine/seed_commitment.h):
  // told with the seed, never before. Empty: the match commits to nothing.
  std::string seed_salt;
  // Where built-in bots think (not owned; must outlive the match's last
  // decision). Null: they think on the thread that advances the match.
  WorkerPool* thinkers = nullptr;
  // The game's counters (not owned; must outlive the match); null: none.
  GameMetrics* metrics = nullptr;
  // Played through by its creator on one thread before anyone could join
  // or watch it (Arena::PlayToEnd): every seat a built-in bot and
  // `thinkers` null. It tells nothing as it goes — no action's words, no
  // play-by-play, no counters per decision — as nothing could hear them;
  // its summary and compact record are what it gives.
  bool played_through = false;
};

// How long a worker that made a built-in bot's decision goes on making the
// match's next ones itself before it hands them to the pool (HostedMatch::
// Thought).
inline constexpr std::chrono::microseconds kInlineThinking{2000};

// Create with std::make_shared: time-outs hold the match weakly.
class HostedMatch : public std::enable_shared_from_this<HostedMatch> {
 public:
  // `on_finished` runs once, without the match's lock, when the match ends.
  // REQUIRES: setup.seats.size() == setup.config.num_players.
  HostedMatch(MatchSetup setup, std::unique_ptr<engine::State> state, TimerQueue* timers,
              std::function<void()> on_finished);
  ~HostedMatch();

  HostedMatch(const HostedMatch&) = delete;
  HostedMatch& operator=(const HostedMatch&) = delete;

  // Plays until a remote seat must answer (or the match ends).
  void Start();

  // `connection` now plays `seat` (a join or a reconnect): it is told so,
  // and sent the seat's open request again, if there is one.
  void Attach(engine::Seat seat, std::shared_ptr<Connection> connection);
  // Every seat `connection` holds loses it; their requests stay open and
  // time out as usual.
  void Detach(const Connection* connection);

  // An answer from `connection`, which came at `received` (it is in time if
  // it came before the deadline). Never applied twice; the result says
  // whether it was accepted and, if not, why and whether to retry.
  hoard::v1::AnswerResult Answer(const Connection* connection, const hoard::v1::Answer& answer,
                                 SteadyClock::time_point received = SteadyClock::now());

  // Sends a snapshot, then every event until the match ends; a match that
  // is over gets its snapshot and its `finished` event (what spectators of
  // its end were told), then is closed. With `from_start`, a running match
  // tells every action told before the watch after its snapshot (as its
  // spectators heard them, sealed answers not yet revealed still sealed;
  // without views).
  void Watch(std::shared_ptr<EventOutbox> watcher, bool from_start = false);

  // Ends the match unfinished (the server is stopping). Open requests are
  // withdrawn and everyone is told it ended with status ABORTED. It gives
  // out no score, rank, seed or record: it never finished, and its deal may
  // be played again (a tournament replays the slot). False (and nothing
  // done) if it was over already.
  bool Abort();

  const std::string& id() const { return id_; }
  std::int64_t sequence() const { return sequence_; }
  const std::string& game_id() const;
  // True when a seat is played by the registered bot `name`.
  bool HasBot(const std::string& name) const;
  // True once the match has finished or was aborted.
  bool IsOver() const;
  hoard::v1::Match Describe() const;
  // The full record, once the match has finished (never for an aborted one:
  // null). Built once and shared by every caller. REQUIRES: not played
  // through (MatchSetup::played_through; its compact record expands).
  std::shared_ptr<const engine::MatchRecord> Record() const;
  // The compact (format 3) record a store keeps, once the match has
  // finished (never for an aborted one: nullopt): the actions replayed from
  // the start, without their words or every step's fingerprint.
  std::optional<engine::MatchRecord> CompactRecord() const;

 private:
  struct Pending {
    std::int64_t request_id = 0;
    // The seat's legal actions when it was asked; when not `complete`, only
    // examples, and `constraints` says what else is legal.
    std::vector<engine::Action> legal;
    bool complete = true;
    std::string constraints;
    // When the request was first issued, and when it was last sent (round
    // trips are measured from here, or from when its clock started).
    SteadyClock::time_point issued_at;
    SteadyClock::time_point sent_at;
    // Starts when the request is handed to the bot's transport; shared
    // with the message on its way.
    std::shared_ptr<DecisionClock> clock;
    // Runs OnTimeout at the earliest time the request could be due.
    TimerQueue::Id timer = 0;
    // EVENT_DELIVERY_IN_REQUESTS: the events this request carries (sent
    // again with it when it is resent).
    std::vector<hoard::v1::MatchEvent> events;
  };
  struct SeatState {
    SeatPlayer player;
    std::shared_ptr<Connection> connection;
    std::optional<Pending> pending;
    int bank_ms = 0;
    int timeouts = 0;
    int illegal_answers = 0;
    bool forfeited = false;
    int disconnects = 0;
    int answers = 0;
    // Of `answers`, those the bot's client marked as the default action.
    int default_answers = 0;
    std::int64_t round_trip_us_total = 0;
    // A built-in bot deciding on the worker pool, and which of its
    // decisions that is.
    bool thinking = false;
    int thought = 0;
    // How the seat's stream (or its last one) hears events, and, when in
    // requests, the events since its last request (the oldest dropped past
    // kMaxEventsBetweenRequests).
    hoard::v1::EventDelivery events = hoard::v1::EVENT_DELIVERY_NONE;
    std::deque<hoard::v1::MatchEvent> untold;
    // How many of the match's told actions (told_) the seat has been sent,
    // so that a seat that comes late or comes back hears what it missed.
    int told = 0;
  };
  enum class Outcome : std::uint8_t { kOpen, kAnswered, kTimedOut };

  // A built-in bot's decision to make: its seat, which of its decisions,
  // and a copy of its view and legal actions.
  struct Thinking {
    engine::Seat seat = 0;
    int thought = 0;
    engine::Bot* bot = nullptr;
    std::shared_ptr<const engine::View> view;  // null for a bot that does not read it
    std::shared_ptr<const std::vector<engine::Action>> legal;
    engine::Action Choose() const { return bot->Choose(view ? *view : engine::NoView(), *legal); }
  };
  // Plays until the match waits for a decision (or is over). A built-in
  // bot's decision goes to the worker pool — or, when `next` is given and
  // empty, into *next, for the caller (a worker) to make itself.
  void Advance(Thinking* next = nullptr) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void IssueRequest(engine::Seat seat) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SendRequest(engine::Seat seat, bool resent) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnTimeout(engine::Seat seat, std::int64_t request_id);
  TimerQueue::Id ScheduleTimeout(engine::Seat seat, std::int64_t request_id,
                                 SteadyClock::time_point when);
  // Has the built-in bot of `seat` decide on the worker pool (or in *next,
  // as Advance says), from a copy of its view and legal actions; Thought
  // applies the decision.
  void Think(engine::Seat seat, Thinking* next) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // On a worker: applies a decision, and while the match's next decision is
  // a built-in bot's and this worker has spent less than kInlineThinking on
  // the match, makes that one too, without a hand-off to another worker.
  void Thought(engine::Seat seat, int thought, engine::Action action,
               std::shared_ptr<const std::vector<engine::Action>> legal);
  void TimeOut(engine::Seat seat) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Answer's work: accepts and plays the answer, or says why not.
  hoard::v1::AnswerResult Judge(const Connection* connection, const hoard::v1::Answer& answer,
                                SteadyClock::time_point received);
  // Applies a legal action, chosen from (or checked against) the seat's
  // `legal` list — null for the seat's default action, played without one
  // (State::DefaultAction) — and tells everyone who may know of it.
  void Play(engine::Seat seat, engine::Action action, const std::vector<engine::Action>* legal,
            bool by_default) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Finish() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The event that tells of the match's end, without a view.
  hoard::v1::MatchEvent FinishedEventLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Tells the seats and spectators that the match has ended.
  void AnnounceEnd() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Tells the spectators and the seats (each with its own view).
  void Publish(hoard::v1::MatchEvent event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void TellSpectators(hoard::v1::MatchEvent event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void TellSeats(const hoard::v1::MatchEvent& event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether anyone would hear an event now.
  bool Heard() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The event telling of an action.
  hoard::v1::MatchEvent ActionEvent(engine::ToldAction told) const;
  // Tells `tell` the table's telling of the actions played, from its
  // `from`th item on (0: from the first action), without views: told again
  // from the start, so exactly as the table was told.
  void TellAgain(int from, absl::FunctionRef<void(hoard::v1::MatchEvent)> tell) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Tells `seat` the actions it has not been told (it was away, or came
  // late), without views: told again from the actions played.
  void CatchUp(engine::Seat seat) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void PublishFault(engine::Seat seat, hoard::v1::SeatFault::Kind kind)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  hoard::v1::Match DescribeLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // What seats and spectators are told: a sealed match's deal (seed and
  // salt) left out even after the end.
  hoard::v1::Match DescribeToTableLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<int> FinalRanks() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs on_finished_ if the match just ended. REQUIRES: mu_ not held.
  void NotifyIfFinished();

  const std::string id_;
  const std::int64_t sequence_;
  const engine::Game& game_;
  const engine::GameCodec& codec_;
  const engine::MatchConfig config_;
  const tournament::TimeControl time_control_;
  const bool sealed_;
  const bool unrated_;
  const bool played_through_;
  const std::string seed_salt_;
  // SeedCommitment(config_.seed, seed_salt_), or empty with no salt.
  const std::string seed_commitment_;
  WorkerPool* const thinkers_;
  GameMetrics* const metrics_;
  TimerQueue* const timers_;
  const std::function<void()> on_finished_;

  mutable absl::Mutex mu_;
  std::unique_ptr<engine::State> state_ ABSL_GUARDED_BY(mu_);
  std::vector<SeatState> seats_ ABSL_GUARDED_BY(mu_);
  // The start and every action so far; the record (with each step's
  // fingerprint) is built from them when first asked for, off the path of
  // a decision. Neither is kept by a match played through.
  const std::unique_ptr<engine::State> initial_;
  std::vector<std::string> seat_names_;
  std::vector<engine::RecordedAction> actions_ ABSL_GUARDED_BY(mu_);
  // The actions packed as they are played: the compact record needs no
  // replay.
  engine::CompactRecorder packed_ ABSL_GUARDED_BY(mu_);
  // by_default_[i]: actions_[i] was played for its seat by the server.
  std::vector<bool> by_default_ ABSL_GUARDED_BY(mu_);
  // The legal actions of a built-in bot deciding on the thread that
  // advances the match, kept between decisions for their room.
  std::vector<engine::Action> legal_ ABSL_GUARDED_BY(mu_);
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  // Ended by Abort() (finished_ is set too).
  bool aborted_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<double> final_scores_ ABSL_GUARDED_BY(mu_);
  std::vector<int> final_ranks_ ABSL_GUARDED_BY(mu_);
  // Built on the first Record() after the end.
  mutable std::shared_ptr<const engine::MatchRecord> record_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<EventOutbox>> watchers_ ABSL_GUARDED_BY(mu_);
  // outcomes_[id - 1]: what became of request `id`.
  std::vector<Outcome> outcomes_ ABSL_GUARDED_BY(mu_);
  // What the table is told of each action (sealed answers withheld).
  engine::PlayByPlay play_by_play_ ABSL_GUARDED_BY(mu_);
  // How many actions have been told (sealed answers count twice: when
  // answered and when revealed).
  int told_ ABSL_GUARDED_BY(mu_) = 0;
  int steps_ ABSL_GUARDED_BY(mu_) = 0;
  const std::int64_t started_unix_ms_;
  std::int64_t finished_unix_ms_ ABSL_GUARDED_BY(mu_) = 0;
  bool finish_to_notify_ ABSL_GUARDED_BY(mu_) = false;
};

// absl::Status → the gRPC-numbered code carried in AnswerResult and Error.
inline int WireCode(absl::StatusCode code) { return static_cast<int>(code); }

}  // namespace hoard::service

#endif  // HOARD_SERVICE_MATCH_H_
