#include "service/arena_host.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/status_macros.h"

namespace hoard::service {
namespace {

using tournament::FinishedMatch;

class InProcess final : public tournament::MatchHost {
 public:
  InProcess(Arena* arena, std::string address) : arena_(arena), address_(std::move(address)) {}

  absl::StatusOr<FinishedMatch> Play(const hoard::v1::CreateMatchRequest& request) override {
    ASSIGN_OR_RETURN(EndedMatch ended, arena_->PlayToEnd(request));
    return FinishedMatch{.match = std::move(ended.match),
                         .record = std::move(ended.record),
                         .sequence = ended.sequence};
  }

  absl::StatusOr<hoard::v1::ListBotsResponse> ListBots() override { return arena_->ListBots(); }

  absl::Status ProvisionBot(const std::string& name, const std::string& key) override {
    if (arena_->accounts().IsLaunched(name) == false) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the name '", name, "' belongs to a bot account of its own, not to a launched bot"));
    }
    hoard::v1::AddBotRequest request;
    request.set_name(name);
    request.set_key(key);
    request.set_replace(true);
    return arena_->AddBot(request, /*launched=*/true).status();
  }

  std::vector<std::string> bot_addresses() const override {
    if (address_.empty()) return {};
    return {address_};
  }

  void Stored(const std::string& match_id, const absl::Status& saved) override {
    arena_->OnStoredByCaller(match_id, saved);
  }

 private:
  Arena* const arena_;
  const std::string address_;
};

}  // namespace

std::unique_ptr<tournament::MatchHost> ArenaHost(Arena* arena, std::string bot_address) {
  return std::make_unique<InProcess>(arena, std::move(bot_address));
}

}  // namespace hoard::service
