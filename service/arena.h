#ifndef HOARD_SERVICE_ARENA_H_
#define HOARD_SERVICE_ARENA_H_

// The arena: every match the server hosts, the registered bots, and the
// handlers behind each RPC of hoard.v1.Arena. Transport-free: the gRPC layer
// (service/grpc_server.h) unpacks a call, calls one method here and maps the
// status; tests call these methods directly.
//
// Errors use the most specific code: kInvalidArgument for a malformed
// request, kNotFound for an unknown game, bot or match, kUnauthenticated for
// missing or wrong credentials, kPermissionDenied for credentials that do
// not cover what was asked, kResourceExhausted for a limit, with a message
// that says which.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "db/store.h"
#include "hoard/v1/arena.pb.h"
#include "service/connection.h"
#include "service/event_log.h"
#include "service/match.h"
#include "service/timer.h"

namespace hoard::service {

struct ArenaLimits {
  // Matches running at once.
  int max_running_matches = 20000;
  // Matches one registered bot may play at once (a bot may ask for fewer).
  int max_matches_per_bot = 1000;
  // Spectator streams per match.
  int max_watchers_per_match = 64;
  // Finished matches kept for GetMatch and ListMatches; the oldest go first.
  int max_finished_matches = 100000;
  // Bot names the server remembers (each registration of a new name adds
  // one).
  int max_registered_bots = 100000;
};

// What an in-process caller of CreateMatch may ask for beside the request.
struct MatchHooks {
  // Runs once when the match ends, with its summary and record, on the
  // thread that ended it: inside CreateMatch itself when built-in bots play
  // every seat. The bots' places are free again by then.
  std::function<void(const hoard::v1::Match&, const hoard::v1::MatchRecord&)>
      on_finished;
  // False: the arena does not keep the match in its store; the caller does
  // (a tournament stores its matches with their place in its schedule).
  bool store = true;
};

class Arena {
 public:
  explicit Arena(ArenaLimits limits = {});
  ~Arena();

  // Keeps every finished match in `store` too, so GetMatch and ListMatches
  // find them after a restart; new match ids continue after the stored ones.
  // Call before serving.
  absl::Status UseStore(std::unique_ptr<db::MatchStore> store);

  // Reports matches starting and ending and bots coming and going (see
  // service/event_log.h). Call before serving.
  void SetEventSink(EventSink sink) { events_ = std::move(sink); }

  hoard::v1::ListGamesResponse ListGames() const;
  absl::StatusOr<hoard::v1::CreateMatchResponse> CreateMatch(
      const hoard::v1::CreateMatchRequest& request, MatchHooks hooks = {});
  absl::StatusOr<hoard::v1::GetMatchResponse> GetMatch(
      const hoard::v1::GetMatchRequest& request) const;
  absl::StatusOr<hoard::v1::ListMatchesResponse> ListMatches(
      const hoard::v1::ListMatchesRequest& request) const;
  // Streams the match's events to `watcher` until it ends.
  absl::Status WatchMatch(const hoard::v1::WatchMatchRequest& request,
                          std::shared_ptr<EventOutbox> watcher);
  // A spectator stream that WatchMatch accepted has ended.
  void OnWatchEnded(const std::string& match_id);

  // One message of a Play stream. A non-OK status ends the stream with it
  // (a first message that is no valid hello, wrong credentials); problems
  // with later messages are answered on the stream and keep it open.
  absl::Status OnBotMessage(const std::shared_ptr<Connection>& connection,
                            const hoard::v1::BotMessage& message);
  // The Play stream has ended: its seats wait for a reconnect.
  void OnStreamClosed(const std::shared_ptr<Connection>& connection);

  hoard::v1::ListBotsResponse ListBots() const;

  // The store given to UseStore, or null.
  db::MatchStore* store() const { return store_.get(); }

  int running_matches() const;

  // Stopping the server. After BeginShutdown, CreateMatch refuses new
  // matches (kUnavailable); running ones go on. AbortRunning then aborts
  // every match still running (HostedMatch::Abort), stores each as aborted
  // (without a record) and returns how many it aborted.
  void BeginShutdown();
  int AbortRunning();

 private:
  struct RegisteredBot {
    std::string key;
    int max_matches = 1;
    std::shared_ptr<Connection> connection;
    int running = 0;
  };
  struct TokenTarget {
    std::string match_id;
    engine::Seat seat = 0;
  };

  absl::Status Register(const std::shared_ptr<Connection>& connection,
                        const hoard::v1::Register& request);
  absl::Status Join(const std::shared_ptr<Connection>& connection,
                    const hoard::v1::Join& request);
  void SendError(const std::shared_ptr<Connection>& connection,
                 const absl::Status& status, const std::string& match_id);
  void OnMatchFinished(const std::string& match_id);
  // Frees what a finished match held: its bots' places, tokens, streams.
  void ReleaseFinished(const std::string& match_id, const hoard::v1::Match& described);
  std::shared_ptr<HostedMatch> FindMatch(const std::string& id) const;

  const ArenaLimits limits_;
  EventSink events_;
  std::unique_ptr<db::MatchStore> store_;
  // Declared first, destroyed last: matches cancel their timers as they go.
  // ~Arena stops its thread before any match is destroyed.
  TimerQueue timers_;

  mutable absl::Mutex mu_;
  std::int64_t next_sequence_ ABSL_GUARDED_BY(mu_) = 1;
  // Every match kept, by creation order, and by id.
  std::map<std::int64_t, std::shared_ptr<HostedMatch>> matches_
      ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::shared_ptr<HostedMatch>> by_id_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> watchers_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, MatchHooks> hooks_ ABSL_GUARDED_BY(mu_);
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  int finished_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, RegisteredBot> bots_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, TokenTarget> tokens_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::vector<std::string>> tokens_of_ ABSL_GUARDED_BY(mu_);
  // The matches each stream holds seats in.
  std::map<const Connection*, std::set<std::string>> held_ ABSL_GUARDED_BY(mu_);
};

// 128 random bits from the operating system, as 32 hex digits.
std::string RandomToken();

}  // namespace hoard::service

#endif  // HOARD_SERVICE_ARENA_H_
