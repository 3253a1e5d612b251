// hoard check-bot: does a bot keep the protocol? (service/cli/check/checker.h)

#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "service/cli/check/checker.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"

namespace hoard::cli {

int RunCheckBot(const std::vector<std::string>& args) {
  service::CheckOptions options;
  int seed = 1;
  std::vector<std::string> words;
  CommandLine command(
      "check-bot",
      "usage: hoard check-bot --command CMD [flags]\n"
      "       hoard check-bot --bot NAME [flags]\n\n"
      "Checks that a bot keeps the protocol: it registers, plays each game it\n"
      "claims to the end, plays several matches at once, survives its connection\n"
      "being cut, and decides for itself: at most 2% of its decisions may be late,\n"
      "refused as illegal, or failed (counting the default actions an SDK sends\n"
      "for it). The test matches are played on a server of the checker's own,\n"
      "against built-in bots. As in every match, the bot is told when seated the\n"
      "match's commitment to its deal (Seated.seed_commitment; decision.seed_commitment\n"
      "in the Python SDK, decision.seedCommitment in Node's), which the record's seed\n"
      "and seed_salt hash to once the match is over (docs/records.md).\n"
      "Exit status 0 when every check passes, 1 otherwise.");
  CLI::App& app = command.app();
  app.add_option("--command", options.command,
                 "launch the bot with this shell command (it reads HOARD_SERVER, "
                 "HOARD_BOT_NAME, HOARD_BOT_KEY, HOARD_MAX_MATCHES)...")
      ->type_name("CMD");
  app.add_option("--bot", options.bot_name,
                 "...or wait for a bot you start yourself to register under NAME")
      ->type_name("NAME");
  app.add_option("--game", options.games,
                 "a game the bot claims to play (repeatable; default village)")
      ->type_name("ID");
  app.add_option("--decision-ms", options.decision_ms,
                 "time per decision in the test matches (default 1000)")
      ->type_name("MS")
      ->transform(InRange(1, 3600000));
  app.add_option("--bank-ms", options.bank_ms,
                 "time bank per seat in the test matches (default 2000)")
      ->type_name("MS")
      ->transform(InRange(0, 3600000));
  app.add_option("--matches-at-once", options.concurrent_matches,
                 "matches offered at once (HOARD_MAX_MATCHES; default 3)")
      ->type_name("N")
      ->transform(InRange(2, 3600000));
  app.add_option("--connect-timeout-ms", options.connect_timeout_ms,
                 "time to register, and to reconnect (default 15000)")
      ->type_name("MS")
      ->transform(InRange(1, 3600000));
  app.add_option("--bot-log", options.log_path,
                 "where a launched bot's output goes (default: a temporary file; "
                 "the report shows its last lines if the bot dies)")
      ->type_name("FILE");
  app.add_option("--seed", seed, "seed of the test matches (default 1)")
      ->type_name("N")
      ->transform(InRange(0, 2000000000));
  command.Words(&words);
  if (std::optional<int> exit = command.ParseOrExit(args)) return *exit;
  if (!words.empty()) {
    return Fail(kExitUsage, absl::StrCat("unexpected argument '", words[0],
                                         "' (quote the bot's command: --command 'CMD ARGS')"));
  }
  if (options.command.empty() == options.bot_name.empty()) {
    return Fail(kExitUsage, "give either --command CMD or --bot NAME");
  }
  options.seed = static_cast<std::uint64_t>(seed);

  service::CheckCallbacks callbacks;
  callbacks.on_listening = [&](const std::string& address) {
    if (options.command.empty()) {
      std::cout << "check-bot: waiting for bot '" << options.bot_name << "' to register at "
                << address << std::endl;
    } else {
      std::cout << "check-bot: launching `" << options.command << "` against " << address
                << (options.log_path.empty() ? ""
                                             : absl::StrCat(" (output: ", options.log_path, ")"))
                << std::endl;
    }
  };
  callbacks.on_result = [](const service::CheckResult& result) {
    std::cout << absl::StrFormat("%-4s  %-24s %s", result.passed ? "PASS" : "FAIL", result.name,
                                 result.detail)
              << std::endl;
  };
  absl::StatusOr<service::CheckReport> report = service::CheckBot(options, callbacks);
  if (!report.ok()) return Fail(kExitUsage, std::string(report.status().message()));
  int passed = 0;
  for (const service::CheckResult& result : report->checks) passed += result.passed ? 1 : 0;
  std::cout << absl::StrFormat("check-bot: %s (%d of %d checks passed)\n",
                               report->passed() ? "the bot conforms" : "the bot does NOT conform",
                               passed, report->checks.size());
  return report->passed() ? kExitOk : kExitFailure;
}

}  // namespace hoard::cli
