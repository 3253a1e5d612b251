#include "tournament/schedule.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"

namespace hoard::tournament {
namespace {

// C(n, k), saturating at kMaxScheduledMatches + 1.
std::int64_t Choose(int n, int k) {
  if (k < 0 || k > n) return 0;
  std::int64_t result = 1;
  for (int i = 1; i <= k; ++i) {
    result = result * (n - k + i) / i;  // exact: a product of i consecutive
    if (result > kMaxScheduledMatches) return kMaxScheduledMatches + 1;
  }
  return result;
}

// SplitMix64: one well-mixed 64-bit value per (seed, n).
std::uint64_t DealSeed(std::uint64_t seed, std::uint64_t n) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (n + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return z != 0 ? z : 1;  // a match seeded 0 would get a random deal
}

// Calls `visit` with every k-subset of `pool`, in lexicographic order of
// positions.
template <typename Visit>
void ForEachSubset(const std::vector<int>& pool, int k, Visit visit) {
  const int n = static_cast<int>(pool.size());
  if (k > n) return;
  std::vector<int> pick(k);
  for (int i = 0; i < k; ++i) pick[i] = i;
  std::vector<int> subset(k);
  while (true) {
    for (int i = 0; i < k; ++i) subset[i] = pool[pick[i]];
    visit(subset);
    int i = k - 1;
    while (i >= 0 && pick[i] == n - k + i) --i;
    if (i < 0) return;
    ++pick[i];
    for (int j = i + 1; j < k; ++j) pick[j] = pick[j - 1] + 1;
  }
}

absl::Status Check(const ScheduleInput& in) {
  if (in.players_per_match < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "players_per_match: a match needs 2 or more players, not ", in.players_per_match));
  }
  if (in.participants < in.players_per_match) {
    return absl::InvalidArgumentError(absl::StrCat(
        "participants: ", in.participants, " participant", in.participants == 1 ? "" : "s",
        " cannot fill ", in.players_per_match, "-player matches"));
  }
  if (in.rounds < 1) {
    return absl::InvalidArgumentError(absl::StrCat("rounds: must be 1 or more, not ", in.rounds));
  }
  if (in.format == Format::kSwiss && in.participants > kMaxSwissParticipants) {
    return absl::InvalidArgumentError(absl::StrCat(
        "participants: a Swiss takes at most ", kMaxSwissParticipants, ", not ", in.participants));
  }
  if (in.format != Format::kGauntlet) {
    if (!in.candidates.empty()) {
      return absl::InvalidArgumentError("candidates: only the gauntlet format has candidates");
    }
    return absl::OkStatus();
  }
  if (in.candidates.empty()) {
    return absl::InvalidArgumentError("candidates: a gauntlet needs at least one candidate");
  }
  std::set<int> seen;
  for (int c : in.candidates) {
    if (c < 0 || c >= in.participants) {
      return absl::InvalidArgumentError(absl::StrCat("candidates: no participant ", c));
    }
    if (!seen.insert(c).second) {
      return absl::InvalidArgumentError(absl::StrCat("candidates: participant ", c, " twice"));
    }
  }
  const int field = in.participants - static_cast<int>(in.candidates.size());
  if (field < in.players_per_match - 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "candidates: a field of ", field, " cannot fill ", in.players_per_match,
        "-player matches beside a candidate (it needs ", in.players_per_match - 1, ")"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::int64_t> ScheduleSize(const ScheduleInput& in) {
  if (absl::Status s = Check(in); !s.ok()) return s;
  const int k = in.players_per_match;
  std::int64_t groups;
  if (in.format == Format::kSwiss) {
    const std::int64_t size = static_cast<std::int64_t>(in.participants / k) * in.rounds;
    if (size > kMaxScheduledMatches) {
      return absl::InvalidArgumentError(absl::StrCat("the schedule would hold more than ",
                                                     kMaxScheduledMatches,
                                                     " matches; use fewer participants or rounds"));
    }
    return size;
  }
  if (in.format == Format::kGauntlet) {
    const int field = in.participants - static_cast<int>(in.candidates.size());
    groups = Choose(field, k - 1);
    if (groups <= kMaxScheduledMatches) groups *= static_cast<std::int64_t>(in.candidates.size());
  } else {
    groups = Choose(in.participants, k);
  }
  const std::int64_t limit = kMaxScheduledMatches;
  if (groups > limit || groups * k > limit || groups * k * in.rounds > limit) {
    return absl::InvalidArgumentError(
        absl::StrCat("the schedule would hold more than ", limit,
                     " matches; use fewer participants, players per match or rounds"));
  }
  return groups * k * in.rounds;
}

absl::StatusOr<std::vector<ScheduledMatch>> Schedule(const ScheduleInput& in) {
  absl::StatusOr<std::int64_t> size = ScheduleSize(in);
  if (!size.ok()) return size.status();
  const int k = in.players_per_match;
  if (in.format == Format::kSwiss) {
    std::vector<ScheduledMatch> schedule(static_cast<std::size_t>(*size));
    const int tables = in.participants / k;
    for (int i = 0; i < static_cast<int>(schedule.size()); ++i) {
      schedule[i].index = i;
      schedule[i].round = i / tables;
      schedule[i].block = i;
      schedule[i].seed = DealSeed(in.seed, static_cast<std::uint64_t>(i));
    }
    return schedule;
  }

  std::vector<std::vector<int>> groups;
  if (in.format == Format::kGauntlet) {
    std::vector<int> field;
    for (int p = 0; p < in.participants; ++p) {
      if (std::find(in.candidates.begin(), in.candidates.end(), p) == in.candidates.end()) {
        field.push_back(p);
      }
    }
    for (int candidate : in.candidates) {
      ForEachSubset(field, k - 1, [&](const std::vector<int>& others) {
        std::vector<int> group = {candidate};
        group.insert(group.end(), others.begin(), others.end());
        groups.push_back(std::move(group));
      });
    }
  } else {
    std::vector<int> everyone(in.participants);
    for (int p = 0; p < in.participants; ++p) everyone[p] = p;
    ForEachSubset(everyone, k, [&](const std::vector<int>& group) { groups.push_back(group); });
  }

  std::vector<ScheduledMatch> schedule;
  schedule.reserve(static_cast<std::size_t>(*size));
  std::int64_t block = 0;
  for (int round = 0; round < in.rounds; ++round) {
    for (const std::vector<int>& group : groups) {
      for (int rotation = 0; rotation < k; ++rotation) {
        ScheduledMatch match;
        match.index = static_cast<int>(schedule.size());
        match.round = round;
        match.seats.resize(k);
        for (int seat = 0; seat < k; ++seat) match.seats[seat] = group[(seat + rotation) % k];
        if (in.format == Format::kDuplicate) {
          match.block = block;
          match.seed = DealSeed(in.seed, static_cast<std::uint64_t>(block));
        } else {
          match.block = match.index;
          match.seed = DealSeed(in.seed, static_cast<std::uint64_t>(match.index));
        }
        schedule.push_back(std::move(match));
      }
      ++block;
    }
  }
  return schedule;
}

}  // namespace hoard::tournament
