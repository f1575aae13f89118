// Status propagation helpers used across module boundaries.
//
// Errors cross modules as absl::Status / absl::StatusOr; these macros keep call sites short.
// They are header-only and thread-compatible.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define STRATA_CONCAT_INNER(a, b) a##b
#define STRATA_CONCAT(a, b) STRATA_CONCAT_INNER(a, b)

// Returns from the current function if `expr` (an absl::Status) is not OK.
#define RETURN_IF_ERROR(expr)                  \
  do {                                         \
    ::absl::Status _strata_status = (expr);    \
    if (!_strata_status.ok()) return _strata_status; \
  } while (0)

// `ASSIGN_OR_RETURN(auto x, StatusOrExpr)` unwraps or returns the error.
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(STRATA_CONCAT(_strata_statusor_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(tmp).value()
