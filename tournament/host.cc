#include "tournament/host.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "engine/check.h"
#include "engine/status_macros.h"
#include "grpcpp/grpcpp.h"
#include "hoard/v1/arena.grpc.pb.h"

namespace hoard::tournament {
namespace {

absl::Status FromGrpc(const grpc::Status& status, absl::string_view what) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      absl::StrCat(what, ": ", status.error_message()));
}

// Attempts at one match while calls find no server, or their server gone.
constexpr int kPlayAttempts = 4;

class Remote final : public MatchHost {
 public:
  Remote(std::shared_ptr<grpc::Channel> play, std::vector<RemoteServer> servers)
      : play_(hoard::v1::Arena::NewStub(play)), servers_(std::move(servers)) {
    for (const RemoteServer& server : servers_) {
      stubs_.push_back(hoard::v1::Arena::NewStub(server.channel));
    }
  }

  absl::StatusOr<FinishedMatch> Play(const hoard::v1::CreateMatchRequest& request) override {
    absl::Duration pause = absl::Milliseconds(250);
    for (int attempt = 1;; ++attempt) {
      grpc::ClientContext context;
      hoard::v1::GetMatchResponse response;
      const grpc::Status status = play_->PlayMatch(&context, request, &response);
      if (status.ok()) {
        // The server's numbering is its own: the tournament's store renumbers.
        FinishedMatch result{.match = std::move(*response.mutable_match()),
                             .record = std::move(*response.mutable_record())};
        result.match.clear_match_id();
        return result;
      }
      if (status.error_code() != grpc::StatusCode::UNAVAILABLE || attempt == kPlayAttempts) {
        const std::string peer = context.peer();
        return FromGrpc(status,
                        absl::StrCat("playing a match on ", peer.empty() ? Servers() : peer));
      }
      absl::SleepFor(pause);
      pause *= 2;
    }
  }

  absl::StatusOr<hoard::v1::ListBotsResponse> ListBots() override {
    std::vector<hoard::v1::ListBotsResponse> lists;
    for (std::size_t i = 0; i < servers_.size(); ++i) {
      grpc::ClientContext context;
      hoard::v1::ListBotsResponse& listed = lists.emplace_back();
      RETURN_IF_ERROR(FromGrpc(stubs_[i]->ListBots(&context, {}, &listed),
                               absl::StrCat("listing bots on ", servers_[i].address)));
    }
    return MergeBotLists(lists);
  }

  absl::Status ProvisionBot(const std::string& name, const std::string& key) override {
    hoard::v1::AddBotRequest request;
    request.set_name(name);
    request.set_key(key);
    request.set_replace(true);
    for (std::size_t i = 0; i < servers_.size(); ++i) {
      grpc::ClientContext context;
      hoard::v1::AddBotResponse response;
      RETURN_IF_ERROR(FromGrpc(
          stubs_[i]->AddBot(&context, request, &response),
          absl::StrCat("making the account of bot '", name, "' on ", servers_[i].address)));
    }
    return absl::OkStatus();
  }

  std::vector<std::string> bot_addresses() const override {
    std::vector<std::string> all;
    for (const RemoteServer& server : servers_) all.push_back(server.address);
    return all;
  }

 private:
  std::string Servers() const {
    return absl::StrJoin(servers_, ", ", [](std::string* out, const RemoteServer& server) {
      out->append(server.address);
    });
  }

  const std::unique_ptr<hoard::v1::Arena::Stub> play_;
  const std::vector<RemoteServer> servers_;
  std::vector<std::unique_ptr<hoard::v1::Arena::Stub>> stubs_;
};

}  // namespace

hoard::v1::ListBotsResponse MergeBotLists(const std::vector<hoard::v1::ListBotsResponse>& lists) {
  // name -> the bot as the first list has it, and on how many lists it is
  // connected.
  std::map<std::string, std::pair<hoard::v1::BotInfo, std::size_t>> bots;
  for (const hoard::v1::ListBotsResponse& listed : lists) {
    for (const hoard::v1::BotInfo& bot : listed.bots()) {
      auto [it, added] = bots.try_emplace(bot.name(), bot, 0);
      if (!added) {
        it->second.first.set_running_matches(it->second.first.running_matches() +
                                             bot.running_matches());
      }
      if (bot.connected()) ++it->second.second;
    }
  }
  hoard::v1::ListBotsResponse response;
  for (auto& [name, bot] : bots) {
    bot.first.set_connected(bot.second == lists.size());
    *response.add_bots() = std::move(bot.first);
  }
  return response;
}

std::unique_ptr<MatchHost> RemoteHost(std::shared_ptr<grpc::Channel> play,
                                      std::vector<RemoteServer> servers) {
  HOARD_CHECK(!servers.empty(), "RemoteHost needs a server");
  return std::make_unique<Remote>(std::move(play), std::move(servers));
}

}  // namespace hoard::tournament
