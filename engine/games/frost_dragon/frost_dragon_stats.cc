// Frost Dragon's Treasure's counters for `hoard stats` (frost_dragon_stats.h).

#include "engine/games/frost_dragon/frost_dragon_stats.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/games/frost_dragon/frost_dragon.h"

namespace hoard::engine::frost_dragon {
namespace {

constexpr absl::string_view kChallengeWon = "a challenge won";

// What a move is credited to: its action space, else its cause.
std::string CauseName(const Movement& m) {
  if (m.action_space >= 0) {
    return std::string(ActionSpaceName(kActionSpaces[m.action_space].kind));
  }
  switch (m.cause) {
    case MoveCause::kChallenge:
    case MoveCause::kJump:
    case MoveCause::kThreat:
    case MoveCause::kActionSpace:
      return std::string(kChallengeWon);
    case MoveCause::kShortfall:
      return "a shortfall";
    case MoveCause::kTreasure:
      return "a Treasure joker";
  }
  return "";
}

bool InChallenge(MoveCause cause) {
  return cause == MoveCause::kChallenge || cause == MoveCause::kJump || cause == MoveCause::kThreat;
}

// The standing the ranks use before any tie-break: 10 × space + threat.
int Key(int space, int threat) { return 10 * space + threat; }

class Counter final : public MatchCounter {
 public:
  void OnAction(const State& before, Seat /*seat*/, Action /*action*/,
                const State& after) override {
    const auto& b = static_cast<const FrostDragonState&>(before);
    const auto& a = static_cast<const FrostDragonState&>(after);
    const int n = a.num_players();
    if (!started_) {
      started_ = true;
      n_ = n;
      first_fate_ = b.position().fate;
      for (Seat s = 0; s < n; ++s) {
        space_[s] = b.position().adventurers[s].space;
        threat_[s] = b.position().adventurers[s].threat;
      }
    }
    const std::vector<Movement>& moves = a.movements();
    std::size_t i = 0;
    // Threat changes only in a challenge, before any move of the
    // resolution: it joins the challenge's own move, if any.
    for (Seat s = 0; s < n; ++s) threat_[s] = a.position().adventurers[s].threat;
    std::string cause(kChallengeWon);
    if (!moves.empty() && InChallenge(moves[0].cause)) {
      space_[moves[0].seat] = moves[0].to;
      cause = CauseName(moves[0]);
      if (moves[0].cause == MoveCause::kJump) ++counts_[absl::StrCat("jumps: ", cause)];
      i = 1;
    }
    Step(cause);
    while (i < moves.size()) {
      const Movement& m = moves[i];
      space_[m.seat] = m.to;
      if (m.cause == MoveCause::kActionSpace) {
        ++counts_[absl::StrCat("action spaces: ", CauseName(m))];
      }
      while (moves[i].together_with_next && i + 1 < moves.size()) {
        ++i;
        space_[moves[i].seat] = moves[i].to;
      }
      Step(CauseName(m));
      ++i;
    }
    // The tally agrees with the position (a safeguard: it always should).
    for (Seat s = 0; s < n; ++s) {
      space_[s] = a.position().adventurers[s].space;
      threat_[s] = a.position().adventurers[s].threat;
    }
    Step(std::string(kChallengeWon));
  }

  void OnEnd(const State& final_state, MatchCounts* counts) override {
    const auto& state = static_cast<const FrostDragonState&>(final_state);
    const Position& p = state.position();
    switch (p.end) {
      case EndReason::kTreasureReached:
        (*counts)["ended: someone at the treasure"] = 1;
        break;
      case EndReason::kDeckExhausted:
        (*counts)["ended: deck exhausted"] = 1;
        break;
      case EndReason::kQuestCap:
        (*counts)["ended: quest cap"] = 1;
        break;
      case EndReason::kNotOver:
        break;
    }
    (*counts)["quests: played"] = p.quest - (p.end == EndReason::kDeckExhausted ? 1 : 0);
    for (const auto& [name, count] : counts_) (*counts)[name] += count;

    const std::vector<int> ranks = state.Ranks();
    std::vector<Seat> first;
    for (Seat s = 0; s < state.num_players(); ++s) {
      if (ranks[s] == 1) first.push_back(s);
    }
    for (Seat s : first) {
      const int from_fate = (s - first_fate_ + n_) % n_;
      (*counts)[from_fate == 0 ? std::string("won: the first Fate")
                               : absl::StrCat("won: ", from_fate, " left of the first Fate")] +=
          1.0 / first.size();
    }
    std::string decided;
    if (first.size() != 1) {
      decided = "nobody (a shared first place)";
    } else if (first[0] != leader_) {
      decided = "the Frost Dragon";  // it ate the tied leaders
    } else {
      decided = took_lead_[first[0]];
    }
    (*counts)[absl::StrCat("decided by: ", decided)] = 1;
  }

 private:
  // Notes who leads after a step, and what put a new leader there.
  void Step(const std::string& cause) {
    Seat leader = -1;
    int best = -1;
    for (Seat s = 0; s < n_; ++s) {
      const int key = Key(space_[s], threat_[s]);
      if (key > best) {
        best = key;
        leader = s;
      } else if (key == best) {
        leader = -1;  // shared: nobody leads alone
      }
    }
    if (leader >= 0 && leader != leader_) took_lead_[leader] = cause;
    leader_ = leader;
  }

  bool started_ = false;
  int n_ = 0;
  Seat first_fate_ = 0;
  std::array<int, kMaxPlayers> space_{};
  std::array<int, kMaxPlayers> threat_{};
  Seat leader_ = -1;  // the sole leader, or -1 while the lead is shared
  std::array<std::string, kMaxPlayers> took_lead_;
  MatchCounts counts_;
};

}  // namespace

MatchStatistics MakeStatistics() {
  return {.make_counter = [] { return std::unique_ptr<MatchCounter>(new Counter()); }};
}

}  // namespace hoard::engine::frost_dragon
