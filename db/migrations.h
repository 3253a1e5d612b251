#ifndef HOARD_DB_MIGRATIONS_H_
#define HOARD_DB_MIGRATIONS_H_

// The store's schema as numbered migrations, one list for SQLite
// (db/sqlite_store.cc) and PostgreSQL (db/postgres_store.cc) alike:
// migration i (1-based) brings a database from schema version i - 1 to i.
// Append, never edit: a database remembers which it has run.

#include <cstddef>
#include <string>

namespace hoard::db {

enum class SqlDatabase { kSqlite, kPostgresql };

// How many migrations there are: the schema version they bring a database to.
std::size_t MigrationCount();

// Migration `number` (1 to MigrationCount()) as `database` runs it: one or
// more statements.
std::string MigrationSql(std::size_t number, SqlDatabase database);

}  // namespace hoard::db

#endif  // HOARD_DB_MIGRATIONS_H_
