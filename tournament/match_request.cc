#include "tournament/match_request.h"

#include <cstddef>

#include "absl/strings/str_cat.h"
#include "engine/clip.h"

namespace hoard::tournament {

absl::StatusOr<TimeControl> TimeControlFrom(const hoard::v1::TimeControl& wire) {
  TimeControl tc;
  if (wire.has_decision_ms()) tc.decision_ms = wire.decision_ms();
  if (wire.has_bank_ms()) tc.bank_ms = wire.bank_ms();
  if (wire.has_max_strikes()) tc.max_strikes = wire.max_strikes();
  if (tc.decision_ms < 1 || tc.decision_ms > 600000) {
    return absl::InvalidArgumentError("time_control.decision_ms must be from 1 to 600000");
  }
  if (tc.bank_ms < 0 || tc.bank_ms > 3600000) {
    return absl::InvalidArgumentError("time_control.bank_ms must be from 0 to 3600000");
  }
  if (tc.max_strikes < 0 || tc.max_strikes > 1000) {
    return absl::InvalidArgumentError(
        "time_control.max_strikes must be from 0 (never forfeit) to 1000");
  }
  return tc;
}

absl::Status CheckClientStrings(const std::string& game,
                                const google::protobuf::Map<std::string, std::string>& options) {
  constexpr std::size_t kMaxId = 64, kMaxValue = 256, kMaxOptions = 64;
  if (game.size() > kMaxId) {
    return absl::InvalidArgumentError(absl::StrCat("a game id has at most ", kMaxId,
                                                   " characters, not '", engine::Clip(game), "'"));
  }
  if (options.size() > kMaxOptions) {
    return absl::InvalidArgumentError(
        absl::StrCat("a match takes at most ", kMaxOptions, " options, not ", options.size()));
  }
  for (const auto& [name, value] : options) {
    if (name.size() > kMaxId || value.size() > kMaxValue) {
      return absl::InvalidArgumentError(absl::StrCat("option '", engine::Clip(name),
                                                     "': names have at most ", kMaxId,
                                                     " characters and values at most ", kMaxValue));
    }
  }
  return absl::OkStatus();
}

}  // namespace hoard::tournament
