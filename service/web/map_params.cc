#include "service/web/map_params.h"

#include <cmath>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace trackdb::web {
namespace {

absl::Status Bad(absl::string_view name, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(name, " ", why));
}

// Exactly `n` comma-separated finite numbers.
absl::StatusOr<std::vector<double>> Numbers(absl::string_view name,
                                            absl::string_view text, size_t n,
                                            absl::string_view shape) {
  std::vector<double> out;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    double v;
    if (!absl::SimpleAtod(part, &v) || !std::isfinite(v)) {
      return Bad(name, absl::StrCat("must be ", shape, ", got \"", text, "\""));
    }
    out.push_back(v);
  }
  if (out.size() != n) {
    return Bad(name, absl::StrCat("must be ", shape, ", got \"", text, "\""));
  }
  return out;
}

}  // namespace

absl::StatusOr<std::string> Required(const http::HttpRequest& r,
                                     const std::string& name) {
  auto it = r.query.find(name);
  if (it == r.query.end() || it->second.empty()) {
    return Bad(name, "is required");
  }
  return it->second;
}

absl::StatusOr<int64_t> IntParam(const http::HttpRequest& r,
                                 const std::string& name, int64_t fallback) {
  auto it = r.query.find(name);
  if (it == r.query.end() || it->second.empty()) return fallback;
  int64_t v;
  if (!absl::SimpleAtoi(it->second, &v)) {
    return Bad(name,
               absl::StrCat("must be an integer, got \"", it->second, "\""));
  }
  return v;
}

absl::StatusOr<double> DistanceParam(const http::HttpRequest& r,
                                     const std::string& name, double fallback) {
  auto it = r.query.find(name);
  if (it == r.query.end() || it->second.empty()) return fallback;
  double v;
  if (!absl::SimpleAtod(it->second, &v) || !std::isfinite(v) || v < 0) {
    return Bad(name, absl::StrCat("must be a number of metres >= 0, got \"",
                                  it->second, "\""));
  }
  return v;
}

absl::StatusOr<std::unique_ptr<index::Region>> AreaParam(
    const http::HttpRequest& r) {
  auto bbox = r.query.find("bbox");
  auto circle = r.query.find("circle");
  if ((bbox == r.query.end()) == (circle == r.query.end())) {
    return Bad("bbox", "or circle is required (one of them)");
  }
  if (bbox != r.query.end()) {
    absl::StatusOr<std::vector<double>> v =
        Numbers("bbox", bbox->second, 4, "west,south,east,north");
    if (!v.ok()) return v.status();
    absl::StatusOr<index::RectRegion> rect =
        index::RectRegion::Create((*v)[1], (*v)[0], (*v)[3], (*v)[2]);
    if (!rect.ok()) return Bad("bbox", rect.status().message());
    return std::make_unique<index::RectRegion>(*std::move(rect));
  }
  absl::StatusOr<std::vector<double>> v =
      Numbers("circle", circle->second, 3, "lon,lat,radius_m");
  if (!v.ok()) return v.status();
  absl::StatusOr<index::CircleRegion> disc =
      index::CircleRegion::Create({(*v)[1], (*v)[0]}, (*v)[2]);
  if (!disc.ok()) return Bad("circle", disc.status().message());
  return std::make_unique<index::CircleRegion>(*std::move(disc));
}

}  // namespace trackdb::web
