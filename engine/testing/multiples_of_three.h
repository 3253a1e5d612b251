#ifndef HOARD_ENGINE_TESTING_MULTIPLES_OF_THREE_H_
#define HOARD_ENGINE_TESTING_MULTIPLES_OF_THREE_H_

// Multiples of three: a toy game whose decisions have too many legal actions
// to list, for the tests of what drives games (the conformance suite, the
// match host). It is not registered.
//
// In turn, each seat names a multiple of 3 from 0 to `largest`; the number
// named is its score. Nothing is hidden. A seat's legal actions are not
// complete: it is given three examples — 0, 3 × (number of seats that have
// named one so far + 1), and `largest` — and the constraint in words. An
// action's code is the number it names ("name 42").

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "engine/game.h"
#include "engine/sampler.h"

namespace hoard::engine::testing {

struct MultiplesOfThreeOptions {
  // The largest number a seat may name. REQUIRES: a multiple of 3.
  std::uint64_t largest = (std::uint64_t{1} << 40) - 1;
  // Defects, to show that the conformance suite catches them:
  bool bad_example = false;  // the second example is 4, which Apply refuses
  bool no_hint = false;      // LegalActionsHint() is empty
};

class MultiplesOfThree final : public Game {
 public:
  explicit MultiplesOfThree(MultiplesOfThreeOptions options = {});
  const GameInfo& info() const override { return info_; }
  // 2 to 4 players; no options.
  absl::StatusOr<std::unique_ptr<State>> NewMatch(const MatchConfig& config) const override;
  // Its deal (engine/sampler.h), with the same options.
  std::unique_ptr<Sampler> Deal() const;

 private:
  GameInfo info_;
  MultiplesOfThreeOptions options_;
};

}  // namespace hoard::engine::testing

#endif  // HOARD_ENGINE_TESTING_MULTIPLES_OF_THREE_H_
