#include "engine/seed_commitment.h"

#include <openssl/rand.h>
#include <openssl/sha.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "engine/check.h"

namespace hoard::engine {

std::string NewSeedSalt() {
  unsigned char bytes[kSeedSaltBytes];
  HOARD_CHECK(RAND_bytes(bytes, sizeof(bytes)) == 1, "OpenSSL's random generator gives bytes");
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(bytes), sizeof(bytes)));
}

std::string SeedCommitment(std::uint64_t seed, absl::string_view salt) {
  const std::string text = absl::StrCat(seed, ":", salt);
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), sizeof(digest)));
}

absl::Status CheckSeedCommitment(std::uint64_t seed, absl::string_view salt,
                                 absl::string_view commitment) {
  if (salt.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("it carries a seed_commitment (", commitment,
                                                   ") but no seed_salt to check it with"));
  }
  const std::string made = SeedCommitment(seed, salt);
  if (made == commitment) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("its seed and salt do not hash to its seed_commitment (SHA-256 of \"", seed, ":",
                   salt, "\" is ", made, ", the commitment is ", commitment, ")"));
}

}  // namespace hoard::engine
