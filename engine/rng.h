#ifndef HOARD_ENGINE_RNG_H_
#define HOARD_ENGINE_RNG_H_

// A portable, seeded pseudo-random generator and shuffle.
//
// Every random choice a game makes goes through Rng, so a match is reproduced
// exactly by its seed and its actions, on any compiler and standard library.
// (std::shuffle and std::uniform_int_distribution are implementation-defined
// and must not be used by games.)
//
// The generator is xoshiro256** seeded through SplitMix64; bounded integers
// use rejection sampling, so they are unbiased and fully specified here.

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

namespace hoard::engine {

class Rng {
 public:
  // Seeds the generator. Equal seeds give equal sequences everywhere.
  explicit Rng(std::uint64_t seed);

  // The next 64 uniformly distributed bits.
  std::uint64_t Next();

  // A uniform integer in [0, bound). REQUIRES: bound > 0.
  std::uint64_t Uniform(std::uint64_t bound);

  // Fisher–Yates: every permutation of `items` is equally likely.
  template <typename T>
  void Shuffle(std::span<T> items) {
    for (std::size_t i = items.size(); i > 1; --i) {
      std::size_t j = static_cast<std::size_t>(Uniform(i));
      std::swap(items[i - 1], items[j]);
    }
  }

  // A fresh seed for an independent stream (a match seed, a bot's seed).
  std::uint64_t Fork() { return Next(); }

  friend bool operator==(const Rng&, const Rng&) = default;

 private:
  std::uint64_t s_[4];
};

}  // namespace hoard::engine

#endif  // HOARD_ENGINE_RNG_H_
