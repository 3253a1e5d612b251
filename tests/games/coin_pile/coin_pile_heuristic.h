#ifndef HOARD_TESTS_GAMES_COIN_PILE_COIN_PILE_HEURISTIC_H_
#define HOARD_TESTS_GAMES_COIN_PILE_COIN_PILE_HEURISTIC_H_

// Coin pile's rule-of-thumb bot: the smallest coin that beats the top of the
// pile, else the smallest coin.

#include <cstdint>
#include <memory>

#include "engine/bot.h"

namespace hoard::engine::coin_pile {

std::unique_ptr<Bot> MakeHeuristicBot(std::uint64_t seed);

}  // namespace hoard::engine::coin_pile

#endif  // HOARD_TESTS_GAMES_COIN_PILE_COIN_PILE_HEURISTIC_H_
