#include "bots/token_files.h"

#include <openssl/sha.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace hoard::bots {

absl::StatusOr<std::vector<std::string>> ReadTokenFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read the token file ", path));
  std::vector<std::string> tokens;
  std::string line;
  while (std::getline(in, line)) {
    const absl::string_view token = absl::StripAsciiWhitespace(line);
    if (token.empty() || token[0] == '#') continue;
    tokens.emplace_back(token);
  }
  if (tokens.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("the token file ", path, " holds no token"));
  }
  return tokens;
}

std::string DefaultStateDir() {
  if (const char* dir = std::getenv("HOARD_STATE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  if (const char* dir = std::getenv("XDG_STATE_HOME"); dir != nullptr && *dir != '\0') {
    return absl::StrCat(dir, "/hoard");
  }
  const char* home = std::getenv("HOME");
  return absl::StrCat(home != nullptr && *home != '\0' ? home : ".", "/.local/state/hoard");
}

std::string Fingerprint(absl::string_view token) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest);
  return absl::BytesToHexString(
             absl::string_view(reinterpret_cast<const char*>(digest), sizeof digest))
      .substr(0, 8);
}

}  // namespace hoard::bots
