#ifndef HOARD_TOURNAMENT_MANAGER_H_
#define HOARD_TOURNAMENT_MANAGER_H_

// The tournaments a server runs, and the handlers behind each RPC of
// hoard.v1.Tournaments. Transport-free: service/grpc_server.cc unpacks a
// call, calls one method here and maps the status.
//
// Each tournament runs on its own thread through a TournamentRunner. When
// the manager goes, its tournaments stop (STOPPED) after their matches in
// flight; they, and any the store holds as running (a server that was
// killed), resume when a manager starts on the same store.
//
// Sharing (RunnerOptions::lease_holder set: several servers on one
// database): the manager also looks at the store every second and runs
// every tournament it holds as running, whichever server created it, so
// that the servers share its matches (tournament/runner.h); a server going
// down leaves its tournaments running for the others.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "db/store.h"
#include "hoard/v1/tournament.pb.h"
#include "tournament/host.h"
#include "tournament/runner.h"

namespace hoard::tournament {

// A WatchTournament stream.
class TournamentWatcher {
 public:
  virtual ~TournamentWatcher() = default;
  virtual void Send(const hoard::v1::Tournament& tournament) = 0;
  // The tournament ended (or the manager is going): no more sends.
  virtual void Close() = 0;
  virtual bool open() const = 0;
};

// What the manager lets its callers ask for.
struct ManagerPolicy {
  // Matches in one tournament's schedule.
  int max_tournament_matches = 100000;
  // Running tournaments one creator (an admin token) may have made.
  int max_tournaments_per_creator = 16;
  // The server's bot accounts: a registered participant needs one, and a
  // catalog one may not take the name of one that was not made for a
  // launched bot. Given a name: nullopt if there is no such account, else
  // whether it was made for a launched bot. Unset: not checked.
  std::function<std::optional<bool>(const std::string& name)> account_launched;
};

class TournamentManager {
 public:
  // `store` and `host` (and policy.accounts) must outlive the manager.
  // defaults.catalog resolves catalog participants.
  TournamentManager(db::MatchStore* store, MatchHost* host, RunnerOptions defaults = {},
                    ManagerPolicy policy = {});
  // Stops every running tournament (StopAll) and waits for its runner
  // (matches in flight end first).
  ~TournamentManager();

  // The server is going down: every running tournament stops scheduling
  // and ends STOPPED (it resumes when the server comes back), and no new
  // one starts. Does not wait; matches in flight end as the arena ends them.
  void StopAll();

  // Resumes the tournaments the store holds as running or stopped (by a
  // server that went down). Call once.
  absl::Status ResumeUnfinished();

  // A tournament asked for over the network by `creator` (an admin's
  // Principal::name): its participants may not carry a command (catalog
  // ones name the server's catalog), registered ones need an account, seed
  // 0 picks a random seed, and the policy's limits hold.
  absl::StatusOr<hoard::v1::Tournament> Create(const hoard::v1::CreateTournamentRequest& request,
                                               const std::string& creator = "");
  // Reads. Unless `admin`, commands are left out and the seed too until
  // the tournament is over.
  absl::StatusOr<hoard::v1::Tournament> Get(const hoard::v1::GetTournamentRequest& request,
                                            bool admin = false);
  absl::StatusOr<hoard::v1::ListTournamentsResponse> List(bool admin = false);
  // The tournaments running in this process, as they are now (for metrics:
  // nothing from the store).
  std::vector<hoard::v1::Tournament> Running();
  absl::Status Watch(const hoard::v1::WatchTournamentRequest& request,
                     std::shared_ptr<TournamentWatcher> watcher, bool admin = false);
  absl::StatusOr<hoard::v1::Tournament> Cancel(const hoard::v1::CancelTournamentRequest& request);
  // Sets a running ladder's final evaluation on its stored spec (its runner,
  // here or on another server, reads it within kSpecPoll).
  absl::StatusOr<hoard::v1::Tournament> FreezeLadder(const hoard::v1::FreezeLadderRequest& request);
  // Established ratings ranked first, provisional ones below, unless
  // request.all.
  absl::StatusOr<hoard::v1::Leaderboard> GetLeaderboard(
      const hoard::v1::GetLeaderboardRequest& request);
  // Unless `admin`, sealed matches of unfinished tournaments without seeds.
  absl::StatusOr<hoard::v1::ListResultsResponse> ListResults(
      const hoard::v1::ListResultsRequest& request, bool admin = false);
  absl::StatusOr<hoard::v1::HeadToHeadTable> GetHeadToHead(
      const hoard::v1::GetHeadToHeadRequest& request);

 private:
  struct Run {
    std::unique_ptr<TournamentRunner> runner;
    std::vector<std::shared_ptr<TournamentWatcher>> watchers;
    std::thread thread;
    bool done = false;
    // Who created it (empty: resumed, or made in process).
    std::string creator;
  };
  void Start(std::int64_t id, const std::string& creator = "") ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Releases the runners of tournaments that have ended.
  void Reap() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The checks of Create that the spec alone cannot make.
  absl::Status CheckNetworkSpec(const hoard::v1::TournamentSpec& spec) const;
  void Broadcast(std::int64_t id, const hoard::v1::Tournament& tournament, bool last);
  // Whether the run of `id` has a watcher.
  bool Watched(std::int64_t id) ABSL_LOCKS_EXCLUDED(mu_);
  // Ends the run of `id` as Broadcast(last) would, but only while nobody
  // watches it; false (and nothing done) if somebody does.
  bool EndUnwatched(std::int64_t id) ABSL_LOCKS_EXCLUDED(mu_);
  // The game of a leaderboard request: its own, or its tournament's.
  absl::StatusOr<db::RatingScope> ScopeOf(const std::string& game, std::int64_t tournament_id);

  db::MatchStore* const store_;
  MatchHost* const host_;
  const RunnerOptions defaults_;
  const ManagerPolicy policy_;
  absl::Mutex mu_;
  std::map<std::int64_t, std::unique_ptr<Run>> running_ ABSL_GUARDED_BY(mu_);
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  // Sharing: joins the tournaments other servers started, until closing_.
  void FollowStore();
  std::thread follower_;
};

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_MANAGER_H_
