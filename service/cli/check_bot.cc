// hoard check-bot: does a bot keep the protocol? (service/check/checker.h)

#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "service/check/checker.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"

namespace hoard::cli {
namespace {

const std::vector<FlagSpec>& CheckBotFlags() {
  static const auto* specs = new std::vector<FlagSpec>{
      {"command", "CMD",
       "launch the bot with this shell command (it reads HOARD_SERVER, "
       "HOARD_BOT_NAME, HOARD_BOT_KEY, HOARD_MAX_MATCHES)..."},
      {"bot", "NAME", "...or wait for a bot you start yourself to register under NAME"},
      {"game", "ID", "a game the bot claims to play (repeatable; default village)", true},
      {"decision-ms", "MS", "time per decision in the test matches (default 1000)"},
      {"bank-ms", "MS", "time bank per seat in the test matches (default 2000)"},
      {"matches-at-once", "N", "matches offered at once (HOARD_MAX_MATCHES; default 3)"},
      {"connect-timeout-ms", "MS", "time to register, and to reconnect (default 15000)"},
      {"bot-log", "FILE",
       "where a launched bot's output goes (default: a temporary file; "
       "the report shows its last lines if the bot dies)"},
      {"seed", "N", "seed of the test matches (default 1)"},
      {"help", "", "show this help"},
  };
  return *specs;
}

}  // namespace

int RunCheckBot(const std::vector<std::string>& args) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, CheckBotFlags());
  if (!parsed.ok()) return Fail(kExitUsage, std::string(parsed.status().message()));
  if (parsed->Has("help")) {
    std::cout
        << "usage: hoard check-bot --command CMD [flags]\n"
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
           "Exit status 0 when every check passes, 1 otherwise.\n\n"
        << FlagsHelp(CheckBotFlags());
    return kExitOk;
  }
  if (!parsed->positionals.empty()) {
    return Fail(kExitUsage, absl::StrCat("unexpected argument '", parsed->positionals[0],
                                         "' (quote the bot's command: --command 'CMD ARGS')"));
  }
  service::CheckOptions options;
  options.command = parsed->Get("command", "");
  options.bot_name = parsed->Get("bot", "");
  if (options.command.empty() == options.bot_name.empty()) {
    return Fail(kExitUsage, "give either --command CMD or --bot NAME");
  }
  if (parsed->Has("game")) options.games = parsed->flags.at("game");
  options.log_path = parsed->Get("bot-log", "");
  for (const auto& [flag, target, low] : std::vector<std::tuple<std::string, int*, int>>{
           {"decision-ms", &options.decision_ms, 1},
           {"bank-ms", &options.bank_ms, 0},
           {"matches-at-once", &options.concurrent_matches, 2},
           {"connect-timeout-ms", &options.connect_timeout_ms, 1}}) {
    if (absl::Status status = ReadIntFlag(*parsed, flag, low, 3600000, target); !status.ok()) {
      return Fail(kExitUsage, std::string(status.message()));
    }
  }
  int seed = 1;
  if (absl::Status status = ReadIntFlag(*parsed, "seed", 0, 2000000000, &seed); !status.ok()) {
    return Fail(kExitUsage, std::string(status.message()));
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
