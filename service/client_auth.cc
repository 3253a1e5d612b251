#include "service/client_auth.h"

#include <cstdlib>
#include <filesystem>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/support/client_interceptor.h"
#include "service/auth.h"

namespace hoard::service {
namespace {

// Adds the token to every call, and names it in the message of a call the
// server refused for it.
class AddToken final : public grpc::experimental::Interceptor {
 public:
  AddToken(const std::string* value, const std::string* refusal)
      : value_(value), refusal_(refusal) {}
  void Intercept(
      grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::
                PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->insert({"authorization", *value_});
    }
    if (!refusal_->empty() &&
        methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::POST_RECV_STATUS)) {
      grpc::Status* status = methods->GetRecvStatus();
      if (status->error_code() == grpc::StatusCode::UNAUTHENTICATED ||
          status->error_code() == grpc::StatusCode::PERMISSION_DENIED) {
        *status = grpc::Status(status->error_code(),
                               absl::StrCat(*refusal_, status->error_message()),
                               status->error_details());
      }
    }
    methods->Proceed();
  }

 private:
  const std::string* const value_;
  const std::string* const refusal_;
};

class AddTokenFactory final
    : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  AddTokenFactory(const std::string& token, std::string refusal)
      : value_("Bearer " + token), refusal_(std::move(refusal)) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo*) override {
    return new AddToken(&value_, &refusal_);
  }

 private:
  // Both live as long as the channel.
  const std::string value_;
  const std::string refusal_;  // the start of a refused call's message
};

std::shared_ptr<grpc::Channel> ChannelWithToken(
    const std::string& address,
    std::shared_ptr<grpc::ChannelCredentials> credentials,
    const std::string& token, std::string refusal,
    const grpc::ChannelArguments& args) {
  if (token.empty())
    return grpc::CreateCustomChannel(address, std::move(credentials), args);
  std::vector<
      std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>
      factories;
  factories.push_back(
      std::make_unique<AddTokenFactory>(token, std::move(refusal)));
  return grpc::experimental::CreateCustomChannelWithInterceptors(
      address, std::move(credentials), args, std::move(factories));
}

}  // namespace

std::string ClientToken::Describe() const {
  return absl::StrCat(remembered ? "the admin token from " : "the token from ",
                      source, " (fingerprint ", Fingerprint(value), ")");
}

std::shared_ptr<grpc::Channel> AuthorizedChannel(
    const std::string& address,
    std::shared_ptr<grpc::ChannelCredentials> credentials,
    const std::string& token, const grpc::ChannelArguments& args) {
  return ChannelWithToken(address, std::move(credentials), token, "", args);
}

std::shared_ptr<grpc::Channel> AuthorizedChannel(
    const std::string& address,
    std::shared_ptr<grpc::ChannelCredentials> credentials,
    const ClientToken& token, const grpc::ChannelArguments& args) {
  return ChannelWithToken(
      address, std::move(credentials), token.value,
      absl::StrCat("the server does not accept ", token.Describe(), ": "),
      args);
}

absl::StatusOr<ClientToken> FindClientToken(const std::string& token_file,
                                            TokenUse use, bool local_server) {
  if (!token_file.empty()) {
    absl::StatusOr<std::vector<std::string>> tokens = ReadTokenFile(token_file);
    if (!tokens.ok()) return tokens.status();
    return ClientToken{.value = tokens->front(),
                       .source = absl::StrCat("--token-file ", token_file)};
  }
  if (const char* token = std::getenv("HOARD_TOKEN");
      token != nullptr && *token != '\0') {
    return ClientToken{.value = token, .source = "HOARD_TOKEN"};
  }
  if (use != TokenUse::kAdmin || !local_server) return ClientToken();
  const std::string remembered = DefaultStateDir() + "/admin-token";
  std::error_code error;
  if (std::filesystem::exists(remembered, error)) {
    if (absl::StatusOr<std::vector<std::string>> tokens =
            ReadTokenFile(remembered);
        tokens.ok()) {
      return ClientToken{
          .value = tokens->front(), .source = remembered, .remembered = true};
    }
  }
  return ClientToken();
}

}  // namespace hoard::service
