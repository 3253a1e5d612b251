#include "engine/codec.h"

#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/check.h"
#include "hoard/v1/arena.pb.h"

namespace hoard::engine {
namespace {

std::map<std::string, std::unique_ptr<GameCodec>>& Codecs() {
  static auto* codecs = new std::map<std::string, std::unique_ptr<GameCodec>>;
  return *codecs;
}

}  // namespace

absl::Status CheckActionGame(const hoard::v1::Action& action,
                             absl::string_view id) {
  if (action.game_case() == hoard::v1::Action::GAME_NOT_SET) {
    return absl::InvalidArgumentError(
        absl::StrCat("the action names no game: set its '", id, "' field"));
  }
  const std::string& branch =
      action.GetDescriptor()->FindFieldByNumber(action.game_case())->name();
  if (branch != id) {
    return absl::InvalidArgumentError(
        absl::StrCat("the action is for another game ('", branch,
                     "'); this match plays ", id));
  }
  return absl::OkStatus();
}

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
