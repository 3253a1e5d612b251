#ifndef HOARD_ENGINE_GAMES_DRAGONS_GOLD_DRAGONS_GOLD_STATS_H_
#define HOARD_ENGINE_GAMES_DRAGONS_GOLD_DRAGONS_GOLD_STATS_H_

// Dragon's Gold's counters for `hoard stats` (engine/match_stats.h):
//   "drawing ended: …"  what stopped the drawing of dragons first: the bag
//                       (the rule text's end), the pile, both at once, or
//                       nothing before the turn cap or a stalemate's end;
//   "ended: …"          how the match ended;
//   "stalemate: …"      stalemates broken by calling the attackers back;
//   "dragons: …"        dragons slain, alone or shared, treasures lost;
//   "steals: …"         thefts by how, and whether a choosing thief's kind
//                       was there;
//   "market: …"         offers made and accepted, passes, tokens traded;
// with the ratio "market: accepted per offer".

#include "engine/match_stats.h"

namespace hoard::engine::dragons_gold {

MatchStatistics MakeStatistics();

}  // namespace hoard::engine::dragons_gold

#endif  // HOARD_ENGINE_GAMES_DRAGONS_GOLD_DRAGONS_GOLD_STATS_H_
