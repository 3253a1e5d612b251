// hoard backup: a consistent copy of a database, even while a server or a
// tournament writes to it (SQLite's online backup).

#include <iostream>

#include "absl/strings/str_cat.h"
#include "db/store.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"

namespace hoard::cli {

int RunBackup(const std::vector<std::string>& args) {
  std::string source = "hoard.db";
  std::string target;
  CommandLine command(
      "backup",
      "usage: hoard backup --db FILE --output FILE\n\n"
      "Copies a Hoard database with SQLite's online backup: a consistent snapshot,\n"
      "safe while a server or tournament keeps writing to it. The copy is checked\n"
      "(PRAGMA integrity_check) before the command succeeds.");
  CLI::App& app = command.app();
  app.add_option("--db", source, "the database to copy (default hoard.db)")
      ->type_name("FILE")
      ->check(NoPasswordInAddress());
  app.add_option("--output", target, "the copy to make (must not exist)")->type_name("FILE");
  if (std::optional<int> exit = command.ParseOrExit(args)) return *exit;
  if (target.empty()) return Fail(kExitUsage, "backup needs --output FILE");
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
