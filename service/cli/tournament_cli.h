#ifndef HOARD_SERVICE_CLI_TOURNAMENT_CLI_H_
#define HOARD_SERVICE_CLI_TOURNAMENT_CLI_H_

// What `hoard tournament` (tournament.cc: runs one here) and its server
// subcommands (tournament_remote.cc: create, list, get, watch, cancel) share.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "hoard/v1/tournament.pb.h"
#include "service/cli/flags.h"

namespace hoard::cli {

const std::vector<FlagSpec>& TournamentFlags();

// The spec to run: from --config, the embedded default or flags, changed by
// flags, normalized. kInvalidArgument says what is wrong.
absl::StatusOr<hoard::v1::TournamentSpec> SpecToRun(const ParsedArgs& args);

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
int RunTournamentOnServer(const ParsedArgs& args);

}  // namespace hoard::cli

#endif  // HOARD_SERVICE_CLI_TOURNAMENT_CLI_H_
