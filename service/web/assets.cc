#include "service/web/assets.h"

#include <string>
#include <string_view>

#include "absl/strings/str_replace.h"
#include "service/web/view_schema.h"

namespace hoard::service {

const std::vector<WebAsset>& WebAssets() {
  static const auto* assets = [] {
    auto* files = new std::vector<WebAsset>(EmbeddedWebAssets());
    for (WebAsset& file : *files) {
      if (std::string_view(file.path) != "/app.js") continue;
      const auto* body = new std::string(
          absl::StrReplaceAll(file.body, {{"/*HOARD_VIEW_SCHEMA*/null", ViewSchemaJson()}}));
      file.body = body->c_str();
    }
    return files;
  }();
  return *assets;
}

}  // namespace hoard::service
