#include "engine/state_packer.h"

#include "xxhash.h"

namespace hoard::engine {

std::uint64_t StatePacker::Hash() const {
  return XXH3_64bits(words_.data(), words_.size() * sizeof(std::uint32_t));
}

std::uint64_t HashText(std::string_view text) { return XXH3_64bits(text.data(), text.size()); }

}  // namespace hoard::engine
