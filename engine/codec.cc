#include "engine/codec.h"

#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/check.h"

namespace hoard::engine {
namespace {

std::map<std::string, std::unique_ptr<GameCodec>>& Codecs() {
  static auto* codecs = new std::map<std::string, std::unique_ptr<GameCodec>>;
  return *codecs;
}

}  // namespace

absl::StatusOr<const GameCodec*> FindCodec(absl::string_view id) {
  auto it = Codecs().find(std::string(id));
  if (it == Codecs().end()) {
    return absl::NotFoundError(absl::StrCat("no wire codec for game '", id, "'"));
  }
  return it->second.get();
}

CodecRegistrar::CodecRegistrar(absl::string_view id,
                               std::unique_ptr<GameCodec> codec) {
  const bool inserted =
      Codecs().emplace(std::string(id), std::move(codec)).second;
  HOARD_CHECK(inserted, "a game's codec is registered twice");
}

}  // namespace hoard::engine
