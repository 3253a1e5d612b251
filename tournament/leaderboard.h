#ifndef HOARD_TOURNAMENT_LEADERBOARD_H_
#define HOARD_TOURNAMENT_LEADERBOARD_H_

// Leaderboards: every rating system's numbers for every bot of a game (or of
// one tournament), computed from the stored results and kept as a snapshot,
// so that reading a leaderboard costs two small queries however many matches
// are stored; it is recomputed only when a match was stored since.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "db/store.h"
#include "hoard/v1/tournament.pb.h"

namespace hoard::tournament {

inline constexpr int kBootstrapSamples = 1000;

// A leaderboard row's identity: a bot's name and whether it is built in. A
// built-in bot and a bot account of the same name (an account made before
// built-in names were reserved) are two rows.
using Identity = std::pair<std::string, bool>;

// The seats a match is rated by: each bot once, at its best seat (a bot in
// several seats is counted by the best). Fewer than two: the match is not
// rated.
Identity IdentityOf(const db::RatedSeat& seat);
std::map<Identity, const db::RatedSeat*> RatedSeats(const std::vector<db::RatedSeat>& seats);

// Elo (incremental from 1500, K=32) after one more match, as every
// leaderboard and the tournaments' standings count it: the ratings of
// RatedSeats(seats), when there are two or more, move by EloUpdate. Elo
// depends on the order of the matches; every surface replays them in
// schedule order (InScheduleOrder), so that one scope has one Elo.
void AddToElo(const std::vector<db::RatedSeat>& seats, std::map<Identity, double>& elo);

// `stored` in schedule order: by tournament, then by the match's slot in
// its tournament's schedule (matches outside a tournament, which come
// first, by the order they were stored), whatever order they ended in.
std::vector<db::RatedMatch> InScheduleOrder(std::vector<db::RatedMatch> stored);

// Ratings (ML with bootstrap intervals, Elo, OpenSkill), per-bot statistics
// and the head-to-head table, from the results in scope. Matches with fewer
// than two bots are left out.
absl::StatusOr<hoard::v1::RatingSnapshot> ComputeRatings(db::MatchStore& store,
                                                         const db::RatingScope& scope);

// The stored snapshot of `scope` if it is current, else a new one (stored).
absl::StatusOr<hoard::v1::RatingSnapshot> CurrentRatings(db::MatchStore& store,
                                                         const db::RatingScope& scope);

// The snapshot's leaderboard ranked by `system` alone, with that system's
// rating and interval in the rating/low/high columns and each row marked
// provisional or not.
hoard::v1::Leaderboard RankBy(const hoard::v1::RatingSnapshot& snapshot,
                              hoard::v1::RatingSystem system);

// "ml", "elo", "openskill" -> the system; kInvalidArgument otherwise.
absl::StatusOr<hoard::v1::RatingSystem> ParseRatingSystem(const std::string& name);

// A rating is provisional until its bot has played kProvisionalMatches
// matches or its ML 95% interval is at most kProvisionalWidth points wide
// (±200: the data place it within a class of play), whichever comes first.
// Established ratings are the ones to compare.
inline constexpr int kProvisionalMatches = 15;
inline constexpr double kProvisionalWidth = 400;
bool Provisional(int matches, double ml_low, double ml_high);

// `leaderboard` with the established rows first and the provisional ones
// below them, each part in its order, ranks renumbered from 1.
hoard::v1::Leaderboard EstablishedFirst(hoard::v1::Leaderboard leaderboard);

// A table for people: rank, bot, every system (with the chosen one first),
// matches, wins, average score and place, and a footer on the intervals.
// With `mark_provisional`, a provisional ML rating is marked "?" (the
// footer says why).
std::string FormatLeaderboard(const hoard::v1::Leaderboard& leaderboard,
                              bool mark_provisional = false);
// One header line and one line per bot.
std::string LeaderboardCsv(const hoard::v1::Leaderboard& leaderboard);
std::string HeadToHeadText(const hoard::v1::HeadToHeadTable& table);
// Each row's probability of each place (up to the 10th), in the board's
// order: BayesElo's prediction table.
std::string RankProbabilityText(const hoard::v1::Leaderboard& leaderboard);

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_LEADERBOARD_H_
