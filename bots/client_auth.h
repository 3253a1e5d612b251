#ifndef HOARD_BOTS_CLIENT_AUTH_H_
#define HOARD_BOTS_CLIENT_AUTH_H_

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

namespace hoard::bots {

// A token a client sends, and where it was found.
struct ClientToken {
  std::string value;  // empty: none
  // Where it came from, as messages name it: "--token-file PATH",
  // "HOARD_TOKEN", or the path of the admin token a local server keeps.
  std::string source;
  // Whether it is that remembered admin token.
  bool remembered = false;
  // With no token, to a server on this machine: a file of the tokens its
  // servers keep (STATE_DIR/read-token, else admin-token) that a refusal
  // names, so that a read of a --private server finds its way; else empty.
  std::string unsent_file;

  // "the token from SOURCE (fingerprint F)" ("the admin token from PATH ..."
  // for a remembered one), F being Fingerprint(value).
  std::string Describe() const;
};

// A channel to `address` whose calls carry `token`; a plain one if `token`
// is empty.
std::shared_ptr<grpc::Channel> AuthorizedChannel(
    const std::string& address, std::shared_ptr<grpc::ChannelCredentials> credentials,
    const std::string& token, const grpc::ChannelArguments& args = grpc::ChannelArguments());

// The same with `token.value`, and a call the server refuses for its token
// (UNAUTHENTICATED or PERMISSION_DENIED) ends with a message that names it:
// "the server does not accept " + token.Describe() + ": " + the server's.
// With no token but an `unsent_file`, a refused call's message ends naming
// that file.
std::shared_ptr<grpc::Channel> AuthorizedChannel(
    const std::string& address, std::shared_ptr<grpc::ChannelCredentials> credentials,
    const ClientToken& token, const grpc::ChannelArguments& args = grpc::ChannelArguments());

// What a client's calls need: reads (open to anyone, unless the server is
// --private) or the admin role.
enum class TokenUse { kRead, kAdmin };

// The token a client sends: the first in `token_file` if one is named
// (kNotFound or kInvalidArgument if it cannot be read), else $HOARD_TOKEN,
// else — for admin calls (`use`) to a server on this machine
// (`local_server`) — the admin token a server of this user keeps in
// DefaultStateDir(), else none (an empty value). A read never sends a
// remembered token, which may be one a server long gone made (and which
// every server but that one refuses); a --private server's reads need
// `token_file` or $HOARD_TOKEN, and `unsent_file` says where to find one.
absl::StatusOr<ClientToken> FindClientToken(const std::string& token_file, TokenUse use,
                                            bool local_server);

}  // namespace hoard::bots

#endif  // HOARD_BOTS_CLIENT_AUTH_H_
