#ifndef HOARD_TOURNAMENT_SWISS_FORMAT_H_
#define HOARD_TOURNAMENT_SWISS_FORMAT_H_

// A Swiss tournament (swiss.h pairs it): its schedule holds every round's
// tables with their deals but no seats. A round is paired, and handed out
// whole, once every match of the one before is stored; a round that loses
// a match (failed, or stored by another runner first) hands out nothing
// more, so the run ends and resuming plays that round again. Resuming
// pairs the stored rounds again, in order, from their results: a stored
// match the pairing does not seat is kDataLoss. The standings are Swiss
// order (points, Buchholz, seeding) with the tournament's Elo beside.
// Not thread-safe (format.h).

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tournament/format.h"
#include "tournament/swiss.h"

namespace hoard::tournament {

class SwissFormat : public TournamentFormat {
 public:
  // `schedule`: Schedule's for `spec` (normalized, FORMAT_SWISS).
  SwissFormat(const hoard::v1::TournamentSpec& spec, std::vector<ScheduledMatch> schedule);

  absl::Status Resume(const std::set<int>& done,
                      const std::vector<db::RatedMatch>& stored) override;
  std::vector<ScheduledMatch> Next() override;
  void Stored(const ScheduledMatch& slot, const std::vector<db::RatedSeat>& seats) override;
  absl::Status StoredElsewhere(const ScheduledMatch& slot) override;
  void Lost(const ScheduledMatch& slot) override;
  bool Complete(int stored) const override { return stored == scheduled(); }
  int scheduled() const override { return static_cast<int>(schedule_.size()); }
  int MostAtOnce() const override { return swiss_.tables_per_round(); }
  bool SeatsKnownAhead() const override { return false; }
  void Describe(const Standings& elo, hoard::v1::TournamentProgress& progress) const override;

 private:
  // Hands out the slots of round_ (paired) that are not in done_.
  std::vector<ScheduledMatch> HandOut();

  std::vector<std::string> labels_;  // per participant
  const int rounds_;
  std::vector<ScheduledMatch> schedule_;
  Swiss swiss_;
  bool started_ = false;
  std::set<int> done_;
  // The round being played (from 0), its slots not stored yet, and its
  // slots handed out whose end is not told yet.
  int round_ = 0;
  int left_ = 0;
  int outstanding_ = 0;
};

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_SWISS_FORMAT_H_
