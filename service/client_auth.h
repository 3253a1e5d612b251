#ifndef HOARD_SERVICE_CLIENT_AUTH_H_
#define HOARD_SERVICE_CLIENT_AUTH_H_

// The client's side of docs/security.md: a channel whose every call carries
// a token ("authorization: Bearer TOKEN"), and where the hoard program finds
// the token to send.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/support/channel_arguments.h"

namespace grpc {
class Channel;
class ChannelCredentials;
}  // namespace grpc

namespace hoard::service {

// A channel to `address` whose calls carry `token`; a plain one if `token`
// is empty.
std::shared_ptr<grpc::Channel> AuthorizedChannel(
    const std::string& address,
    std::shared_ptr<grpc::ChannelCredentials> credentials,
    const std::string& token,
    const grpc::ChannelArguments& args = grpc::ChannelArguments());

// The token a client sends: the first in `token_file` if one is named
// (kNotFound or kInvalidArgument if it cannot be read), else $HOARD_TOKEN,
// else — when the server is on this machine (`local_server`) — the admin
// token a server of this user keeps in DefaultStateDir(), else none ("").
absl::StatusOr<std::string> ClientToken(const std::string& token_file,
                                        bool local_server);

}  // namespace hoard::service

#endif  // HOARD_SERVICE_CLIENT_AUTH_H_
