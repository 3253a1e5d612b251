#include "bots/mcts.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <utility>

#include "engine/check.h"

namespace hoard::bots {
namespace {

// The key of the node that follows a seat's part of a sealed group: the
// same whatever the seat sealed.
constexpr std::uint64_t kSealedKey = 0x5ea1ed5ea1ed5ea1ULL;

std::uint64_t Mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 29);
}

bool Contains(const engine::Seats& seats, engine::Seat seat) {
  return std::find(seats.begin(), seats.end(), seat) != seats.end();
}

// Whether `after` is `before` less one seat: a sealed group still open.
bool GroupContinues(const engine::Seats& before, const engine::Seats& after) {
  if (before.size() < 2 || after.size() + 1 != before.size()) return false;
  return std::all_of(after.begin(), after.end(),
                     [&](engine::Seat s) { return Contains(before, s); });
}

}  // namespace

engine::Seat NextSeatToAct(const engine::Seats& seats, engine::Seat first) {
  HOARD_CHECK(!seats.empty(), "no seat is to act");
  if (Contains(seats, first)) return first;
  return *std::min_element(seats.begin(), seats.end());
}

std::vector<double> MatchRewards(const engine::State& over) {
  const std::vector<int> ranks = over.Ranks();
  const std::vector<double> scores = over.Scores();
  const int n = static_cast<int>(ranks.size());
  const auto [low, high] = std::minmax_element(scores.begin(), scores.end());
  std::vector<double> rewards(n, 0.5);
  if (n < 2) return rewards;
  for (int s = 0; s < n; ++s) {
    double beaten = 0;
    for (int t = 0; t < n; ++t) {
      if (t == s) continue;
      if (ranks[t] > ranks[s]) beaten += 1;
      if (ranks[t] == ranks[s]) beaten += 0.5;
    }
    const double score_place = *high > *low ? (scores[s] - *low) / (*high - *low) : 0.5;
    rewards[s] = 0.9 * beaten / (n - 1) + 0.1 * score_place;
  }
  return rewards;
}

MctsBot::MctsBot(const engine::Sampler& sampler, MctsOptions options, std::uint64_t seed,
                 std::unique_ptr<Bot> rollout_policy)
    : sampler_(sampler),
      options_(options),
      rollout_policy_(std::move(rollout_policy)),
      rng_(seed) {}

void MctsBot::Rollout(engine::State& state) {
  while (!state.IsOver()) {
    const engine::Seat seat = state.SeatsToAct()[0];
    state.LegalActions(seat, &legal_);
    engine::Action action = legal_[0];
    if (legal_.size() > 1) {
      const bool random =
          rollout_policy_ == nullptr ||
          static_cast<double>(rng_.Uniform(1u << 20)) < options_.rollout_randomness * (1u << 20);
      action = random ? legal_[rng_.Uniform(legal_.size())]
                      : rollout_policy_->Choose(*state.ViewFor(seat), legal_);
    }
    if (!state.Apply(seat, action).ok()) return;
  }
}

int MctsBot::NewNode(engine::Seat seat) {
  nodes_.emplace_back();
  nodes_.back().seat = seat;
  return static_cast<int>(nodes_.size()) - 1;
}

int MctsBot::EdgeFor(Node& node, engine::Action action) {
  auto [it, added] = node.edge_of.try_emplace(action.code(), static_cast<int>(node.edges.size()));
  if (added) node.edges.push_back(Edge{.action = action});
  return it->second;
}

engine::Action MctsBot::Choose(const engine::View& view, std::span<const engine::Action> legal) {
  HOARD_CHECK(!legal.empty(), "a bot was asked to choose from nothing");
  stats_ = SearchStats{};
  nodes_.clear();
  if (legal.size() == 1) return legal[0];
  absl::StatusOr<engine::Seat> observer = sampler_.Observer(view);
  if (!observer.ok()) {
    ++stats_.sample_errors;
    return legal[0];
  }
  NewNode(*observer);

  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(options_.time_ms);
  const auto more = [&] {
    if (options_.time_ms > 0) return Clock::now() < deadline;
    return stats_.iterations < options_.iterations;
  };
  while (more()) {
    absl::StatusOr<std::unique_ptr<engine::State>> sample = sampler_.Sample(view, rng_);
    if (!sample.ok()) {
      // A view the sampler cannot follow will not get better: stop early.
      if (++stats_.sample_errors >= 3 && stats_.iterations == 0) break;
      continue;
    }
    Iterate(**sample, *observer);
    ++stats_.iterations;
  }
  stats_.nodes = static_cast<int>(nodes_.size());

  // The most tried of the listed actions; ties go to the better mean.
  const Node& root = nodes_[0];
  engine::Action best = legal[0];
  int best_visits = -1;
  double best_mean = 0;
  for (engine::Action action : legal) {
    auto it = root.edge_of.find(action.code());
    if (it == root.edge_of.end()) continue;
    const Edge& e = root.edges[it->second];
    const double mean = e.visits > 0 ? e.reward / e.visits : 0;
    stats_.root.push_back({.action = action, .visits = e.visits, .mean = mean});
    if (e.visits > best_visits || (e.visits == best_visits && mean > best_mean)) {
      best = action;
      best_visits = e.visits;
      best_mean = mean;
    }
  }
  return best;
}

void MctsBot::Iterate(engine::State& state, engine::Seat root_seat) {
  // (node, edge) pairs from the root down.
  std::vector<std::pair<int, int>> path;
  std::uint64_t group_key = 0;
  int node = 0;
  bool expanded = false;
  while (!state.IsOver() && !expanded) {
    const engine::Seats to_act = state.SeatsToAct();
    const engine::Seat seat = NextSeatToAct(to_act, root_seat);
    // The same actions led here, yet another seat acts: the hidden cards
    // decided who moves. Leave the tree and play on at random.
    if (nodes_[node].seat != seat) break;
    state.LegalActions(seat, &legal_);

    int chosen = -1;
    {
      Node& n = nodes_[node];
      int unvisited = 0;
      double best = -std::numeric_limits<double>::infinity();
      for (engine::Action action : legal_) {
        const int index = EdgeFor(n, action);
        Edge& e = n.edges[index];
        ++e.available;
        if (e.visits == 0) {
          // Uniform among the untried: reservoir sampling.
          if (rng_.Uniform(++unvisited) == 0) chosen = index;
          best = std::numeric_limits<double>::infinity();
          continue;
        }
        if (unvisited > 0) continue;
        const double ucb =
            e.reward / e.visits +
            options_.exploration * std::sqrt(std::log(static_cast<double>(e.available)) / e.visits);
        if (ucb > best) {
          best = ucb;
          chosen = index;
        }
      }
      expanded = unvisited > 0;
    }
    const engine::Action action = nodes_[node].edges[chosen].action;
    path.emplace_back(node, chosen);
    if (!state.Apply(seat, action).ok()) return;  // a sampler bug: learn nothing

    const engine::Seats next = state.SeatsToAct();
    std::uint64_t key;
    if (to_act.size() > 1) {
      group_key = Mix(group_key, Mix(static_cast<std::uint64_t>(seat), action.code()));
      if (GroupContinues(to_act, next)) {
        key = kSealedKey;
      } else {
        key = group_key;
        group_key = 0;
      }
    } else {
      key = action.code();
    }
    if (state.IsOver()) break;
    auto [it, added] = nodes_[node].children.try_emplace(key, -1);
    if (added) {
      const int child = NewNode(NextSeatToAct(next, root_seat));
      nodes_[node].children[key] = child;
      node = child;
      expanded = true;
    } else {
      node = it->second;
    }
  }

  Rollout(state);
  if (!state.IsOver()) return;  // a sampler bug: learn nothing

  const std::vector<double> rewards = MatchRewards(state);
  for (const auto& [n, e] : path) {
    Edge& edge = nodes_[n].edges[e];
    ++edge.visits;
    edge.reward += rewards[nodes_[n].seat];
  }
}

}  // namespace hoard::bots
