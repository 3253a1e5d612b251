#include "tournament/sprt_format.h"

#include <utility>

namespace hoard::tournament {

SprtFormat::SprtFormat(std::vector<ScheduledMatch> schedule, std::string candidate, int k,
                       SprtParameters params)
    : FixedSchedule(std::move(schedule)),
      candidate_(std::move(candidate)),
      k_(k),
      params_(params),
      state_(Sprt({}, params_, scheduled() == 0)) {}

absl::Status SprtFormat::Resume(const std::set<int>& done,
                                const std::vector<db::RatedMatch>& stored) {
  for (const db::RatedMatch& match : stored) Count(match.block, match.seats);
  return FixedSchedule::Resume(done, stored);
}

std::vector<ScheduledMatch> SprtFormat::Next() {
  if (Decided()) return {};
  return FixedSchedule::Next();
}

void SprtFormat::Stored(const ScheduledMatch& slot, const std::vector<db::RatedSeat>& seats) {
  Count(slot.block, seats);
}

bool SprtFormat::Complete(int stored) const { return Decided() || FixedSchedule::Complete(stored); }

void SprtFormat::Describe(const Standings& elo, hoard::v1::TournamentProgress& progress) const {
  FixedSchedule::Describe(elo, progress);
  *progress.mutable_sprt() = state_;
}

bool SprtFormat::Decided() const {
  return state_.result() == hoard::v1::SprtState::RESULT_H0 ||
         state_.result() == hoard::v1::SprtState::RESULT_H1;
}

void SprtFormat::Count(std::int64_t block, const std::vector<db::RatedSeat>& seats) {
  std::vector<int> places;
  int candidate = -1;
  for (const db::RatedSeat& seat : seats) {
    if (seat.bot == candidate_) candidate = static_cast<int>(places.size());
    places.push_back(seat.rank);
  }
  if (candidate < 0) return;
  auto& [score, matches] = blocks_[block];
  score += PairwiseScore(places, candidate);
  ++matches;
  const int blocks = scheduled() / k_;
  for (auto it = blocks_.find(counted_);
       !Decided() && it != blocks_.end() && it->second.second == k_; it = blocks_.find(counted_)) {
    const double x = it->second.first / k_;
    ++counted_;
    sum_ += x;
    squares_ += x * x;
    state_ = SprtFromSums(counted_, sum_, squares_, params_, counted_ == blocks);
  }
}

}  // namespace hoard::tournament
