// Which store a database argument names.

#include "db/store.h"

namespace hoard::db {

absl::StatusOr<std::unique_ptr<MatchStore>> OpenStore(const std::string& target,
                                                      StoreAccess access) {
  if (IsPostgresUrl(target)) return OpenPostgresStore(target, access);
  return OpenSqliteStore(target, access);
}

std::string StoreDisplayName(const std::string& target) {
  if (!IsPostgresUrl(target)) return target;
  absl::StatusOr<std::string> name = PostgresDisplayName(target);
  return name.ok() ? *name : "a PostgreSQL database";
}

}  // namespace hoard::db
