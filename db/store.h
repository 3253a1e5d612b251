#ifndef HOARD_DB_STORE_H_
#define HOARD_DB_STORE_H_

// The store of finished matches: what the server keeps when a match ends, so
// results and records survive a restart. The rest of Hoard sees only this
// interface; db/sqlite_store.cc is the only code that speaks SQL.
//
// Errors: kUnavailable when the database cannot be opened or written
// (the message names the file and SQLite's reason), kDataLoss for a file
// that is not a Hoard database or holds a row that cannot be read back.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hoard/v1/arena.pb.h"
#include "hoard/v1/record.pb.h"

namespace hoard::db {

struct StoredMatch {
  // The server's creation order of the match (its id is "m<sequence>").
  std::int64_t sequence = 0;
  hoard::v1::Match match;
};

struct MatchFilter {
  std::string game;  // empty: any
  std::string bot;   // a registered bot holding a seat; empty: any
};

class MatchStore {
 public:
  virtual ~MatchStore() = default;

  // Stores a finished match with its seats and its record, in one
  // transaction: all of it or none. kAlreadyExists if the id is stored.
  virtual absl::Status SaveFinished(std::int64_t sequence,
                                    const hoard::v1::Match& match,
                                    const hoard::v1::MatchRecord& record) = 0;

  // The stored match with this id, or nullopt.
  virtual absl::StatusOr<std::optional<StoredMatch>> Get(const std::string& id) = 0;
  virtual absl::StatusOr<std::optional<hoard::v1::MatchRecord>> GetRecord(
      const std::string& id) = 0;

  // Stored matches with sequence > `after`, in order, at most `limit`.
  virtual absl::StatusOr<std::vector<StoredMatch>> List(std::int64_t after, int limit,
                                                        const MatchFilter& filter) = 0;

  // The highest sequence stored (0 when empty).
  virtual absl::StatusOr<std::int64_t> LastSequence() = 0;
};

// Opens (creating if needed) the SQLite database at `path` (":memory:" for
// one that lives in memory), in WAL mode, and brings its schema up to date
// with the numbered migrations.
absl::StatusOr<std::unique_ptr<MatchStore>> OpenSqliteStore(const std::string& path);

}  // namespace hoard::db

#endif  // HOARD_DB_STORE_H_
