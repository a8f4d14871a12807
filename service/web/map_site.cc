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
// The page runs only its own scripts and talks only to trackd (and to the
// tile server, for images); nothing else may frame it or guess its types.
constexpr char kPageHeaders[] =
    "Content-Security-Policy: default-src 'self'; img-src 'self' data: *; "
    "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'\r\n"
    "X-Content-Type-Options: nosniff\r\n";

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
                 std::string leaflet_dir, std::string tile_url,
                 std::string bind_address)
    : store_(store),
      users_(users),
      leaflet_dir_(std::move(leaflet_dir)),
      tile_url_(std::move(tile_url)),
      bind_address_(std::move(bind_address)) {}

// The host of a Host header ("127.0.0.1:9900" -> "127.0.0.1", "[::1]:80"
// -> "[::1]").
static absl::string_view HostName(absl::string_view host) {
  if (absl::StartsWith(host, "[")) return host.substr(0, host.find(']') + 1);
  return host.substr(0, host.find(':'));
}

std::optional<WebAnswer> MapSite::HostRefusal(
    const http::HttpRequest& request) const {
  // Only a loopback server is reached this way: one on another address
  // without credentials is open to its network anyway.
  if (!absl::StartsWith(bind_address_, "127.") &&
      bind_address_ != "localhost") {
    return std::nullopt;
  }
  auto host = request.header.find("host");
  const absl::string_view name =
      host == request.header.end() ? "" : HostName(host->second);
  if (name == "127.0.0.1" || name == "localhost" || name == "[::1]" ||
      name == bind_address_) {
    return std::nullopt;
  }
  return Plain(403, absl::StrCat("Host \"", name,
                                 "\" is not this server's address; without "
                                 "credentials the page answers only its "
                                 "own address\n"));
}

std::optional<WebAnswer> MapSite::Refusal(
    const http::HttpRequest& request) const {
  if (users_ == nullptr || !users_->auth_required()) {
    return HostRefusal(request);
  }
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

WebAnswer MapSite::CountedStream(WebAnswer answer) {
  if (streams_->fetch_add(1) >= kMaxStreams) {
    streams_->fetch_sub(1);
    return Plain(503, absl::StrCat("more than ", kMaxStreams,
                                   " live streams of the map page\n"));
  }
  // Counted from now (the answer may never be sent) until the stream and
  // the answer are gone.
  std::shared_ptr<int> slot(new int(0), [count = streams_](int* p) {
    delete p;
    count->fetch_sub(1);
  });
  answer.stream = [run = std::move(answer.stream), slot](EventStream& out) {
    run(out);
  };
  return answer;
}

WebAnswer MapSite::Handle(const http::HttpRequest& request) {
  if (std::optional<WebAnswer> refusal = Refusal(request)) return *refusal;
  const std::string& path = request.path;
  for (size_t i = 0; i < kMapAssetCount; ++i) {
    if (path == kMapAssets[i].path) {
      return {{200, kMapAssets[i].content_type, std::string(kMapAssets[i].body),
               absl::StrCat("Cache-Control: no-cache\r\n", kPageHeaders)},
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
  if (std::optional<WebAnswer> api = AnswerApi(*store_, request)) {
    if (api->stream) return CountedStream(*std::move(api));
    return *api;
  }
  return Plain(404, absl::StrCat("no page at ", path, "\n"));
}

}  // namespace trackdb::web
