#ifndef HOARD_SERVICE_CLI_CHECK_CHECKER_H_
#define HOARD_SERVICE_CLI_CHECK_CHECKER_H_

// The bot checker behind `hoard check-bot`: does a bot keep the protocol?
//
// It serves an arena of its own on loopback, behind a relay that can cut the
// bot's connection, has the bot register there (by launching its command,
// or by waiting for a bot started by hand), and plays test matches against
// built-in random bots:
//   * registers      — the bot connects and registers in time;
//   * plays G        — for each game it claims, a match played to the end
//                      without forfeiting;
//   * several at once — as many matches at once as it was offered
//                      (HOARD_MAX_MATCHES), all finished without time-outs
//                      (a bot that registered for fewer is told how to ask
//                      for more);
//   * reconnects     — its connection is cut in the middle of a match; it
//                      connects again and the match finishes;
// and, over all those matches, from the server's counts for the bot's seat
// and the answers themselves (Answer.default_reason: the SDKs' defaults
// cover faults the server would otherwise not see), at most 2% of its
// decisions may be
//   * answers in time — late: timed out, or answered by its client with the
//                      default action for want of a decision; no forfeit;
//   * legal answers  — refused as illegal;
//   * decisions succeed — answered by its client with the default action
//                      because the bot's code failed.
// Each check passes or fails with the reason, the numbers and an example
// request. A launched bot that dies fails the check under way, which shows
// its last lines of output, and the checks after it are not run.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hoard::service {

struct CheckOptions {
  // Launch this shell command as the bot (it finds HOARD_SERVER,
  // HOARD_BOT_NAME, HOARD_BOT_KEY and HOARD_MAX_MATCHES in its
  // environment)...
  std::string command;
  // ...and/or check the bot registering under this name (default "checked"
  // when launching; required without a command: the bot is started by
  // hand against the address `on_listening` reports).
  std::string bot_name;
  // The games the bot claims to play (default: village).
  std::vector<std::string> games;
  // Time control of every test match: per decision, and the bank.
  int decision_ms = 1000;
  int bank_ms = 2000;
  // Matches offered at once for the "several at once" check.
  int concurrent_matches = 3;
  // How long the bot has to register, and to reconnect after the cut.
  int connect_timeout_ms = 15000;
  // Where a launched bot's output goes (empty: a temporary file, removed at
  // the end).
  std::string log_path;
  // Seeds the test matches.
  std::uint64_t seed = 1;
};

struct CheckResult {
  std::string name;
  bool passed = false;
  std::string detail;
};

struct CheckReport {
  std::vector<CheckResult> checks;
  bool passed() const;
};

struct CheckCallbacks {
  // Where the bot must connect (host:port), once the checker listens.
  std::function<void(const std::string& address)> on_listening;
  // Each check as soon as it is decided.
  std::function<void(const CheckResult&)> on_result;
};

// Runs every check. An error only when the checks cannot run at all (a bad
// option, an unknown game, no port to listen on); a bot that misbehaves
// gives failed checks, not an error.
absl::StatusOr<CheckReport> CheckBot(const CheckOptions& options,
                                     const CheckCallbacks& callbacks = {});

}  // namespace hoard::service

#endif  // HOARD_SERVICE_CLI_CHECK_CHECKER_H_
