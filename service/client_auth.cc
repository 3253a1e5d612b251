#include "service/client_auth.h"

#include <cstdlib>
#include <filesystem>
#include <utility>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "grpcpp/support/client_interceptor.h"
#include "service/auth.h"

namespace hoard::service {
namespace {

class AddToken final : public grpc::experimental::Interceptor {
 public:
  explicit AddToken(const std::string* value) : value_(value) {}
  void Intercept(
      grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::
                PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->insert({"authorization", *value_});
    }
    methods->Proceed();
  }

 private:
  const std::string* const value_;
};

class AddTokenFactory final
    : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit AddTokenFactory(const std::string& token)
      : value_("Bearer " + token) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo*) override {
    return new AddToken(&value_);
  }

 private:
  const std::string value_;  // lives as long as the channel
};

}  // namespace

std::shared_ptr<grpc::Channel> AuthorizedChannel(
    const std::string& address,
    std::shared_ptr<grpc::ChannelCredentials> credentials,
    const std::string& token, const grpc::ChannelArguments& args) {
  if (token.empty())
    return grpc::CreateCustomChannel(address, std::move(credentials), args);
  std::vector<
      std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>
      factories;
  factories.push_back(std::make_unique<AddTokenFactory>(token));
  return grpc::experimental::CreateCustomChannelWithInterceptors(
      address, std::move(credentials), args, std::move(factories));
}

absl::StatusOr<std::string> ClientToken(const std::string& token_file,
                                        bool local_server) {
  if (!token_file.empty()) {
    absl::StatusOr<std::vector<std::string>> tokens = ReadTokenFile(token_file);
    if (!tokens.ok()) return tokens.status();
    return tokens->front();
  }
  if (const char* token = std::getenv("HOARD_TOKEN");
      token != nullptr && *token != '\0') {
    return std::string(token);
  }
  if (!local_server) return std::string();
  const std::string generated = DefaultStateDir() + "/admin-token";
  std::error_code error;
  if (std::filesystem::exists(generated, error)) {
    if (absl::StatusOr<std::vector<std::string>> tokens =
            ReadTokenFile(generated);
        tokens.ok()) {
      return tokens->front();
    }
  }
  return std::string();
}

}  // namespace hoard::service
