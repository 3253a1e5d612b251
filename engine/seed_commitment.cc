#include "engine/seed_commitment.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <array>
#include <memory>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "engine/check.h"

namespace hoard::engine {

std::string NewSeedSalt() {
  // Drawn for many salts at once: a call to the generator costs far more
  // than the bytes of one salt. Each thread hands out its own, once each,
  // and wipes what it handed out.
  constexpr std::size_t kSaltsPerDraw = 64;
  thread_local std::array<unsigned char, kSeedSaltBytes * kSaltsPerDraw> drawn;
  thread_local std::size_t used = drawn.size();
  if (used == drawn.size()) {
    HOARD_CHECK(RAND_bytes(drawn.data(), static_cast<int>(drawn.size())) == 1,
                "OpenSSL's random generator gives bytes");
    used = 0;
  }
  unsigned char* bytes = drawn.data() + used;
  used += kSeedSaltBytes;
  std::string salt = absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(bytes), kSeedSaltBytes));
  OPENSSL_cleanse(bytes, kSeedSaltBytes);
  return salt;
}

std::string SeedCommitment(std::uint64_t seed, absl::string_view salt) {
  // A match's commitment is asked for more than once on the thread that
  // plays it (the host, then the store): the last one is kept.
  struct Last {
    std::uint64_t seed = 0;
    std::string salt;
    std::string commitment;
  };
  thread_local Last last;
  if (!last.commitment.empty() && last.seed == seed && last.salt == salt) return last.commitment;
  // Fetched once, and a context kept by each thread: setting them up is
  // most of a short digest's cost.
  static EVP_MD* const kSha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  HOARD_CHECK(kSha256 != nullptr, "OpenSSL provides SHA-256");
  thread_local const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(
      EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  HOARD_CHECK(context != nullptr, "OpenSSL makes a digest context");
  const std::string text = absl::StrCat(seed, ":", salt);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HOARD_CHECK(EVP_DigestInit_ex(context.get(), kSha256, nullptr) == 1 &&
                  EVP_DigestUpdate(context.get(), text.data(), text.size()) == 1 &&
                  EVP_DigestFinal_ex(context.get(), digest, &length) == 1,
              "OpenSSL hashes with SHA-256");
  last.seed = seed;
  last.salt.assign(salt.data(), salt.size());
  last.commitment =
      absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(digest), length));
  return last.commitment;
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
