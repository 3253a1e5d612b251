#ifndef HOARD_BOTS_CLIENT_H_
#define HOARD_BOTS_CLIENT_H_

// The C++ bot client: connects to a Hoard server over gRPC, registers a bot
// (or joins one seat with its token), and answers every decision request of
// every match it is seated in with a Strategy, reconnecting when the stream
// breaks.
//
// Reconnecting: pauses grow from 50 ms to at most 1 s, and between them the
// client waits for the channel to connect, so it is back within about a
// second of the server's return (give the channel a bounded reconnect
// backoff too: cli::ServerChannel does). A request the server marks
// `resent` (sent again after a reconnect) that the client already answered
// gets the same answer again; any other request is decided afresh, so an
// answer is never replayed into another match. A match's answers are
// forgotten when it ends.
//
// Events: the client hears the play of its matches as ClientOptions::events
// asks (by default each event on the stream). The Strategy is told each
// event as it comes (OnEvent) and is given the match's history — every event
// the seat was told so far — with each decision, so a strategy needs to keep
// nothing itself. A match's history is forgotten when it ends.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "engine/rng.h"
#include "hoard/v1/arena.pb.h"

namespace grpc {
class Channel;
class ClientContext;
}  // namespace grpc

namespace hoard::bots {

// The events of one match a seat has been told so far, oldest first.
using MatchHistory = std::vector<hoard::v1::MatchEvent>;

// Chooses the answer to a decision request: a legal_index or an action.
class Strategy {
 public:
  virtual ~Strategy() = default;
  // `history`: what the seat has been told of the request's match so far.
  virtual hoard::v1::Answer Decide(const hoard::v1::DecisionRequest& request,
                                   const MatchHistory& history) = 0;
  // Each event of the seat's matches, as it comes (events carried by a
  // request come before it is decided), the end included.
  virtual void OnEvent(const hoard::v1::MatchEvent& event) { (void)event; }
};

// Uniformly random among the listed legal actions.
class RandomStrategy final : public Strategy {
 public:
  explicit RandomStrategy(std::uint64_t seed) : rng_(seed) {}
  hoard::v1::Answer Decide(const hoard::v1::DecisionRequest& request,
                           const MatchHistory& history) override;

 private:
  engine::Rng rng_;
};

// "random" (seeded) or "first" (always the first legal action).
absl::StatusOr<std::unique_ptr<Strategy>> MakeStrategy(const std::string& name, std::uint64_t seed);

struct ClientOptions {
  // Register under a name and key, playing up to max_matches at once...
  std::string name;
  std::string key;
  int max_matches = 1;
  // The ladders to join, by name (Register.ladders).
  std::vector<std::string> ladders;
  // Accept other bots' challenges while fewer than max_matches matches are
  // being played; false: decline them all.
  bool accept_challenges = true;
  // ...or join one seat.
  std::string match_id;
  std::string seat_token;
  // Stop after this many matches have ended (0: play until Stop()).
  int stop_after_matches = 0;
  // Reconnect when the stream breaks (not when credentials are refused).
  bool reconnect = true;
  // How the client hears the play of its matches.
  hoard::v1::EventDelivery events = hoard::v1::EVENT_DELIVERY_STREAM;
  // Called with a line for each notable thing (may be empty).
  std::function<void(const std::string&)> log;
  // If set, Run() ends as Stop() ends it once *stop_flag is true, noticed
  // within kStopFlagPoll. A signal handler may set it: it is lock-free, and
  // setting it is all the handler does (Stop() takes a mutex, which the
  // interrupted thread may hold). It must outlive Run().
  const std::atomic<bool>* stop_flag = nullptr;
};
static_assert(std::atomic<bool>::is_always_lock_free,
              "a signal handler sets ClientOptions::stop_flag");

// How often Run() looks at ClientOptions::stop_flag.
inline constexpr absl::Duration kStopFlagPoll = absl::Milliseconds(20);

struct ClientStats {
  int matches_finished = 0;
  int decisions = 0;
  int refused_answers = 0;
  int reconnects = 0;
  // Resent requests answered again with the answer given before.
  int resent_answers = 0;
  // Events heard (on the stream or in requests, each once).
  std::int64_t events = 0;
};

class BotClient {
 public:
  BotClient(std::shared_ptr<grpc::Channel> channel, ClientOptions options,
            std::unique_ptr<Strategy> strategy);
  ~BotClient();

  // Plays until stop_after_matches matches have ended, Stop() is called or
  // the stop_flag is set (OK), or the server refuses the credentials (that
  // status).
  absl::Status Run();
  // Ends Run() soon; callable from any thread, not from a signal handler
  // (set ClientOptions::stop_flag there).
  void Stop();
  // Breaks the current stream as a network failure would; Run() reconnects.
  void DropConnection();

  ClientStats stats() const;

 private:
  // Run() without watching the stop flag.
  absl::Status Play();
  // One stream's life; returns its final status.
  absl::Status PlayOnce();
  // The answer to `request`: the one given before if it is resent, else the
  // strategy's (remembered until the match ends).
  hoard::v1::Answer AnswerFor(const hoard::v1::DecisionRequest& request);
  // Waits up to `pause` for the channel to connect (sooner if it does).
  void AwaitChannel(absl::Duration pause);
  // Adds an event to its match's history and tells the strategy.
  void Hear(const hoard::v1::MatchEvent& event);
  // Hears the events of `request` not heard before (a resent request
  // repeats those it carried).
  void HearEventsOf(const hoard::v1::DecisionRequest& request);

  std::shared_ptr<grpc::Channel> channel_;
  const ClientOptions options_;
  std::unique_ptr<Strategy> strategy_;
  std::atomic<bool> stopping_{false};
  mutable absl::Mutex mu_;
  grpc::ClientContext* context_ ABSL_GUARDED_BY(mu_) = nullptr;
  ClientStats stats_ ABSL_GUARDED_BY(mu_);
  // The last answer given in each running match, by match id: its request
  // id and the answer. Only PlayOnce's thread uses it.
  std::map<std::string, std::pair<std::int64_t, hoard::v1::Answer>> answered_;
  // Each running match's history, and how many events of which request it
  // holds. Only PlayOnce's thread uses them.
  struct Heard {
    MatchHistory history;
    std::int64_t request_id = 0;
    int request_events = 0;
  };
  std::map<std::string, Heard> heard_;
};

}  // namespace hoard::bots

#endif  // HOARD_BOTS_CLIENT_H_
