#include "service/cli/bench/arena_bench.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <deque>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "bots/client_auth.h"
#include "engine/rng.h"
#include "engine/status_macros.h"
#include "google/protobuf/arena.h"
#include "grpcpp/grpcpp.h"
#include "hoard/v1/arena.grpc.pb.h"
#include "hoard/v1/bench.grpc.pb.h"
#include "service/grpc_server.h"
#include "service/write_queue.h"
#include "tournament/secrets.h"

namespace hoard::service {
namespace {

using Clock = std::chrono::steady_clock;

double Micros(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

std::int64_t UnixMillisNow() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Messages are read into an arena, reset after each, as a client that cares
// for its speed would.
google::protobuf::ArenaOptions ReadArenaOptions() {
  google::protobuf::ArenaOptions options;
  options.start_block_size = 16 << 10;
  options.max_block_size = 64 << 10;
  return options;
}

// Round-trip samples taken while a phase is measuring. Each client thread
// keeps its own (no lock on the way) and they are merged at the end.
class Samples {
 public:
  void AddAll(const std::vector<double>& us) {
    absl::MutexLock lock(&mu_);
    us_.insert(us_.end(), us.begin(), us.end());
  }
  LatencyFigures Summarize(double seconds) {
    absl::MutexLock lock(&mu_);
    LatencyFigures figures;
    figures.round_trips = static_cast<std::int64_t>(us_.size());
    if (us_.empty()) return figures;
    std::sort(us_.begin(), us_.end());
    figures.per_second = static_cast<double>(us_.size()) / seconds;
    figures.p50_us = us_[us_.size() / 2];
    figures.p99_us = us_[std::min(us_.size() - 1, us_.size() * 99 / 100)];
    return figures;
  }

 private:
  absl::Mutex mu_;
  std::vector<double> us_ ABSL_GUARDED_BY(mu_);
};

// ---------------------------------------------------------------- the floor

class EchoReactor final : public grpc::ServerBidiReactor<hoard::v1::Ping, hoard::v1::Ping> {
 public:
  EchoReactor() : writes_(this, kDefaultMaxQueuedBytes) { StartRead(&ping_); }
  void OnReadDone(bool ok) override {
    if (!ok) {
      writes_.Finish(grpc::Status::OK, false);
      return;
    }
    if (ping_.has_reply()) template_ = ping_.reply();
    hoard::v1::Ping pong;
    pong.set_id(ping_.id());
    *pong.mutable_reply() = template_;
    writes_.Push(std::move(pong));
    StartRead(&ping_);
  }
  void WriteNext(const hoard::v1::Ping& pong, grpc::WriteOptions options) {
    StartWrite(&pong, options);
  }
  void OnWriteDone(bool ok) override { writes_.OnWriteDone(ok); }
  void OnCancel() override { writes_.Finish(grpc::Status::CANCELLED, true); }
  void OnDone() override { delete this; }

 private:
  hoard::v1::Ping ping_;
  hoard::v1::ServerMessage template_;
  WriteQueue<EchoReactor, hoard::v1::Ping> writes_;
};

class EchoService final : public hoard::v1::Bench::CallbackService {
 public:
  grpc::ServerBidiReactor<hoard::v1::Ping, hoard::v1::Ping>* PingPong(
      grpc::CallbackServerContext*) override {
    return new EchoReactor();
  }
};

// `chains` ping-pong chains spread over `streams` streams, for `seconds`;
// each pong carries `reply` (a decision request), each ping an answer's
// worth of bytes.
LatencyFigures RunFloor(const std::function<std::shared_ptr<grpc::Channel>()>& new_channel,
                        int streams, int chains, const hoard::v1::ServerMessage& reply,
                        double seconds) {
  Samples samples;
  std::atomic<bool> measuring{true};
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  for (int s = 0; s < streams; ++s) contexts.push_back(std::make_unique<grpc::ClientContext>());
  std::vector<std::thread> threads;
  for (int s = 0; s < streams; ++s) {
    threads.emplace_back([&, s, channel = new_channel()] {
      hoard::v1::Bench::Stub stub(channel);
      auto stream = stub.PingPong(contexts[s].get());
      std::map<std::int64_t, Clock::time_point> sent;
      hoard::v1::Ping ping;
      *ping.mutable_reply() = reply;
      for (int c = s; c < chains; c += streams) {
        ping.set_id(c);
        sent[c] = Clock::now();
        if (!stream->Write(ping)) return;
        ping.clear_reply();
      }
      google::protobuf::Arena arena(ReadArenaOptions());
      std::vector<double> mine;
      for (;;) {
        auto* pong = google::protobuf::Arena::CreateMessage<hoard::v1::Ping>(&arena);
        if (!stream->Read(pong)) break;
        const Clock::time_point now = Clock::now();
        if (measuring) mine.push_back(Micros(now - sent[pong->id()]));
        ping.set_id(pong->id());
        sent[pong->id()] = Clock::now();
        arena.Reset();
        if (!stream->Write(ping)) break;
      }
      samples.AddAll(mine);
      stream->Finish().IgnoreError();
    });
  }
  const Clock::time_point start = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  measuring = false;
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& context : contexts) context->TryCancel();
  for (std::thread& thread : threads) thread.join();
  return samples.Summarize(elapsed);
}

// ---------------------------------------------------------------- bots

// What the bench bots share with the phase that drives them.
struct Board {
  absl::Mutex mu;
  std::deque<std::string> finished ABSL_GUARDED_BY(mu);
  int registered ABSL_GUARDED_BY(mu) = 0;
  Samples samples;
  std::atomic<bool> measuring{false};
  std::atomic<std::int64_t> requests{0};
  std::atomic<std::int64_t> request_bytes{0};
  // Answers a thinking bot found itself too late to send.
  std::atomic<std::int64_t> late_answers{0};
  // Requests a bot read only after their deadline: the time ran out after
  // the server handed them to its transport, on the way or in the bot's own
  // reading (its threads fell behind).
  std::atomic<std::int64_t> late_reads{0};
  // Some requests seen while measuring, for the floor to carry.
  std::vector<hoard::v1::ServerMessage> examples ABSL_GUARDED_BY(mu);
};

// A registered bot answering every request at random: at once, or after
// thinking `think_ms` (answers then go out from a second thread, in order).
class BenchBot {
 public:
  BenchBot(std::shared_ptr<grpc::Channel> channel, std::string name, Board* board,
           hoard::v1::EventDelivery events, std::uint64_t seed, int think_ms = 0)
      : channel_(std::move(channel)),
        name_(std::move(name)),
        board_(board),
        events_(events),
        rng_(seed),
        think_(std::chrono::milliseconds(think_ms)) {
    thread_ = std::thread([this] { Run(); });
  }
  ~BenchBot() {
    context_.TryCancel();
    thread_.join();
  }

 private:
  void Run() {
    hoard::v1::Arena::Stub stub(channel_);
    stream_ = stub.Play(&context_);
    auto& stream = stream_;
    std::thread writer;
    if (think_ > Clock::duration::zero()) writer = std::thread([this] { WriteThoughtAnswers(); });
    hoard::v1::BotMessage hello;
    hello.mutable_hello()->mutable_register_()->set_name(name_);
    hello.mutable_hello()->mutable_register_()->set_key("bench");
    hello.mutable_hello()->mutable_register_()->set_max_matches(1000000);
    hello.mutable_hello()->mutable_register_()->set_events(events_);
    stream->Write(hello);
    hoard::v1::BotMessage reply;
    google::protobuf::Arena arena(ReadArenaOptions());
    for (;; arena.Reset()) {
      auto* read = google::protobuf::Arena::CreateMessage<hoard::v1::ServerMessage>(&arena);
      if (!stream->Read(read)) break;
      const hoard::v1::ServerMessage& message = *read;
      if (message.has_decision()) {
        const hoard::v1::DecisionRequest& request = message.decision();
        // A request past its deadline was already played by default; an
        // answer would only be refused.
        if (request.deadline_unix_ms() < UnixMillisNow()) {
          ++board_->late_reads;
          continue;
        }
        const Clock::time_point now = Clock::now();
        // A bot plays every seat of its matches, so it alone sees each
        // match's requests and answers.
        auto [last, first_request] = last_answer_.try_emplace(request.match_id(), now);
        if (!first_request && board_->measuring) samples_.push_back(Micros(now - last->second));
        last->second = now;
        if (board_->measuring) {
          // Sizes of one request in 64 stand for the rest.
          if (++seen_ % 64 == 0) {
            board_->requests += 64;
            board_->request_bytes += 64 * static_cast<std::int64_t>(request.ByteSizeLong());
            absl::MutexLock lock(&board_->mu);
            if (board_->examples.size() < 256) board_->examples.push_back(message);
          }
        }
        reply.mutable_answer()->set_match_id(request.match_id());
        reply.mutable_answer()->set_request_id(request.request_id());
        reply.mutable_answer()->set_legal_index(
            static_cast<int>(rng_.Uniform(std::max(1, request.legal_actions_size()))));
        if (think_ > Clock::duration::zero()) {
          absl::MutexLock lock(&think_mu_);
          thinking_.push_back({now + think_, request.deadline_unix_ms(), reply});
          continue;
        }
        if (!stream->Write(reply)) break;
      } else if (message.has_welcome()) {
        absl::MutexLock lock(&board_->mu);
        ++board_->registered;
      } else if (message.has_event() && message.event().has_finished()) {
        last_answer_.erase(message.event().match_id());
        absl::MutexLock lock(&board_->mu);
        // A bot holds every seat of its matches: it hears each end once per
        // seat, and reports it once.
        if (reported_.insert(message.event().match_id()).second) {
          board_->finished.push_back(message.event().match_id());
        }
      }
    }
    if (writer.joinable()) {
      {
        absl::MutexLock lock(&think_mu_);
        reading_done_ = true;
      }
      writer.join();
    }
    board_->samples.AddAll(samples_);
    stream->Finish().IgnoreError();
  }

  void WriteThoughtAnswers() {
    absl::MutexLock lock(&think_mu_);
    for (;;) {
      think_mu_.Await(absl::Condition(
          +[](BenchBot* bot) ABSL_NO_THREAD_SAFETY_ANALYSIS {
            return bot->reading_done_ || !bot->thinking_.empty();
          },
          this));
      if (reading_done_) return;
      const auto [due, deadline_unix_ms, answer] = thinking_.front();
      if (Clock::now() < due) {
        think_mu_.AwaitWithTimeout(absl::Condition(
                                       +[](bool* done) { return *done; }, &reading_done_),
                                   absl::FromChrono(due - Clock::now()));
        continue;
      }
      thinking_.pop_front();
      if (UnixMillisNow() >= deadline_unix_ms) {
        // The bot itself is late (its own threads fell behind): count it,
        // and send nothing the server would refuse.
        ++board_->late_answers;
        continue;
      }
      think_mu_.Unlock();
      const bool written = stream_->Write(answer);
      think_mu_.Lock();
      if (!written) return;
    }
  }

  std::shared_ptr<grpc::Channel> channel_;
  const std::string name_;
  Board* const board_;
  const hoard::v1::EventDelivery events_;
  engine::Rng rng_;
  absl::flat_hash_set<std::string> reported_;
  // Reader thread only: when each match was last answered, and the
  // round trips measured.
  absl::flat_hash_map<std::string, Clock::time_point> last_answer_;
  std::vector<double> samples_;
  std::int64_t seen_ = 0;
  const Clock::duration think_;
  absl::Mutex think_mu_;
  struct Thought {
    Clock::time_point due;
    std::int64_t deadline_unix_ms;
    hoard::v1::BotMessage answer;
  };
  std::deque<Thought> thinking_ ABSL_GUARDED_BY(think_mu_);
  bool reading_done_ ABSL_GUARDED_BY(think_mu_) = false;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<hoard::v1::BotMessage, hoard::v1::ServerMessage>>
      stream_;
  std::thread thread_;
};

struct Rig {
  std::unique_ptr<ArenaServer> server;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<hoard::v1::Arena::Stub> stub;

  // A channel with a connection of its own, as a bot on its own machine
  // would have: no bot waits behind another's traffic.
  std::shared_ptr<grpc::Channel> BotChannel() const {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    return grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", server->port()),
                                     grpc::InsecureChannelCredentials(), args);
  }
};

absl::StatusOr<Rig> StartRig(grpc::Service* extra) {
  ServerOptions options;
  options.grpc.listen = "127.0.0.1:0";
  options.core.limits.max_running_matches = 1000000;
  options.core.limits.max_matches_per_bot = 1000000;
  options.core.limits.max_matches_per_creator = 1000000;
  // Every match of a phase stays listable: the phases count their decisions.
  options.core.limits.max_finished_in_memory = 1000000;
  options.core.limits.open_registration = true;  // the bench's bots name themselves
  const std::string token = tournament::RandomToken();
  options.core.admin_tokens = {token};
  if (extra != nullptr) options.grpc.extra_services.push_back(extra);
  absl::StatusOr<std::unique_ptr<ArenaServer>> server = ArenaServer::Start(options);
  if (!server.ok()) return server.status();
  Rig rig;
  rig.server = *std::move(server);
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  rig.channel = bots::AuthorizedChannel(absl::StrCat("127.0.0.1:", rig.server->port()),
                                        grpc::InsecureChannelCredentials(), token, args);
  rig.stub = hoard::v1::Arena::NewStub(rig.channel);
  return rig;
}

// A match whose seats are all open (open_seats) or all played by one bench
// bot, so that a decision's answer and the next request share a stream, as
// a ping and its pong do.
// A village match of `players` seats, every seat open or held by one of
// `bots` bench bots (by the seed).
hoard::v1::CreateMatchRequest CreateMatchRequest(int players, int bots, bool open_seats,
                                                 int decision_ms, int bank_ms, int max_strikes,
                                                 std::uint64_t seed) {
  const std::string bot = absl::StrCat("bench-", seed % static_cast<std::uint64_t>(bots));
  hoard::v1::CreateMatchRequest request;
  request.set_game("village");
  request.set_seed(seed);
  request.mutable_time_control()->set_decision_ms(decision_ms);
  request.mutable_time_control()->set_bank_ms(bank_ms);
  request.mutable_time_control()->set_max_strikes(max_strikes);
  for (int i = 0; i < players; ++i) {
    if (open_seats) {
      request.add_seats()->set_open(true);
    } else {
      request.add_seats()->set_bot(bot);
    }
  }
  return request;
}

absl::Status CreateMatchError(const grpc::Status& status) {
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      absl::StrCat("creating a match: ", status.error_message()));
}

absl::StatusOr<std::string> CreateMatch(const Rig& rig, int players, int bots, bool open_seats,
                                        int decision_ms, int bank_ms, int max_strikes,
                                        std::uint64_t seed) {
  const hoard::v1::CreateMatchRequest request =
      CreateMatchRequest(players, bots, open_seats, decision_ms, bank_ms, max_strikes, seed);
  hoard::v1::CreateMatchResponse response;
  grpc::ClientContext context;
  const grpc::Status status = rig.stub->CreateMatch(&context, request, &response);
  if (!status.ok()) return CreateMatchError(status);
  return response.match_id();
}

// Creates `n` matches of bots (seeds `seed` on), all of their CreateMatch
// calls in flight at once, and appends their ids to `ids`.
absl::Status CreateMatches(const Rig& rig, int players, int bots, int decision_ms, int bank_ms,
                           int max_strikes, int n, std::uint64_t& seed,
                           std::vector<std::string>& ids) {
  struct Call {
    grpc::ClientContext context;
    hoard::v1::CreateMatchRequest request;
    hoard::v1::CreateMatchResponse response;
    grpc::Status status;
  };
  std::vector<std::unique_ptr<Call>> calls;
  absl::Mutex mu;
  int pending = n;
  for (int i = 0; i < n; ++i) {
    calls.push_back(std::make_unique<Call>());
    Call& call = *calls.back();
    call.request =
        CreateMatchRequest(players, bots, false, decision_ms, bank_ms, max_strikes, seed++);
    rig.stub->async()->CreateMatch(&call.context, &call.request, &call.response,
                                   [&call, &mu, &pending](grpc::Status status) {
                                     absl::MutexLock lock(&mu);
                                     call.status = std::move(status);
                                     --pending;
                                   });
  }
  absl::MutexLock lock(&mu);
  mu.Await(absl::Condition(
      +[](int* left) { return *left == 0; }, &pending));
  for (const std::unique_ptr<Call>& call : calls) {
    if (!call->status.ok()) return CreateMatchError(call->status);
    ids.push_back(call->response.match_id());
  }
  return absl::OkStatus();
}

// Matches at work while KeepMatchesRunning measures: `count` less those
// finished and not yet replaced, averaged over the time.
struct ActiveMatches {
  double mean = 0;
  int least = 0;
};

// Creates `count` matches, then calls `started` (if any) and for `seconds`
// replaces each match that ends, the replacements of a moment created at
// once; `active` (if any) is told how many were at work meanwhile. Returns
// the ids of every match created.
absl::StatusOr<std::vector<std::string>> KeepMatchesRunning(
    const Rig& rig, Board* board, int players, int bots, int count, double seconds, int decision_ms,
    int bank_ms, int max_strikes, const std::function<absl::Status()>& started = nullptr,
    ActiveMatches* active = nullptr) {
  std::vector<std::string> ids;
  std::uint64_t seed = 1;
  // Created a few hundred at a time, so that they start close together.
  constexpr int kCreatedAtOnce = 250;
  for (int created = 0; created < count; created += kCreatedAtOnce) {
    RETURN_IF_ERROR(CreateMatches(rig, players, bots, decision_ms, bank_ms, max_strikes,
                                  std::min(kCreatedAtOnce, count - created), seed, ids));
  }
  // Those that ended meanwhile are replaced in the first moment measured.
  if (started) RETURN_IF_ERROR(started());
  board->measuring = true;
  const Clock::time_point begin = Clock::now();
  const Clock::time_point end =
      begin + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  // The time integral of the matches at work, and the fewest seen.
  double match_seconds = 0;
  int least = count;
  Clock::time_point last = begin;
  while (Clock::now() < end) {
    int to_replace = 0;
    {
      absl::MutexLock lock(&board->mu);
      board->mu.AwaitWithTimeout(
          absl::Condition(
              +[](std::deque<std::string>* q) { return !q->empty(); }, &board->finished),
          absl::Milliseconds(20));
      to_replace = static_cast<int>(board->finished.size());
      board->finished.clear();
    }
    // Those finished since the last look were at work for about half the
    // time between.
    const Clock::time_point now = Clock::now();
    match_seconds += (count - to_replace / 2.0) * std::chrono::duration<double>(now - last).count();
    least = std::min(least, count - to_replace);
    RETURN_IF_ERROR(CreateMatches(rig, players, bots, decision_ms, bank_ms, max_strikes, to_replace,
                                  seed, ids));
    // Replacing them takes a while, during which they are not at work.
    const Clock::time_point replaced = Clock::now();
    match_seconds +=
        (count - to_replace / 2.0) * std::chrono::duration<double>(replaced - now).count();
    last = replaced;
  }
  board->measuring = false;
  if (active != nullptr) {
    const double elapsed = std::chrono::duration<double>(last - begin).count();
    active->mean = elapsed > 0 ? match_seconds / elapsed : count;
    active->least = least;
  }
  return ids;
}

void AwaitRegistered(Board* board, int players) {
  absl::MutexLock lock(&board->mu);
  struct Arg {
    Board* board;
    int players;
  } arg{board, players};
  board->mu.Await(absl::Condition(
      +[](Arg* a) ABSL_NO_THREAD_SAFETY_ANALYSIS { return a->board->registered >= a->players; },
      &arg));
}

std::size_t HeapInUse() { return mallinfo2().uordblks; }

std::size_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

void Say(const ArenaBenchOptions& options, const std::string& line) {
  if (options.progress) options.progress(line);
}

// The example request closest to the mean size, for the floor to carry.
hoard::v1::ServerMessage ExampleRequest(Board& board, double mean_bytes) {
  hoard::v1::ServerMessage example;
  absl::MutexLock lock(&board.mu);
  double best = -1;
  for (const hoard::v1::ServerMessage& candidate : board.examples) {
    const double off =
        std::abs(static_cast<double>(candidate.decision().ByteSizeLong()) - mean_bytes);
    if (best < 0 || off < best) {
      best = off;
      example = candidate;
    }
  }
  return example;
}

// Phases 1 and 2 (and 5): decisions of `matches` matches over `streams`
// bot streams, then the floor over as many chains and streams, in one
// server; the figures go to *arena and *floor.
absl::Status RunDecisionPhases(const ArenaBenchOptions& options, int streams, int matches,
                               LatencyFigures* arena, LatencyFigures* floor,
                               ArenaBenchReport& report) {
  EchoService echo;
  absl::StatusOr<Rig> rig = StartRig(&echo);
  if (!rig.ok()) return rig.status();
  Board board;
  Say(options, absl::StrFormat("decisions: %d matches of %d bots over %d streams for %g s", matches,
                               options.players, streams, options.seconds));
  {
    std::vector<std::unique_ptr<BenchBot>> bots;
    for (int i = 0; i < streams; ++i) {
      bots.push_back(std::make_unique<BenchBot>(rig->BotChannel(), absl::StrCat("bench-", i),
                                                &board, options.events,
                                                static_cast<std::uint64_t>(i + 1)));
    }
    AwaitRegistered(&board, streams);
    const Clock::time_point start = Clock::now();
    absl::StatusOr<std::vector<std::string>> ids = KeepMatchesRunning(
        *rig, &board, options.players, streams, matches, options.seconds, 60000, 60000, 0);
    if (!ids.ok()) return ids.status();
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    bots.clear();  // each hands in its samples as it stops
    *arena = board.samples.Summarize(elapsed);
  }
  const double mean_bytes =
      board.requests > 0 ? static_cast<double>(board.request_bytes) / board.requests : 0;
  Say(options, absl::StrFormat("floor: %d ping-pong chains over %d streams for %g s", matches,
                               streams, options.seconds));
  const hoard::v1::ServerMessage example = ExampleRequest(board, mean_bytes);
  if (arena == &report.arena) {
    report.mean_request_bytes = mean_bytes;
    report.floor_reply_bytes = static_cast<double>(example.ByteSizeLong());
  }
  *floor = RunFloor([&] { return rig->BotChannel(); }, streams, matches, example, options.seconds);
  return absl::OkStatus();
}

// All-MCTS Dragon's Gold matches, each timed as it is created.
absl::StatusOr<std::vector<std::string>> StartThinkingMatches(const Rig& rig,
                                                              const ArenaBenchOptions& options,
                                                              ArenaBenchReport& report) {
  std::vector<std::string> thinking;
  for (int i = 0; i < options.thinking_matches; ++i) {
    hoard::v1::CreateMatchRequest request;
    request.set_game("dragons_gold");
    request.set_seed(static_cast<std::uint64_t>(i + 1));
    for (int seat = 0; seat < 3; ++seat) request.add_seats()->set_builtin("mcts");
    hoard::v1::CreateMatchResponse response;
    grpc::ClientContext context;
    const auto started = std::chrono::steady_clock::now();
    const grpc::Status status = rig.stub->CreateMatch(&context, request, &response);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    if (!status.ok()) {
      return absl::UnavailableError(
          absl::StrCat("creating a thinking match: ", status.error_message()));
    }
    report.thinking_create_max_ms = std::max(report.thinking_create_max_ms, ms);
    thinking.push_back(response.match_id());
  }
  return thinking;
}

// The actions played so far in `ids`.
std::int64_t CountActions(const Rig& rig, const std::vector<std::string>& ids) {
  std::int64_t actions = 0;
  for (const std::string& id : ids) {
    hoard::v1::GetMatchRequest get;
    get.set_match_id(id);
    hoard::v1::GetMatchResponse got;
    grpc::ClientContext context;
    if (rig.stub->GetMatch(&context, get, &got).ok()) actions += got.match().actions();
  }
  return actions;
}

// Every village match of a time-out or load phase, a page at a time (no
// records: cheap): its decisions, time-outs and finished matches.
absl::Status TallyVillageMatches(const Rig& rig, LoadFigures& tally) {
  hoard::v1::ListMatchesRequest request;
  request.set_page_size(500);
  for (;;) {
    hoard::v1::ListMatchesResponse response;
    grpc::ClientContext context;
    const grpc::Status status = rig.stub->ListMatches(&context, request, &response);
    if (!status.ok()) {
      return absl::UnavailableError(absl::StrCat("listing matches: ", status.error_message()));
    }
    for (const hoard::v1::Match& match : response.matches()) {
      if (match.game() != "village") continue;  // the thinking matches
      for (const hoard::v1::SeatInfo& seat : match.seats()) {
        tally.decisions += seat.answers() + seat.timeouts();
        tally.timeouts += seat.timeouts();
      }
      if (match.status() == hoard::v1::MATCH_STATUS_FINISHED) ++tally.matches_finished;
    }
    if (response.next_page_token().empty()) break;
    request.set_page_token(response.next_page_token());
  }
  return absl::OkStatus();
}

// Phase 3: time-outs under load, beside built-in bots thinking.
absl::Status RunTimeoutPhase(const ArenaBenchOptions& options, ArenaBenchReport& report) {
  absl::StatusOr<Rig> rig = StartRig(nullptr);
  if (!rig.ok()) return rig.status();
  Board board;
  const int think_ms = options.timeout_decision_ms * options.think_percent / 100;
  Say(options,
      absl::StrFormat("time-outs: %d matches with %d ms decisions, bots thinking %d ms, for %g s",
                      options.timeout_matches, options.timeout_decision_ms, think_ms,
                      options.timeout_seconds));
  std::vector<std::unique_ptr<BenchBot>> bots;
  for (int i = 0; i < options.players; ++i) {
    bots.push_back(std::make_unique<BenchBot>(rig->BotChannel(), absl::StrCat("bench-", i), &board,
                                              options.events, static_cast<std::uint64_t>(i + 1),
                                              think_ms));
  }
  AwaitRegistered(&board, options.players);
  // Built-in bots thinking as hard as they may, on the same server.
  absl::StatusOr<std::vector<std::string>> thinking = StartThinkingMatches(*rig, options, report);
  if (!thinking.ok()) return thinking.status();
  absl::StatusOr<std::vector<std::string>> ids =
      KeepMatchesRunning(*rig, &board, options.players, options.players, options.timeout_matches,
                         options.timeout_seconds, options.timeout_decision_ms, 0, 0);
  if (!ids.ok()) return ids.status();
  report.thinking_actions = CountActions(*rig, *thinking);
  report.timeout_phase_late_answers = board.late_answers;
  LoadFigures tally;
  RETURN_IF_ERROR(TallyVillageMatches(*rig, tally));
  report.timeout_phase_decisions = tally.decisions;
  report.timeout_phase_timeouts = tally.timeouts;
  report.timeout_phase_matches_finished = tally.matches_finished;
  return absl::OkStatus();
}

// Phase 6: `matches` concurrent matches whose bots answer at once.
absl::StatusOr<LoadFigures> RunLoadPhase(const ArenaBenchOptions& options, int matches) {
  absl::StatusOr<Rig> rig = StartRig(nullptr);
  if (!rig.ok()) return rig.status();
  Board board;
  Say(options, absl::StrFormat("load: %d matches with %d ms decisions, bots answering at once, "
                               "for %g s",
                               matches, options.load_decision_ms, options.load_seconds));
  std::vector<std::unique_ptr<BenchBot>> bots;
  for (int i = 0; i < options.players; ++i) {
    bots.push_back(std::make_unique<BenchBot>(rig->BotChannel(), absl::StrCat("bench-", i), &board,
                                              options.events, static_cast<std::uint64_t>(i + 1)));
  }
  AwaitRegistered(&board, options.players);
  // Measured once every match is created: the decisions and time-outs of
  // the window are those counted at its end less those at its start.
  LoadFigures before;
  std::int64_t late_reads_before = 0;
  Clock::time_point start;
  ActiveMatches active;
  absl::StatusOr<std::vector<std::string>> ids = KeepMatchesRunning(
      *rig, &board, options.players, options.players, matches, options.load_seconds,
      options.load_decision_ms, 0, 0,
      [&] {
        start = Clock::now();
        late_reads_before = board.late_reads;
        return TallyVillageMatches(*rig, before);
      },
      &active);
  if (!ids.ok()) return ids.status();
  LoadFigures tally{.matches = matches};
  RETURN_IF_ERROR(TallyVillageMatches(*rig, tally));
  tally.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  bots.clear();
  tally.decisions -= before.decisions;
  tally.timeouts -= before.timeouts;
  tally.matches_finished -= before.matches_finished;
  tally.decisions_per_second = static_cast<double>(tally.decisions) / tally.seconds;
  tally.mean_active = active.mean;
  tally.least_active = active.least;
  tally.late_reads = board.late_reads - late_reads_before;
  return tally;
}

// Phase 4: idle matches, last: freeing them disturbs no other phase.
absl::Status RunMemoryPhase(const ArenaBenchOptions& options, ArenaBenchReport& report) {
  absl::StatusOr<Rig> rig = StartRig(nullptr);
  if (!rig.ok()) return rig.status();
  Say(options, absl::StrFormat("memory: %d idle matches", options.idle_matches));
  // One match first, so one-time allocations are not counted.
  if (absl::StatusOr<std::string> id =
          CreateMatch(*rig, options.players, options.players, true, 600000, 0, 0, 1);
      !id.ok()) {
    return id.status();
  }
  const std::size_t heap_before = HeapInUse();
  const std::size_t rss_before = ResidentBytes();
  for (int i = 0; i < options.idle_matches; ++i) {
    absl::StatusOr<std::string> id = CreateMatch(*rig, options.players, options.players, true,
                                                 600000, 0, 0, static_cast<std::uint64_t>(i + 2));
    if (!id.ok()) return id.status();
  }
  report.idle_matches = options.idle_matches;
  report.idle_heap_bytes_per_match =
      (static_cast<double>(HeapInUse()) - static_cast<double>(heap_before)) / options.idle_matches;
  report.idle_rss_bytes_per_match =
      (static_cast<double>(ResidentBytes()) - static_cast<double>(rss_before)) /
      options.idle_matches;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ArenaBenchReport> RunArenaBench(const ArenaBenchOptions& options) {
  ArenaBenchReport report;
  RETURN_IF_ERROR(RunDecisionPhases(options, options.players, options.matches, &report.arena,
                                    &report.floor, report));
  RETURN_IF_ERROR(RunTimeoutPhase(options, report));
  if (options.single_stream) {
    RETURN_IF_ERROR(
        RunDecisionPhases(options, 1, 1, &report.single_arena, &report.single_floor, report));
  }
  for (int matches : options.load_matches) {
    absl::StatusOr<LoadFigures> load = RunLoadPhase(options, matches);
    if (!load.ok()) return load.status();
    report.load.push_back(*load);
  }
  RETURN_IF_ERROR(RunMemoryPhase(options, report));
  return report;
}

}  // namespace hoard::service
