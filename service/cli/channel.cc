#include "service/cli/channel.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"

namespace hoard::cli {

absl::StatusOr<std::shared_ptr<grpc::Channel>> ServerChannel(const std::string& address) {
  const char* ca = std::getenv("HOARD_TLS_CA");
  if (ca == nullptr || *ca == '\0') {
    return grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  }
  std::ifstream file(ca);
  std::stringstream pem;
  pem << file.rdbuf();
  if (!file.good() || pem.str().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("HOARD_TLS_CA: cannot read the certificate file ", ca));
  }
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = pem.str();
  return grpc::CreateChannel(address, grpc::SslCredentials(options));
}

}  // namespace hoard::cli
