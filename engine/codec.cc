#include "engine/codec.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "hoard/v1/arena.pb.h"

namespace hoard::engine {

absl::Status CheckActionGame(const hoard::v1::Action& action, absl::string_view id) {
  if (action.game_case() == hoard::v1::Action::GAME_NOT_SET) {
    return absl::InvalidArgumentError(
        absl::StrCat("the action names no game: set its '", id, "' field"));
  }
  const std::string& branch = action.GetDescriptor()->FindFieldByNumber(action.game_case())->name();
  if (branch != id) {
    return absl::InvalidArgumentError(
        absl::StrCat("the action is for another game ('", branch, "'); this match plays ", id));
  }
  return absl::OkStatus();
}

}  // namespace hoard::engine
