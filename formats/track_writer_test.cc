// Each format against what was written: GeoJSON parsed back (a JSON
// parser, protobuf's Struct) with coordinates equal to the fixes', GPX and
// CSV counted and read back.
#include "formats/track_writer.h"

#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace trackdb::formats {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;
using ::testing::HasSubstr;

// A random walk: `n` fixes of `entity` from t = 1763700000000, 10 s apart.
std::vector<model::TrackPoint> Walk(const std::string& entity, int n,
                                    uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> step(0, 0.001);
  std::vector<model::TrackPoint> out;
  double lat = 39.9, lon = 116.4;
  for (int i = 0; i < n; ++i) {
    model::TrackPoint p;
    p.entity = entity;
    p.loc_time_ms = 1763700000000 + 10000 * i;
    p.lat = lat += step(rng);
    p.lon = lon += step(rng);
    out.push_back(p);
  }
  return out;
}

std::string Write(Format format,
                  const std::vector<std::vector<model::TrackPoint>>& tracks,
                  const std::vector<model::TrackPoint>& positions) {
  std::ostringstream out;
  std::unique_ptr<TrackWriter> w = NewTrackWriter(format, &out);
  for (const model::TrackPoint& p : positions) w->Position(p, 12.5);
  for (const auto& track : tracks) {
    w->BeginTrack(track.empty() ? "empty" : track[0].entity);
    for (const model::TrackPoint& p : track) w->Fix(p);
    w->EndTrack();
  }
  w->Finish();
  return out.str();
}

Struct ParseJson(const std::string& text) {
  Struct parsed;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(text, &parsed).ok())
      << text.substr(0, 500);
  return parsed;
}

TEST(TrackWriterTest, GeoJsonTracksAreLineStringsWithTheFixesExactly) {
  const std::vector<model::TrackPoint> walk = Walk("car \"7\"", 500, 1);
  const std::vector<model::TrackPoint> single = Walk("bus", 1, 2);
  model::TrackPoint at = Walk("van", 1, 3)[0];
  at.speed_kmh = 42;
  at.attributes = {{"driver", "ana"}};
  const Struct doc =
      ParseJson(Write(Format::kGeoJson, {walk, {}, single}, {at}));
  EXPECT_EQ(doc.fields().at("type").string_value(), "FeatureCollection");
  const auto& features = doc.fields().at("features").list_value().values();
  ASSERT_EQ(features.size(), 3);  // the empty track writes nothing

  const auto& position = features[0].struct_value().fields();
  EXPECT_EQ(
      position.at("geometry").struct_value().fields().at("type").string_value(),
      "Point");
  const auto& props = position.at("properties").struct_value().fields();
  EXPECT_EQ(props.at("entity_id").string_value(), "van");
  EXPECT_EQ(props.at("speed_kmh").number_value(), 42);
  EXPECT_EQ(props.at("distance_m").number_value(), 12.5);
  EXPECT_EQ(props.at("attributes")
                .struct_value()
                .fields()
                .at("driver")
                .string_value(),
            "ana");

  const auto& line = features[1].struct_value().fields();
  const auto& geometry = line.at("geometry").struct_value().fields();
  EXPECT_EQ(geometry.at("type").string_value(), "LineString");
  const auto& coords = geometry.at("coordinates").list_value().values();
  ASSERT_EQ(coords.size(), walk.size());
  for (size_t i = 0; i < walk.size(); ++i) {
    const auto& c = coords[i].list_value().values();
    EXPECT_EQ(c[0].number_value(), walk[i].lon) << i;
    EXPECT_EQ(c[1].number_value(), walk[i].lat) << i;
  }
  const auto& track_props = line.at("properties").struct_value().fields();
  EXPECT_EQ(track_props.at("entity_id").string_value(), "car \"7\"");
  EXPECT_EQ(track_props.at("fixes").number_value(), 500);
  EXPECT_EQ(track_props.at("coordTimes").list_value().values(1).string_value(),
            "2025-11-21T04:40:10.000Z");

  const auto& lone = features[2].struct_value().fields();
  EXPECT_EQ(
      lone.at("geometry").struct_value().fields().at("type").string_value(),
      "Point");
}

TEST(TrackWriterTest, GpxHasWaypointsThenOneTrackSegmentPerTrack) {
  const std::vector<model::TrackPoint> walk = Walk("a&b<c>", 20, 4);
  model::TrackPoint high = Walk("z", 1, 5)[0];
  high.height_m = 55.5;
  const std::string gpx = Write(Format::kGpx, {walk, {high}}, {high});
  EXPECT_THAT(gpx, ::testing::StartsWith("<?xml version=\"1.0\""));
  EXPECT_THAT(gpx, HasSubstr("<name>a&amp;b&lt;c&gt;</name>"));
  EXPECT_THAT(gpx, HasSubstr("<ele>55.5</ele>"));
  EXPECT_LT(gpx.find("<wpt "), gpx.find("<trk>"));
  size_t trkpts = 0;
  for (size_t i = gpx.find("<trkpt "); i != std::string::npos;
       i = gpx.find("<trkpt ", i + 1)) {
    ++trkpts;
  }
  EXPECT_EQ(trkpts, 21u);
  // Every fix's coordinates read back exactly, in order.
  size_t at = 0;
  for (const model::TrackPoint& p : walk) {
    at = gpx.find("<trkpt lat=\"", at) + 12;
    EXPECT_EQ(std::strtod(gpx.c_str() + at, nullptr), p.lat);
    at = gpx.find("lon=\"", at) + 5;
    EXPECT_EQ(std::strtod(gpx.c_str() + at, nullptr), p.lon);
  }
  EXPECT_THAT(gpx, ::testing::EndsWith("</gpx>\n"));
}

TEST(TrackWriterTest, CsvRowsReadBackAndQuoteWhatNeedsIt) {
  std::vector<model::TrackPoint> walk = Walk("a,b", 30, 6);
  walk[3].attributes = {{"k", "v,w"}};
  const std::string csv = Write(Format::kCsv, {walk}, {});
  std::vector<std::string> rows = absl::StrSplit(csv, "\r\n");
  ASSERT_EQ(rows.size(), 32u);  // header, 30 rows, the empty string after
  EXPECT_EQ(rows[0],
            "entity_id,loc_time_ms,time,latitude,longitude,speed_kmh,"
            "direction,height_m,accuracy_m,distance_m,attributes");
  for (int i = 0; i < 30; ++i) {
    const std::string& row = rows[i + 1];
    ASSERT_EQ(row.substr(0, 6), "\"a,b\",") << row;
    std::vector<std::string> f = absl::StrSplit(row.substr(6), ',');
    EXPECT_EQ(std::stoll(f[0]), walk[i].loc_time_ms);
    EXPECT_EQ(std::strtod(f[2].c_str(), nullptr), walk[i].lat);
    EXPECT_EQ(std::strtod(f[3].c_str(), nullptr), walk[i].lon);
  }
  EXPECT_THAT(rows[4], ::testing::EndsWith(",\"{\"\"k\"\":\"\"v,w\"\"}\""));
}

TEST(TrackWriterTest, FormatsByName) {
  EXPECT_EQ(ParseFormat("GeoJSON"), Format::kGeoJson);
  EXPECT_EQ(ParseFormat("gpx"), Format::kGpx);
  EXPECT_EQ(ParseFormat("CSV"), Format::kCsv);
  EXPECT_EQ(ParseFormat("kml"), std::nullopt);
}

}  // namespace
}  // namespace trackdb::formats
