#ifndef HOARD_ENGINE_GAMES_HEDONIA_HEDONIA_STATS_H_
#define HOARD_ENGINE_GAMES_HEDONIA_HEDONIA_STATS_H_

// What `hoard stats` counts in Hedonia's matches (engine/match_stats.h).
//
// Per card kind K:
//   "claims: K"      the cards of K one player took into their treasury at a
//                    reveal (a shared card and a King's card are not claimed);
//   "shared: K", "to the King: K"  the other two ends of an offered card;
//   "points: K"      the points cards of K brought to the treasuries they
//                    ended in. Every card in a treasury is tagged with the kind
//                    that brought it there: itself when it was claimed, or the
//                    power that moved it last (a Red Snatcher's snatch, a
//                    Bearded Hopper's raid, a Royal Poofin's fetch, a
//                    Grungle's grab). At the end each card's printed value
//                    counts for its tag, and the points a power scores for a
//                    player's cards of its kind (bonuses, less curses) are
//                    shared equally among those cards' tags. A card destroyed,
//                    slain or moved away brings its tag nothing more; shared
//                    halves are not counted;
//   ratio "points per claimed card: K" = points: K / claims: K.
// When a power moves one of several like cards, the one that arrived last
// goes. Also counted: rounds played and played counterclockwise,
// Misdirections offered and played, snatches, each end power's moves, and
// first places decided by the tie-break.

#include "engine/match_stats.h"

namespace hoard::engine::hedonia {

MatchStatistics MakeStatistics();

}  // namespace hoard::engine::hedonia

#endif  // HOARD_ENGINE_GAMES_HEDONIA_HEDONIA_STATS_H_
