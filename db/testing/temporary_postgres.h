#ifndef HOARD_DB_TESTING_TEMPORARY_POSTGRES_H_
#define HOARD_DB_TESTING_TEMPORARY_POSTGRES_H_

// For tests: a PostgreSQL server of their own, from Debian's postgresql
// package. Its cluster is made with initdb in a fresh temporary directory
// (as the unprivileged user "nobody" when the test runs as root: PostgreSQL
// refuses to run as root), it listens only on a Unix socket in that
// directory, and it is stopped and the directory removed when the object
// goes.

#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"

namespace hoard::db::testing {

class TemporaryPostgres {
 public:
  // kFailedPrecondition if PostgreSQL's programs are not installed (the
  // message says which package), kInternal with the server's log if it does
  // not start.
  static absl::StatusOr<std::unique_ptr<TemporaryPostgres>> Start();
  ~TemporaryPostgres();
  TemporaryPostgres(const TemporaryPostgres&) = delete;
  TemporaryPostgres& operator=(const TemporaryPostgres&) = delete;

  // Creates an empty database and returns its address
  // (postgresql://hoard@/NAME?host=DIR).
  absl::StatusOr<std::string> NewDatabase(const std::string& name);
  // The address of a database of this server, made or not.
  std::string Url(const std::string& database) const;

 private:
  TemporaryPostgres(std::string bin, std::string dir)
      : bin_(std::move(bin)), dir_(std::move(dir)) {}
  std::string bin_;      // initdb, pg_ctl
  std::string dir_;      // the cluster (data/), its socket and its log
  std::string as_user_;  // "runuser -u nobody -- " when run as root
  bool started_ = false;
};

}  // namespace hoard::db::testing

#endif  // HOARD_DB_TESTING_TEMPORARY_POSTGRES_H_
