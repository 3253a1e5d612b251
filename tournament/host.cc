#include "tournament/host.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
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

class Remote final : public MatchHost {
 public:
  Remote(std::shared_ptr<grpc::Channel> channel, std::string address)
      : stub_(hoard::v1::Arena::NewStub(channel)), address_(std::move(address)) {}

  absl::StatusOr<FinishedMatch> Play(const hoard::v1::CreateMatchRequest& request) override {
    hoard::v1::CreateMatchResponse created;
    {
      grpc::ClientContext context;
      if (absl::Status s = FromGrpc(stub_->CreateMatch(&context, request, &created),
                                    absl::StrCat("creating a match on ", address_));
          !s.ok()) {
        return s;
      }
    }
    // Follow the match until it ends (the stream closes), then fetch it.
    {
      grpc::ClientContext context;
      hoard::v1::WatchMatchRequest watch;
      watch.set_match_id(created.match_id());
      std::unique_ptr<grpc::ClientReader<hoard::v1::MatchEvent>> events =
          stub_->WatchMatch(&context, watch);
      hoard::v1::MatchEvent event;
      while (events->Read(&event)) {
        if (event.has_finished()) {
          context.TryCancel();
          break;
        }
      }
      events->Finish().ok();  // a stream cut short is answered by GetMatch
    }
    grpc::ClientContext context;
    hoard::v1::GetMatchRequest get;
    get.set_match_id(created.match_id());
    hoard::v1::GetMatchResponse response;
    if (absl::Status s = FromGrpc(stub_->GetMatch(&context, get, &response),
                                  absl::StrCat("reading match ", created.match_id(), " on ",
                                               address_));
        !s.ok()) {
      return s;
    }
    if (response.match().status() != hoard::v1::MATCH_STATUS_FINISHED) {
      return absl::UnavailableError(absl::StrCat("match ", created.match_id(), " on ", address_,
                                                 " stopped before it finished"));
    }
    // The server's numbering is its own: the tournament's store renumbers.
    FinishedMatch result{.match = response.match(), .record = response.record()};
    result.match.clear_match_id();
    return result;
  }

  absl::StatusOr<hoard::v1::ListBotsResponse> ListBots() override {
    grpc::ClientContext context;
    hoard::v1::ListBotsResponse response;
    if (absl::Status s = FromGrpc(stub_->ListBots(&context, {}, &response),
                                  absl::StrCat("listing bots on ", address_));
        !s.ok()) {
      return s;
    }
    return response;
  }

  absl::Status ProvisionBot(const std::string& name, const std::string& key) override {
    grpc::ClientContext context;
    hoard::v1::AddBotRequest request;
    request.set_name(name);
    request.set_key(key);
    request.set_replace(true);
    hoard::v1::AddBotResponse response;
    return FromGrpc(stub_->AddBot(&context, request, &response),
                    absl::StrCat("making the account of bot '", name, "' on ", address_));
  }

  std::vector<std::string> bot_addresses() const override { return {address_}; }

 private:
  std::unique_ptr<hoard::v1::Arena::Stub> stub_;
  const std::string address_;
};

class Spread final : public MatchHost {
 public:
  explicit Spread(std::vector<std::unique_ptr<MatchHost>> hosts)
      : hosts_(std::move(hosts)), in_flight_(hosts_.size(), 0) {}

  absl::StatusOr<FinishedMatch> Play(const hoard::v1::CreateMatchRequest& request) override {
    std::size_t chosen = 0;
    {
      absl::MutexLock lock(&mu_);
      for (std::size_t i = 1; i < hosts_.size(); ++i) {
        if (in_flight_[i] < in_flight_[chosen]) chosen = i;
      }
      ++in_flight_[chosen];
    }
    absl::StatusOr<FinishedMatch> played = hosts_[chosen]->Play(request);
    absl::MutexLock lock(&mu_);
    --in_flight_[chosen];
    return played;
  }

  absl::StatusOr<hoard::v1::ListBotsResponse> ListBots() override {
    // name -> the bot as the first host has it, and on how many hosts it is
    // connected.
    std::map<std::string, std::pair<hoard::v1::BotInfo, std::size_t>> bots;
    for (const std::unique_ptr<MatchHost>& host : hosts_) {
      ASSIGN_OR_RETURN(hoard::v1::ListBotsResponse listed, host->ListBots());
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
      bot.first.set_connected(bot.second == hosts_.size());
      *response.add_bots() = std::move(bot.first);
    }
    return response;
  }

  absl::Status ProvisionBot(const std::string& name, const std::string& key) override {
    for (const std::unique_ptr<MatchHost>& host : hosts_) {
      if (absl::Status s = host->ProvisionBot(name, key); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  std::vector<std::string> bot_addresses() const override {
    std::vector<std::string> all;
    for (const std::unique_ptr<MatchHost>& host : hosts_) {
      for (std::string& address : host->bot_addresses()) all.push_back(std::move(address));
    }
    return all;
  }

 private:
  const std::vector<std::unique_ptr<MatchHost>> hosts_;
  absl::Mutex mu_;
  std::vector<int> in_flight_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

std::unique_ptr<MatchHost> SpreadHost(std::vector<std::unique_ptr<MatchHost>> hosts) {
  HOARD_CHECK(!hosts.empty(), "SpreadHost needs a host");
  if (hosts.size() == 1) return std::move(hosts.front());
  return std::make_unique<Spread>(std::move(hosts));
}

std::unique_ptr<MatchHost> RemoteHost(std::shared_ptr<grpc::Channel> channel,
                                      std::string address) {
  return std::make_unique<Remote>(std::move(channel), std::move(address));
}

}  // namespace hoard::tournament
