#include "bots/balanced_channel.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <memory>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "hoard/v1/arena.grpc.pb.h"

namespace hoard::bots {
namespace {

// The first IPv4 and the first IPv6 address of `host` (either may be empty).
struct Resolved {
  std::string v4, v6;
};

absl::StatusOr<Resolved> Resolve(const std::string& address) {
  const std::size_t colon = address.rfind(':');
  int port = 0;
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(address.substr(colon + 1), &port) || port <= 0 || port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat("'", address, "' is not a server's HOST:PORT"));
  }
  std::string host = address.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int error = getaddrinfo(host.c_str(), nullptr, &hints, &found); error != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot resolve the server ", address, ": ", gai_strerror(error)));
  }
  Resolved resolved;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    char text[INET6_ADDRSTRLEN] = {};
    if (a->ai_family == AF_INET && resolved.v4.empty()) {
      inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(a->ai_addr)->sin_addr, text,
                sizeof(text));
      resolved.v4 = absl::StrCat(text, ":", port);
    } else if (a->ai_family == AF_INET6 && resolved.v6.empty()) {
      inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(a->ai_addr)->sin6_addr, text,
                sizeof(text));
      resolved.v6 = absl::StrCat("[", text, "]:", port);
    }
  }
  freeaddrinfo(found);
  return resolved;
}

}  // namespace

absl::StatusOr<std::string> StaticTarget(const std::vector<std::string>& addresses) {
  std::vector<std::string> v4, v6;
  std::set<std::string> seen;
  for (const std::string& address : addresses) {
    if (!seen.insert(address).second) {
      return absl::InvalidArgumentError(absl::StrCat("the server ", address, " is given twice"));
    }
    absl::StatusOr<Resolved> resolved = Resolve(address);
    if (!resolved.ok()) return resolved.status();
    v4.push_back(resolved->v4);
    v6.push_back(resolved->v6);
  }
  auto all = [](const std::vector<std::string>& list) {
    return std::none_of(list.begin(), list.end(), [](const std::string& a) { return a.empty(); });
  };
  if (all(v4)) return absl::StrCat("ipv4:", absl::StrJoin(v4, ","));
  if (all(v6)) return absl::StrCat("ipv6:", absl::StrJoin(v6, ","));
  return absl::InvalidArgumentError(
      absl::StrCat("the servers ", absl::StrJoin(addresses, ", "),
                   " have no address family in common (some only IPv4, some only IPv6)"));
}

bool AwaitEveryServer(grpc::Channel& channel, std::size_t servers, absl::Duration timeout) {
  const absl::Time give_up = absl::Now() + timeout;
  std::unique_ptr<hoard::v1::Arena::Stub> stub =
      hoard::v1::Arena::NewStub(std::shared_ptr<grpc::Channel>(&channel, [](grpc::Channel*) {}));
  std::set<std::string> answered;
  while (answered.size() < servers && absl::Now() < give_up) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(give_up));
    context.set_wait_for_ready(true);
    hoard::v1::ListGamesResponse games;
    if (stub->ListGames(&context, {}, &games).ok()) {
      answered.insert(context.peer());
    } else {
      absl::SleepFor(absl::Milliseconds(20));
    }
  }
  return answered.size() >= servers;
}

}  // namespace hoard::bots
