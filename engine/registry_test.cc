#include "engine/registry.h"

#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::engine {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;

TEST(RegistryTest, FindsVillage) {
  absl::StatusOr<const Game*> game = FindGame("village");
  ASSERT_THAT(game, IsOk());
  EXPECT_EQ((*game)->info().name, "Please Don't Burn My Village!");
  EXPECT_EQ((*game)->info().min_players, 2);
  EXPECT_EQ((*game)->info().max_players, 5);
}

TEST(RegistryTest, UnknownGameNamesTheKnownOnes) {
  EXPECT_THAT(FindGame("chess"),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("unknown game 'chess' (known: dragons_gold, frost_dragon, hedonia, village)")));
}

TEST(RegistryTest, BadPlayerCountAndUnknownOptionAreRefused) {
  const Game* game = *FindGame("village");
  EXPECT_THAT(game->NewMatch({.num_players = 6}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("2 to 5 players, not 6")));
  EXPECT_THAT(game->NewMatch({.num_players = 3, .options = {{"dragons", "2"}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("no option 'dragons'")));
}

}  // namespace
}  // namespace hoard::engine
