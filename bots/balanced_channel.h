#ifndef HOARD_BOTS_BALANCED_CHANNEL_H_
#define HOARD_BOTS_BALANCED_CHANNEL_H_

// One client channel over several Hoard servers, each call to the next of
// them: gRPC's static resolver for their addresses and its round_robin
// policy do the work.

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace grpc {
class Channel;
}  // namespace grpc

namespace hoard::bots {

// The target of gRPC's static resolver for several servers, each
// host:port ("[v6]:port" for an IPv6 literal): "ipv4:A:P,B:Q" or
// "ipv6:[A]:P,...". A name is resolved here, once, to its first IPv4
// address, else its first IPv6 one; the servers must all have an address of
// one family. kInvalidArgument naming the address that is no host:port, does
// not resolve, is given twice, or leaves no family common to all.
absl::StatusOr<std::string> StaticTarget(const std::vector<std::string>& addresses);

// Makes calls on `channel` (one over several servers) until `servers`
// different servers have answered, or `timeout` passes: gRPC's round_robin
// sends calls only to servers it is connected to, so without this the first
// calls all go to whichever server answered first. Whether they all did.
bool AwaitEveryServer(grpc::Channel& channel, std::size_t servers, absl::Duration timeout);

}  // namespace hoard::bots

#endif  // HOARD_BOTS_BALANCED_CHANNEL_H_
