#ifndef HOARD_TOURNAMENT_CATALOG_H_
#define HOARD_TOURNAMENT_CATALOG_H_

// The bots a server may launch for the tournaments it runs: a file the
// operator writes (`hoard serve --catalog FILE`, a hoard.v1.BotCatalog in
// text format). A tournament created over the network names them; it can
// never carry a command of its own. Thread-safe; Load again to re-read.

#include <map>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "hoard/v1/tournament.pb.h"

namespace hoard::tournament {

class BotCatalogFile {
 public:
  // Reads `path`, replacing what was read before only if the file is good.
  // kNotFound if it cannot be read; kInvalidArgument naming the line of a
  // fault, an empty or repeated name, or an empty command.
  absl::Status Load(const std::string& path);
  // The entry named `name`, or nullopt.
  std::optional<hoard::v1::CatalogBot> Find(const std::string& name) const;
  int size() const;

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, hoard::v1::CatalogBot> bots_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_CATALOG_H_
