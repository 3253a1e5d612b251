#include "bots/client_auth.h"

#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bots/token_files.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/support/client_interceptor.h"

namespace hoard::bots {
namespace {

// What a channel adds to its calls: the token (if any) to every call, and
// words around the message of a call the server refused for its credentials.
struct Addition {
  std::string authorization;  // "Bearer TOKEN", or empty: none
  std::string before_refusal;
  std::string after_refusal;
};

class AddToken final : public grpc::experimental::Interceptor {
 public:
  explicit AddToken(const Addition* addition) : addition_(addition) {}
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (!addition_->authorization.empty() &&
        methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->insert({"authorization", addition_->authorization});
    }
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::POST_RECV_STATUS)) {
      grpc::Status* status = methods->GetRecvStatus();
      if (status->error_code() == grpc::StatusCode::UNAUTHENTICATED ||
          status->error_code() == grpc::StatusCode::PERMISSION_DENIED) {
        *status = grpc::Status(status->error_code(),
                               absl::StrCat(addition_->before_refusal, status->error_message(),
                                            addition_->after_refusal),
                               status->error_details());
      }
    }
    methods->Proceed();
  }

 private:
  const Addition* const addition_;
};

class AddTokenFactory final : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit AddTokenFactory(Addition addition) : addition_(std::move(addition)) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo*) override {
    return new AddToken(&addition_);
  }

 private:
  const Addition addition_;  // lives as long as the channel
};

std::shared_ptr<grpc::Channel> ChannelWith(const std::string& address,
                                           std::shared_ptr<grpc::ChannelCredentials> credentials,
                                           Addition addition, const grpc::ChannelArguments& args) {
  if (addition.authorization.empty() && addition.before_refusal.empty() &&
      addition.after_refusal.empty()) {
    return grpc::CreateCustomChannel(address, std::move(credentials), args);
  }
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> factories;
  factories.push_back(std::make_unique<AddTokenFactory>(std::move(addition)));
  return grpc::experimental::CreateCustomChannelWithInterceptors(address, std::move(credentials),
                                                                 args, std::move(factories));
}

// The first of `names` that is a file in DefaultStateDir(), or "".
std::string RememberedFile(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const std::string path = absl::StrCat(DefaultStateDir(), "/", name);
    std::error_code error;
    if (std::filesystem::is_regular_file(path, error)) return path;
  }
  return std::string();
}

}  // namespace

std::string ClientToken::Describe() const {
  return absl::StrCat(remembered ? "the admin token from " : "the token from ", source,
                      " (fingerprint ", Fingerprint(value), ")");
}

std::shared_ptr<grpc::Channel> AuthorizedChannel(
    const std::string& address, std::shared_ptr<grpc::ChannelCredentials> credentials,
    const std::string& token, const grpc::ChannelArguments& args) {
  return ChannelWith(address, std::move(credentials),
                     {.authorization = token.empty() ? "" : "Bearer " + token}, args);
}

std::shared_ptr<grpc::Channel> AuthorizedChannel(
    const std::string& address, std::shared_ptr<grpc::ChannelCredentials> credentials,
    const ClientToken& token, const grpc::ChannelArguments& args) {
  Addition addition;
  if (!token.value.empty()) {
    addition.authorization = "Bearer " + token.value;
    addition.before_refusal = absl::StrCat("the server does not accept ", token.Describe(), ": ");
  } else if (!token.unsent_file.empty()) {
    addition.after_refusal =
        absl::StrCat("; a server of this machine keeps a token in ", token.unsent_file,
                     ": give --token-file ", token.unsent_file, " to send it");
  }
  return ChannelWith(address, std::move(credentials), std::move(addition), args);
}

absl::StatusOr<ClientToken> FindClientToken(const std::string& token_file, TokenUse use,
                                            bool local_server) {
  if (!token_file.empty()) {
    absl::StatusOr<std::vector<std::string>> tokens = ReadTokenFile(token_file);
    if (!tokens.ok()) return tokens.status();
    return ClientToken{.value = tokens->front(),
                       .source = absl::StrCat("--token-file ", token_file)};
  }
  if (const char* token = std::getenv("HOARD_TOKEN"); token != nullptr && *token != '\0') {
    return ClientToken{.value = token, .source = "HOARD_TOKEN"};
  }
  if (!local_server) return ClientToken();
  if (use == TokenUse::kRead) {
    return ClientToken{.unsent_file = RememberedFile({"read-token", "admin-token"})};
  }
  if (const std::string remembered = RememberedFile({"admin-token"}); !remembered.empty()) {
    if (absl::StatusOr<std::vector<std::string>> tokens = ReadTokenFile(remembered); tokens.ok()) {
      return ClientToken{.value = tokens->front(), .source = remembered, .remembered = true};
    }
  }
  return ClientToken();
}

}  // namespace hoard::bots
