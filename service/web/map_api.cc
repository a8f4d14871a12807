#include "service/web/map_api.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/simplify.h"
#include "analysis/track_analysis.h"
#include "formats/text.h"
#include "model/limits.h"
#include "service/events/fence_json.h"
#include "service/web/map_json.h"
#include "service/web/map_params.h"
#include "service/web/map_stream.h"
#include "storage/points/track_range.h"

namespace trackdb::web {
namespace {

constexpr char kJson[] = "application/json";
constexpr char kGeoJson[] = "application/geo+json";
// What the page draws of a track without a tolerance of its own: about a
// pixel at street zoom.
constexpr double kDefaultToleranceM = 5;

WebAnswer Json(std::string body, const char* type = kJson) {
  return {{200, type, std::move(body), "Cache-Control: no-store\r\n"}, {}};
}

// 400 for a bad parameter; 500 for a store that could not answer.
WebAnswer Error(const absl::Status& s) {
  const int status = s.code() == absl::StatusCode::kInvalidArgument     ? 400
                     : s.code() == absl::StatusCode::kResourceExhausted ? 400
                                                                        : 500;
  return {{status, kJson, ErrorJson(s.message())}, {}};
}

WebAnswer Collections(storage::TrackStore& store) {
  std::string out = "{\"collections\":[";
  bool first = true;
  absl::Status s =
      store.ScanCollections([&](absl::string_view name, int64_t size) {
        // Names that are not UTF-8 (Redis keys of databases 1..15, binary
        // keys) have no JSON string to be asked back by.
        if (formats::ValidUtf8(name) != name) return true;
        absl::StrAppend(&out, first ? "" : ",",
                        "{\"name\":", formats::JsonString(name),
                        ",\"entities\":", size, "}");
        first = false;
        return true;
      });
  if (!s.ok()) return Error(s);
  return Json(out + "]}\n");
}

WebAnswer Latest(storage::TrackStore& store, const http::HttpRequest& r) {
  absl::StatusOr<std::string> collection = Required(r, "collection");
  if (!collection.ok()) return Error(collection.status());
  auto format = r.query.find("format");
  const bool rows = format != r.query.end() && format->second == "rows";
  if (format != r.query.end() && !rows && format->second != "geojson") {
    return Error(absl::InvalidArgumentError(
        absl::StrCat("format must be \"geojson\" or \"rows\", got \"",
                     format->second, "\"")));
  }
  std::string out =
      rows ? "{\"rows\":[" : "{\"type\":\"FeatureCollection\",\"features\":[";
  bool first = true;
  absl::Status s =
      store.ScanLatest(*collection, [&](const model::TrackPoint& p) {
        if (!first) out += ',';
        first = false;
        if (rows) {
          AppendRow(p.entity, p.lat, p.lon, p.loc_time_ms, &out);
        } else {
          AppendPointFeature(p, &out);
        }
        return true;
      });
  if (!s.ok()) return Error(s);
  return Json(out + "]}\n", rows ? kJson : kGeoJson);
}

void AppendAnalysis(const analysis::TrackAnalysis& a, std::string* out) {
  absl::StrAppend(out, "\"analysis\":{\"fixes\":", a.fixes,
                  ",\"jumps\":", a.jumps,
                  ",\"distance_m\":", formats::Number(a.distance_m),
                  ",\"moving_ms\":", a.moving_ms,
                  ",\"max_speed_kmh\":", formats::Number(a.max_speed_kmh),
                  ",\"mean_speed_kmh\":", formats::Number(a.mean_speed_kmh),
                  ",\"gaps\":", a.gaps.size(), ",\"trips\":[");
  for (size_t i = 0; i < a.trips.size(); ++i) {
    const analysis::Trip& t = a.trips[i];
    absl::StrAppend(out, i ? "," : "", "{\"start_ms\":", t.start_ms,
                    ",\"end_ms\":", t.end_ms,
                    ",\"distance_m\":", formats::Number(t.distance_m), "}");
  }
  out->append("]}");
}

// The simplified line, then each stay as a Point.
void AppendTrackFeatures(const std::vector<model::TrackPoint>& points,
                         const analysis::TrackAnalysis& a, double tolerance,
                         std::string* out) {
  std::vector<index::LatLng> line;
  line.reserve(points.size());
  for (const model::TrackPoint& p : points) line.push_back({p.lat, p.lon});
  const std::vector<size_t> kept =
      analysis::SimplifyDouglasPeucker(line, tolerance);
  absl::StrAppend(out,
                  "{\"type\":\"Feature\",\"properties\":{\"kind\":\"track\","
                  "\"fixes\":",
                  points.size(), ",\"shown\":", kept.size(),
                  "},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[");
  for (size_t i = 0; i < kept.size(); ++i) {
    const model::TrackPoint& p = points[kept[i]];
    absl::StrAppend(out, i ? "," : "", "[", formats::Number(p.lon), ",",
                    formats::Number(p.lat), "]");
  }
  out->append("]}}");
  for (const analysis::Stay& s : a.stays) {
    absl::StrAppend(out,
                    ",{\"type\":\"Feature\",\"properties\":{\"kind\":\"stay\","
                    "\"start_ms\":",
                    s.start_ms, ",\"end_ms\":", s.end_ms,
                    ",\"fixes\":", s.fixes,
                    "},\"geometry\":{\"type\":\"Point\",\"coordinates\":[",
                    formats::Number(s.centre.lon), ",",
                    formats::Number(s.centre.lat), "]}}");
  }
}

WebAnswer Track(storage::TrackStore& store, const http::HttpRequest& r) {
  absl::StatusOr<std::string> collection = Required(r, "collection");
  absl::StatusOr<std::string> entity = Required(r, "entity");
  absl::StatusOr<int64_t> from = IntParam(r, "from", INT64_MIN);
  absl::StatusOr<int64_t> to = IntParam(r, "to", INT64_MAX);
  absl::StatusOr<double> tolerance =
      DistanceParam(r, "tolerance_m", kDefaultToleranceM);
  for (const absl::Status& s :
       {collection.status(), entity.status(), from.status(), to.status(),
        tolerance.status()}) {
    if (!s.ok()) return Error(s);
  }
  storage::TrackQuery range;
  range.collection = *collection;
  range.entity = *entity;
  range.start_ms = *from;
  range.end_ms = *to;
  absl::StatusOr<std::vector<model::TrackPoint>> points =
      storage::ReadTrackRange(store, range, model::kMaxAnalyzedFixes);
  if (!points.ok()) return Error(points.status());
  const analysis::TrackAnalysis a =
      analysis::AnalyzeTrack(*points, analysis::AnalysisOptions());
  std::string out = absl::StrCat("{\"type\":\"FeatureCollection\",\"entity\":",
                                 formats::JsonString(*entity), ",");
  AppendAnalysis(a, &out);
  out += ",\"features\":[";
  if (!points->empty()) AppendTrackFeatures(*points, a, *tolerance, &out);
  return Json(out + "]}\n", kGeoJson);
}

WebAnswer Fences(storage::TrackStore& store, const http::HttpRequest& r) {
  absl::StatusOr<std::string> collection = Required(r, "collection");
  if (!collection.ok()) return Error(collection.status());
  absl::StatusOr<std::vector<v1::Fence>> fences =
      store.fences().List(*collection);
  if (!fences.ok()) return Error(fences.status());
  std::string out = "{\"fences\":[";
  for (size_t i = 0; i < fences->size(); ++i) {
    absl::StrAppend(&out, i ? "," : "",
                    resp::FenceJson(*collection, (*fences)[i]));
  }
  return Json(out + "]}\n");
}

void AppendFix(const char* name, const model::TrackPoint& p, std::string* out) {
  absl::StrAppend(out, "\"", name, "\":{\"time_ms\":", p.loc_time_ms,
                  ",\"lat\":", formats::Number(p.lat),
                  ",\"lon\":", formats::Number(p.lon), "}");
}

WebAnswer Search(storage::TrackStore& store, const http::HttpRequest& r) {
  absl::StatusOr<std::string> collection = Required(r, "collection");
  absl::StatusOr<std::unique_ptr<index::Region>> area = AreaParam(r);
  absl::StatusOr<int64_t> from = IntParam(r, "from", INT64_MIN);
  absl::StatusOr<int64_t> to = IntParam(r, "to", INT64_MAX);
  absl::StatusOr<int64_t> limit = IntParam(r, "limit", model::kMaxPageSize);
  for (const absl::Status& s : {collection.status(), area.status(),
                                from.status(), to.status(), limit.status()}) {
    if (!s.ok()) return Error(s);
  }
  if (*limit < 1 || *limit > static_cast<int64_t>(model::kMaxPageSize)) {
    return Error(absl::InvalidArgumentError(absl::StrCat(
        "limit must be 1..", model::kMaxPageSize, ", got ", *limit)));
  }
  storage::HistoryQuery query;
  query.collection = *collection;
  query.region = area->get();
  query.start_ms = *from;
  query.end_ms = *to;
  query.per_entity = true;
  query.limit = static_cast<int>(*limit);
  if (auto t = r.query.find("page_token"); t != r.query.end()) {
    query.page_token = t->second;
  }
  absl::StatusOr<storage::HistoryPage> page = store.SearchHistory(query);
  if (!page.ok()) return Error(page.status());
  std::string out = "{\"visits\":[";
  for (size_t i = 0; i < page->visits.size(); ++i) {
    const storage::HistoryVisit& v = page->visits[i];
    absl::StrAppend(&out, i ? "," : "",
                    "{\"entity\":", formats::JsonString(v.first.entity),
                    ",\"fixes\":", v.fixes, ",");
    AppendFix("first", v.first, &out);
    out += ',';
    AppendFix("last", v.last, &out);
    out += '}';
  }
  absl::StrAppend(&out, "],\"next_page_token\":",
                  formats::JsonString(page->next_page_token), "}\n");
  return Json(out);
}

}  // namespace

std::optional<WebAnswer> AnswerApi(storage::TrackStore& store,
                                   const http::HttpRequest& request) {
  const std::string& path = request.path;
  if (path == "/api/collections") return Collections(store);
  if (path == "/api/latest") return Latest(store, request);
  if (path == "/api/track") return Track(store, request);
  if (path == "/api/fences") return Fences(store, request);
  if (path == "/api/search") return Search(store, request);
  if (path == "/api/stream") {
    absl::StatusOr<std::string> collection = Required(request, "collection");
    if (!collection.ok()) return Error(collection.status());
    return StreamAnswer(store, *collection);
  }
  return std::nullopt;
}

}  // namespace trackdb::web
