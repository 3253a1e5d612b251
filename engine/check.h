#ifndef HOARD_ENGINE_CHECK_H_
#define HOARD_ENGINE_CHECK_H_

// HOARD_CHECK(condition, message): aborts with the message when a broken
// internal invariant is found. Abseil 20220623 ships no CHECK of its own.
// Never use it on input from a client: that gets an absl::Status.

#include <cstdio>
#include <cstdlib>

#define HOARD_CHECK(condition, message)                                                     \
  do {                                                                                      \
    if (!(condition)) {                                                                     \
      std::fprintf(stderr, "%s:%d: check failed: %s: %s\n", __FILE__, __LINE__, #condition, \
                   message);                                                                \
      std::abort();                                                                         \
    }                                                                                       \
  } while (false)

#endif  // HOARD_ENGINE_CHECK_H_
