#ifndef HOARD_SERVICE_CLI_CHANNEL_H_
#define HOARD_SERVICE_CLI_CHANNEL_H_

// How the hoard program's clients reach a server.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace grpc {
class Channel;
class Status;
}  // namespace grpc

namespace hoard::cli {

// A channel to the Hoard server at `address` (host:port). TLS when the
// environment variable HOARD_TLS_CA names a PEM file of the certificate
// authorities to trust (the server's certificate must then name `host`);
// plaintext otherwise. kInvalidArgument if that file cannot be read.
absl::StatusOr<std::shared_ptr<grpc::Channel>> ServerChannel(const std::string& address);

// The same for a command that needs the admin role: every call carries the
// token bots::FindClientToken finds for admin calls (docs/security.md):
// --token-file, $HOARD_TOKEN, or — for a server on this machine only (a
// loopback address) — the admin token its server keeps in the state
// directory. A call the server refuses for that token says which token it
// was: where it came from and its fingerprint. kInvalidArgument if the token
// file cannot be read.
absl::StatusOr<std::shared_ptr<grpc::Channel>> AdminChannel(const std::string& address,
                                                            const std::string& token_file);

// The same for a command that only reads: its calls carry the token of
// --token-file or $HOARD_TOKEN if there is one, never the remembered admin
// token.
absl::StatusOr<std::shared_ptr<grpc::Channel>> ReadChannel(const std::string& address,
                                                           const std::string& token_file);

// One channel to several servers (bots::StaticTarget), each call to the next of
// them (gRPC's round_robin), carrying the token as AdminChannel's does (a
// local server's admin token only when every server is on this machine).
// Under TLS (HOARD_TLS_CA) every server's certificate must name the host of
// the first address, and the addresses must all have that host; otherwise
// kInvalidArgument saying so. One address is AdminChannel(address).
absl::StatusOr<std::shared_ptr<grpc::Channel>> BalancedAdminChannel(
    const std::vector<std::string>& addresses, const std::string& token_file);

// The help of a client command's --server flag.
inline constexpr char kServerHelp[] =
    "the Hoard server (default $HOARD_SERVER, else 127.0.0.1:50051)";

// The server a client command talks to: `server` (its --server), else
// $HOARD_SERVER, else 127.0.0.1:50051.
std::string ServerAddress(const std::string& server);

// Whether a call that failed with `code` (a grpc::StatusCode) and `message`
// reached no server at all: nothing listens at the address, its name does not
// resolve, no route leads there, or the deadline passed while `channel` was
// still connecting. A server that answered and refused is not this.
bool NoServerAnswers(int code, absl::string_view message, grpc::Channel& channel);

// "no Hoard server answers at SERVER (start one with 'hoard serve', or set
// --server / HOARD_SERVER)".
std::string NoServerHint(const std::string& server);

// A failed call, in one line on stderr: NoServerHint when no server
// answered, else "hoard: SERVER: MESSAGE (code N)". Returns kExitFailure.
int FailWith(const grpc::Status& status, const std::string& server, grpc::Channel& channel);

}  // namespace hoard::cli

#endif  // HOARD_SERVICE_CLI_CHANNEL_H_
