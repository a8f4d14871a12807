#ifndef TRACKDB_SERVICE_WEB_MAP_SITE_H_
#define TRACKDB_SERVICE_WEB_MAP_SITE_H_

// What trackd's HTTP port serves: the map page ("/", "/static/..."),
// Leaflet from Debian's libjs-leaflet ("/leaflet/..."), and the JSON API
// (map_api.h), and /api/config ({"tile_url": ...}, what the page draws
// under the map). When the doors ask credentials (requirepass or users), so
// does every path here: HTTP Basic, of a user whose role may read.

#include <atomic>
#include <map>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "service/auth/users.h"
#include "service/web/web_server.h"
#include "storage/track_store.h"

namespace trackdb::web {

class MapSite {
 public:
  // `store` and `users` outlive the site.
  // At most this many live streams at once, so that streams never hold
  // every connection the server takes (web_server.h).
  static constexpr int kMaxStreams = 32;

  // `tile_url`: the base map's ({z}/{x}/{y}), empty for none.
  // `bind_address`: where the server listens; without credentials asked, a
  // request must name it, or a loopback name, as its Host (a page on
  // another site that rebinds its own name to 127.0.0.1 reads nothing).
  MapSite(storage::TrackStore* store, const auth::UserTable* users,
          std::string leaflet_dir, std::string tile_url,
          std::string bind_address = "127.0.0.1");

  WebAnswer Handle(const http::HttpRequest& request);

 private:
  // nullopt when the request may go on; else the refusal.
  std::optional<WebAnswer> Refusal(const http::HttpRequest& request) const;
  // The same without credentials asked: a Host other than the server's
  // own address (DNS rebinding).
  std::optional<WebAnswer> HostRefusal(const http::HttpRequest& request) const;
  WebAnswer Leaflet(absl::string_view name);
  // `answer`'s stream, counted against kMaxStreams; 503 past it.
  WebAnswer CountedStream(WebAnswer answer);

  storage::TrackStore* const store_;
  const auth::UserTable* const users_;
  const std::string leaflet_dir_;
  const std::string tile_url_;
  const std::string bind_address_;
  std::shared_ptr<std::atomic<int>> streams_ =
      std::make_shared<std::atomic<int>>(0);
  absl::Mutex mu_;
  // Leaflet's files as read once; they change only with the package.
  std::map<std::string, std::string, std::less<>> leaflet_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trackdb::web

#endif  // TRACKDB_SERVICE_WEB_MAP_SITE_H_
