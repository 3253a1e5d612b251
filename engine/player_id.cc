#include "engine/player_id.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "engine/clip.h"

namespace hoard::engine {
namespace {

constexpr absl::string_view kBuiltinPrefix = "builtin:";
constexpr absl::string_view kBotPrefix = "bot:";

// Quoted for a message: escaped, so a control character cannot forge a log
// line, and bounded.
std::string Quote(absl::string_view text) {
  return absl::StrCat("'", Clip(absl::CHexEscape(text)), "'");
}

bool IsNameCharacter(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

// What is wrong with `text` as a bot name (`whole`: '@' and a version
// allowed) or as one word of one, said after the text itself; empty if
// nothing is.
std::string Fault(absl::string_view text, bool whole) {
  if (text.empty()) return "is empty";
  if (text.size() > static_cast<std::size_t>(kMaxBotNameLength)) {
    return absl::StrCat("has ", text.size(), " characters, more than ", kMaxBotNameLength);
  }
  for (char c : text) {
    if (IsNameCharacter(c) || (whole && c == '@')) continue;
    return absl::StrCat("holds ", Quote(absl::string_view(&c, 1)),
                        whole ? ", which is not a letter, digit, '_', '-', '.' or '@'"
                              : ", which is not a letter, digit, '_', '-' or '.'");
  }
  if (!whole) return "";
  const std::size_t at = text.find('@');
  if (at == absl::string_view::npos) return "";
  // One '@' separates a name from its version ("alice@2").
  if (text.find('@', at + 1) != absl::string_view::npos) {
    return "holds more than one '@' (one separates a name from its version)";
  }
  if (at == 0) return "has no name before its '@'";
  if (at + 1 == text.size()) return "has no version after its '@'";
  return "";
}

// The text of a fault with the text it is about, unless that is too long
// to quote.
std::string Described(absl::string_view text, absl::string_view fault) {
  if (text.empty() || text.size() > static_cast<std::size_t>(kMaxBotNameLength)) {
    return std::string(fault);
  }
  return absl::StrCat(Quote(text), " ", fault);
}

}  // namespace

absl::Status CheckBotName(absl::string_view name) {
  const std::string fault = Fault(name, /*whole=*/true);
  if (fault.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("bot name ", Described(name, fault)));
}

absl::Status CheckBotNameWord(absl::string_view word) {
  const std::string fault = Fault(word, /*whole=*/false);
  if (fault.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(Described(word, fault));
}

std::string JoinBotName(absl::string_view name, absl::string_view version) {
  return version.empty() ? std::string(name) : absl::StrCat(name, "@", version);
}

absl::StatusOr<PlayerId> PlayerId::Parse(absl::string_view text) {
  Kind kind;
  absl::string_view name = text;
  if (absl::ConsumePrefix(&name, kBuiltinPrefix)) {
    kind = Kind::kBuiltin;
  } else if (absl::ConsumePrefix(&name, kBotPrefix)) {
    kind = Kind::kBot;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("a seat's player is builtin:NAME or bot:NAME, not ", Quote(text)));
  }
  if (absl::Status valid = CheckBotName(name); !valid.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("player ", Quote(text), ": ", valid.message()));
  }
  return PlayerId(kind, std::string(name));
}

absl::string_view PlayerId::base_name() const {
  const absl::string_view name = name_;
  return name.substr(0, name.find('@'));
}

absl::string_view PlayerId::version() const {
  const std::size_t at = name_.find('@');
  if (at == std::string::npos) return {};
  return absl::string_view(name_).substr(at + 1);
}

std::string PlayerId::ToString() const {
  return absl::StrCat(kind_ == Kind::kBuiltin ? kBuiltinPrefix : kBotPrefix, name_);
}

}  // namespace hoard::engine
