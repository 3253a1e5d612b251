#ifndef HOARD_ENGINE_SAMPLER_H_
#define HOARD_ENGINE_SAMPLER_H_

// The deal: from what a seat sees to a whole match it cannot tell apart.
//
// Every game has exactly one deal, its Sampler, registered with it
// (engine/registry.h). A search bot only ever holds a View; to look ahead it
// needs full States, so it asks the deal for one: every card the seat cannot
// see is dealt at random among the places it cannot see, from exactly the
// cards it has not seen anywhere (its hand, the table, discards, what was
// revealed), and every sealed answer it cannot see is drawn among that
// seat's legal answers or left pending where the view cannot tell. The
// seat's view of the sample equals the view it was made from, so the sample
// is one of the matches the seat may really be in. The conformance suite
// (engine/testing/conformance.h) deals from every seat's view at every step
// of its matches with this same function.

#include <memory>

#include "absl/status/statusor.h"
#include "engine/game.h"
#include "engine/rng.h"

namespace hoard::engine {

class Sampler {
 public:
  virtual ~Sampler() = default;

  // The seat whose view `view` is. kInvalidArgument when `view` is not this
  // game's view or is a spectator's.
  virtual absl::StatusOr<Seat> Observer(const View& view) const = 0;

  // A full state whose ViewFor(Observer(view)) Equals `view`, its hidden
  // cards and sealed answers drawn from `rng`. kInvalidArgument when `view`
  // is not a seat's view of this game or could not come from any match
  // (more cards shown than the game has); never crashes on such a view.
  virtual absl::StatusOr<std::unique_ptr<State>> Sample(const View& view, Rng& rng) const = 0;
};

}  // namespace hoard::engine

#endif  // HOARD_ENGINE_SAMPLER_H_
