#ifndef HOARD_BOTS_SAMPLER_H_
#define HOARD_BOTS_SAMPLER_H_

// Samplers: from what a seat sees to a whole match it cannot tell apart.
//
// A search bot only ever holds a View. To look ahead it needs full States,
// so it asks its game's Sampler for one: every card the seat cannot see is
// dealt at random among the places it cannot see, from exactly the cards it
// has not seen anywhere (its hand, the table, discards, what was revealed),
// and every sealed answer it cannot see is drawn among that seat's legal
// answers. The seat's view of the sample equals the view it was made from,
// so the sample is one of the matches the seat may really be in.

#include <memory>

#include "absl/status/statusor.h"
#include "engine/game.h"
#include "engine/rng.h"

namespace hoard::bots {

class Sampler {
 public:
  virtual ~Sampler() = default;

  // The seat whose view `view` is. kInvalidArgument when `view` is not this
  // game's view or is a spectator's.
  virtual absl::StatusOr<engine::Seat> Observer(const engine::View& view) const = 0;

  // A full state whose ViewFor(Observer(view)) Equals `view`, its hidden
  // cards and sealed answers drawn from `rng`. kInvalidArgument when `view`
  // is not a seat's view of this game or could not come from any match
  // (more cards shown than the game has); never crashes on such a view.
  virtual absl::StatusOr<std::unique_ptr<engine::State>> Sample(
      const engine::View& view, engine::Rng& rng) const = 0;
};

}  // namespace hoard::bots

#endif  // HOARD_BOTS_SAMPLER_H_
