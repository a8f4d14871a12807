// CSV (formats/track_writer.h): one row per fix or position.
#include <string>

#include "absl/strings/str_cat.h"
#include "formats/text.h"
#include "formats/writers.h"

namespace trackdb::formats {
namespace {

std::string Optional(const std::optional<double>& v) {
  return v ? Number(*v) : std::string();
}

// The attributes as one JSON object, or empty.
std::string Attributes(const model::TrackPoint& p) {
  if (p.attributes.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < p.attributes.size(); ++i) {
    absl::StrAppend(&out, i ? "," : "", JsonString(p.attributes[i].first), ":",
                    JsonString(p.attributes[i].second));
  }
  return out + "}";
}

class CsvWriter : public TrackWriter {
 public:
  explicit CsvWriter(std::ostream* out) : out_(*out) {
    out_ << "entity_id,loc_time_ms,time,latitude,longitude,speed_kmh,"
            "direction,height_m,accuracy_m,distance_m,attributes\r\n";
  }

  void BeginTrack(absl::string_view entity) override {
    entity_ = std::string(entity);
  }
  void Fix(const model::TrackPoint& fix) override {
    Row(fix, entity_, std::nullopt);
  }
  void EndTrack() override {}
  void Position(const model::TrackPoint& point,
                std::optional<double> distance_m) override {
    Row(point, point.entity, distance_m);
  }
  void Finish() override { out_.flush(); }

 private:
  void Row(const model::TrackPoint& p, absl::string_view entity,
           std::optional<double> distance_m) {
    out_ << CsvField(entity) << "," << p.loc_time_ms << ","
         << IsoTime(p.loc_time_ms) << "," << Number(p.lat) << ","
         << Number(p.lon) << "," << Optional(p.speed_kmh) << ","
         << Optional(p.direction_deg) << "," << Optional(p.height_m) << ","
         << Optional(p.accuracy_m) << "," << Optional(distance_m) << ","
         << CsvField(Attributes(p)) << "\r\n";
  }

  std::ostream& out_;
  std::string entity_;
};

}  // namespace

std::unique_ptr<TrackWriter> NewCsvWriter(std::ostream* out) {
  return std::make_unique<CsvWriter>(out);
}

}  // namespace trackdb::formats
