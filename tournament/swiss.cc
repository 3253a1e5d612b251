#include "tournament/swiss.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>

namespace hoard::tournament {
namespace {

// A match's points for `seat` in units of 1 / (2 (k - 1)).
std::int64_t PointUnits(const std::vector<int>& ranks, int seat) {
  std::int64_t units = 0;
  for (std::size_t other = 0; other < ranks.size(); ++other) {
    if (static_cast<int>(other) == seat) continue;
    if (ranks[seat] < ranks[other]) units += 2;
    if (ranks[seat] == ranks[other]) units += 1;
  }
  return units;
}

}  // namespace

double SwissPoints(const std::vector<int>& ranks, int seat) {
  const int others = static_cast<int>(ranks.size()) - 1;
  return others > 0 ? static_cast<double>(PointUnits(ranks, seat)) / (2.0 * others) : 0;
}

Swiss::Swiss(int n, int k)
    : n_(n),
      k_(k),
      points_(n, 0),
      wins_(n, 0),
      matches_(n, 0),
      byes_(n, 0),
      seat_balance_(n, 0),
      met_(static_cast<std::size_t>(n) * n, 0),
      opponents_(n) {}

std::vector<int> Swiss::PairingOrder() const {
  std::vector<int> order(n_);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return points_[a] > points_[b]; });
  return order;
}

std::vector<int> Swiss::PickByes(const std::vector<int>& order) const {
  const int count = n_ % k_;
  // The lowest placed first, then the fewest byes first.
  std::vector<int> candidates(order.rbegin(), order.rend());
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](int a, int b) { return byes_[a] < byes_[b]; });
  candidates.resize(count);
  return candidates;
}

std::vector<std::vector<int>> Swiss::BandTables(const std::vector<int>& players) const {
  std::vector<std::vector<int>> tables;
  std::vector<int> group;  // those floated down, then a score group
  for (std::size_t i = 0; i < players.size();) {
    const std::int64_t points = points_[players[i]];
    while (i < players.size() && points_[players[i]] == points) group.push_back(players[i++]);
    const int m = static_cast<int>(group.size()) / k_;
    for (int t = 0; t < m; ++t) {
      std::vector<int> table;
      for (int band = 0; band < k_; ++band) table.push_back(group[band * m + t]);
      tables.push_back(std::move(table));
    }
    // The lowest of the group that fill no table float down to the next.
    group.erase(group.begin(), group.begin() + m * k_);
  }
  return tables;  // `group` ends empty: the players fill whole tables
}

std::vector<std::vector<int>> Swiss::AvoidRepeats(std::vector<std::vector<int>> tables) const {
  if (TotalMeetings(tables, false) == 0) return tables;
  std::int64_t budget = kSwissRepairSteps;
  RepairRepeats(tables, budget);
  // Stuck with repeats: kick the players that repeat to random tables and
  // repair again, keeping the best. The kicks are seeded by the round, so
  // the pairing stays a function of the results.
  std::mt19937_64 rng(0x5eed0000ULL + static_cast<std::uint64_t>(rounds_));
  int best = TotalMeetings(tables, false);
  std::vector<std::vector<int>> trial = tables;
  const int count = static_cast<int>(trial.size());
  std::uniform_int_distribution<int> any_table(0, count - 1);
  std::uniform_int_distribution<int> any_seat(0, k_ - 1);
  while (best > 0 && budget > 0) {
    for (int t = 0; t < count; ++t) {
      for (int& a : trial[t]) {
        if (MeetingsWith(trial[t], a, -1) == 0) continue;
        std::swap(a, trial[any_table(rng)][any_seat(rng)]);
      }
    }
    budget -= static_cast<std::int64_t>(count) * k_;
    RepairRepeats(trial, budget);
    if (const int meetings = TotalMeetings(trial, false); meetings < best) {
      best = meetings;
      tables = trial;
    }
  }
  return tables;
}

int Swiss::TotalMeetings(const std::vector<std::vector<int>>& tables, bool pairs) const {
  int meetings = 0;
  for (const std::vector<int>& table : tables) {
    for (std::size_t i = 0; i < table.size(); ++i) {
      for (std::size_t j = i + 1; j < table.size(); ++j) {
        const int met = Met(table[i], table[j]);
        meetings += pairs ? (met > 0 ? 1 : 0) : met;
      }
    }
  }
  return meetings;
}

int Swiss::MeetingsWith(const std::vector<int>& table, int player, int skip) const {
  int meetings = 0;
  for (int member : table) {
    if (member != player && member != skip) meetings += Met(member, player);
  }
  return meetings;
}

void Swiss::RepairRepeats(std::vector<std::vector<int>>& tables, std::int64_t& budget) const {
  const int count = static_cast<int>(tables.size());
  // Passes over the tables while one makes a swap (each swap removes an
  // earlier meeting, so they end) and the budget lasts.
  for (bool improved = true; improved && budget > 0;) {
    improved = false;
    for (int t = 0; t < count; ++t) {
      for (std::size_t i = 0; i < tables[t].size() && budget > 0; ++i) {
        const int here = MeetingsWith(tables[t], tables[t][i], -1);
        if (here == 0) continue;
        // The nearest tables first: the least change to who meets whom.
        bool swapped = false;
        for (int d = 1; d < count && !swapped && budget > 0; ++d) {
          for (const int u : {t + d, t - d}) {
            if (u < 0 || u >= count || swapped) continue;
            budget -= k_;
            const int a = tables[t][i];
            for (std::size_t j = 0; j < tables[u].size(); ++j) {
              const int b = tables[u][j];
              const int before = here + MeetingsWith(tables[u], b, -1);
              const int after = MeetingsWith(tables[t], b, a) + MeetingsWith(tables[u], a, b);
              if (after < before) {
                std::swap(tables[t][i], tables[u][j]);
                swapped = improved = true;
                break;
              }
            }
          }
        }
      }
    }
  }
}

void Swiss::AssignSeats(std::vector<int>& table) const {
  // Furthest back so far sits first; a tie keeps the standings order.
  std::stable_sort(table.begin(), table.end(),
                   [&](int a, int b) { return seat_balance_[a] > seat_balance_[b]; });
}

SwissRound Swiss::PairNext() {
  SwissRound round;
  const std::vector<int> order = PairingOrder();
  round.byes = PickByes(order);
  std::vector<int> players;
  for (int p : order) {
    if (std::find(round.byes.begin(), round.byes.end(), p) == round.byes.end()) {
      players.push_back(p);
    }
  }
  round.tables = AvoidRepeats(BandTables(players));
  round.repeats = TotalMeetings(round.tables, true);
  for (std::vector<int>& table : round.tables) AssignSeats(table);
  for (int p : round.byes) {
    ++byes_[p];
    points_[p] += k_ - 1;  // half a match's 2 (k - 1) units
  }
  ++rounds_;
  return round;
}

void Swiss::Add(const SwissResult& result) {
  const int k = static_cast<int>(result.seats.size());
  for (int seat = 0; seat < k; ++seat) {
    const int p = result.seats[seat];
    points_[p] += PointUnits(result.ranks, seat);
    ++matches_[p];
    if (result.ranks[seat] == 1) ++wins_[p];
    seat_balance_[p] += 2 * seat - (k - 1);
    std::vector<int> others;
    for (int other = 0; other < k; ++other) {
      if (other == seat) continue;
      others.push_back(result.seats[other]);
      std::uint16_t& met = met_[static_cast<std::size_t>(p) * n_ + result.seats[other]];
      if (met < UINT16_MAX) ++met;
    }
    opponents_[p].push_back(std::move(others));
  }
}

std::vector<SwissRow> Swiss::Standings() const {
  const double unit = 1.0 / (2.0 * (k_ - 1));
  std::vector<SwissRow> rows;
  std::vector<std::int64_t> buchholz_units(n_, 0);
  for (int p = 0; p < n_; ++p) {
    // Each match's opponents' mean, times k - 1: their sum, a whole number.
    for (const std::vector<int>& others : opponents_[p]) {
      for (int o : others) buchholz_units[p] += points_[o];
    }
    rows.push_back({.participant = p,
                    .points = points_[p] * unit,
                    .buchholz = static_cast<double>(buchholz_units[p]) * unit / (k_ - 1),
                    .wins = wins_[p],
                    .matches = matches_[p],
                    .byes = byes_[p]});
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const SwissRow& a, const SwissRow& b) {
    if (points_[a.participant] != points_[b.participant]) {
      return points_[a.participant] > points_[b.participant];
    }
    if (buchholz_units[a.participant] != buchholz_units[b.participant]) {
      return buchholz_units[a.participant] > buchholz_units[b.participant];
    }
    return a.wins > b.wins;
  });
  return rows;
}

}  // namespace hoard::tournament
