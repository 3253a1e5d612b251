#ifndef HOARD_DB_MIGRATIONS_H_
#define HOARD_DB_MIGRATIONS_H_

// The store's schema as numbered migrations, one list in both dialects:
// migration i (1-based) brings a database from schema version i - 1 to i,
// in SQLite (db/sqlite_store.cc) and in PostgreSQL (db/postgres_store.cc)
// alike. Append, never edit: a database remembers which it has run.

#include <cstddef>

namespace hoard::db {

struct Migration {
  const char* sqlite;
  const char* postgresql;
};

// Every migration, in order.
const Migration* Migrations();
std::size_t MigrationCount();

}  // namespace hoard::db

#endif  // HOARD_DB_MIGRATIONS_H_
