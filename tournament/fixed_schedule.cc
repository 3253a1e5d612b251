#include "tournament/fixed_schedule.h"

#include <utility>

namespace hoard::tournament {

FixedSchedule::FixedSchedule(std::vector<ScheduledMatch> schedule)
    : schedule_(std::move(schedule)) {}

absl::Status FixedSchedule::Resume(const std::set<int>& done, const std::vector<db::RatedMatch>&) {
  done_ = done;
  return absl::OkStatus();
}

std::vector<ScheduledMatch> FixedSchedule::Next() {
  std::vector<ScheduledMatch> ready;
  if (handed_out_) return ready;
  handed_out_ = true;
  for (const ScheduledMatch& slot : schedule_) {
    if (!done_.contains(slot.index)) ready.push_back(slot);
  }
  return ready;
}

}  // namespace hoard::tournament
