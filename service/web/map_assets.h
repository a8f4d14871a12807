#ifndef TRACKDB_SERVICE_WEB_MAP_ASSETS_H_
#define TRACKDB_SERVICE_WEB_MAP_ASSETS_H_

// The map page's own files (static/), built into trackd
// (embed_assets.py): "/" is index.html, "/static/<name>" the others.

#include <cstddef>
#include <string_view>

namespace trackdb::web {

struct MapAsset {
  const char* path;
  const char* content_type;
  std::string_view body;
};

extern const MapAsset kMapAssets[];
extern const size_t kMapAssetCount;

}  // namespace trackdb::web

#endif  // TRACKDB_SERVICE_WEB_MAP_ASSETS_H_
