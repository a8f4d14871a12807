// GeoJSON (formats/track_writer.h).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "formats/text.h"
#include "formats/writers.h"

namespace trackdb::formats {
namespace {

std::string Coordinates(const model::TrackPoint& p) {
  return absl::StrCat("[", Number(p.lon), ",", Number(p.lat), "]");
}

// The fix's own fields and attributes, as properties.
std::string PointProperties(const model::TrackPoint& p,
                            std::optional<double> distance_m) {
  std::string out = absl::StrCat("\"entity_id\":", JsonString(p.entity),
                                 ",\"loc_time_ms\":", p.loc_time_ms,
                                 ",\"time\":\"", IsoTime(p.loc_time_ms), "\"");
  auto optional = [&](const char* name, const std::optional<double>& v) {
    if (v) absl::StrAppend(&out, ",\"", name, "\":", Number(*v));
  };
  optional("speed_kmh", p.speed_kmh);
  optional("direction", p.direction_deg);
  optional("height_m", p.height_m);
  optional("accuracy_m", p.accuracy_m);
  optional("distance_m", distance_m);
  if (!p.attributes.empty()) {
    out += ",\"attributes\":{";
    for (size_t i = 0; i < p.attributes.size(); ++i) {
      absl::StrAppend(&out, i ? "," : "", JsonString(p.attributes[i].first),
                      ":", JsonString(p.attributes[i].second));
    }
    out += "}";
  }
  return out;
}

class GeoJsonWriter : public TrackWriter {
 public:
  explicit GeoJsonWriter(std::ostream* out) : out_(*out) {
    out_ << "{\"type\":\"FeatureCollection\",\"features\":[";
  }

  void BeginTrack(absl::string_view entity) override {
    entity_ = std::string(entity);
    times_.clear();
  }
  void Fix(const model::TrackPoint& fix) override {
    // A LineString needs two positions: the first fix waits for a second.
    if (times_.empty()) {
      first_ = fix;
    } else {
      if (times_.size() == 1) {
        StartFeature();
        out_ << "{\"type\":\"LineString\",\"coordinates\":["
             << Coordinates(first_);
      }
      out_ << "," << Coordinates(fix);
    }
    times_.push_back(fix.loc_time_ms);
  }
  void EndTrack() override {
    if (times_.empty()) return;
    if (times_.size() == 1) {
      StartFeature();
      out_ << "{\"type\":\"Point\",\"coordinates\":" << Coordinates(first_)
           << "}";
    } else {
      out_ << "]}";
    }
    out_ << ",\"properties\":{\"entity_id\":" << JsonString(entity_)
         << ",\"fixes\":" << times_.size() << ",\"start_ms\":" << times_.front()
         << ",\"end_ms\":" << times_.back() << ",\"coordTimes\":[";
    for (size_t i = 0; i < times_.size(); ++i) {
      out_ << (i ? ",\"" : "\"") << IsoTime(times_[i]) << "\"";
    }
    out_ << "]}}";
    times_.clear();
  }
  void Position(const model::TrackPoint& point,
                std::optional<double> distance_m) override {
    StartFeature();
    out_ << "{\"type\":\"Point\",\"coordinates\":" << Coordinates(point)
         << "},\"properties\":{" << PointProperties(point, distance_m) << "}}";
  }
  void Finish() override { out_ << "]}\n"; }

 private:
  // A feature's opening, up to its geometry's value.
  void StartFeature() {
    out_ << (features_++ ? "," : "") << "{\"type\":\"Feature\",\"geometry\":";
  }

  std::ostream& out_;
  size_t features_ = 0;
  std::string entity_;
  model::TrackPoint first_;
  std::vector<int64_t> times_;
};

}  // namespace

std::unique_ptr<TrackWriter> NewGeoJsonWriter(std::ostream* out) {
  return std::make_unique<GeoJsonWriter>(out);
}

}  // namespace trackdb::formats
