#include "tournament/catalog.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"

namespace hoard::tournament {
namespace {

// Collects the parser's first complaint, with its line.
class FirstError final : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (text.empty()) text = absl::StrCat("line ", line + 1, " column ", column + 1, ": ", message);
  }
  std::string text;
};

}  // namespace

absl::Status BotCatalogFile::Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read the catalog ", path));
  std::stringstream text;
  text << in.rdbuf();
  hoard::v1::BotCatalog catalog;
  google::protobuf::TextFormat::Parser parser;
  FirstError error;
  parser.RecordErrorsTo(&error);
  if (!parser.ParseFromString(text.str(), &catalog)) {
    return absl::InvalidArgumentError(absl::StrCat("the catalog ", path, ": ", error.text));
  }
  std::map<std::string, hoard::v1::CatalogBot> bots;
  for (int i = 0; i < catalog.bots_size(); ++i) {
    const hoard::v1::CatalogBot& bot = catalog.bots(i);
    const std::string where = absl::StrCat("the catalog ", path, ": bots[", i, "]");
    if (bot.name().empty()) return absl::InvalidArgumentError(absl::StrCat(where, " has no name"));
    if (absl::StripAsciiWhitespace(bot.command()).empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " ('", bot.name(), "') has no command"));
    }
    if (!bots.emplace(bot.name(), bot).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": the name '", bot.name(), "' is used twice"));
    }
  }
  absl::MutexLock lock(&mu_);
  bots_ = std::move(bots);
  return absl::OkStatus();
}

std::optional<hoard::v1::CatalogBot> BotCatalogFile::Find(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto it = bots_.find(name);
  if (it == bots_.end()) return std::nullopt;
  return it->second;
}

int BotCatalogFile::size() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(bots_.size());
}

}  // namespace hoard::tournament
