#ifndef HOARD_ENGINE_TESTING_STATUS_MATCHERS_H_
#define HOARD_ENGINE_TESTING_STATUS_MATCHERS_H_

// GoogleTest matchers for absl::Status and absl::StatusOr, which Abseil
// 20220623 does not ship:
//   EXPECT_THAT(status, IsOk());
//   EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
//                                HasSubstr("wilds alone")));
//   EXPECT_THAT(status_or, IsOkAndHolds(42));

#include <ostream>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"

namespace hoard::testing {

inline const absl::Status& GetStatus(const absl::Status& status) { return status; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

MATCHER(IsOk, "is OK") {
  const absl::Status& status = GetStatus(arg);
  *result_listener << "status is " << status;
  return status.ok();
}

MATCHER_P2(StatusIs, code, message_matcher,
           absl::StrCat("has code ", absl::StatusCodeToString(code))) {
  const absl::Status& status = GetStatus(arg);
  *result_listener << "status is " << status;
  return status.code() == code &&
         ::testing::ExplainMatchResult(message_matcher, std::string(status.message()),
                                       result_listener);
}

// An OK StatusOr whose value matches `value_matcher`:
//   EXPECT_THAT(store->ClaimSlot(...), IsOkAndHolds(true));
MATCHER_P(IsOkAndHolds, value_matcher, "is OK and holds a value that matches") {
  if (!arg.ok()) {
    *result_listener << "status is " << arg.status();
    return false;
  }
  return ::testing::ExplainMatchResult(value_matcher, *arg, result_listener);
}

}  // namespace hoard::testing

#endif  // HOARD_ENGINE_TESTING_STATUS_MATCHERS_H_
