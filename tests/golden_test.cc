// Golden matches: for every game and player count, one seeded match played by
// a seeded random chooser must end exactly as recorded in
// tests/golden_matches.txt — the same number of actions, the same final state
// (its fingerprint) and the same scores. A change of the rules' results fails
// here: then bump the game's ruleset_version (old records no longer replay
// the same) and record the new results with
//
//   HOARD_UPDATE_GOLDEN=$PWD/tests/golden_matches.txt build/tests/golden_test

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/record.h"
#include "engine/registry.h"
#include "engine/rng.h"
#include "gtest/gtest.h"

namespace hoard {
namespace {

constexpr std::uint64_t kSeed = 20261123;

// "village 4 <ruleset> <actions> <fingerprint> <score,score,...>" for the
// golden match of `game` with `players`.
std::string PlayGolden(const engine::Game& game, int players) {
  std::unique_ptr<engine::State> state = *game.NewMatch({.num_players = players, .seed = kSeed});
  engine::Rng chooser(kSeed + static_cast<std::uint64_t>(players));
  std::vector<engine::Action> legal;
  int actions = 0;
  while (!state->IsOver()) {
    const engine::Seat seat = state->SeatsToAct()[0];
    state->LegalActions(seat, &legal);
    if (!state->Apply(seat, legal[chooser.Uniform(legal.size())]).ok()) return "refused";
    ++actions;
  }
  return absl::StrCat(game.info().id, " ", players, " ", game.info().ruleset_version, " ", actions,
                      " ", engine::TextFingerprint(*state), " ",
                      absl::StrJoin(state->Scores(), ","));
}

std::string GoldenPath() { return absl::StrCat(HOARD_SOURCE_DIR, "/tests/golden_matches.txt"); }

TEST(GoldenTest, EveryGameEndsItsGoldenMatchAsRecorded) {
  std::vector<std::string> played;
  for (const engine::Game* game : engine::AllGames()) {
    for (int n = game->info().min_players; n <= game->info().max_players; ++n) {
      played.push_back(PlayGolden(*game, n));
    }
  }
  if (const char* update = std::getenv("HOARD_UPDATE_GOLDEN")) {
    std::ofstream out(update);
    out << "# game players ruleset actions fingerprint scores (tests/golden_test.cc)\n";
    for (const std::string& line : played) out << line << "\n";
    GTEST_SKIP() << "wrote " << update;
  }
  std::map<std::string, std::string> expected;  // "game players" -> line
  std::ifstream in(GoldenPath());
  ASSERT_TRUE(in.good()) << "cannot read " << GoldenPath();
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string game, players;
    words >> game >> players;
    expected[game + " " + players] = line;
  }
  for (const std::string& line : played) {
    std::istringstream words(line);
    std::string game, players;
    words >> game >> players;
    auto it = expected.find(game + " " + players);
    ASSERT_NE(it, expected.end()) << "no golden match for " << game << " with " << players
                                  << " players in " << GoldenPath() << "; it played: " << line;
    EXPECT_EQ(line, it->second)
        << "the golden match of " << game << " with " << players
        << " players ended differently: if the rules changed on purpose, bump the game's "
           "ruleset_version and update the file (see tests/golden_test.cc)";
  }
  EXPECT_EQ(played.size(), expected.size()) << "a game or player count in the file is gone";
}

}  // namespace
}  // namespace hoard
