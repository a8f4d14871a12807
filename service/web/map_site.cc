#include "service/web/map_site.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "formats/text.h"
#include "service/web/map_api.h"
#include "service/web/map_assets.h"
#include "service/web/map_json.h"

namespace trackdb::web {
namespace {

constexpr char kText[] = "text/plain; charset=utf-8";

WebAnswer Plain(int status, std::string body, std::string headers = "") {
  return {{status, kText, std::move(body), std::move(headers)}, {}};
}

const char* TypeOf(absl::string_view name) {
  if (absl::EndsWith(name, ".js")) return "text/javascript; charset=utf-8";
  if (absl::EndsWith(name, ".css")) return "text/css; charset=utf-8";
  if (absl::EndsWith(name, ".png")) return "image/png";
  return nullptr;
}

// "leaflet.js", "images/marker-icon.png": a file of Leaflet's, not a way
// out of its directory.
bool IsLeafletName(absl::string_view name) {
  if (absl::StartsWith(name, "images/")) name.remove_prefix(7);
  if (name.empty() || name[0] == '.') return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(c) && c != '.' && c != '-' && c != '_') {
      return false;
    }
  }
  return TypeOf(name) != nullptr;
}

}  // namespace

MapSite::MapSite(storage::TrackStore* store, const auth::UserTable* users,
                 std::string leaflet_dir, std::string tile_url)
    : store_(store),
      users_(users),
      leaflet_dir_(std::move(leaflet_dir)),
      tile_url_(std::move(tile_url)) {}

std::optional<WebAnswer> MapSite::Refusal(
    const http::HttpRequest& request) const {
  if (users_ == nullptr || !users_->auth_required()) return std::nullopt;
  const std::string challenge =
      "WWW-Authenticate: Basic realm=\"trackdb\", charset=\"UTF-8\"\r\n";
  auto it = request.header.find("authorization");
  std::string decoded;
  if (it == request.header.end() || !absl::StartsWith(it->second, "Basic ") ||
      !absl::Base64Unescape(absl::string_view(it->second).substr(6),
                            &decoded) ||
      decoded.find(':') == std::string::npos) {
    return Plain(401, "log in with a user of trackd's (HTTP Basic)\n",
                 challenge);
  }
  const size_t colon = decoded.find(':');
  std::optional<v1::UserRole> role =
      users_->Authenticate(decoded.substr(0, colon), decoded.substr(colon + 1));
  if (!role) {
    return Plain(401, "invalid username-password pair or user is disabled\n",
                 challenge);
  }
  if (!auth::RoleAllows(*role, auth::Access::kRead)) {
    return Plain(403, "this user may not read\n");
  }
  return std::nullopt;
}

WebAnswer MapSite::Leaflet(absl::string_view name) {
  if (!IsLeafletName(name)) return Plain(404, "no such file of Leaflet's\n");
  absl::MutexLock l(&mu_);
  auto it = leaflet_.find(name);
  if (it == leaflet_.end()) {
    std::ifstream in(absl::StrCat(leaflet_dir_, "/", name), std::ios::binary);
    if (!in) {
      return Plain(404, absl::StrCat("no ", name, " in ", leaflet_dir_,
                                     " (install Debian's libjs-leaflet, or "
                                     "set server.http_leaflet_dir)\n"));
    }
    std::ostringstream body;
    body << in.rdbuf();
    it = leaflet_.emplace(std::string(name), body.str()).first;
  }
  return {{200, TypeOf(name), it->second, "Cache-Control: max-age=3600\r\n"},
          {}};
}

WebAnswer MapSite::Handle(const http::HttpRequest& request) {
  if (std::optional<WebAnswer> refusal = Refusal(request)) return *refusal;
  const std::string& path = request.path;
  for (size_t i = 0; i < kMapAssetCount; ++i) {
    if (path == kMapAssets[i].path) {
      return {{200, kMapAssets[i].content_type, std::string(kMapAssets[i].body),
               "Cache-Control: no-cache\r\n"},
              {}};
    }
  }
  if (absl::StartsWith(path, "/leaflet/")) {
    return Leaflet(absl::string_view(path).substr(9));
  }
  if (path == "/api/config") {
    return {
        {200, "application/json",
         absl::StrCat("{\"tile_url\":", formats::JsonString(tile_url_), "}\n"),
         "Cache-Control: no-store\r\n"},
        {}};
  }
  if (std::optional<WebAnswer> api = AnswerApi(*store_, request)) return *api;
  return Plain(404, absl::StrCat("no page at ", path, "\n"));
}

}  // namespace trackdb::web
