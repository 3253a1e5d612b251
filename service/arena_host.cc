#include "service/arena_host.h"

#include <future>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace hoard::service {
namespace {

using tournament::FinishedMatch;

class InProcess final : public tournament::MatchHost {
 public:
  InProcess(Arena* arena, std::string address) : arena_(arena), address_(std::move(address)) {}

  absl::StatusOr<FinishedMatch> Play(const hoard::v1::CreateMatchRequest& request) override {
    auto done = std::make_shared<std::promise<FinishedMatch>>();
    std::future<FinishedMatch> finished = done->get_future();
    MatchHooks hooks;
    hooks.store = false;
    hooks.on_finished = [done](hoard::v1::Match match, hoard::v1::MatchRecord record) {
      FinishedMatch result{.match = std::move(match), .record = std::move(record)};
      // The arena numbers its matches "m<sequence>" from its store's last.
      absl::SimpleAtoi(absl::string_view(result.match.match_id()).substr(1), &result.sequence);
      done->set_value(std::move(result));
    };
    absl::StatusOr<hoard::v1::CreateMatchResponse> created =
        arena_->CreateMatch(request, std::move(hooks));
    if (!created.ok()) return created.status();
    FinishedMatch result = finished.get();
    if (result.match.status() != hoard::v1::MATCH_STATUS_FINISHED) {
      return absl::AbortedError(
          absl::StrCat("match ", result.match.match_id(), " was aborted: the server is stopping"));
    }
    return result;
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
