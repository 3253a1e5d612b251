#include "tournament/bot_supervisor.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tournament/secrets.h"
#include "tournament/spec.h"

namespace hoard::tournament {
namespace {

using hoard::v1::Participant;

// How a launched participant was started, for messages: its catalog entry's
// name (a catalog's commands stay on the server) or its command.
std::string LaunchedAs(const Participant& participant) {
  if (participant.has_catalog()) return absl::StrCat("catalog bot: ", participant.catalog());
  return absl::StrCat("command: ", participant.command());
}

// " (its last line: ...)" from a launched bot's output, or "".
std::string LastWords(const LaunchedBot& bot) {
  std::string last = bot.LastLines(1);
  while (!last.empty() && (last.back() == '\n' || last.back() == '\r')) last.pop_back();
  return last.empty() ? "" : absl::StrCat(" (its last line: ", last, ")");
}

}  // namespace

BotSupervisor::BotSupervisor(const hoard::v1::TournamentSpec& spec, MatchHost* host,
                             const std::atomic<bool>& cancelled, Options options, Hooks hooks)
    : spec_(spec),
      host_(host),
      cancelled_(cancelled),
      options_(std::move(options)),
      hooks_(std::move(hooks)) {}

BotSupervisor::~BotSupervisor() {
  StopWatching();
  Stop();
}

void BotSupervisor::Prepare(const std::set<int>& needed, const std::set<int>& played_before) {
  played_before_ = played_before;
  // A launched bot runs once for each server behind the host.
  const std::vector<std::string> addresses = host_->bot_addresses();
  LaunchedBots launched;
  for (int p : needed) {
    const Participant& participant = spec_.participants(p);
    if (!participant.has_command() && !participant.has_catalog()) continue;
    if (addresses.empty()) {
      unavailable_[p] = "this host takes no bots over the network";
      continue;
    }
    if (std::optional<hoard::v1::CatalogBot> launch = LaunchOf(p)) {
      Launch(p, *launch, addresses, launched);
    }
  }
  for (int p : AwaitConnected(needed, launched)) {
    unavailable_[p] = NotConnected(p, addresses, launched);
  }
  for (const auto& [p, why] : unavailable_) hooks_.warn(why);
}

const std::string* BotSupervisor::Unavailable(int p) const {
  auto it = unavailable_.find(p);
  return it == unavailable_.end() ? nullptr : &it->second;
}

void BotSupervisor::PlayedThrough(int p) {
  absl::MutexLock lock(&mu_);
  ++played_through_[p];
}

void BotSupervisor::Watch() {
  {
    absl::MutexLock lock(&mu_);
    watching_ = true;
  }
  watcher_ = std::thread([this] {
    while (true) {
      Supervise();
      absl::MutexLock lock(&mu_);
      auto stopped = [this] {
        mu_.AssertHeld();
        return !watching_;
      };
      if (mu_.AwaitWithTimeout(absl::Condition(&stopped), absl::Milliseconds(50))) return;
    }
  });
}

void BotSupervisor::StopWatching() {
  {
    absl::MutexLock lock(&mu_);
    watching_ = false;
  }
  if (watcher_.joinable()) watcher_.join();
}

void BotSupervisor::Stop() {
  for (Supervised& launched : launched_) {
    if (launched.bot) launched.bot->Stop();
  }
  launched_.clear();
}

std::optional<hoard::v1::CatalogBot> BotSupervisor::LaunchOf(int p) {
  const Participant& participant = spec_.participants(p);
  if (!participant.has_catalog()) {
    hoard::v1::CatalogBot launch;
    launch.set_command(participant.command());
    return launch;
  }
  std::optional<hoard::v1::CatalogBot> entry;
  if (options_.catalog) entry = options_.catalog(participant.catalog());
  if (!entry) {
    unavailable_[p] = absl::StrCat("participant '", participant.name(), "': no bot '",
                                   participant.catalog(), "' in the server's catalog");
  }
  return entry;
}

void BotSupervisor::Launch(int p, const hoard::v1::CatalogBot& launch,
                           const std::vector<std::string>& addresses, LaunchedBots& launched) {
  const Participant& participant = spec_.participants(p);
  // A fresh key at every launch: the account is made for it, or re-keyed.
  const std::string key = RandomToken();
  if (absl::Status provisioned = host_->ProvisionBot(ParticipantLabel(participant), key);
      !provisioned.ok()) {
    unavailable_[p] =
        absl::StrCat("participant '", participant.name(), "': ", provisioned.message());
    return;
  }
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    std::string log;
    if (!options_.bot_log_dir.empty()) {
      std::error_code ignored;
      std::filesystem::create_directories(options_.bot_log_dir, ignored);
      log = absl::StrCat(options_.bot_log_dir, "/", participant.name(),
                         i == 0 ? "" : absl::StrCat("-", i + 1), ".log");
    }
    std::map<std::string, std::string> env(launch.environment().begin(),
                                           launch.environment().end());
    env["HOARD_SERVER"] = addresses[i];
    env["HOARD_BOT_NAME"] = ParticipantLabel(participant);
    env["HOARD_BOT_KEY"] = key;
    env["HOARD_MAX_MATCHES"] = absl::StrCat(spec_.concurrency());
    absl::StatusOr<std::unique_ptr<LaunchedBot>> bot =
        LaunchedBot::Start(launch.command(), env, log, launch.working_directory());
    if (!bot.ok()) {
      unavailable_[p] = std::string(bot.status().message());
      return;
    }
    launched[p].push_back(bot->get());
    launched_.push_back({.participant = p,
                         .command = launch.command(),
                         .env = std::move(env),
                         .log_path = log,
                         .working_directory = launch.working_directory(),
                         .bot = *std::move(bot)});
  }
}

void BotSupervisor::Supervise() {
  const absl::Time now = absl::Now();
  for (Supervised& launched : launched_) {
    if (launched.given_up || unavailable_.contains(launched.participant)) continue;
    const int p = launched.participant;
    const Participant& participant = spec_.participants(p);
    const std::string output =
        launched.log_path.empty() ? "" : absl::StrCat("; output: ", launched.log_path);
    if (launched.bot != nullptr) {
      std::optional<std::string> exit = launched.bot->Exited();
      if (!exit) continue;
      const std::string last_words = LastWords(*launched.bot);
      launched.bot.reset();
      int played;
      {
        absl::MutexLock lock(&mu_);
        played = played_through_[p];
      }
      // Matches played through since the last exit: it was making progress.
      int& in_a_row = exits_in_a_row_[p];
      in_a_row = played > played_at_exit_[p] ? 1 : in_a_row + 1;
      played_at_exit_[p] = played;
      const std::string what =
          absl::StrCat("participant '", participant.name(), "' ", *exit, last_words);
      if (in_a_row > options_.max_restarts) {
        launched.given_up = true;
        hooks_.give_up(absl::StrCat(what, ": it exited ", in_a_row,
                                    " times in a row without playing a match through, so "
                                    "the tournament stops (",
                                    LaunchedAs(participant), output, ")"));
        continue;
      }
      absl::Duration delay = options_.first_restart_delay;
      for (int i = 1; i < in_a_row && delay < kMaxRestartDelay; ++i) delay *= 2;
      delay = std::min(delay, kMaxRestartDelay);
      launched.restart_at = now + delay;
      hooks_.warn(absl::StrCat(what, "; restarting it in ", absl::FormatDuration(delay), " (",
                               in_a_row, " of at most ", options_.max_restarts,
                               " restarts in a row; ", LaunchedAs(participant), output, ")"));
      continue;
    }
    if (now < launched.restart_at) continue;
    absl::StatusOr<std::unique_ptr<LaunchedBot>> bot = LaunchedBot::Start(
        launched.command, launched.env, launched.log_path, launched.working_directory);
    if (!bot.ok()) {
      launched.given_up = true;
      hooks_.give_up(absl::StrCat("participant '", participant.name(),
                                  "' could not be restarted: ", bot.status().message()));
      continue;
    }
    launched.bot = *std::move(bot);
    hooks_.warn(absl::StrCat("participant '", participant.name(), "' restarted"));
  }
}

void BotSupervisor::DropExited(const LaunchedBots& launched, std::set<int>& waiting) {
  for (auto it = waiting.begin(); it != waiting.end();) {
    std::optional<std::string> exit;
    const LaunchedBot* exited = nullptr;
    if (auto bots = launched.find(*it); bots != launched.end()) {
      for (LaunchedBot* bot : bots->second) {
        if ((exit = bot->Exited())) {
          exited = bot;
          break;
        }
      }
    }
    if (exit) {
      unavailable_[*it] = absl::StrCat(
          "participant '", spec_.participants(*it).name(), "' ", *exit, " before it connected",
          LastWords(*exited), " (", LaunchedAs(spec_.participants(*it)),
          exited->log_path().empty() ? ")" : absl::StrCat("; output: ", exited->log_path(), ")"));
      it = waiting.erase(it);
    } else {
      ++it;
    }
  }
}

std::set<int> BotSupervisor::AwaitConnected(const std::set<int>& needed,
                                            const LaunchedBots& launched) {
  std::set<int> waiting;
  for (int p : needed) {
    if (!spec_.participants(p).has_builtin() && !unavailable_.contains(p)) waiting.insert(p);
  }
  // A participant that played in this tournament before was connected
  // before a crash or a stop: it gets the resume grace to come back.
  const absl::Time start = absl::Now();
  const absl::Duration timeout = absl::Milliseconds(spec_.fault_policy().start_timeout_ms());
  const absl::Duration resume_timeout = std::max(timeout, options_.resume_grace);
  auto deadline_of = [&](int p) {
    return start + (played_before_.contains(p) ? resume_timeout : timeout);
  };
  while (!waiting.empty() && !cancelled_) {
    absl::StatusOr<hoard::v1::ListBotsResponse> bots = host_->ListBots();
    if (bots.ok()) {
      for (const hoard::v1::BotInfo& bot : bots->bots()) {
        if (!bot.connected()) continue;
        std::erase_if(waiting,
                      [&](int p) { return ParticipantLabel(spec_.participants(p)) == bot.name(); });
      }
    }
    DropExited(launched, waiting);
    const absl::Time now = absl::Now();
    if (std::all_of(waiting.begin(), waiting.end(), [&](int p) { return now >= deadline_of(p); })) {
      break;
    }
    absl::SleepFor(absl::Milliseconds(50));
  }
  return waiting;
}

std::string BotSupervisor::NotConnected(int p, const std::vector<std::string>& addresses,
                                        const LaunchedBots& launched) const {
  const Participant& participant = spec_.participants(p);
  const std::int64_t waited_ms =
      played_before_.contains(p)
          ? std::max<std::int64_t>(spec_.fault_policy().start_timeout_ms(),
                                   absl::ToInt64Milliseconds(options_.resume_grace))
          : spec_.fault_policy().start_timeout_ms();
  std::string why = absl::StrCat("participant '", participant.name(), "' did not connect to ",
                                 absl::StrJoin(addresses, " and "), " within ", waited_ms, " ms",
                                 played_before_.contains(p) ? " of the tournament resuming" : "");
  if (!participant.has_command() && !participant.has_catalog()) {
    return absl::StrCat(why, " (it must register under that name)");
  }
  auto bots = launched.find(p);
  absl::StrAppend(&why, " (", LaunchedAs(participant));
  if (bots != launched.end() && !bots->second.empty() &&
      !bots->second.front()->log_path().empty()) {
    absl::StrAppend(&why, "; output: ", bots->second.front()->log_path());
  }
  absl::StrAppend(&why, ")");
  return why;
}

}  // namespace hoard::tournament
