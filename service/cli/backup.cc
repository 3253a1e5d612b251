// hoard backup: a consistent copy of a database, even while a server or a
// tournament writes to it (SQLite's online backup).

#include <iostream>

#include "absl/strings/str_cat.h"
#include "db/store.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"

namespace hoard::cli {
namespace {

const std::vector<FlagSpec>& BackupFlags() {
  static const auto* specs = new std::vector<FlagSpec>{
      {"db", "FILE", "the database to copy (default hoard.db)"},
      {"output", "FILE", "the copy to make (must not exist)"},
      {"help", "", "show this help"},
  };
  return *specs;
}

}  // namespace

int RunBackup(const std::vector<std::string>& args) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, BackupFlags());
  if (!parsed.ok()) return Fail(kExitUsage, std::string(parsed.status().message()));
  if (parsed->Has("help")) {
    std::cout << "usage: hoard backup --db FILE --output FILE\n\n"
                 "Copies a Hoard database with SQLite's online backup: a consistent snapshot,\n"
                 "safe while a server or tournament keeps writing to it. The copy is checked\n"
                 "(PRAGMA integrity_check) before the command succeeds.\n\n"
              << FlagsHelp(BackupFlags());
    return kExitOk;
  }
  if (!parsed->Has("output")) return Fail(kExitUsage, "backup needs --output FILE");
  const std::string source = parsed->Get("db", "hoard.db");
  const std::string target = parsed->Get("output", "");
  if (db::IsPostgresUrl(source)) {
    return Fail(kExitUsage,
                "hoard backup copies SQLite files; back up a PostgreSQL database with its own "
                "tools (pg_dump, or the server's continuous archiving)");
  }
  if (absl::Status status = db::BackupSqlite(source, target); !status.ok()) {
    return Fail(kExitFailure, std::string(status.message()));
  }
  std::cout << "hoard: backed up " << source << " to " << target << " (integrity check ok)"
            << std::endl;
  return kExitOk;
}

}  // namespace hoard::cli
