#ifndef HOARD_TOURNAMENT_SPRT_FORMAT_H_
#define HOARD_TOURNAMENT_SPRT_FORMAT_H_

// A duplicate schedule run as a sequential test (sprt.h): is the candidate
// elo0 or elo1 Elo points stronger than its opponents? The test counts the
// complete blocks at the start of the schedule, one at a time in its order,
// so its verdict and the figures it shows do not depend on which match ends
// first. Once it decides (H0 or H1) no slot is handed out any more and the
// tournament is complete; a schedule played through without a decision is
// complete and UNDECIDED. Not thread-safe (format.h).

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tournament/fixed_schedule.h"
#include "tournament/sprt.h"

namespace hoard::tournament {

class SprtFormat : public FixedSchedule {
 public:
  // `candidate`: the label of the participant under test; `k` players per
  // match (a block's matches).
  SprtFormat(std::vector<ScheduledMatch> schedule, std::string candidate, int k,
             SprtParameters params);

  absl::Status Resume(const std::set<int>& done,
                      const std::vector<db::RatedMatch>& stored) override;
  std::vector<ScheduledMatch> Next() override;
  void Stored(const ScheduledMatch& slot, const std::vector<db::RatedSeat>& seats) override;
  bool Complete(int stored) const override;
  void Describe(const Standings& elo, hoard::v1::TournamentProgress& progress) const override;

  // Where the test stands.
  const hoard::v1::SprtState& state() const { return state_; }
  bool Decided() const;

 private:
  // Counts a stored match of `block`.
  void Count(std::int64_t block, const std::vector<db::RatedSeat>& seats);

  const std::string candidate_;
  const int k_;
  const SprtParameters params_;
  // Each block's summed scores and stored matches.
  std::map<std::int64_t, std::pair<double, int>> blocks_;
  // The complete blocks at the start of the schedule counted so far: how
  // many, and their scores summed and squared and summed.
  int counted_ = 0;
  double sum_ = 0;
  double squares_ = 0;
  hoard::v1::SprtState state_;
};

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_SPRT_FORMAT_H_
