#include "web/web_assets.h"

#include <algorithm>

namespace pagedserve::web {

const web_asset* find_asset(std::string_view path) {
  const auto assets = embedded_assets();
  const auto found = std::lower_bound(
      assets.begin(), assets.end(), path,
      [](const web_asset& asset, std::string_view key) { return asset.path < key; });
  return found != assets.end() && found->path == path ? &*found : nullptr;
}

std::size_t total_asset_bytes() {
  std::size_t total = 0;
  for (const web_asset& asset : embedded_assets()) total += asset.body.size();
  return total;
}

}  // namespace pagedserve::web
