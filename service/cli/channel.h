#ifndef HOARD_SERVICE_CLI_CHANNEL_H_
#define HOARD_SERVICE_CLI_CHANNEL_H_

// How the hoard program's clients reach a server.

#include <memory>
#include <string>

#include "absl/status/statusor.h"

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

// The same, and every call carries the token service::ClientToken finds
// (docs/security.md): --token-file, $HOARD_TOKEN, or — for a server on this
// machine only (a loopback address) — the admin token its server keeps in
// the state directory. kInvalidArgument if the token file cannot be read.
absl::StatusOr<std::shared_ptr<grpc::Channel>> AdminChannel(const std::string& address,
                                                            const std::string& token_file);

// A failed call: "hoard: SERVER: MESSAGE (code N)" on stderr; returns
// kExitFailure.
int FailWith(const grpc::Status& status, const std::string& server);

}  // namespace hoard::cli

#endif  // HOARD_SERVICE_CLI_CHANNEL_H_
