#ifndef HOARD_BOTS_CLIENT_H_
#define HOARD_BOTS_CLIENT_H_

// The C++ bot client: connects to a Hoard server over gRPC, registers a bot
// (or joins one seat with its token), and answers every decision request of
// every match it is seated in with a Strategy, reconnecting when the stream
// breaks.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "engine/rng.h"
#include "hoard/v1/arena.pb.h"

namespace grpc {
class Channel;
class ClientContext;
}  // namespace grpc

namespace hoard::bots {

// Chooses the answer to a decision request: a legal_index or an action.
class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual hoard::v1::Answer Decide(const hoard::v1::DecisionRequest& request) = 0;
};

// Uniformly random among the listed legal actions.
class RandomStrategy final : public Strategy {
 public:
  explicit RandomStrategy(std::uint64_t seed) : rng_(seed) {}
  hoard::v1::Answer Decide(const hoard::v1::DecisionRequest& request) override;

 private:
  engine::Rng rng_;
};

// "random" (seeded) or "first" (always the first legal action).
absl::StatusOr<std::unique_ptr<Strategy>> MakeStrategy(const std::string& name,
                                                       std::uint64_t seed);

struct ClientOptions {
  // Register under a name and key, playing up to max_matches at once...
  std::string name;
  std::string key;
  int max_matches = 1;
  // ...or join one seat.
  std::string match_id;
  std::string seat_token;
  // Stop after this many matches have ended (0: play until Stop()).
  int stop_after_matches = 0;
  // Reconnect when the stream breaks (not when credentials are refused).
  bool reconnect = true;
  // Called with a line for each notable thing (may be empty).
  std::function<void(const std::string&)> log;
};

struct ClientStats {
  int matches_finished = 0;
  int decisions = 0;
  int refused_answers = 0;
  int reconnects = 0;
};

class BotClient {
 public:
  BotClient(std::shared_ptr<grpc::Channel> channel, ClientOptions options,
            std::unique_ptr<Strategy> strategy);
  ~BotClient();

  // Plays until stop_after_matches matches have ended or Stop() is called
  // (OK), or the server refuses the credentials (that status).
  absl::Status Run();
  // Ends Run() soon; callable from any thread.
  void Stop();
  // Breaks the current stream as a network failure would; Run() reconnects.
  void DropConnection();

  ClientStats stats() const;

 private:
  // One stream's life; returns its final status.
  absl::Status PlayOnce();

  std::shared_ptr<grpc::Channel> channel_;
  const ClientOptions options_;
  std::unique_ptr<Strategy> strategy_;
  std::atomic<bool> stopping_{false};
  mutable absl::Mutex mu_;
  grpc::ClientContext* context_ ABSL_GUARDED_BY(mu_) = nullptr;
  ClientStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hoard::bots

#endif  // HOARD_BOTS_CLIENT_H_
