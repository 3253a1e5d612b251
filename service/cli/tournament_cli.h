#ifndef HOARD_SERVICE_CLI_TOURNAMENT_CLI_H_
#define HOARD_SERVICE_CLI_TOURNAMENT_CLI_H_

// What `hoard tournament` (tournament.cc: runs one here) and its server
// subcommands (tournament_remote.cc: create, list, get, watch, cancel) share.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "hoard/v1/tournament.pb.h"

namespace hoard::cli {

// What the flags of hoard tournament say (tournament.cc declares them).
struct TournamentFlags {
  std::string config;
  std::string db = "hoard.db";
  std::vector<std::string> servers;
  bool remote = false;
  std::string token_file;
  std::string listen = "127.0.0.1:0";
  bool fresh = false;
  // The spec from flags: each given changes the spec.
  std::optional<std::string> game;
  std::optional<int> players;
  std::vector<std::string> participants;  // NAME=KIND
  std::optional<std::string> format;
  std::vector<std::string> candidates;
  std::optional<std::string> sprt;
  std::optional<double> elo0, elo1, alpha, beta;
  std::map<std::string, std::string> options;
  std::optional<int> rounds;
  std::optional<std::uint64_t> seed;
  std::optional<int> concurrency;
  std::optional<int> start_timeout_ms;
  std::string bot_logs = "hoard-bot-logs";
  std::string system = "ml";
  bool print_spec = false;
  bool quiet = false;
  bool json = false;
  bool watch = false;
  // A server's tournaments: create, list, get ID, watch ID, cancel ID.
  std::vector<std::string> words;
};

// The spec to run: from --config, the embedded default or flags, changed by
// flags, normalized. kInvalidArgument says what is wrong.
absl::StatusOr<hoard::v1::TournamentSpec> SpecToRun(const TournamentFlags& flags);

// One --participant: NAME=KIND (builtin:BOT, registered or command:CMD),
// NAME possibly name@version.
absl::Status ParticipantFromFlag(const std::string& entry, hoard::v1::Participant* p);

// "RUNNING", "FINISHED", ...
std::string StatusName(hoard::v1::TournamentStatus status);

// "SPRT NAME [elo0 .., elo1 .., alpha .., beta ..]: LLR x in (lower, upper)
// after N blocks, score s (Elo e)" and, once decided, the verdict.
std::string SprtLine(const hoard::v1::Tournament& t);

// The standings, a line each (at most `most`, then how many more): Elo,
// matches, wins and mean place; for a Swiss, points, Buchholz, matches,
// wins, byes and Elo.
std::string StandingLines(const hoard::v1::Tournament& t, int most);

// "Swiss standings after R of N rounds:" and every participant's line, or
// "" for other formats.
std::string SwissTable(const hoard::v1::Tournament& t);

// "m:ss", or "h:mm:ss" from an hour, rounded up to the second.
std::string Clock(std::int64_t ms);

// Progress on stderr: redrawn in place on a terminal, a line every tenth of
// the schedule (or every ten seconds) otherwise.
class ProgressDisplay {
 public:
  explicit ProgressDisplay(bool quiet);

  // A warning on a line of its own, below the progress drawn so far.
  void Warn(const std::string& line);
  // The tournament as it is now; `last` draws it even if drawn just before.
  void Update(const hoard::v1::Tournament& t, bool last);

 private:
  const bool quiet_;
  const bool tty_;
  absl::Mutex mu_;
  absl::Time drawn_ = absl::InfinitePast();
  int last_tenth_ = -1;
  int shown_finished_ = -1;
  int lines_ = 0;
};

// `hoard tournament VERB ...` against a server: create, list, get, watch or
// cancel. Returns the exit status.
int RunTournamentOnServer(const TournamentFlags& flags);

}  // namespace hoard::cli

#endif  // HOARD_SERVICE_CLI_TOURNAMENT_CLI_H_
