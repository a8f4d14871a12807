// GPX 1.1 (formats/track_writer.h).
#include <string>

#include "absl/strings/str_cat.h"
#include "formats/text.h"
#include "formats/writers.h"

namespace trackdb::formats {
namespace {

// lat="..." lon="..." and the point's elevation and time elements.
std::string PointBody(const model::TrackPoint& p) {
  std::string out =
      absl::StrCat(" lat=\"", Number(p.lat), "\" lon=\"", Number(p.lon), "\">");
  if (p.height_m) absl::StrAppend(&out, "<ele>", Number(*p.height_m), "</ele>");
  absl::StrAppend(&out, "<time>", IsoTime(p.loc_time_ms), "</time>");
  return out;
}

class GpxWriter : public TrackWriter {
 public:
  explicit GpxWriter(std::ostream* out) : out_(*out) {
    out_ << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<gpx version=\"1.1\" creator=\"trackdb\" "
            "xmlns=\"http://www.topografix.com/GPX/1/1\">\n";
  }

  void BeginTrack(absl::string_view entity) override {
    entity_ = std::string(entity);
    fixes_ = 0;
  }
  void Fix(const model::TrackPoint& fix) override {
    if (fixes_++ == 0) {
      out_ << "<trk><name>" << XmlText(entity_) << "</name><trkseg>\n";
    }
    out_ << "<trkpt" << PointBody(fix) << "</trkpt>\n";
  }
  void EndTrack() override {
    if (fixes_ > 0) out_ << "</trkseg></trk>\n";
    fixes_ = 0;
  }
  void Position(const model::TrackPoint& point,
                std::optional<double> /*distance_m*/) override {
    out_ << "<wpt" << PointBody(point) << "<name>" << XmlText(point.entity)
         << "</name></wpt>\n";
  }
  void Finish() override { out_ << "</gpx>\n"; }

 private:
  std::ostream& out_;
  std::string entity_;
  size_t fixes_ = 0;
};

}  // namespace

std::unique_ptr<TrackWriter> NewGpxWriter(std::ostream* out) {
  return std::make_unique<GpxWriter>(out);
}

}  // namespace trackdb::formats
