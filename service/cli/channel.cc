#include "service/cli/channel.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bots/balanced_channel.h"
#include "bots/client_auth.h"
#include "grpcpp/grpcpp.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"

namespace hoard::cli {

namespace {

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> Credentials() {
  const char* ca = std::getenv("HOARD_TLS_CA");
  if (ca == nullptr || *ca == '\0') return grpc::InsecureChannelCredentials();
  std::ifstream file(ca);
  std::stringstream pem;
  pem << file.rdbuf();
  if (!file.good() || pem.str().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("HOARD_TLS_CA: cannot read the certificate file ", ca));
  }
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = pem.str();
  return grpc::SslCredentials(options);
}

// The host of host:port ("[::1]" keeps its brackets).
std::string HostOf(const std::string& address) { return address.substr(0, address.rfind(':')); }

// Whether `address` is a server on this machine.
bool IsLoopback(const std::string& address) {
  const std::string host = HostOf(address);
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "[::1]";
}

// A server that went away is tried again within a second of its return
// (gRPC's default backoff grows to two minutes). A name with several
// addresses (replicas behind one DNS name) has its calls spread over all of
// them, each to the next (gRPC's round_robin), rather than all to the first.
grpc::ChannelArguments ChannelArguments() {
  grpc::ChannelArguments args;
  args.SetLoadBalancingPolicyName("round_robin");
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  return args;
}

// A channel to `address` whose calls carry the token for `use`.
absl::StatusOr<std::shared_ptr<grpc::Channel>> TokenChannel(const std::string& address,
                                                            const std::string& token_file,
                                                            bots::TokenUse use) {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials = Credentials();
  if (!credentials.ok()) return credentials.status();
  absl::StatusOr<bots::ClientToken> token =
      bots::FindClientToken(token_file, use, /*local_server=*/IsLoopback(address));
  if (!token.ok()) return absl::InvalidArgumentError(token.status().message());
  return bots::AuthorizedChannel(address, *credentials, *token, ChannelArguments());
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::Channel>> ServerChannel(const std::string& address) {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials = Credentials();
  if (!credentials.ok()) return credentials.status();
  return grpc::CreateCustomChannel(address, *credentials, ChannelArguments());
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> AdminChannel(const std::string& address,
                                                            const std::string& token_file) {
  return TokenChannel(address, token_file, bots::TokenUse::kAdmin);
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> ReadChannel(const std::string& address,
                                                           const std::string& token_file) {
  return TokenChannel(address, token_file, bots::TokenUse::kRead);
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> BalancedAdminChannel(
    const std::vector<std::string>& addresses, const std::string& token_file) {
  if (addresses.size() == 1) return AdminChannel(addresses.front(), token_file);
  absl::StatusOr<std::string> target = bots::StaticTarget(addresses);
  if (!target.ok()) return target.status();
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials = Credentials();
  if (!credentials.ok()) return credentials.status();
  grpc::ChannelArguments args = ChannelArguments();
  const std::string host = HostOf(addresses.front());
  // The authority a server sees, and under TLS the name its certificate
  // must have: the first server's, not the list.
  args.SetString(GRPC_ARG_DEFAULT_AUTHORITY, addresses.front());
  if (const char* ca = std::getenv("HOARD_TLS_CA"); ca != nullptr && *ca != '\0') {
    for (const std::string& address : addresses) {
      if (HostOf(address) != host) {
        return absl::InvalidArgumentError(absl::StrCat(
            "with HOARD_TLS_CA, several servers must share one host name (the one their "
            "certificates name), but ",
            addresses.front(), " and ", address,
            " differ: give one DNS name with several addresses instead"));
      }
    }
    args.SetSslTargetNameOverride(host.front() == '[' ? host.substr(1, host.size() - 2) : host);
  }
  const bool local = std::all_of(addresses.begin(), addresses.end(), IsLoopback);
  absl::StatusOr<bots::ClientToken> token =
      bots::FindClientToken(token_file, bots::TokenUse::kAdmin, local);
  if (!token.ok()) return absl::InvalidArgumentError(token.status().message());
  return bots::AuthorizedChannel(*target, *credentials, *token, args);
}

std::string ServerAddress(const std::string& server) {
  return ValueOrEnv(server, "HOARD_SERVER", "127.0.0.1:50051");
}

bool NoServerAnswers(int code, absl::string_view message, grpc::Channel& channel) {
  if (code == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return channel.GetState(/*try_to_connect=*/false) != GRPC_CHANNEL_READY;
  }
  if (code != grpc::StatusCode::UNAVAILABLE) return false;
  // The reasons gRPC gives for a connection that was never made. Others (a
  // socket the peer closed, as a TLS server does to a plaintext client) mean
  // something answered.
  for (absl::string_view reason :
       {"Connection refused", "DNS resolution failed", "Network is unreachable", "No route to host",
        "Connection timed out", "Deadline Exceeded"}) {
    if (absl::StrContains(message, reason)) return true;
  }
  return false;
}

std::string NoServerHint(const std::string& server) {
  return absl::StrCat("no Hoard server answers at ", server,
                      " (start one with 'hoard serve', or set --server / HOARD_SERVER)");
}

int FailWith(const grpc::Status& status, const std::string& server, grpc::Channel& channel) {
  if (NoServerAnswers(status.error_code(), status.error_message(), channel)) {
    return Fail(kExitFailure, NoServerHint(server));
  }
  return Fail(kExitFailure, absl::StrCat(server, ": ", status.error_message(), " (code ",
                                         status.error_code(), ")"));
}

}  // namespace hoard::cli
