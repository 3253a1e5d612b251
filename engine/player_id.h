#ifndef HOARD_ENGINE_PLAYER_ID_H_
#define HOARD_ENGINE_PLAYER_ID_H_

// Who holds a seat, and what a bot may be called.
//
// Matches, records, the store and the wire name a seat's player with one
// string: "builtin:NAME" for a built-in bot that the host runs itself,
// "bot:NAME" for a bot account that plays over the network, or "open" for a
// seat that a seat token may still join. PlayerId is that string as a value:
// it is built and parsed here and nowhere else.
//
// A bot name is 1 to 64 letters, digits, '_', '-' or '.', with at most one
// '@' between a name and a version ("alice@2"). Accounts, seats,
// leaderboards, log lines and the files of launched bots all carry it, so
// it holds no space, quote, comma, colon or slash.

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hoard::engine {

// The longest bot name, version included.
inline constexpr int kMaxBotNameLength = 64;

// What a seat's player reads while no bot holds it: a seat token joins it.
inline constexpr absl::string_view kOpenSeat = "open";

// OK if `name` is a bot name ("name" or "name@version"); otherwise
// kInvalidArgument saying what is wrong with it.
absl::Status CheckBotName(absl::string_view name);

// OK if `word` may stand on one side of a bot name's '@': 1 to 64 letters,
// digits, '_', '-' or '.'. A tournament spec gives a participant's name and
// version apart; each is checked with this, and the two joined with
// CheckBotName. kInvalidArgument saying what is wrong otherwise.
absl::Status CheckBotNameWord(absl::string_view word);

// "name@version", or `name` alone when `version` is empty.
std::string JoinBotName(absl::string_view name, absl::string_view version);

class PlayerId {
 public:
  enum class Kind { kBuiltin, kBot };

  // A built-in bot (by its name in `hoard games`, or a tournament
  // participant's leaderboard name) and a bot account. The name is taken as
  // given: Parse checks what comes from outside.
  static PlayerId Builtin(std::string name) { return PlayerId(Kind::kBuiltin, std::move(name)); }
  static PlayerId Bot(std::string name) { return PlayerId(Kind::kBot, std::move(name)); }

  // "builtin:NAME" or "bot:NAME" with NAME a bot name. kInvalidArgument
  // otherwise (an "open" seat included: it has no player yet), saying why.
  static absl::StatusOr<PlayerId> Parse(absl::string_view text);

  Kind kind() const { return kind_; }
  bool is_builtin() const { return kind_ == Kind::kBuiltin; }
  bool is_bot() const { return kind_ == Kind::kBot; }
  // The whole name: "name" or "name@version".
  const std::string& name() const { return name_; }
  // The name before its '@' (all of it without one), and the version after
  // it (empty without one).
  absl::string_view base_name() const;
  absl::string_view version() const;

  // The string that Parse reads: "builtin:NAME" or "bot:NAME".
  std::string ToString() const;

  friend bool operator==(const PlayerId&, const PlayerId&) = default;

 private:
  PlayerId(Kind kind, std::string name) : kind_(kind), name_(std::move(name)) {}

  Kind kind_;
  std::string name_;
};

}  // namespace hoard::engine

#endif  // HOARD_ENGINE_PLAYER_ID_H_
