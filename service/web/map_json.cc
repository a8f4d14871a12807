#include "service/web/map_json.h"

#include "absl/strings/str_cat.h"
#include "formats/text.h"

namespace trackdb::web {

void AppendRow(absl::string_view entity, double lat, double lon,
               int64_t time_ms, std::string* out) {
  absl::StrAppend(out, "[", formats::JsonString(entity), ",",
                  formats::Number(lon), ",", formats::Number(lat), ",", time_ms,
                  "]");
}

void AppendPointFeature(const model::TrackPoint& p, std::string* out) {
  absl::StrAppend(
      out,
      "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\","
      "\"coordinates\":[",
      formats::Number(p.lon), ",", formats::Number(p.lat),
      "]},\"properties\":{\"entity\":", formats::JsonString(p.entity),
      ",\"time_ms\":", p.loc_time_ms);
  const std::pair<const char*, const std::optional<double>*> fields[] = {
      {"speed_kmh", &p.speed_kmh},
      {"direction_deg", &p.direction_deg},
      {"height_m", &p.height_m},
      {"accuracy_m", &p.accuracy_m}};
  for (const auto& [name, value] : fields) {
    if (value->has_value()) {
      absl::StrAppend(out, ",\"", name, "\":", formats::Number(**value));
    }
  }
  if (!p.attributes.empty()) {
    out->append(",\"attributes\":{");
    for (size_t i = 0; i < p.attributes.size(); ++i) {
      absl::StrAppend(out, i ? "," : "",
                      formats::JsonString(p.attributes[i].first), ":",
                      formats::JsonString(p.attributes[i].second));
    }
    out->append("}");
  }
  out->append("}}");
}

std::string ErrorJson(absl::string_view message) {
  return absl::StrCat("{\"error\":", formats::JsonString(message), "}\n");
}

}  // namespace trackdb::web
