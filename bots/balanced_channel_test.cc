#include "bots/balanced_channel.h"

#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::bots {
namespace {

using ::hoard::testing::IsOkAndHolds;
using ::testing::HasSubstr;

TEST(StaticTargetTest, AddressesOfOneFamilyMakeOneList) {
  EXPECT_THAT(StaticTarget({"127.0.0.1:5001", "10.0.0.2:5002"}),
              IsOkAndHolds("ipv4:127.0.0.1:5001,10.0.0.2:5002"));
  EXPECT_THAT(StaticTarget({"[::1]:5001", "[fe80::1]:5002"}),
              IsOkAndHolds("ipv6:[::1]:5001,[fe80::1]:5002"));
}

TEST(StaticTargetTest, ANameIsResolvedToItsIpv4AddressWhenAllHaveOne) {
  EXPECT_THAT(StaticTarget({"localhost:5001", "127.0.0.1:5002"}),
              IsOkAndHolds("ipv4:127.0.0.1:5001,127.0.0.1:5002"));
}

TEST(StaticTargetTest, WithoutAFamilyInCommonItSaysSo) {
  const absl::StatusOr<std::string> target = StaticTarget({"127.0.0.1:5001", "[::1]:5002"});
  EXPECT_EQ(target.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(target.status().message(), HasSubstr("no address family in common"));
}

TEST(StaticTargetTest, BadAddressesAreNamed) {
  for (const char* bad :
       {"127.0.0.1", "127.0.0.1:", ":5001", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:http"}) {
    const absl::StatusOr<std::string> target = StaticTarget({"127.0.0.1:5001", bad});
    EXPECT_EQ(target.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(target.status().message(),
                HasSubstr(absl::StrCat("'", bad, "' is not a server's HOST:PORT")));
  }
  const absl::StatusOr<std::string> twice = StaticTarget({"127.0.0.1:5001", "127.0.0.1:5001"});
  EXPECT_THAT(twice.status().message(), HasSubstr("the server 127.0.0.1:5001 is given twice"));
}

}  // namespace
}  // namespace hoard::bots
