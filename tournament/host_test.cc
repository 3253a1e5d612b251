#include "tournament/host.h"

#include <memory>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::tournament {
namespace {

using ::testing::ElementsAre;

// A host that knows some bots and plays a match when the test lets it.
class FakeHost final : public MatchHost {
 public:
  FakeHost(std::string address, std::vector<hoard::v1::BotInfo> bots)
      : address_(std::move(address)), bots_(std::move(bots)) {}

  absl::StatusOr<FinishedMatch> Play(const hoard::v1::CreateMatchRequest&) override {
    absl::MutexLock lock(&mu_);
    ++played_;
    mu_.Await(absl::Condition(&released_));
    FinishedMatch finished;
    finished.match.set_match_id(address_);
    return finished;
  }
  absl::StatusOr<hoard::v1::ListBotsResponse> ListBots() override {
    hoard::v1::ListBotsResponse response;
    for (const hoard::v1::BotInfo& bot : bots_) *response.add_bots() = bot;
    return response;
  }
  absl::Status ProvisionBot(const std::string& name, const std::string&) override {
    absl::MutexLock lock(&mu_);
    provisioned_.push_back(name);
    return absl::OkStatus();
  }
  std::vector<std::string> bot_addresses() const override { return {address_}; }

  std::vector<std::string> provisioned() {
    absl::MutexLock lock(&mu_);
    return provisioned_;
  }
  void Release() {
    absl::MutexLock lock(&mu_);
    released_ = true;
  }
  int played() {
    absl::MutexLock lock(&mu_);
    return played_;
  }

 private:
  const std::string address_;
  const std::vector<hoard::v1::BotInfo> bots_;
  absl::Mutex mu_;
  bool released_ ABSL_GUARDED_BY(mu_) = false;
  int played_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::string> provisioned_ ABSL_GUARDED_BY(mu_);
};

hoard::v1::BotInfo Bot(const std::string& name, bool connected, int running) {
  hoard::v1::BotInfo bot;
  bot.set_name(name);
  bot.set_connected(connected);
  bot.set_running_matches(running);
  return bot;
}

TEST(SpreadHostTest, ABotIsConnectedOnlyWhenConnectedToEveryServer) {
  std::vector<std::unique_ptr<MatchHost>> hosts;
  hosts.push_back(std::make_unique<FakeHost>(
      "a:1", std::vector{Bot("both", true, 2), Bot("one", true, 1), Bot("down", false, 0)}));
  hosts.push_back(std::make_unique<FakeHost>(
      "b:2", std::vector{Bot("both", true, 3), Bot("one", false, 0), Bot("down", true, 0)}));
  std::unique_ptr<MatchHost> spread = SpreadHost(std::move(hosts));
  absl::StatusOr<hoard::v1::ListBotsResponse> bots = spread->ListBots();
  ASSERT_TRUE(bots.ok());
  std::vector<std::string> connected;
  for (const hoard::v1::BotInfo& bot : bots->bots()) {
    if (bot.connected()) connected.push_back(bot.name());
    if (bot.name() == "both") {
      EXPECT_EQ(bot.running_matches(), 5);
    }
  }
  EXPECT_THAT(connected, ElementsAre("both"));
  EXPECT_THAT(spread->bot_addresses(), ElementsAre("a:1", "b:2"));
}

// Two servers that know no bots, spread as one host.
std::tuple<std::unique_ptr<MatchHost>, FakeHost*, FakeHost*> TwoServers() {
  auto a = std::make_unique<FakeHost>("a:1", std::vector<hoard::v1::BotInfo>{});
  auto b = std::make_unique<FakeHost>("b:2", std::vector<hoard::v1::BotInfo>{});
  FakeHost* host_a = a.get();
  FakeHost* host_b = b.get();
  std::vector<std::unique_ptr<MatchHost>> hosts;
  hosts.push_back(std::move(a));
  hosts.push_back(std::move(b));
  return {SpreadHost(std::move(hosts)), host_a, host_b};
}

TEST(SpreadHostTest, MatchesGoToTheServerWithFewestInFlight) {
  auto [spread, host_a, host_b] = TwoServers();

  // Four matches at once, none ending: two on each server.
  std::vector<std::thread> players;
  for (int i = 0; i < 4; ++i) {
    players.emplace_back([&] { ASSERT_TRUE(spread->Play({}).ok()); });
    while (host_a->played() + host_b->played() < i + 1) std::this_thread::yield();
  }
  EXPECT_EQ(host_a->played(), 2);
  EXPECT_EQ(host_b->played(), 2);
  host_a->Release();
  host_b->Release();
  for (std::thread& player : players) player.join();
}

TEST(SpreadHostTest, ALaunchedBotGetsItsAccountOnEveryServer) {
  auto [spread, host_a, host_b] = TwoServers();
  ASSERT_TRUE(spread->ProvisionBot("greedy@2", "k").ok());
  EXPECT_THAT(host_a->provisioned(), ElementsAre("greedy@2"));
  EXPECT_THAT(host_b->provisioned(), ElementsAre("greedy@2"));
}

TEST(SpreadHostTest, OneHostIsThatHost) {
  auto only = std::make_unique<FakeHost>("a:1", std::vector<hoard::v1::BotInfo>{});
  MatchHost* raw = only.get();
  std::vector<std::unique_ptr<MatchHost>> hosts;
  hosts.push_back(std::move(only));
  EXPECT_EQ(SpreadHost(std::move(hosts)).get(), raw);
}

}  // namespace
}  // namespace hoard::tournament
