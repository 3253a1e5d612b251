#ifndef HOARD_ENGINE_CLIP_H_
#define HOARD_ENGINE_CLIP_H_

// Client-supplied text quoted in an error message or a log line is bounded
// first, so a client cannot make the server repeat megabytes back to it or
// into its logs.

#include <cstddef>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace hoard::engine {

// `text` cut to at most 64 characters, a cut marked with "...".
inline std::string Clip(absl::string_view text) {
  constexpr std::size_t kMax = 64;
  if (text.size() <= kMax) return std::string(text);
  return absl::StrCat(text.substr(0, kMax - 3), "...");
}

}  // namespace hoard::engine

#endif  // HOARD_ENGINE_CLIP_H_
