#ifndef HOARD_BOTS_TOKEN_FILES_H_
#define HOARD_BOTS_TOKEN_FILES_H_

// Tokens as servers and clients both handle them (docs/security.md): token
// files, one token a line, in a state directory of this user's; and the
// fingerprint that names a token without giving it away.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hoard::bots {

// The tokens in a file: one a line, blank lines and '#' comments skipped.
// kNotFound if it cannot be read, kInvalidArgument if it holds none.
absl::StatusOr<std::vector<std::string>> ReadTokenFile(const std::string& path);

// Where this user's Hoard servers keep generated tokens: $HOARD_STATE_DIR,
// else $XDG_STATE_HOME/hoard, else $HOME/.local/state/hoard.
std::string DefaultStateDir();

// The first 8 hex digits of the token's SHA-256: names a token in logs,
// limits and messages without giving it away.
std::string Fingerprint(absl::string_view token);

}  // namespace hoard::bots

#endif  // HOARD_BOTS_TOKEN_FILES_H_
