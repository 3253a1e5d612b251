#ifndef HOARD_ENGINE_STATUS_MACROS_H_
#define HOARD_ENGINE_STATUS_MACROS_H_

// Early-return helpers for absl::Status, which Abseil 20220623 does not ship.

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define HOARD_CONCAT_INNER_(a, b) a##b
#define HOARD_CONCAT_(a, b) HOARD_CONCAT_INNER_(a, b)

// Returns the status of `expr` from the enclosing function if it is not OK.
#define RETURN_IF_ERROR(expr)                                         \
  do {                                                                \
    if (::absl::Status hoard_status_ = (expr); !hoard_status_.ok()) { \
      return hoard_status_;                                           \
    }                                                                 \
  } while (false)

// `ASSIGN_OR_RETURN(T x, StatusOrExpr());` declares x from the value, or
// returns the error.
#define ASSIGN_OR_RETURN(lhs, expr) \
  HOARD_ASSIGN_OR_RETURN_IMPL_(HOARD_CONCAT_(hoard_statusor_, __LINE__), lhs, expr)

#define HOARD_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr)  \
  auto statusor = (expr);                                  \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()

#endif  // HOARD_ENGINE_STATUS_MACROS_H_
