#ifndef HOARD_TOURNAMENT_MATCH_REQUEST_H_
#define HOARD_TOURNAMENT_MATCH_REQUEST_H_

// What a request for a match may ask for. A tournament spec asks for
// matches as CreateMatch does: its game, options and time control are
// checked by the same rules when the spec is read as when the arena
// (service/arena.h) starts each match, so a spec that passes never fails
// later on them.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/map.h"
#include "hoard/v1/arena.pb.h"

namespace hoard::tournament {

// A seat's clock: decision_ms per decision, then the bank; max_strikes
// time-outs forfeit the seat (0: never).
struct TimeControl {
  int decision_ms = 5000;
  int bank_ms = 30000;
  int max_strikes = 3;
};

// The time control a request asks for, with the defaults for what it leaves
// unset; kInvalidArgument names a field out of range.
absl::StatusOr<TimeControl> TimeControlFrom(const hoard::v1::TimeControl& wire);

// Client strings that reach the engine, bounded first: a game id and option
// names of at most 64 characters, values of at most 256, at most 64 options.
// kInvalidArgument (quoting at most 64 characters) otherwise.
absl::Status CheckClientStrings(const std::string& game,
                                const google::protobuf::Map<std::string, std::string>& options);

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_MATCH_REQUEST_H_
