#ifndef HOARD_TESTS_GAMES_COIN_PILE_COIN_PILE_H_
#define HOARD_TESTS_GAMES_COIN_PILE_COIN_PILE_H_

// Coin pile (game id "coin_pile", 2–4 players): a small game for the tests
// only, built like every game (docs/engine.md, "Adding a game").
//
// Twelve coins, four each of values 1, 2 and 3, are shuffled; each seat is
// dealt three, hidden from the others, and the rest is a hidden stack. In
// turn, a seat plays a coin of its hand face up onto the pile: it scores its
// value if it is higher than the coin on top of the pile, nothing otherwise.
// Then it takes the top coin of the stack, if any. The match ends when every
// hand is empty; the highest score wins, ties share the rank.
//
// An action's code is the value of the coin played (1 to 3).

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "engine/game.h"
#include "engine/sampler.h"

namespace hoard::engine::coin_pile {

inline constexpr int kValues = 3;
inline constexpr int kCoinsPerValue = 4;
inline constexpr int kHandSize = 3;
// Coins of each value, indexed by value - 1.
using Coins = std::array<int, kValues>;

struct Position {
  std::vector<Coins> hands;
  std::vector<int> stack;  // values; the top is the back
  Coins pile{};            // coins played, by value
  int top = 0;             // the value on top of the pile; 0 when empty
  std::vector<int> scores;
  int current = 0;
  bool operator==(const Position&) const = default;
};

struct CoinPileView final : ComparableView<CoinPileView> {
  Seat observer = kSpectator;
  Coins own{};                  // the observer's hand (empty for a spectator)
  std::vector<int> hand_sizes;  // every seat's
  int stack_size = 0;
  Coins pile{};
  int top = 0;
  std::vector<int> scores;
  int current = 0;
  bool operator==(const CoinPileView&) const = default;
  std::string ToString() const override;
  std::string Summary() const override;
};

class CoinPileState final : public State {
 public:
  explicit CoinPileState(Position position) : p_(std::move(position)) {}

  int num_players() const override { return static_cast<int>(p_.hands.size()); }
  Seats SeatsToAct() const override;
  using State::LegalActions;
  void LegalActions(Seat seat, std::vector<Action>* out) const override;
  absl::Status Apply(Seat seat, Action action) override;
  bool IsOver() const override;
  std::vector<double> Scores() const override;
  std::vector<int> Ranks() const override;
  std::unique_ptr<View> ViewFor(Seat observer) const override;
  std::string ActionToString(Seat seat, Action action) const override;
  std::string ToString() const override;
  std::vector<Zone> Zones() const override;
  std::unique_ptr<State> Clone() const override;

 private:
  Position p_;
};

// The game and its deal, for its registration (register.cc).
std::unique_ptr<Game> MakeGame();
std::unique_ptr<Sampler> MakeSampler();

}  // namespace hoard::engine::coin_pile

#endif  // HOARD_TESTS_GAMES_COIN_PILE_COIN_PILE_H_
