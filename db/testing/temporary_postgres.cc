#include "db/testing/temporary_postgres.h"

#include <libpq-fe.h>
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace hoard::db::testing {
namespace {

// The directory of initdb and pg_ctl: $HOARD_POSTGRES_BIN, or the newest
// /usr/lib/postgresql/N/bin.
std::string PostgresBin() {
  if (const char* bin = std::getenv("HOARD_POSTGRES_BIN"); bin != nullptr && *bin != '\0') {
    return bin;
  }
  std::vector<std::string> found;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ignored)) {
    const std::string bin = entry.path().string() + "/bin";
    if (std::filesystem::exists(bin + "/initdb", ignored)) found.push_back(bin);
  }
  if (found.empty()) return "";
  std::sort(found.begin(), found.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  return found.back();
}

// The last lines of the server's log, for a failure's message.
std::string LogTail(const std::string& path) {
  std::ifstream in(path);
  std::stringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  return text.size() > 2000 ? text.substr(text.size() - 2000) : text;
}

}  // namespace

absl::StatusOr<std::unique_ptr<TemporaryPostgres>> TemporaryPostgres::Start() {
  const std::string bin = PostgresBin();
  if (bin.empty()) {
    return absl::FailedPreconditionError(
        "PostgreSQL's server programs are not installed (Debian package postgresql; "
        "scripts/setup.sh installs it)");
  }
  std::string pattern = (std::filesystem::temp_directory_path() / "hoard-pg-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError("cannot make a temporary directory for PostgreSQL");
  }
  std::unique_ptr<TemporaryPostgres> server(new TemporaryPostgres(bin, pattern));
  // As root, the cluster belongs to "nobody" and its programs run as it.
  std::string as_user;
  if (geteuid() == 0) {
    const passwd* nobody = getpwnam("nobody");
    if (nobody == nullptr || chown(pattern.c_str(), nobody->pw_uid, nobody->pw_gid) != 0) {
      return absl::InternalError("cannot give the temporary directory to the user nobody");
    }
    as_user = "runuser -u nobody -- ";
  }
  const std::string log = pattern + "/log";
  const std::string initdb =
      absl::StrCat(as_user, bin, "/initdb -D ", pattern,
                   "/data -U hoard -A trust -E UTF8 --locale=C ", "--no-sync >", log, " 2>&1");
  if (std::system(initdb.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("initdb failed:\n", LogTail(log)));
  }
  // Only a socket in the directory: nothing else on the machine can reach it.
  const std::string start = absl::StrCat(
      as_user, bin, "/pg_ctl -D ", pattern, "/data -w -t 60 -l ", pattern, "/server.log",
      " -o \"-c listen_addresses='' -c unix_socket_directories=", pattern,
      " -c fsync=off -c max_connections=200\" start >>", log, " 2>&1");
  if (std::system(start.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("PostgreSQL did not start:\n", LogTail(log),
                                            LogTail(pattern + "/server.log")));
  }
  server->started_ = true;
  server->as_user_ = as_user;
  return server;
}

TemporaryPostgres::~TemporaryPostgres() {
  if (started_) {
    const std::string stop = absl::StrCat(as_user_, bin_, "/pg_ctl -D ", dir_,
                                          "/data -m immediate -w stop >/dev/null 2>&1");
    std::system(stop.c_str());
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::string TemporaryPostgres::Url(const std::string& database) const {
  return absl::StrCat("postgresql://hoard@/", database, "?host=", dir_);
}

absl::StatusOr<std::string> TemporaryPostgres::NewDatabase(const std::string& name) {
  PGconn* conn = PQconnectdb(Url("postgres").c_str());
  std::string error;
  if (PQstatus(conn) != CONNECTION_OK) {
    error = PQerrorMessage(conn);
  } else {
    PGresult* result = PQexec(conn, absl::StrCat("CREATE DATABASE \"", name, "\"").c_str());
    if (PQresultStatus(result) != PGRES_COMMAND_OK) error = PQresultErrorMessage(result);
    PQclear(result);
  }
  PQfinish(conn);
  if (!error.empty()) {
    return absl::InternalError(absl::StrCat("cannot create database ", name, ": ",
                                            absl::StripTrailingAsciiWhitespace(error)));
  }
  return Url(name);
}

}  // namespace hoard::db::testing
