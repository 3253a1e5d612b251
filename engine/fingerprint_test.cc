// State::Fingerprint() of every game against its canonical text: over the
// states of random matches, equal texts give equal fingerprints and different
// texts different ones.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "engine/game.h"
#include "engine/registry.h"
#include "engine/rng.h"
#include "engine/state_packer.h"
#include "gtest/gtest.h"

namespace hoard::engine {
namespace {

TEST(FingerprintTest, EveryGameFingerprintsItsTextExactly) {
  for (const Game* game : AllGames()) {
    const GameInfo& info = game->info();
    SCOPED_TRACE(info.id);
    absl::flat_hash_map<std::string, std::uint64_t> by_text;
    absl::flat_hash_map<std::uint64_t, std::string> by_fingerprint;
    int states = 0;
    for (int players = info.min_players; players <= info.max_players; ++players) {
      for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        std::unique_ptr<State> state =
            *game->NewMatch({.num_players = players, .seed = seed * 7919 + players});
        Rng rng(seed);
        std::vector<Action> legal;
        while (true) {
          const std::string text = state->ToString();
          const std::uint64_t fingerprint = state->Fingerprint();
          ++states;
          auto [text_it, new_text] = by_text.try_emplace(text, fingerprint);
          ASSERT_EQ(text_it->second, fingerprint) << "one state, two fingerprints:\n" << text;
          auto [fp_it, new_fp] = by_fingerprint.try_emplace(fingerprint, text);
          ASSERT_EQ(fp_it->second, text) << "two states, one fingerprint:\n"
                                         << text << "\n---\n"
                                         << fp_it->second;
          EXPECT_EQ(state->Clone()->Fingerprint(), fingerprint);
          if (state->IsOver()) break;
          const Seat seat = state->SeatsToAct()[0];
          state->LegalActions(seat, &legal);
          ASSERT_TRUE(state->Apply(seat, legal[rng.Uniform(legal.size())]).ok());
        }
      }
    }
    // Many distinct states were seen (a fingerprint that ignored most of the
    // state would have failed above).
    EXPECT_GT(by_text.size(), 1000u) << states << " states";
  }
}

TEST(FingerprintTest, PackedWordsAreTheSameOnEveryBuild) {
  // The packing and the hash are fixed: these values are part of format 2.
  // The words below, written little-endian to a file, give the same value
  // from `xxhsum -H3`: 0, -1, 7, 0x80000000+'|', 0x89abcdef, 0x01234567, 1,
  // 2, 3, 0x80000000+';', 0x80000000+':'.
  StatePacker packer;
  packer.Num(0);
  packer.Num(-1);
  packer.Digit(7);
  packer.Mark('|');
  packer.Wide(0x0123456789abcdefULL);
  packer.List(std::vector<int>{1, 2, 3});
  packer.Label("\nrng:");
  EXPECT_EQ(packer.Hash(), 0xc52085f0498644deULL);
  EXPECT_EQ(HashText(""), 0x2d06800538d394c2ULL);  // XXH3-64 of nothing
}

}  // namespace
}  // namespace hoard::engine
