#ifndef HOARD_ENGINE_GAMES_FROST_DRAGON_FROST_DRAGON_STATS_H_
#define HOARD_ENGINE_GAMES_FROST_DRAGON_FROST_DRAGON_STATS_H_

// What `hoard stats` counts in Frost Dragon's Treasure (engine/match_stats.h):
//   ended: someone at the treasure / deck exhausted / quest cap
//   quests: played                  the quests of the match
//   action spaces: <space>          how often each acted (moved a token)
//   decided by: <cause>             what last put the winner in the lead
//   won: <seat from the first Fate> the winner's place from the first Fate
// "Decided by" is defined in docs/rules/frost_dragon.md, "How the game
// plays": the move that last made the eventual winner the sole leader (the
// furthest, then the most threat), which they never lost after. An action
// space gets it when its own effect did that: a fall, a launch, a swap, or a
// launch's jump; the other causes are a challenge won (a step or threat),
// a shortfall, a Treasure joker, and the Frost Dragon's tie-break.

#include "engine/match_stats.h"

namespace hoard::engine::frost_dragon {

MatchStatistics MakeStatistics();

}  // namespace hoard::engine::frost_dragon

#endif  // HOARD_ENGINE_GAMES_FROST_DRAGON_FROST_DRAGON_STATS_H_
