#include "engine/seed_commitment.h"

#include <set>

#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::engine {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

// Computed apart from this code, with
//   printf '%s:%s' 7 00112233445566778899aabbccddeeff | sha256sum
TEST(SeedCommitmentTest, IsTheSha256OfSeedColonSalt) {
  EXPECT_EQ(SeedCommitment(7, "00112233445566778899aabbccddeeff"),
            "a4dd03cae561477bd3b71c19fd25261a8d39c293d210eac054f09d35765e1a34");
  // The largest seed, in decimal as a record writes it.
  EXPECT_EQ(SeedCommitment(18446744073709551615ULL, "ffeeddccbbaa99887766554433221100"),
            "3155d5591f06cf30b2ef25f1aeaf1340ec17d652db0cd9a82c9b79dae879833b");
}

TEST(SeedCommitmentTest, SaltsAreFreshLowercaseHex) {
  std::set<std::string> salts;
  for (int i = 0; i < 100; ++i) {
    const std::string salt = NewSeedSalt();
    EXPECT_THAT(salt, MatchesRegex("[0-9a-f]{32}"));
    salts.insert(salt);
  }
  EXPECT_EQ(salts.size(), 100u);
}

TEST(SeedCommitmentTest, CheckNamesWhatDiffers) {
  const std::string salt = "00112233445566778899aabbccddeeff";
  const std::string commitment = SeedCommitment(7, salt);
  EXPECT_THAT(CheckSeedCommitment(7, salt, commitment), IsOk());
  EXPECT_THAT(CheckSeedCommitment(8, salt, commitment),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("its seed and salt do not hash to its seed_commitment "
                                 "(SHA-256 of \"8:00112233445566778899aabbccddeeff\" is ")));
  EXPECT_THAT(CheckSeedCommitment(7, "", commitment),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no seed_salt")));
}

}  // namespace
}  // namespace hoard::engine
