#ifndef HOARD_TOURNAMENT_STANDINGS_H_
#define HOARD_TOURNAMENT_STANDINGS_H_

// A tournament's live table: results so far per participant, with the Elo
// of its leaderboard. Not thread-safe: its owner locks around it.

#include <map>
#include <string>
#include <vector>

#include "db/store.h"
#include "hoard/v1/tournament.pb.h"
#include "tournament/leaderboard.h"

namespace hoard::tournament {

// The Elo a participant that has played nothing shows.
inline constexpr double kStandingsInitialElo = 1500;

// Results so far, per participant, with incremental Elo replayed in
// schedule order (by slot) whatever order the matches ended in: the Elo of
// the tournament's leaderboard (EloInScheduleOrder), at every moment of the
// run over the matches stored so far. Slots below the lowest one not yet
// added are folded into a checkpoint as they complete, so a report replays
// only the matches above it (about the run's concurrency, more where slots
// failed).
class Standings {
 public:
  // The match of slot `schedule_index` (each slot once).
  void Add(int schedule_index, std::vector<db::RatedSeat> seats);
  // Best first: by Elo, then by wins.
  std::vector<hoard::v1::Standing> Sorted() const;

 private:
  struct Entry {
    int matches = 0;
    int wins = 0;
    double score_sum = 0;
    double place_sum = 0;
  };
  std::map<std::string, Entry> entries_;
  // Elo after every slot below checkpoint_ (each was added).
  std::map<Identity, double> settled_elo_;
  int checkpoint_ = 0;
  // Added matches of the slots above the checkpoint, by slot.
  std::map<int, std::vector<db::RatedSeat>> unsettled_;
};

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_STANDINGS_H_
