#include "engine/game.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/state_packer.h"

namespace hoard::engine {

std::uint64_t State::Fingerprint() const { return HashText(ToString()); }

absl::Status ValidateConfig(const GameInfo& info, const MatchConfig& config) {
  if (config.num_players < info.min_players || config.num_players > info.max_players) {
    return absl::InvalidArgumentError(absl::StrCat(info.id, " is played by ", info.min_players,
                                                   " to ", info.max_players, " players, not ",
                                                   config.num_players));
  }
  for (const auto& [name, value] : config.options) {
    bool known = false;
    for (const GameOption& option : info.options) known |= option.name == name;
    if (!known) {
      std::vector<std::string> names;
      for (const GameOption& option : info.options) names.push_back(option.name);
      return absl::InvalidArgumentError(absl::StrCat(
          info.id, " has no option '", name, "' (options: ", absl::StrJoin(names, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

std::string OptionValue(const GameInfo& info, const MatchConfig& config, const std::string& name) {
  if (auto it = config.options.find(name); it != config.options.end()) {
    return it->second;
  }
  for (const GameOption& option : info.options) {
    if (option.name == name) return option.default_value;
  }
  return "";
}

absl::StatusOr<bool> TwoWayOption(const GameInfo& info, const MatchConfig& config,
                                  const std::string& name, const std::string& first,
                                  const std::string& second) {
  const std::string value = OptionValue(info, config, name);
  if (value != first && value != second) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be '", first, "' or '", second, "', not '", value, "'"));
  }
  return value == second;
}

}  // namespace hoard::engine
