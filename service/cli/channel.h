#ifndef HOARD_SERVICE_CLI_CHANNEL_H_
#define HOARD_SERVICE_CLI_CHANNEL_H_

// How the hoard program's clients reach a server.

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace grpc {
class Channel;
}  // namespace grpc

namespace hoard::cli {

// A channel to the Hoard server at `address` (host:port). TLS when the
// environment variable HOARD_TLS_CA names a PEM file of the certificate
// authorities to trust (the server's certificate must then name `host`);
// plaintext otherwise. kInvalidArgument if that file cannot be read.
absl::StatusOr<std::shared_ptr<grpc::Channel>> ServerChannel(const std::string& address);

}  // namespace hoard::cli

#endif  // HOARD_SERVICE_CLI_CHANNEL_H_
