// The bot supervisor on its own: real processes, a host that plays nothing.

#include "tournament/bot_supervisor.h"

#include <atomic>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::tournament {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;

// A host whose listed bots are `connected`; it plays no match.
class ListingHost : public MatchHost {
 public:
  explicit ListingHost(std::vector<std::string> connected) : connected_(std::move(connected)) {}
  absl::StatusOr<FinishedMatch> Play(const hoard::v1::CreateMatchRequest&) override {
    return absl::UnimplementedError("plays nothing");
  }
  absl::StatusOr<hoard::v1::ListBotsResponse> ListBots() override {
    hoard::v1::ListBotsResponse bots;
    for (const std::string& name : connected_) {
      hoard::v1::BotInfo* bot = bots.add_bots();
      bot->set_name(name);
      bot->set_connected(true);
    }
    return bots;
  }
  absl::Status ProvisionBot(const std::string&, const std::string&) override {
    return absl::OkStatus();
  }
  std::vector<std::string> bot_addresses() const override { return {"127.0.0.1:1"}; }

 private:
  const std::vector<std::string> connected_;
};

hoard::v1::TournamentSpec SpecWith(const std::string& name, const std::string& command) {
  hoard::v1::TournamentSpec spec;
  spec.set_concurrency(1);
  spec.mutable_fault_policy()->set_start_timeout_ms(300);
  hoard::v1::Participant* p = spec.add_participants();
  p->set_name(name);
  p->set_command(command);
  hoard::v1::Participant* builtin = spec.add_participants();
  builtin->set_name("builtin");
  builtin->set_builtin("random");
  return spec;
}

// Warnings and the reason given up, as told.
struct Told {
  absl::Mutex mu;
  std::vector<std::string> warnings ABSL_GUARDED_BY(mu);
  std::string given_up ABSL_GUARDED_BY(mu);
  absl::Notification gave_up;

  BotSupervisor::Hooks Hooks() {
    return {.warn =
                [this](const std::string& line) {
                  absl::MutexLock lock(&mu);
                  warnings.push_back(line);
                },
            .give_up =
                [this](const std::string& why) {
                  absl::MutexLock lock(&mu);
                  given_up = why;
                  if (!gave_up.HasBeenNotified()) gave_up.Notify();
                }};
  }
};

TEST(BotSupervisorTest, ABotThatKeepsExitingIsRestartedAndThenGivenUp) {
  const hoard::v1::TournamentSpec spec = SpecWith("quitter", "true; exit 3");
  ListingHost host({"quitter"});
  std::atomic<bool> cancelled{false};
  Told told;
  BotSupervisor supervisor(spec, &host, cancelled,
                           {.max_restarts = 2, .first_restart_delay = absl::Milliseconds(10)},
                           told.Hooks());
  supervisor.Prepare({0, 1}, {});
  EXPECT_EQ(supervisor.Unavailable(0), nullptr) << "it connected";
  EXPECT_EQ(supervisor.Unavailable(1), nullptr) << "built in";
  supervisor.Watch();
  ASSERT_TRUE(told.gave_up.WaitForNotificationWithTimeout(absl::Seconds(30)));
  supervisor.StopWatching();
  absl::MutexLock lock(&told.mu);
  EXPECT_THAT(told.given_up,
              AllOf(HasSubstr("participant 'quitter' exited with status 3"),
                    HasSubstr("exited 3 times in a row without playing a match through")));
  EXPECT_THAT(told.warnings, Contains(HasSubstr("restarting it in 10ms (1 of at most 2")));
  EXPECT_THAT(told.warnings, Contains(HasSubstr("restarting it in 20ms (2 of at most 2")));
  EXPECT_THAT(told.warnings, Contains("participant 'quitter' restarted"));
}

// Why a participant launched as `command`, on a host where no bot connects,
// is unavailable once prepared ("" if it is not), and the warnings given.
std::string WhyUnavailable(const std::string& name, const std::string& command,
                           std::vector<std::string>* warnings) {
  const hoard::v1::TournamentSpec spec = SpecWith(name, command);
  ListingHost host({});
  std::atomic<bool> cancelled{false};
  Told told;
  BotSupervisor supervisor(spec, &host, cancelled, {}, told.Hooks());
  supervisor.Prepare({0}, {});
  const std::string* why = supervisor.Unavailable(0);
  absl::MutexLock lock(&told.mu);
  *warnings = told.warnings;
  return why == nullptr ? "" : *why;
}

TEST(BotSupervisorTest, ABotThatNeverConnectsIsUnavailableWithWhy) {
  std::vector<std::string> warnings;
  const std::string why = WhyUnavailable("silent", "sleep 30", &warnings);
  EXPECT_THAT(why, HasSubstr("participant 'silent' did not connect to 127.0.0.1:1 within 300 ms "
                             "(command: sleep 30)"));
  EXPECT_THAT(warnings, Contains(why)) << "each unavailable participant is a warning";
}

TEST(BotSupervisorTest, ABotThatExitsBeforeItConnectsIsUnavailableWithHowItExited) {
  std::vector<std::string> warnings;
  EXPECT_THAT(WhyUnavailable("crasher", "echo broken; exit 7", &warnings),
              HasSubstr("participant 'crasher' exited with status 7 before it connected"));
}

}  // namespace
}  // namespace hoard::tournament
