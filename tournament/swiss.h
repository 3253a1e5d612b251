#ifndef HOARD_TOURNAMENT_SWISS_H_
#define HOARD_TOURNAMENT_SWISS_H_

// Swiss tournaments for matches of 2 to 6 players (docs/tournaments.md,
// "Swiss"): every round seats the field at tables of k by its standings so
// far, never seating two participants together again while the pairing can
// avoid it. A pure function of the results: a resumed tournament pairs its
// rounds again from what is stored and gets the same tables.
//
// Points: a match gives each player the share of its opponents it finished
// ahead of (a shared place half), from 0 to 1; a bye gives 0.5. Standings:
// points, then Buchholz (the sum, over a participant's matches, of its
// opponents' mean points), then first places, then seeding (the order of the
// participants in the spec).
//
// Pairing a round with n participants and k seats: n mod k participants
// sit the round out (a bye): those with the fewest byes, the lowest placed
// first. The rest, in pairing order (points, then seeding), sit at n / k
// tables. Each score group (equal points, with those floated down from the
// group above first) is cut into k bands of m = size / k, and its table t
// takes the t-th participant of every band: the top half meets the bottom
// half, as in the Dutch system, and in round 1 the seeding's top k never
// meet. The group's lowest size mod k float down to the next group. Where
// that would seat two participants together again, participants are
// swapped between tables, the nearest tables first, while a swap lowers
// the earlier meetings at the tables; a repair left with repeats kicks the
// participants that repeat to random tables (seeded by the round) and
// repairs again, within kSwissRepairSteps of work, keeping the best. At a
// table, the participant whose seats so far were furthest back sits first.

#include <cstdint>
#include <vector>

namespace hoard::tournament {

// How much work (seatings tried) the repair of one round's repeats may do:
// it keeps a round's pairing within about a second for 1,000 participants.
inline constexpr std::int64_t kSwissRepairSteps = 2'000'000;

// A finished match of a Swiss tournament.
struct SwissResult {
  int round = 0;           // from 0
  std::vector<int> seats;  // the participant in each seat
  std::vector<int> ranks;  // by seat: 1 = first; a tie shares a place
};

// One round's pairing.
struct SwissRound {
  std::vector<std::vector<int>> tables;  // the participants by seat; top table first
  std::vector<int> byes;                 // those who sit this round out
  int repeats = 0;                       // pairs seated together again
};

// A participant's standing.
struct SwissRow {
  int participant = 0;
  double points = 0;
  double buchholz = 0;
  int wins = 0;  // first places, alone or shared
  int matches = 0;
  int byes = 0;
};

// The points a match gives the player in `seat`.
double SwissPoints(const std::vector<int>& ranks, int seat);

class Swiss {
 public:
  // n participants (seeded in this order), k seats a table; 2 <= k <= n.
  Swiss(int n, int k);

  int tables_per_round() const { return n_ / k_; }
  // Rounds paired so far.
  int rounds() const { return rounds_; }

  // Pairs the next round from the results added so far (which should be
  // every match of the rounds before it) and counts its byes.
  SwissRound PairNext();
  // Counts a finished match of a paired round (k seats).
  void Add(const SwissResult& result);
  // Every participant, best first.
  std::vector<SwissRow> Standings() const;
  // How often participants a and b met.
  int Met(int a, int b) const { return met_[a * n_ + b]; }

 private:
  // Participants in pairing order: points, then seeding.
  std::vector<int> PairingOrder() const;
  std::vector<int> PickByes(const std::vector<int>& order) const;
  // The tables by bands of score groups, from `players` in pairing order.
  std::vector<std::vector<int>> BandTables(const std::vector<int>& players) const;
  // The tables changed so that no pair meets again, if the repair finds how.
  std::vector<std::vector<int>> AvoidRepeats(std::vector<std::vector<int>> tables) const;
  // Swaps players between tables, the nearest first, while a swap lowers
  // the earlier meetings of the players seated together.
  // Each table tried costs a step of `budget`.
  void RepairRepeats(std::vector<std::vector<int>>& tables, std::int64_t& budget) const;
  // The earlier meetings of the players at each table, summed; with
  // `pairs`, the pairs that met before.
  int TotalMeetings(const std::vector<std::vector<int>>& tables, bool pairs) const;
  // The earlier meetings of `player` with those at `table` (but `skip`).
  int MeetingsWith(const std::vector<int>& table, int player, int skip) const;
  // Orders a table's members by the seats they had so far.
  void AssignSeats(std::vector<int>& table) const;

  const int n_;
  const int k_;
  int rounds_ = 0;
  // In units of 1 / (2 (k - 1)) of a point: whole numbers, so that the
  // standings (and so the pairings) do not depend on the order in which
  // results were added.
  std::vector<std::int64_t> points_;
  std::vector<int> wins_, matches_, byes_;
  std::vector<int> seat_balance_;   // sum of 2 seat - (k - 1) over its matches
  std::vector<std::uint16_t> met_;  // n x n, saturating
  // Per participant, the opponents of each match: for Buchholz.
  std::vector<std::vector<std::vector<int>>> opponents_;
};

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_SWISS_H_
