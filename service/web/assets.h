#ifndef HOARD_SERVICE_WEB_ASSETS_H_
#define HOARD_SERVICE_WEB_ASSETS_H_

// The web app's files (service/web/app), built into the program: the
// server serves them from memory, needing nothing beside the binary.

#include <vector>

namespace hoard::service {

struct WebAsset {
  const char* path;  // "/app.js"
  const char* content_type;
  const char* body;
};

const std::vector<WebAsset>& WebAssets();

}  // namespace hoard::service

#endif  // HOARD_SERVICE_WEB_ASSETS_H_
