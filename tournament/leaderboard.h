#ifndef HOARD_TOURNAMENT_LEADERBOARD_H_
#define HOARD_TOURNAMENT_LEADERBOARD_H_

// Leaderboards: every rating system's numbers for every bot of a game (or of
// one tournament), computed from the stored results and kept as a snapshot,
// so that reading a leaderboard costs two small queries however many matches
// are stored; it is recomputed only when a match was stored since.

#include <string>

#include "absl/status/statusor.h"
#include "db/store.h"
#include "hoard/v1/tournament.pb.h"

namespace hoard::tournament {

inline constexpr int kBootstrapSamples = 1000;

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

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_LEADERBOARD_H_
