#ifndef HOARD_ENGINE_SEED_COMMITMENT_H_
#define HOARD_ENGINE_SEED_COMMITMENT_H_

// Commitments to a match's deal, which anyone can check.
//
// When a match is created its creator draws a random salt and publishes
//
//   commitment = SHA-256 of the ASCII text "SEED:SALT"
//
// (the seed in decimal, a colon, the salt's 32 lowercase hex digits), as 64
// lowercase hex digits. The seed fixes the deal, so publishing the
// commitment before the first move fixes the deal without telling it; once
// the match is over the record carries the seed and the salt, and anyone
// hashes them again:
//
//   printf '%s:%s' "$(jq -r .seed r.json)" "$(jq -r .seed_salt r.json)" | sha256sum
//
// The salt keeps the commitment from giving the seed away: without it, the
// 2^64 seeds could be hashed one by one until one matched.

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hoard::engine {

// Random bytes in a salt (so 32 hex digits).
inline constexpr int kSeedSaltBytes = 16;

// A fresh salt: kSeedSaltBytes from OpenSSL's RAND_bytes, as lowercase hex.
// (Each thread draws the bytes of 64 salts at once and hands each out once.)
std::string NewSeedSalt();

// SHA-256 of "SEED:SALT", as 64 lowercase hex digits.
std::string SeedCommitment(std::uint64_t seed, absl::string_view salt);

// OK when `seed` and `salt` hash to `commitment`. Otherwise
// kInvalidArgument, saying so in one sentence that names the hash they make
// and the commitment (also for a commitment with no salt).
absl::Status CheckSeedCommitment(std::uint64_t seed, absl::string_view salt,
                                 absl::string_view commitment);

}  // namespace hoard::engine

#endif  // HOARD_ENGINE_SEED_COMMITMENT_H_
