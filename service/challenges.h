#ifndef HOARD_SERVICE_CHALLENGES_H_
#define HOARD_SERVICE_CHALLENGES_H_

// Challenges between connected bots (hoard.v1.Challenge; docs/protocol.md,
// "Challenges"): a registered bot asks others to one match with it; each is
// offered it (ChallengeOffer) and answers within kChallengeAnswerTime; once
// all accept, the match starts through the `start` hook and the challenger
// and the bots asked are told (ChallengeResult). A decline, an answer that
// does not come in time, a stream that closes, or a match that cannot
// start ends the challenge with a result saying which.
//
// Bounds: a bot has at most kMaxChallengesPerBot of its own waiting, the
// board at most kMaxChallenges; beyond them a challenge is refused at once.
//
// Thread safety: every method may be called from any thread. The hooks and
// Connection::Send are called without the board's lock.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "hoard/v1/arena.pb.h"
#include "service/connection.h"
#include "service/timer.h"

namespace hoard::service {

inline constexpr absl::Duration kChallengeAnswerTime = absl::Seconds(10);
inline constexpr int kMaxChallengesPerBot = 4;
inline constexpr int kMaxChallenges = 1000;
inline constexpr int kMaxChallengeOpponents = 5;

class ChallengeBoard {
 public:
  struct Hooks {
    // The open stream of a connected bot, or null.
    std::function<std::shared_ptr<Connection>(const std::string& bot)> connection_of;
    // Starts the match of an accepted challenge: its id, or why not.
    std::function<absl::StatusOr<std::string>(const hoard::v1::CreateMatchRequest&)> start;
  };

  // `timers` outlives the board.
  ChallengeBoard(TimerQueue* timers, Hooks hooks);
  ~ChallengeBoard();
  ChallengeBoard(const ChallengeBoard&) = delete;
  ChallengeBoard& operator=(const ChallengeBoard&) = delete;

  // A challenge sent on `from`'s stream (a registered bot's).
  void Challenge(const std::shared_ptr<Connection>& from, const hoard::v1::Challenge& challenge);
  // An answer sent on `from`'s stream.
  void Answer(const std::shared_ptr<Connection>& from, const hoard::v1::ChallengeAnswer& answer);
  // `bot`'s stream closed: its own challenges end, and those asking it end
  // as declined.
  void Closed(const std::string& bot);

 private:
  struct Pending {
    std::string server_id;
    std::string challenger;
    std::string challenger_id;  // the challenger's own id for it
    hoard::v1::Challenge asked;
    std::set<std::string> awaiting;  // opponents yet to answer
    TimerQueue::Id timeout = 0;
  };

  // Tells how a challenge (taken off the board) ended: the challenger
  // under its own id, the bots asked under the server's.
  void Tell(const Pending& pending, hoard::v1::ChallengeResult result);
  // Removes challenge `id` if it still waits; its entry, or nothing.
  std::unique_ptr<Pending> Take(const std::string& id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The time to answer challenge `id` ran out.
  void TimedOut(const std::string& id);
  // Every bot answered yes: starts the match.
  void Start(std::unique_ptr<Pending> pending);
  // Refuses a challenge at once, saying why.
  void Refuse(const std::shared_ptr<Connection>& from, const std::string& challenge_id,
              const std::string& why);

  TimerQueue* const timers_;
  const Hooks hooks_;
  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<Pending>> pending_ ABSL_GUARDED_BY(mu_);  // by server id
  std::map<std::string, int> waiting_by_bot_ ABSL_GUARDED_BY(mu_);
  std::uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
};

}  // namespace hoard::service

#endif  // HOARD_SERVICE_CHALLENGES_H_
