#include "tournament/leaderboard.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "tournament/ratings.h"
#include "tournament/results_csv.h"

namespace hoard::tournament {

Identity IdentityOf(const db::RatedSeat& seat) { return {seat.bot, seat.builtin}; }

std::map<Identity, const db::RatedSeat*> RatedSeats(const std::vector<db::RatedSeat>& seats) {
  std::map<Identity, const db::RatedSeat*> best;
  for (const db::RatedSeat& seat : seats) {
    auto [b, first] = best.try_emplace(IdentityOf(seat), &seat);
    if (!first && seat.rank < b->second->rank) b->second = &seat;
  }
  if (best.size() < 2) best.clear();
  return best;
}

void AddToElo(const std::vector<db::RatedSeat>& seats, std::map<Identity, double>& elo) {
  const std::map<Identity, const db::RatedSeat*> rated = RatedSeats(seats);
  if (rated.empty()) return;
  std::vector<double> before;
  std::vector<int> places;
  for (const auto& [identity, seat] : rated) {
    before.push_back(elo.try_emplace(identity, EloOptions().initial).first->second);
    places.push_back(seat->rank);
  }
  const std::vector<double> after = EloUpdate(before, places);
  std::size_t i = 0;
  for (const auto& [identity, seat] : rated) elo[identity] = after[i++];
}

std::vector<db::RatedMatch> InScheduleOrder(std::vector<db::RatedMatch> stored) {
  std::stable_sort(
      stored.begin(), stored.end(), [](const db::RatedMatch& x, const db::RatedMatch& y) {
        const auto key = [](const db::RatedMatch& m) {
          return std::make_tuple(m.tournament_id, m.tournament_id != 0 ? m.schedule_index : 0,
                                 m.sequence);
        };
        return key(x) < key(y);
      });
  return stored;
}

namespace {

// The version of ComputeRatings' snapshots (RatingSnapshot.method): 2 added
// the prior and the rank probabilities.
constexpr int kSnapshotMethod = 2;
// The places RankProbabilityText shows.
constexpr int kRankColumns = 10;

// "1st", "2nd", "3rd", "4th", ..., "11th", "12th", "13th", "21st", ...
std::string Ordinal(int n) {
  const int tens = n % 100, ones = n % 10;
  const char* suffix = tens >= 11 && tens <= 13 ? "th"
                       : ones == 1              ? "st"
                       : ones == 2              ? "nd"
                       : ones == 3              ? "rd"
                                                : "th";
  return absl::StrCat(n, suffix);
}

// A probability estimated from draws, as people read it: "97%", "0.4%";
// "<0.1%" and ">99.9%" at the ends, where the draws cannot tell more
// (none, or all, of them).
std::string Percent(double p) {
  if (p < 0.001) return "<0.1%";
  if (p > 0.999) return ">99.9%";
  if (p < 0.01 || p > 0.99) return absl::StrFormat("%.1f%%", 100 * p);
  return absl::StrFormat("%.0f%%", 100 * p);
}

// `value` with `decimals` decimals and its sign, never "-0" (or "+-0").
std::string Signed(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  double rounded = std::round(value * scale) / scale;
  if (rounded == 0) rounded = 0;  // -0 becomes 0
  return absl::StrFormat("%+.*f", decimals, rounded);
}

// Each rated match's bots (by index into RatedResults::bots) and the seat
// that rates each: a bot holding two seats of one match is rated (and
// counted) once, at its better place.
using PlacedSeats = std::vector<std::pair<int, const db::RatedSeat*>>;

struct RatedResults {
  std::vector<std::string> bots;
  std::vector<MatchResult> results;
  std::vector<PlacedSeats> rated;  // parallel to results
  // Whether some unit (a duplicate block) holds several matches.
  bool blocks = false;
};

RatedResults CollectResults(const std::vector<db::RatedMatch>& stored) {
  RatedResults out;
  // Bots are numbered in order of name, not of first appearance, so that
  // the ML sums run in the same order however the matches were stored.
  std::map<Identity, int> index;
  for (const db::RatedMatch& match : stored) {
    for (const db::RatedSeat& seat : match.seats) index.try_emplace(IdentityOf(seat), 0);
  }
  for (auto& [identity, i] : index) {
    i = static_cast<int>(out.bots.size());
    const auto& [name, builtin] = identity;
    // A name held by both kinds is shown with its kind: "builtin:NAME" and
    // "bot:NAME", as seats name players (engine/player_id.h).
    const bool shared = index.contains({name, !builtin});
    out.bots.push_back(shared ? absl::StrCat(builtin ? "builtin:" : "bot:", name) : name);
  }
  // Units are numbered in (tournament, block) order, not in the order the
  // matches were stored (which varies with concurrency): the bootstrap then
  // draws the same weights for the same results, and intervals reproduce.
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> units;
  for (const db::RatedMatch& match : stored) units.try_emplace({match.tournament_id, match.block});
  std::int64_t next_unit = 0;
  for (auto& [key, unit] : units) unit = next_unit++;
  std::set<std::int64_t> units_seen;
  for (const db::RatedMatch& match : stored) {
    const std::map<Identity, const db::RatedSeat*> best = RatedSeats(match.seats);
    if (best.size() < 2) continue;
    MatchResult result;
    PlacedSeats placed;  // in order of identity, and so of index
    for (const auto& [identity, seat] : best) placed.emplace_back(index.at(identity), seat);
    for (const auto& [bot, seat] : placed) {
      result.placings.push_back({.bot = bot, .place = seat->rank});
    }
    result.unit = units.at({match.tournament_id, match.block});
    if (!units_seen.insert(result.unit).second) out.blocks = true;
    out.results.push_back(std::move(result));
    out.rated.push_back(std::move(placed));
  }
  return out;
}

// Per bot: matches, wins, and scores and places summed; per pair of bots
// {i, j} with i < j: i's wins, losses and draws against j.
struct Tally {
  struct Stats {
    int matches = 0, wins = 0;
    int forfeits = 0, timeouts = 0, disconnects = 0;
    double score = 0, place = 0;
  };
  std::vector<Stats> stats;
  std::map<std::pair<int, int>, std::array<int, 3>> pairs;
};

Tally Count(const std::vector<PlacedSeats>& rated, int bots) {
  Tally tally;
  tally.stats.resize(bots);
  for (const PlacedSeats& placed : rated) {
    for (const auto& [bot, seat] : placed) {
      Tally::Stats& s = tally.stats[bot];
      ++s.matches;
      if (seat->rank == 1) ++s.wins;
      s.forfeits += seat->forfeited ? 1 : 0;
      s.timeouts += seat->timeouts;
      s.disconnects += seat->disconnects;
      s.score += seat->score;
      s.place += seat->rank;
    }
    for (std::size_t a = 0; a < placed.size(); ++a) {
      for (std::size_t b = a + 1; b < placed.size(); ++b) {
        auto [i, seat_i] = placed[a];
        auto [j, seat_j] = placed[b];
        int ri = seat_i->rank, rj = seat_j->rank;
        if (i > j) {
          std::swap(i, j);
          std::swap(ri, rj);
        }
        std::array<int, 3>& wld = tally.pairs[{i, j}];
        ++wld[ri < rj ? 0 : ri > rj ? 1 : 2];
      }
    }
  }
  return tally;
}

void FillHeadToHead(const db::RatingScope& scope, const std::vector<std::string>& bots,
                    const Tally& tally, hoard::v1::HeadToHeadTable& table) {
  table.set_game(scope.game);
  table.set_tournament_id(scope.tournament_id);
  for (const std::string& bot : bots) table.add_bots(bot);
  for (const auto& [pair, wld] : tally.pairs) {
    const HeadToHead stats_of_pair = HeadToHeadStats(wld[0], wld[1], wld[2]);
    hoard::v1::HeadToHead* h2h = table.add_pairs();
    h2h->set_bot(bots[pair.first]);
    h2h->set_opponent(bots[pair.second]);
    h2h->set_wins(wld[0]);
    h2h->set_losses(wld[1]);
    h2h->set_draws(wld[2]);
    h2h->set_score(stats_of_pair.score);
    h2h->set_elo(stats_of_pair.elo);
    h2h->set_margin(stats_of_pair.margin);
    h2h->set_los(stats_of_pair.los);
    h2h->set_defined(stats_of_pair.defined);
  }
}

// Every bit of `value`: the shortest decimal that reads back as the same
// double ("inf", "-inf" when unbounded).
std::string Exact(double value) {
  std::array<char, 32> buffer;
  const std::to_chars_result end =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), end.ptr);
}

// The footer lines on separated tiers and disconnected groups, if any.
std::string StructureText(const hoard::v1::Leaderboard& board) {
  if (!board.separated() && !board.disconnected()) return "";
  // (group, tier) -> bots, in rank order.
  std::map<std::pair<int, int>, std::vector<std::string>> sets;
  std::set<int> groups;
  for (const hoard::v1::LeaderboardRow& row : board.rows()) {
    sets[{row.ml_group(), row.ml_tier()}].push_back(row.bot());
    groups.insert(row.ml_group());
  }
  std::string out;
  if (board.disconnected()) {
    out +=
        "ML: groups never compared with each other (placed against each other by the "
        "prior alone):";
    for (int group : groups) {
      std::vector<std::string> bots;
      for (const auto& [key, members] : sets) {
        if (key.first == group) bots.insert(bots.end(), members.begin(), members.end());
      }
      absl::StrAppend(&out, " group ", group, ": ", absl::StrJoin(bots, ", "), ";");
    }
    out.back() = '.';
    out += "\n";
  }
  if (board.separated()) {
    out +=
        "ML: separated tiers (a tier never lost a meeting to the tiers below it, so the "
        "data bound the gap below only and the prior above):";
    for (const auto& [key, members] : sets) {
      if (groups.size() > 1) absl::StrAppend(&out, " group ", key.first);
      absl::StrAppend(&out, " tier ", key.second, ": ", absl::StrJoin(members, ", "), ";");
    }
    out.back() = '.';
    out += "\n";
  }
  return out;
}

}  // namespace

using hoard::v1::Leaderboard;
using hoard::v1::LeaderboardRow;
using hoard::v1::RatingSnapshot;
using hoard::v1::RatingSystem;

absl::StatusOr<RatingSnapshot> ComputeRatings(db::MatchStore& store, const db::RatingScope& scope) {
  absl::StatusOr<std::vector<db::RatedMatch>> stored = store.RatedMatches(scope);
  if (!stored.ok()) return stored.status();
  // `rated` points into `in_order`, which must outlive it.
  const std::vector<db::RatedMatch> in_order = InScheduleOrder(*std::move(stored));
  const RatedResults rated = CollectResults(in_order);
  const std::vector<std::string>& bots = rated.bots;
  const int n = static_cast<int>(bots.size());
  const std::vector<double> elo = EloRatings(n, rated.results);
  const std::vector<MlRating> ml =
      MlRatings(n, rated.results, {.bootstrap_samples = kBootstrapSamples});
  const std::vector<OpenSkillRating> openskill = OpenSkillRatings(n, rated.results);
  const Tally tally = Count(rated.rated, n);
  const std::vector<std::vector<double>> ranks = n <= kRankProbabilityMaxBots
                                                     ? RankProbabilities(n, rated.results)
                                                     : std::vector<std::vector<double>>();

  RatingSnapshot snapshot;
  snapshot.set_method(kSnapshotMethod);
  Leaderboard* board = snapshot.mutable_leaderboard();
  if (!ranks.empty()) board->set_rank_samples(RankOptions().samples);
  board->set_game(scope.game);
  board->set_tournament_id(scope.tournament_id);
  board->set_matches(static_cast<int>(rated.results.size()));
  const std::string bootstrap =
      absl::StrFormat("percentile bootstrap over %s (%d resamples, seed 1)",
                      rated.blocks ? "duplicate blocks" : "matches", kBootstrapSamples);
  board->set_interval_method(n <= kMlProfileMaxBots
                                 ? absl::StrCat("the wider of a ", bootstrap,
                                                " and the profile likelihood, with ", kMlPriorTies,
                                                " virtual ties per bot against an average player")
                                 : absl::StrCat("a ", bootstrap, " (no profile likelihood above ",
                                                kMlProfileMaxBots, " bots), with ", kMlPriorTies,
                                                " virtual ties per bot against an average player"));
  board->set_separated(Separated(ml));
  board->set_disconnected(Disconnected(ml));
  board->set_computed_unix_ms(absl::ToUnixMillis(absl::Now()));
  for (int i = 0; i < n; ++i) {
    const Tally::Stats& stats = tally.stats[i];
    LeaderboardRow* row = board->add_rows();
    row->set_bot(bots[i]);
    row->set_matches(stats.matches);
    row->set_wins(stats.wins);
    row->set_forfeits(stats.forfeits);
    row->set_timeouts(stats.timeouts);
    row->set_disconnects(stats.disconnects);
    if (stats.matches > 0) {
      row->set_average_score(stats.score / stats.matches);
      row->set_average_place(stats.place / stats.matches);
    }
    row->set_elo(elo[i]);
    row->set_ml(ml[i].rating);
    row->set_ml_low(ml[i].low);
    row->set_ml_high(ml[i].high);
    row->set_openskill_mu(openskill[i].mu);
    row->set_openskill_sigma(openskill[i].sigma);
    row->set_ml_group(ml[i].group);
    row->set_ml_tier(ml[i].tier);
    if (!ranks.empty()) row->mutable_rank_probabilities()->Assign(ranks[i].begin(), ranks[i].end());
  }
  FillHeadToHead(scope, bots, tally, *snapshot.mutable_head_to_head());
  return snapshot;
}

absl::StatusOr<RatingSnapshot> CurrentRatings(db::MatchStore& store, const db::RatingScope& scope) {
  absl::StatusOr<std::int64_t> version = store.ScopeVersion(scope);
  if (!version.ok()) return version.status();
  auto latest = store.LatestRatingSnapshot(scope);
  if (!latest.ok()) return latest.status();
  if (*latest && (*latest)->first == *version && (*latest)->second.method() == kSnapshotMethod) {
    return std::move((*latest)->second);
  }
  absl::StatusOr<RatingSnapshot> snapshot = ComputeRatings(store, scope);
  if (!snapshot.ok()) return snapshot.status();
  if (absl::Status s = store.SaveRatingSnapshot(scope, *version, *snapshot); !s.ok()) return s;
  return snapshot;
}

Leaderboard RankBy(const RatingSnapshot& snapshot, RatingSystem system) {
  if (system == hoard::v1::RATING_SYSTEM_UNSPECIFIED) system = hoard::v1::RATING_SYSTEM_ML;
  Leaderboard board = snapshot.leaderboard();
  board.set_system(system);
  for (LeaderboardRow& row : *board.mutable_rows()) {
    switch (system) {
      case hoard::v1::RATING_SYSTEM_ELO:
        row.set_rating(row.elo());
        row.set_low(row.elo());
        row.set_high(row.elo());
        break;
      case hoard::v1::RATING_SYSTEM_OPENSKILL:
        row.set_rating(row.openskill_mu() - 3 * row.openskill_sigma());
        row.set_low(row.openskill_mu() - 1.96 * row.openskill_sigma());
        row.set_high(row.openskill_mu() + 1.96 * row.openskill_sigma());
        break;
      default:
        row.set_rating(row.ml());
        row.set_low(row.ml_low());
        row.set_high(row.ml_high());
    }
  }
  for (LeaderboardRow& row : *board.mutable_rows()) {
    row.set_provisional(Provisional(row.matches(), row.ml_low(), row.ml_high()));
  }
  std::stable_sort(board.mutable_rows()->begin(), board.mutable_rows()->end(),
                   [](const LeaderboardRow& a, const LeaderboardRow& b) {
                     if (a.rating() != b.rating()) return a.rating() > b.rating();
                     return a.bot() < b.bot();
                   });
  for (int i = 0; i < board.rows_size(); ++i) board.mutable_rows(i)->set_rank(i + 1);
  return board;
}

bool Provisional(int matches, double ml_low, double ml_high) {
  return matches < kProvisionalMatches && ml_high - ml_low > kProvisionalWidth;
}

Leaderboard EstablishedFirst(Leaderboard board) {
  const auto provisional = [](const LeaderboardRow& row) {
    return Provisional(row.matches(), row.ml_low(), row.ml_high());
  };
  std::stable_partition(board.mutable_rows()->begin(), board.mutable_rows()->end(),
                        [&](const LeaderboardRow& row) { return !provisional(row); });
  for (int i = 0; i < board.rows_size(); ++i) board.mutable_rows(i)->set_rank(i + 1);
  return board;
}

absl::StatusOr<RatingSystem> ParseRatingSystem(const std::string& name) {
  if (name == "ml") return hoard::v1::RATING_SYSTEM_ML;
  if (name == "elo") return hoard::v1::RATING_SYSTEM_ELO;
  if (name == "openskill") return hoard::v1::RATING_SYSTEM_OPENSKILL;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown rating system '", name, "' (systems: ml, elo, openskill)"));
}

std::string FormatLeaderboard(const Leaderboard& board, bool mark_provisional) {
  std::string out =
      absl::StrFormat("%-4s %-20s %-22s %-8s %-22s %7s %6s %9s %9s %8s %9s\n", "rank", "bot",
                      "ML [95% interval]", "Elo", "OpenSkill mu-3s (mu±s)", "matches", "wins",
                      "avg score", "avg place", "forfeits", "time-outs");
  int provisional = 0;
  for (const LeaderboardRow& row : board.rows()) {
    const bool mark = mark_provisional && Provisional(row.matches(), row.ml_low(), row.ml_high());
    provisional += mark ? 1 : 0;
    const std::string ml =
        absl::StrCat(Signed(row.ml(), 0), mark ? "?" : "", " [", Signed(row.ml_low(), 0), ", ",
                     Signed(row.ml_high(), 0), "]");
    const std::string openskill =
        absl::StrFormat("%.2f (%.2f±%.2f)", row.openskill_mu() - 3 * row.openskill_sigma(),
                        row.openskill_mu(), row.openskill_sigma());
    absl::StrAppendFormat(&out, "%-4d %-20s %-22s %-8.0f %-22s %7d %6d %9.2f %9.2f %8d %9d\n",
                          row.rank(), row.bot(), ml, row.elo(), openskill, row.matches(),
                          row.wins(), row.average_score(), row.average_place(), row.forfeits(),
                          row.timeouts());
  }
  const char* system = board.system() == hoard::v1::RATING_SYSTEM_ELO         ? "Elo"
                       : board.system() == hoard::v1::RATING_SYSTEM_OPENSKILL ? "OpenSkill"
                                                                              : "ML";
  absl::StrAppendFormat(&out,
                        "%d rated matches; ranked by %s. ML: Bradley-Terry maximum likelihood, "
                        "95%% intervals by %s.\nElo: incremental from 1500, K=32, and OpenSkill "
                        "(Weng-Lin Plackett-Luce): matches replayed in schedule order.\n",
                        board.matches(), system, board.interval_method());
  if (provisional > 0) {
    absl::StrAppendFormat(&out,
                          "?: provisional (fewer than %d matches and an ML interval wider than "
                          "%.0f points).\n",
                          kProvisionalMatches, kProvisionalWidth);
  }
  absl::StrAppend(&out, StructureText(board));
  return out;
}

std::string LeaderboardCsv(const Leaderboard& board) {
  std::string out =
      "rank,bot,rating,low,high,matches,wins,average_score,average_place,elo,ml,ml_low,ml_high,"
      "openskill_mu,openskill_sigma,ml_group,ml_tier,forfeits,timeouts,disconnects,"
      "provisional,p_first\n";
  for (const LeaderboardRow& row : board.rows()) {
    absl::StrAppend(
        &out,
        absl::StrJoin(
            {absl::StrCat(row.rank()),
             CsvCell(row.bot()),
             Exact(row.rating()),
             Exact(row.low()),
             Exact(row.high()),
             absl::StrCat(row.matches()),
             absl::StrCat(row.wins()),
             Exact(row.average_score()),
             Exact(row.average_place()),
             Exact(row.elo()),
             Exact(row.ml()),
             Exact(row.ml_low()),
             Exact(row.ml_high()),
             Exact(row.openskill_mu()),
             Exact(row.openskill_sigma()),
             absl::StrCat(row.ml_group()),
             absl::StrCat(row.ml_tier()),
             absl::StrCat(row.forfeits()),
             absl::StrCat(row.timeouts()),
             absl::StrCat(row.disconnects()),
             std::string(row.provisional() ? "true" : "false"),
             row.rank_probabilities().empty() ? std::string() : Exact(row.rank_probabilities(0))},
            ","),
        "\n");
  }
  return out;
}

std::string RankProbabilityText(const Leaderboard& board) {
  if (board.rank_samples() == 0) {
    return absl::StrFormat("No rank probabilities: they are computed for up to %d bots.\n",
                           kRankProbabilityMaxBots);
  }
  const int ranks = std::min(board.rows_size(), kRankColumns);
  std::string out = absl::StrFormat("%-20s", "probability of rank");
  for (int r = 1; r <= ranks; ++r) absl::StrAppendFormat(&out, " %6s", Ordinal(r));
  absl::StrAppend(&out, "\n");
  for (const LeaderboardRow& row : board.rows()) {
    absl::StrAppendFormat(&out, "%-20s", row.bot());
    for (int r = 0; r < ranks && r < row.rank_probabilities_size(); ++r) {
      absl::StrAppendFormat(&out, " %6s", Percent(row.rank_probabilities(r)));
    }
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppendFormat(&out,
                        "Each bot's chance of each place in the order of strength, from %d draws "
                        "of the ML model's posterior%s.\n",
                        board.rank_samples(),
                        board.rows_size() > kRankColumns
                            ? absl::StrCat(" (the first ", kRankColumns, " places shown)")
                            : "");
  return out;
}

std::string HeadToHeadText(const hoard::v1::HeadToHeadTable& table) {
  std::string out = absl::StrFormat("%-20s %-20s %6s %6s %6s %7s %16s %7s\n", "bot", "opponent",
                                    "wins", "losses", "draws", "score", "Elo difference", "LOS");
  for (const hoard::v1::HeadToHead& pair : table.pairs()) {
    const std::string elo = pair.defined()
                                ? absl::StrFormat("%s ± %.1f", Signed(pair.elo(), 1), pair.margin())
                                : std::string(pair.score() >= 1 ? "+inf" : "-inf");
    absl::StrAppendFormat(&out, "%-20s %-20s %6d %6d %6d %6.1f%% %16s %6.2f%%\n", pair.bot(),
                          pair.opponent(), pair.wins(), pair.losses(), pair.draws(),
                          100 * pair.score(), elo, 100 * pair.los());
  }
  return out;
}

}  // namespace hoard::tournament
