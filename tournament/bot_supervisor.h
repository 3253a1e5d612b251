#ifndef HOARD_TOURNAMENT_BOT_SUPERVISOR_H_
#define HOARD_TOURNAMENT_BOT_SUPERVISOR_H_

// The bot processes of one tournament run (runner.h, "Participants"), and
// which participants can be seated at all.
//
// Prepare launches every `command` or `catalog` participant the run needs
// (once per server behind the host, with a fresh key for its account and
// the server's address and its credentials in the environment) and waits,
// within the fault policy's start timeout, for every participant that is
// not built in to be connected; a participant that played in the
// tournament before gets the longer `resume_grace`. Those that are not
// connected in time, whose launched bot exits first, or whose catalog
// entry the server does not have, are unavailable, each with why (warned).
//
// While Watch runs, a launched bot that exits is started again after a
// pause that doubles from `first_restart_delay` (at most kMaxRestartDelay),
// with a warning each time. A participant whose bot exits more than
// `max_restarts` times in a row without playing a match through in between
// (PlayedThrough) is given up: `give_up` gets why, once per bot.
//
// Thread safety: Prepare, Watch, StopWatching and Stop are called from the
// thread that runs the tournament, Prepare before any match starts;
// Unavailable and PlayedThrough from any thread once Prepare returned (the
// set of unavailable participants does not change after it). The hooks
// come from the calling thread or, while watching, from the watcher.

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "hoard/v1/tournament.pb.h"
#include "tournament/host.h"
#include "tournament/launcher.h"

namespace hoard::tournament {

// The longest pause before a launched bot is started again.
inline constexpr absl::Duration kMaxRestartDelay = absl::Seconds(8);

class BotSupervisor {
 public:
  struct Options {
    // Directory for launched bots' output (<name>.log); empty: discarded.
    std::string bot_log_dir;
    // The entry of the server's catalog that a `catalog` participant
    // names, or nullopt; unset: no catalog.
    std::function<std::optional<hoard::v1::CatalogBot>(const std::string&)> catalog;
    absl::Duration resume_grace = absl::Seconds(60);
    int max_restarts = 5;
    absl::Duration first_restart_delay = absl::Milliseconds(100);
  };
  struct Hooks {
    std::function<void(const std::string&)> warn;
    std::function<void(const std::string&)> give_up;
  };

  // `spec`: normalized, with the concurrency and fault policy the run uses;
  // it and `host` outlive the supervisor. While `cancelled` is set Prepare
  // stops waiting.
  BotSupervisor(const hoard::v1::TournamentSpec& spec, MatchHost* host,
                const std::atomic<bool>& cancelled, Options options, Hooks hooks);
  // Stops watching and stops the launched bots.
  ~BotSupervisor();
  BotSupervisor(const BotSupervisor&) = delete;
  BotSupervisor& operator=(const BotSupervisor&) = delete;

  // Launches or awaits the participants (by number) in `needed`;
  // `played_before`: those with stored matches in the tournament.
  void Prepare(const std::set<int>& needed, const std::set<int>& played_before);
  // Why participant `p` cannot be seated, or null.
  const std::string* Unavailable(int p) const;
  // Participant `p` played a match through (answering, not forfeiting).
  void PlayedThrough(int p);

  // Starts the watcher thread (restarts, as above); StopWatching ends it.
  void Watch();
  void StopWatching();
  // Stops the launched bots.
  void Stop();

 private:
  // A launched bot, kept running while the tournament plays.
  struct Supervised {
    int participant = 0;
    std::string command;
    std::map<std::string, std::string> env;
    std::string log_path;
    std::string working_directory;
    std::unique_ptr<LaunchedBot> bot;  // null while it waits to restart
    absl::Time restart_at = absl::InfinitePast();
    bool given_up = false;
  };
  // The bots launched for each participant, one per server behind the host.
  using LaunchedBots = std::map<int, std::vector<LaunchedBot*>>;

  // What to launch for a command or catalog participant; nullopt (and the
  // reason in unavailable_) for a catalog entry the server does not have.
  std::optional<hoard::v1::CatalogBot> LaunchOf(int p);
  // Gives the bot's account a fresh key and starts it once per address.
  void Launch(int p, const hoard::v1::CatalogBot& launch, const std::vector<std::string>& addresses,
              LaunchedBots& launched);
  // Waits (within the start timeout) for every participant in `needed` that
  // is not built in to be connected; returns those that are not.
  std::set<int> AwaitConnected(const std::set<int>& needed, const LaunchedBots& launched);
  // Moves the waiting participants whose launched bot has exited to
  // unavailable_, with how it exited.
  void DropExited(const LaunchedBots& launched, std::set<int>& waiting);
  // Why participant `p` is not connected after the start timeout.
  std::string NotConnected(int p, const std::vector<std::string>& addresses,
                           const LaunchedBots& launched) const;
  // Restarts the launched bots that exited, or gives up on one.
  void Supervise();

  const hoard::v1::TournamentSpec& spec_;
  MatchHost* const host_;
  const std::atomic<bool>& cancelled_;
  const Options options_;
  const Hooks hooks_;
  // Written by Prepare only.
  std::map<int, std::string> unavailable_;  // participant -> why
  std::set<int> played_before_;
  // Prepare's, then the watcher's, then Stop's (after the watcher ends).
  std::vector<Supervised> launched_;
  // Per participant: exits in a row without a match played through in
  // between, and the matches it had played through when it last exited.
  std::map<int, int> exits_in_a_row_;
  std::map<int, int> played_at_exit_;

  absl::Mutex mu_;
  // The matches each participant played through in this run.
  std::map<int, int> played_through_ ABSL_GUARDED_BY(mu_);
  bool watching_ ABSL_GUARDED_BY(mu_) = false;
  std::thread watcher_;
};

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_BOT_SUPERVISOR_H_
