#ifndef HOARD_BOTS_MCTS_H_
#define HOARD_BOTS_MCTS_H_

// The search bot: information-set Monte Carlo tree search.
//
// Each iteration asks the game's Sampler for one full state the seat cannot
// tell from its view (a determinization), then walks one shared tree with
// it: from the root (the seat's own decision) each node picks the action
// with the best upper confidence bound among the actions legal in *this*
// determinization, counting how often each action was available (so an
// action that is only sometimes possible is not starved). Past the tree it
// plays uniformly random actions to the end of the match, and every node on
// the path learns the result for the seat that acted there. The answer is
// the root action tried most often.
//
// Nodes are keyed by the actions that led to them, never by hidden cards,
// so one tree gathers what all the determinizations say.
//
// Sealed decisions (several seats to act at once): the seats are visited one
// after another — the searching seat first — but a seat's node does not
// depend on what the others sealed before it in the same group, since it
// could not have seen it; the group's joint answer keys the node after it.
//
// A result is worth, to each seat, the share of the other seats it beat (a
// tie counts half), with a tenth of the weight on its score's place between
// the lowest and the highest score, so the search still tells a close loss
// from a rout.
//
// Decisions too large to list (Dragon's Gold's proposals) are searched over
// the listed examples.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "bots/bot.h"
#include "engine/game.h"
#include "engine/rng.h"
#include "engine/sampler.h"

namespace hoard::bots {

struct MctsOptions {
  // The budget of one decision: this many iterations, or (when time_ms is
  // set) as many as fit in time_ms milliseconds. An iteration budget makes
  // the bot reproducible from its seed; a time budget does not.
  int iterations = 1000;
  int time_ms = 0;
  // The exploration constant of the upper confidence bound.
  double exploration = 0.7;
  // With a rollout policy: the share of rollout actions taken at random
  // instead, so that playouts vary.
  double rollout_randomness = 0.1;
};

// What the last decision's search did.
struct SearchStats {
  // One of the seat's own actions at the root, as the search ended.
  struct RootAction {
    engine::Action action;
    int visits = 0;
    double mean = 0;  // the average reward when it was tried
  };
  int iterations = 0;
  int nodes = 0;
  std::vector<RootAction> root;
  // Determinizations the sampler refused (a sampler bug); the decision then
  // falls back to the default action if no iteration ran.
  int sample_errors = 0;
};

class MctsBot final : public Bot {
 public:
  // `sampler` must outlive the bot. Without `rollout_policy` playouts are
  // uniformly random.
  MctsBot(const engine::Sampler& sampler, MctsOptions options, std::uint64_t seed,
          std::unique_ptr<Bot> rollout_policy = nullptr);

  engine::Action Choose(const engine::View& view, std::span<const engine::Action> legal) override;

  const SearchStats& last_search() const { return stats_; }

 private:
  struct Edge {
    engine::Action action;
    int visits = 0;
    int available = 0;
    double reward = 0;  // summed, for the seat of the node
  };
  struct Node {
    engine::Seat seat = 0;
    std::vector<Edge> edges;
    absl::flat_hash_map<std::uint64_t, int> edge_of;   // action code -> edge
    absl::flat_hash_map<std::uint64_t, int> children;  // key -> node
  };

  void Iterate(engine::State& state, engine::Seat root_seat);
  int NewNode(engine::Seat seat);
  // The index of `action`'s edge in `node`, added if new.
  int EdgeFor(Node& node, engine::Action action);

  // Plays `state` out to its end.
  void Rollout(engine::State& state);

  const engine::Sampler& sampler_;
  MctsOptions options_;
  std::unique_ptr<Bot> rollout_policy_;
  engine::Rng rng_;
  std::vector<Node> nodes_;
  SearchStats stats_;
  // Scratch space reused across iterations.
  std::vector<engine::Action> legal_;
};

// The seat that a tree walk treats next among those that must act: `first`
// if it is one of them, else the lowest.
engine::Seat NextSeatToAct(const engine::Seats& seats, engine::Seat first);

// Each seat's reward from a finished match, as the search counts it (see
// above): in [0, 1], ranks first and a tenth for the score.
std::vector<double> MatchRewards(const engine::State& over);

}  // namespace hoard::bots

#endif  // HOARD_BOTS_MCTS_H_
