#ifndef HOARD_TOURNAMENT_HOST_H_
#define HOARD_TOURNAMENT_HOST_H_

// Where a tournament's matches are played: the arena of this process
// (service/arena_host.h), or a server reached over gRPC. The runner sees
// only this interface, so the same tournament runs against either.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hoard/v1/arena.pb.h"
#include "hoard/v1/record.pb.h"

namespace grpc {
class Channel;
}  // namespace grpc

namespace hoard::tournament {

struct FinishedMatch {
  hoard::v1::Match match;
  hoard::v1::MatchRecord record;
  // The match's sequence in the host's own store (whose numbering the
  // tournament's store shares), or 0 when the tournament's store numbers
  // it.
  std::int64_t sequence = 0;
};

class MatchHost {
 public:
  virtual ~MatchHost() = default;
  // Creates the match and waits for its end. The host's clocks bound the
  // wait: a silent bot times out and forfeits. kResourceExhausted when a
  // bot already plays all the matches it accepts (try again later).
  virtual absl::StatusOr<FinishedMatch> Play(const hoard::v1::CreateMatchRequest& request) = 0;
  virtual absl::StatusOr<hoard::v1::ListBotsResponse> ListBots() = 0;
  // Gives the bot account `name` the key `key` (making the account if need
  // be), for a bot the runner launches. kFailedPrecondition if the name
  // belongs to an account that was not made for a launch.
  virtual absl::Status ProvisionBot(const std::string& name, const std::string& key) = 0;
  // host:port where bots connect to play here — one per server behind the
  // host, and a bot plays on all of them; empty when none can.
  virtual std::vector<std::string> bot_addresses() const = 0;
  // The runner has stored the match `match_id` it played here (`saved` OK),
  // or could not (`saved` says why; the slot is played again when the
  // tournament resumes). For the host's own log; nothing to do by default.
  virtual void Stored(const std::string& match_id, const absl::Status& saved) {
    (void)match_id;
    (void)saved;
  }
};

// One Hoard server over gRPC: where bots connect to it (host:port), and a
// channel to it alone.
struct RemoteServer {
  std::string address;
  std::shared_ptr<grpc::Channel> channel;
};

// Hoard servers over gRPC, one or several. Each match is one PlayMatch call
// on `play`: with several servers, a channel whose load balancing (gRPC's
// round_robin over their addresses) picks the server, so the matches spread
// evenly. A call that finds no server or its server gone (UNAVAILABLE) is
// made again a few times, on whichever server the channel picks then. Bots
// are listed, and launched bots' accounts made, on each of `servers`: a bot
// counts as connected only when it is connected to every server, since any
// of its matches may go to any of them, and bots connect to every server's
// address. REQUIRES: at least one server.
std::unique_ptr<MatchHost> RemoteHost(std::shared_ptr<grpc::Channel> play,
                                      std::vector<RemoteServer> servers);

// The bot lists of several servers as one: each bot once, with its matches
// summed, connected only when it is connected on every list.
hoard::v1::ListBotsResponse MergeBotLists(const std::vector<hoard::v1::ListBotsResponse>& lists);

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_HOST_H_
