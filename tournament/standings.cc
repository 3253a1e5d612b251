#include "tournament/standings.h"

#include <algorithm>
#include <utility>

namespace hoard::tournament {

void Standings::Add(int schedule_index, std::vector<db::RatedSeat> seats) {
  // Within a tournament a name is one participant: the kind of bot does not
  // tell rows apart.
  for (db::RatedSeat& seat : seats) seat.builtin = false;
  if (schedule_index < checkpoint_) return;  // counted already
  auto [added, fresh] = unsettled_.try_emplace(schedule_index, std::move(seats));
  if (!fresh) return;  // counted already
  for (const auto& [identity, seat] : RatedSeats(added->second)) {
    Entry& entry = entries_[identity.first];
    ++entry.matches;
    if (seat->rank == 1) ++entry.wins;
    entry.score_sum += seat->score;
    entry.place_sum += seat->rank;
  }
  // The slots now complete from the checkpoint on join it.
  for (auto it = unsettled_.begin(); it != unsettled_.end() && it->first == checkpoint_;
       it = unsettled_.erase(it), ++checkpoint_) {
    AddToElo(it->second, settled_elo_);
  }
}

std::vector<hoard::v1::Standing> Standings::Sorted() const {
  // The checkpoint, then the slots above it in order.
  std::map<Identity, double> elo = settled_elo_;
  for (const auto& [index, seats] : unsettled_) AddToElo(seats, elo);
  std::vector<hoard::v1::Standing> rows;
  for (const auto& [bot, entry] : entries_) {
    hoard::v1::Standing row;
    row.set_bot(bot);
    row.set_matches(entry.matches);
    row.set_wins(entry.wins);
    if (entry.matches > 0) {
      row.set_average_score(entry.score_sum / entry.matches);
      row.set_average_place(entry.place_sum / entry.matches);
    }
    const auto rating = elo.find({bot, false});
    row.set_elo(rating != elo.end() ? rating->second : kStandingsInitialElo);
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    if (a.elo() != b.elo()) return a.elo() > b.elo();
    return a.wins() > b.wins();
  });
  return rows;
}

}  // namespace hoard::tournament
