#include "tournament/swiss_format.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tournament/spec.h"

namespace hoard::tournament {

SwissFormat::SwissFormat(const hoard::v1::TournamentSpec& spec,
                         std::vector<ScheduledMatch> schedule)
    : rounds_(spec.rounds()),
      schedule_(std::move(schedule)),
      swiss_(spec.participants_size(), spec.players_per_match()) {
  for (const hoard::v1::Participant& p : spec.participants())
    labels_.push_back(ParticipantLabel(p));
}

absl::Status SwissFormat::Resume(const std::set<int>& done,
                                 const std::vector<db::RatedMatch>& stored) {
  done_ = done;
  // The rounds are paired again, in order, up to the first one not complete.
  std::map<std::string, int> participant;
  for (int i = 0; i < static_cast<int>(labels_.size()); ++i) participant[labels_[i]] = i;
  std::map<std::int64_t, const db::RatedMatch*> by_slot;
  for (const db::RatedMatch& match : stored) by_slot[match.schedule_index] = &match;
  const int tables = swiss_.tables_per_round();
  for (round_ = 0; round_ < rounds_; ++round_) {
    const SwissRound round = swiss_.PairNext();
    int stored_in_round = 0;
    for (int t = 0; t < tables; ++t) {
      const int slot = round_ * tables + t;
      schedule_[slot].seats = round.tables[t];
      auto it = by_slot.find(slot);
      if (it == by_slot.end()) continue;
      SwissResult result{.round = round_};
      std::vector<std::string> seated;
      for (const db::RatedSeat& seat : it->second->seats) {
        auto p = participant.find(seat.bot);
        result.seats.push_back(p == participant.end() ? -1 : p->second);
        result.ranks.push_back(seat.rank);
        seated.push_back(seat.bot);
      }
      if (result.seats != round.tables[t]) {
        return absl::DataLossError(absl::StrCat(
            "the stored match ", slot, " of the schedule seats ", absl::StrJoin(seated, ", "),
            ", not the pairing of Swiss round ", round_ + 1, " (",
            absl::StrJoin(round.tables[t], ", ",
                          [&](std::string* out, int p) { out->append(labels_[p]); }),
            "): its results were not made by this pairing"));
      }
      swiss_.Add(result);
      ++stored_in_round;
    }
    if (stored_in_round < tables) break;
  }
  return absl::OkStatus();
}

std::vector<ScheduledMatch> SwissFormat::HandOut() {
  std::vector<ScheduledMatch> ready;
  for (const ScheduledMatch& slot : schedule_) {
    if (slot.round == round_ && !done_.contains(slot.index)) ready.push_back(slot);
  }
  left_ = outstanding_ = static_cast<int>(ready.size());
  return ready;
}

std::vector<ScheduledMatch> SwissFormat::Next() {
  if (!started_) {
    // The round it resumes in: every round is complete once round_ is
    // rounds_, and nothing is left.
    started_ = true;
    std::vector<ScheduledMatch> ready = HandOut();
    round_ = std::min(round_, rounds_ - 1);
    return ready;
  }
  // A round is paired once the one before is stored whole; one that lost a
  // match cannot be paired after (resuming plays it again).
  if (outstanding_ > 0 || left_ > 0 || round_ + 1 >= rounds_) return {};
  ++round_;
  const SwissRound round = swiss_.PairNext();
  const int tables = swiss_.tables_per_round();
  for (int t = 0; t < tables; ++t) schedule_[round_ * tables + t].seats = round.tables[t];
  return HandOut();
}

void SwissFormat::Stored(const ScheduledMatch& slot, const std::vector<db::RatedSeat>& seats) {
  SwissResult result{.round = slot.round, .seats = slot.seats};
  for (const db::RatedSeat& seat : seats) result.ranks.push_back(seat.rank);
  swiss_.Add(result);
  done_.insert(slot.index);
  --left_;
  --outstanding_;
}

absl::Status SwissFormat::StoredElsewhere(const ScheduledMatch& slot) {
  --outstanding_;
  // Its result, not this one, pairs the next round: start again from what
  // is stored.
  return absl::FailedPreconditionError(
      absl::StrCat("match ", slot.index,
                   " of this Swiss tournament was stored by another runner; run the tournament "
                   "again to go on from what is stored"));
}

void SwissFormat::Lost(const ScheduledMatch&) { --outstanding_; }

void SwissFormat::Describe(const Standings& elo, hoard::v1::TournamentProgress& progress) const {
  progress.set_round(std::min(round_ + 1, rounds_));
  std::map<std::string, hoard::v1::Standing> played;
  for (hoard::v1::Standing& row : elo.Sorted()) played[row.bot()] = std::move(row);
  for (const SwissRow& swiss_row : swiss_.Standings()) {
    const std::string& label = labels_[swiss_row.participant];
    hoard::v1::Standing row;
    if (auto it = played.find(label); it != played.end()) {
      row = it->second;
    } else {
      row.set_bot(label);
      row.set_elo(kStandingsInitialElo);
    }
    row.set_points(swiss_row.points);
    row.set_buchholz(swiss_row.buchholz);
    row.set_byes(swiss_row.byes);
    *progress.add_standings() = std::move(row);
  }
}

}  // namespace hoard::tournament
