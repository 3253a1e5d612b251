#ifndef HOARD_TOURNAMENT_LEASE_KEEPER_H_
#define HOARD_TOURNAMENT_LEASE_KEEPER_H_

// A server's leases on one tournament that it shares with the servers of
// the same store (runner.h, "Sharing"): it claims slots, or the tournament
// whole (slot -1), for `holder`; once started it renews every lease the
// holder has every third of `ttl` on a thread of its own, and follows the
// tournament's stored status: a tournament cancelled, finished or failed
// by another server calls `on_ended` with that status (once per look, from
// the keeper's thread) and ended_elsewhere() turns true. A renewal that
// fails is a warning: the leases run out and other servers may play those
// slots again.
//
// Thread safety: Claim, ClaimWhole and ended_elsewhere may be called from
// any thread; Start and Stop from the one that owns the keeper. The
// destructor stops it.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "db/store.h"
#include "hoard/v1/tournament.pb.h"

namespace hoard::tournament {

class LeaseKeeper {
 public:
  struct Hooks {
    std::function<void(const std::string&)> warn;
    std::function<void(hoard::v1::TournamentStatus)> on_ended;
  };
  LeaseKeeper(db::MatchStore* store, std::int64_t tournament_id, std::string holder,
              absl::Duration ttl, Hooks hooks);
  ~LeaseKeeper();
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;

  // Whether this server now holds the whole tournament (another holds it:
  // false); the store's errors.
  absl::StatusOr<bool> ClaimWhole();
  // Whether this server now holds `slot`; false also when the store fails.
  bool Claim(int slot);
  // Gives up every lease of this server on the tournament (errors ignored:
  // the leases run out).
  void Release();

  // Starts renewing and following the status; Stop ends that and waits.
  void Start();
  void Stop();

  bool ended_elsewhere() const { return ended_elsewhere_; }

 private:
  void Keep();

  db::MatchStore* const store_;
  const std::int64_t id_;
  const std::string holder_;
  const absl::Duration ttl_;
  const Hooks hooks_;
  std::atomic<bool> ended_elsewhere_{false};
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_LEASE_KEEPER_H_
