#ifndef HOARD_SERVICE_CLI_BENCH_ARENA_BENCH_H_
#define HOARD_SERVICE_CLI_BENCH_ARENA_BENCH_H_

// The arena load tool behind `hoard bench arena`.
//
// It starts a server in this process, listening on loopback, and drives it
// over real gRPC:
//  1. decisions: `matches` concurrent village matches of external random
//     bots: `players` registered bots, each one stream, each playing every
//     seat of a share of the matches (so a decision's answer and the next
//     request share a stream, as a ping and its pong do); every finished
//     match is replaced at once. A decision's round trip is measured by the
//     bots: from sending an answer to receiving the match's next request.
//  2. the floor: the same number of concurrent ping-pong chains over the
//     same number of streams to an echo service in the same server, each
//     pong carrying a real decision request of about the mean size (so
//     gRPC and protobuf do the same work for it), each ping a small
//     message: the transport's cost, which the arena cannot beat.
//  3. time-outs: `timeout_matches` concurrent matches with decision_ms =
//     `timeout_decision_ms` and no bank, against bots that think for
//     `think_percent` of that time after each request arrives, and then
//     answer. A bot that finds itself past the deadline when its answer is
//     due (its own threads fell behind) counts that and sends nothing;
//     every other time-out is one the server or the transport caused, by
//     delivering a request or taking in an answer late.
//     Meanwhile `thinking_matches` Dragon's Gold matches of built-in MCTS
//     bots at their full budget keep the worker pool where built-in bots
//     think busy: their thinking must not make the transport late. How long
//     CreateMatch took for each is reported (it returns at once; the bots
//     play in the background).
//  4. memory (run last): `idle_matches` matches whose seats wait for
//     players, with the heap in use (malloc's count) and the resident set
//     measured around it.
//  5. a single stream (with `single_stream`): phases 1 and 2 again with one
//     bot stream playing one match at a time, against one ping-pong chain
//     over one stream: a single decision's round trip against the
//     transport's. Run the bench under `taskset -c 0` to have the server and
//     the bot share one core, as the comparison is meant.
//  6. load (each of `load_matches`): that many concurrent matches with
//     decision_ms = `load_decision_ms` and no bank, whose bots answer at
//     once, for `load_seconds`: decisions per second, and the time-outs,
//     all of them the server's (the bots answer as soon as they read a
//     request).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hoard/v1/arena.pb.h"

namespace hoard::service {

struct ArenaBenchOptions {
  int players = 4;
  int matches = 16;
  double seconds = 5;
  int idle_matches = 10000;
  int timeout_matches = 1000;
  int timeout_decision_ms = 100;
  // How long the time-out phase's bots think, as a share of the decision
  // time: they always answer in time as they see it.
  int think_percent = 80;
  double timeout_seconds = 10;
  // All-built-in MCTS matches thinking during the time-out phase.
  int thinking_matches = 4;
  // How the bots hear the play (the floor carries no events, so by default
  // they hear none either: like is compared with like).
  hoard::v1::EventDelivery events = hoard::v1::EVENT_DELIVERY_NONE;
  // Phase 5, and phase 6's match counts (none: no phase 6).
  bool single_stream = true;
  std::vector<int> load_matches = {1000, 5000};
  int load_decision_ms = 100;
  double load_seconds = 10;
  // Progress lines, as the phases go.
  std::function<void(const std::string&)> progress;
};

struct LatencyFigures {
  std::int64_t round_trips = 0;
  double per_second = 0;
  double p50_us = 0;
  double p99_us = 0;
};

// One run of phase 6.
// One load phase, counted from when every match has been created (the
// ramp of creating them is not measured) to the end of the phase.
struct LoadFigures {
  int matches = 0;
  double seconds = 0;
  std::int64_t decisions = 0;
  std::int64_t timeouts = 0;
  double decisions_per_second = 0;
  int matches_finished = 0;
  // Matches at work meanwhile: the goal less those finished and not yet
  // replaced (the bench replaces them one CreateMatch at a time).
  double mean_active = 0;
  int least_active = 0;
  // Of the time-outs, requests the bots read only after their deadline:
  // lost after the server handed them over (on the way, or in the bots'
  // own reading), not in the server.
  std::int64_t late_reads = 0;
};

struct ArenaBenchReport {
  LatencyFigures arena;
  LatencyFigures floor;
  // Phase 5 (when run): one stream, one match; one ping-pong chain.
  LatencyFigures single_arena;
  LatencyFigures single_floor;
  std::vector<LoadFigures> load;
  double mean_request_bytes = 0;
  // The size of the decision request the floor's pongs carry.
  double floor_reply_bytes = 0;
  int idle_matches = 0;
  double idle_heap_bytes_per_match = 0;
  double idle_rss_bytes_per_match = 0;
  std::int64_t timeout_phase_decisions = 0;
  std::int64_t timeout_phase_timeouts = 0;
  // Of those, the ones the bots caused: answers they were late to send.
  std::int64_t timeout_phase_late_answers = 0;
  int timeout_phase_matches_finished = 0;
  // The thinking matches: the slowest CreateMatch, and the actions their
  // bots played during the phase.
  double thinking_create_max_ms = 0;
  std::int64_t thinking_actions = 0;
};

absl::StatusOr<ArenaBenchReport> RunArenaBench(const ArenaBenchOptions& options);

}  // namespace hoard::service

#endif  // HOARD_SERVICE_CLI_BENCH_ARENA_BENCH_H_
