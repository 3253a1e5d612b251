#ifndef HOARD_TOURNAMENT_FIXED_SCHEDULE_H_
#define HOARD_TOURNAMENT_FIXED_SCHEDULE_H_

// Round-robin, duplicate and gauntlet tournaments: the schedule is known
// whole from the start (schedule.h), so the format hands out every slot
// not yet stored at once, in schedule order, and the tournament is
// complete once every slot is stored, whoever stored it. A slot lost in
// this run is not handed out again: running the tournament again plays it.
// Not thread-safe (format.h).

#include <set>
#include <vector>

#include "tournament/format.h"

namespace hoard::tournament {

class FixedSchedule : public TournamentFormat {
 public:
  explicit FixedSchedule(std::vector<ScheduledMatch> schedule);

  absl::Status Resume(const std::set<int>& done,
                      const std::vector<db::RatedMatch>& stored) override;
  std::vector<ScheduledMatch> Next() override;
  void Stored(const ScheduledMatch&, const std::vector<db::RatedSeat>&) override {}
  absl::Status StoredElsewhere(const ScheduledMatch&) override { return absl::OkStatus(); }
  void Lost(const ScheduledMatch&) override {}
  bool Complete(int stored) const override { return stored == scheduled(); }
  int scheduled() const override { return static_cast<int>(schedule_.size()); }

 private:
  const std::vector<ScheduledMatch> schedule_;
  std::set<int> done_;
  bool handed_out_ = false;
};

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_FIXED_SCHEDULE_H_
