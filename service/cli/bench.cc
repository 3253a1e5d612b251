// hoard bench arena: the arena's load tool (service/cli/bench/arena_bench.h).

#include <iostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "engine/clip.h"
#include "service/cli/bench/arena_bench.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"

namespace hoard::cli {

namespace {

// What `hoard bench arena` reads from its command line.
struct BenchFlags {
  service::ArenaBenchOptions options;
  std::string single_stream;
  std::string load_matches;
  std::string events;
};

void AddBenchFlags(CLI::App& app, BenchFlags* flags) {
  const CLI::Validator seconds =
      Number([](double s) { return s > 0 && s <= 3600; }, "{flag} needs seconds from 0 to 3600");
  app.add_option("--matches", flags->options.matches,
                 "concurrent matches in the decision phase (default 16)")
      ->type_name("N")
      ->transform(InRange(1, 100000));
  app.add_option("--players", flags->options.players,
                 "seats per match, one bot stream each (default 4)")
      ->type_name("N")
      ->transform(InRange(2, 5));
  app.add_option("--seconds", flags->options.seconds,
                 "length of the decision and floor phases (default 5)")
      ->type_name("S")
      ->transform(seconds);
  app.add_option("--idle-matches", flags->options.idle_matches,
                 "idle matches for the memory phase (default 10000)")
      ->type_name("N")
      ->transform(InRange(1, 1000000));
  app.add_option("--timeout-matches", flags->options.timeout_matches,
                 "concurrent matches in the time-out phase (default 1000)")
      ->type_name("N")
      ->transform(InRange(1, 100000));
  app.add_option("--timeout-decision-ms", flags->options.timeout_decision_ms,
                 "decision time in the time-out phase (default 100)")
      ->type_name("MS")
      ->transform(InRange(1, 600000));
  app.add_option("--timeout-seconds", flags->options.timeout_seconds,
                 "length of the time-out phase (default 10)")
      ->type_name("S")
      ->transform(seconds);
  app.add_option("--think-percent", flags->options.think_percent,
                 "time-out phase: bots answer after P% of the decision time (default 80)")
      ->type_name("P")
      ->transform(InRange(0, 99));
  app.add_option("--thinking-matches", flags->options.thinking_matches,
                 "time-out phase: all-built-in MCTS Dragon's Gold matches thinking meanwhile "
                 "(default 4)")
      ->type_name("N")
      ->transform(InRange(0, 1000));
  app.add_option("--single-stream", flags->single_stream,
                 "also measure one stream and one match against one ping-pong chain (default "
                 "yes)")
      ->type_name("yes|no");
  app.add_option("--load-matches", flags->load_matches,
                 "load phases: concurrent matches whose bots answer at once (default "
                 "1000,5000; none: skip)")
      ->type_name("N,N,...");
  app.add_option("--load-decision-ms", flags->options.load_decision_ms,
                 "decision time in the load phases (default 100)")
      ->type_name("MS")
      ->transform(InRange(1, 600000));
  app.add_option("--load-seconds", flags->options.load_seconds,
                 "length of each load phase (default 10)")
      ->type_name("S")
      ->transform(seconds);
  app.add_option("--events", flags->events,
                 "how the bots hear the play: stream, in_requests or none (default none, like "
                 "the floor)")
      ->type_name("HOW");
}

// The flags CLI11 takes as words, checked and put into the options;
// kInvalidArgument naming the flag.
absl::Status ReadWordFlags(BenchFlags& flags) {
  if (!flags.single_stream.empty()) {
    if (flags.single_stream != "yes" && flags.single_stream != "no") {
      return absl::InvalidArgumentError(absl::StrCat("--single-stream must be yes or no, not '",
                                                     engine::Clip(flags.single_stream), "'"));
    }
    flags.options.single_stream = flags.single_stream == "yes";
  }
  if (!flags.load_matches.empty()) {
    flags.options.load_matches.clear();
    if (flags.load_matches != "none") {
      for (absl::string_view part : absl::StrSplit(flags.load_matches, ',')) {
        int matches = 0;
        if (!absl::SimpleAtoi(part, &matches) || matches < 1 || matches > 100000) {
          return absl::InvalidArgumentError(
              absl::StrCat("--load-matches needs counts from 1 to 100000, "
                           "separated by commas, or none; not '",
                           engine::Clip(flags.load_matches), "'"));
        }
        flags.options.load_matches.push_back(matches);
      }
    }
  }
  if (flags.events == "stream") {
    flags.options.events = hoard::v1::EVENT_DELIVERY_STREAM;
  } else if (flags.events == "in_requests") {
    flags.options.events = hoard::v1::EVENT_DELIVERY_IN_REQUESTS;
  } else if (flags.events == "none") {
    flags.options.events = hoard::v1::EVENT_DELIVERY_NONE;
  } else if (!flags.events.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--events must be stream, in_requests or none, not '", engine::Clip(flags.events), "'"));
  }
  return absl::OkStatus();
}

void PrintReport(const service::ArenaBenchOptions& options, const service::ArenaBenchReport& r) {
  std::cout << absl::StrFormat("%-34s %10s %12s %10s %10s\n", "phase", "round trips", "per second",
                               "p50 us", "p99 us");
  std::cout << absl::StrFormat("%-34s %10d %12.0f %10.0f %10.0f\n",
                               absl::StrCat("arena decisions, ", options.matches, " matches"),
                               r.arena.round_trips, r.arena.per_second, r.arena.p50_us,
                               r.arena.p99_us);
  std::cout << absl::StrFormat("%-34s %10d %12.0f %10.0f %10.0f\n",
                               absl::StrCat("floor ping-pong, ", options.matches, " chains"),
                               r.floor.round_trips, r.floor.per_second, r.floor.p50_us,
                               r.floor.p99_us);
  std::cout << absl::StrFormat(
      "mean decision request: %.0f bytes; the floor's pongs carry one of %.0f bytes\n",
      r.mean_request_bytes, r.floor_reply_bytes);
  if (r.floor.p50_us > 0 && r.floor.per_second > 0) {
    std::cout << absl::StrFormat(
        "p50 vs floor: %.2fx (goal <= 1.3x); decisions/s vs floor messages/s: %.2f (goal >= 0.8)\n",
        r.arena.p50_us / r.floor.p50_us, r.arena.per_second / r.floor.per_second);
  }
  std::cout << absl::StrFormat(
      "idle matches: %d, heap %.1f KiB and resident %.1f KiB per match (goal <= 32 KiB)\n",
      r.idle_matches, r.idle_heap_bytes_per_match / 1024, r.idle_rss_bytes_per_match / 1024);
  const std::int64_t server_caused = r.timeout_phase_timeouts - r.timeout_phase_late_answers;
  std::cout << absl::StrFormat(
      "time-outs: %d matches at %d ms, bots thinking %d%% of it: %d decisions, %d time-outs: "
      "%d the server's (%.3f%%; goal 0), %d the bots' own; %d matches finished\n",
      options.timeout_matches, options.timeout_decision_ms, options.think_percent,
      r.timeout_phase_decisions, r.timeout_phase_timeouts, server_caused,
      r.timeout_phase_decisions > 0
          ? 100.0 * static_cast<double>(server_caused) / r.timeout_phase_decisions
          : 0.0,
      r.timeout_phase_late_answers, r.timeout_phase_matches_finished);
  if (options.thinking_matches > 0) {
    std::cout << absl::StrFormat(
        "meanwhile %d MCTS Dragon's Gold matches thought on the worker pool: %d actions; "
        "CreateMatch returned in at most %.1f ms (goal < 50 ms)\n",
        options.thinking_matches, r.thinking_actions, r.thinking_create_max_ms);
  }
  if (options.single_stream) {
    std::cout << absl::StrFormat("%-34s %10d %12.0f %10.0f %10.0f\n",
                                 "single stream: arena, 1 match", r.single_arena.round_trips,
                                 r.single_arena.per_second, r.single_arena.p50_us,
                                 r.single_arena.p99_us);
    std::cout << absl::StrFormat("%-34s %10d %12.0f %10.0f %10.0f\n",
                                 "single stream: floor, 1 chain", r.single_floor.round_trips,
                                 r.single_floor.per_second, r.single_floor.p50_us,
                                 r.single_floor.p99_us);
    if (r.single_floor.p50_us > 0) {
      std::cout << absl::StrFormat("single stream p50 vs floor: %.2fx (goal <= 1.5x)\n",
                                   r.single_arena.p50_us / r.single_floor.p50_us);
    }
  }
  for (const service::LoadFigures& load : r.load) {
    const std::int64_t server_timeouts = std::max<std::int64_t>(0, load.timeouts - load.late_reads);
    std::cout << absl::StrFormat(
        "load: %d matches at %d ms, bots answering at once, %.1f s once all were created: "
        "%d decisions, %.0f/s; %d time-outs, %d of them read by the bots after their deadline, "
        "%d the server's (%.3f%%; goal <= 0.1%%); %d matches finished; matches at work %.0f on "
        "average, %d at least\n",
        load.matches, options.load_decision_ms, load.seconds, load.decisions,
        load.decisions_per_second, load.timeouts, load.late_reads, server_timeouts,
        load.decisions > 0 ? 100.0 * static_cast<double>(server_timeouts) / load.decisions : 0.0,
        load.matches_finished, load.mean_active, load.least_active);
    // Each match always has one request open, so answering every one within
    // its time takes at least matches / decision time decisions a second
    // (Little's law): more than the server and the bots can make together,
    // and requests queue past their deadlines.
    const double needed = 1000.0 * load.matches / options.load_decision_ms;
    std::cout << absl::StrFormat(
        "load: %d matches at %d ms need at least %.0f decisions/s to answer each in time; "
        "made %.0f/s (%.2f of it)\n",
        load.matches, options.load_decision_ms, needed, load.decisions_per_second,
        load.decisions_per_second / needed);
  }
  if (r.load.size() >= 2 && r.load.front().decisions_per_second > 0) {
    std::cout << absl::StrFormat(
        "load: decisions/s at %d matches vs at %d: %.2f (goal >= 0.9)\n", r.load.back().matches,
        r.load.front().matches,
        r.load.back().decisions_per_second / r.load.front().decisions_per_second);
  }
}

}  // namespace

int RunBench(const std::vector<std::string>& args) {
  BenchFlags flags;
  std::vector<std::string> words;
  CommandLine command("bench",
                      "usage: hoard bench arena [flags]\n\n"
                      "Starts a server in this process on loopback and measures it over gRPC:\n"
                      "decision round trips against a raw gRPC ping-pong (the floor), memory\n"
                      "per idle match, and time-outs under load.");
  AddBenchFlags(command.app(), &flags);
  command.Words(&words);
  if (std::optional<int> exit = command.ParseOrExit(args)) return *exit;
  if (words.empty()) {
    std::cout << command.Help();
    return kExitUsage;
  }
  if (words.size() != 1 || words[0] != "arena") {
    return Fail(kExitUsage,
                SubcommandError("bench", words, {"arena"}, "usage: hoard bench arena [flags]"));
  }
  if (absl::Status s = ReadWordFlags(flags); !s.ok()) {
    return Fail(kExitUsage, std::string(s.message()));
  }
  flags.options.progress = [](const std::string& line) {
    std::cerr << "bench: " << line << std::endl;
  };
  absl::StatusOr<service::ArenaBenchReport> report = service::RunArenaBench(flags.options);
  if (!report.ok()) return Fail(kExitFailure, std::string(report.status().message()));
  PrintReport(flags.options, *report);
  return kExitOk;
}

}  // namespace hoard::cli
