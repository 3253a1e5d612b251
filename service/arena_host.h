#ifndef HOARD_SERVICE_ARENA_HOST_H_
#define HOARD_SERVICE_ARENA_HOST_H_

// The arena of this process as a tournament's match host
// (tournament::MatchHost). Built-in bots play inside it without the
// network; the arena does not store these matches (the tournament does).
// A server over gRPC is tournament::RemoteHost instead.

#include <memory>
#include <string>

#include "service/arena.h"
#include "tournament/host.h"

namespace hoard::service {

// `arena` must outlive the host. `bot_address`: where the process serves
// gRPC for bots, if it does (empty: only built-in bots can play here).
std::unique_ptr<tournament::MatchHost> ArenaHost(Arena* arena, std::string bot_address);

}  // namespace hoard::service

#endif  // HOARD_SERVICE_ARENA_HOST_H_
