#include "tools/import/json_readers.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::import {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

struct Read {
  std::vector<model::TrackPoint> points;
  std::vector<BadRow> bad;
  absl::Status status;
};

Read ReadWith(
    std::unique_ptr<InputSource> in,
    const std::function<std::unique_ptr<PointReader>(InputSource*)>& make) {
  auto reader = make(in.get());
  Read out;
  model::TrackPoint p;
  BadRow bad;
  while (true) {
    auto r = reader->Next(&p, &bad);
    if (!r.ok()) {
      out.status = r.status();
      break;
    }
    if (*r == PointReader::Result::kEnd) break;
    if (*r == PointReader::Result::kPoint) out.points.push_back(p);
    if (*r == PointReader::Result::kBadRow) out.bad.push_back(bad);
  }
  return out;
}

Read Ndjson(const std::string& text) {
  return ReadWith(InputSource::FromString(text, "in.ndjson"),
                  [](InputSource* in) { return NewNdjsonReader(in, {}); });
}

Read GeoJson(const std::string& text, GeoJsonOptions options = {}) {
  return ReadWith(InputSource::FromString(text, "in.geojson"),
                  [&options](InputSource* in) {
                    return NewGeoJsonReader(in, {}, options);
                  });
}

TEST(NdjsonReaderTest, PointFieldsByProtoAndJsonNames) {
  Read r = Ndjson(
      R"({"entity_id": "car7", "loc_time_ms": 1763700000000, "latitude": 39.9, "longitude": 116.4, "speed_kmh": 42, "direction": 90, "height_m": 50, "accuracy_m": 5, "attributes": {"driver": "ann", "seats": 4}})"
      "\n\n"
      R"({"entityId": 8, "locTimeMs": "1763700000001", "latitude": "1.5", "longitude": 2, "speedKmh": null})"
      "\n"
      R"({"entity_id": "t", "time": "2025-11-21T05:20:00Z", "latitude": 0, "longitude": 0, "attributes": {"k": "1", "k": "2"}})");
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.points.size(), 3u);
  const model::TrackPoint& a = r.points[0];
  EXPECT_EQ(a.entity, "car7");
  EXPECT_EQ(a.loc_time_ms, 1763700000000);
  EXPECT_EQ(a.speed_kmh, 42);
  EXPECT_EQ(a.direction_deg, 90);
  EXPECT_EQ(a.height_m, 50);
  EXPECT_EQ(a.accuracy_m, 5);
  EXPECT_THAT(a.attributes,
              ElementsAre(Pair("driver", "ann"), Pair("seats", "4")));
  EXPECT_EQ(r.points[1].entity, "8");
  EXPECT_EQ(r.points[1].loc_time_ms, 1763700000001);
  EXPECT_EQ(r.points[1].lat, 1.5);
  EXPECT_FALSE(r.points[1].speed_kmh.has_value());
  EXPECT_EQ(r.points[2].loc_time_ms, 1763702400000);
  EXPECT_THAT(r.points[2].attributes, ElementsAre(Pair("k", "2")));
}

TEST(NdjsonReaderTest, BadLinesAreBadRowsAndReadingGoesOn) {
  Read r = Ndjson(
      "{\"entity_id\": \"a\", \"loc_time_ms\": 1, \"latitude\": 1, "
      "\"longitude\": 1}\n"
      "{\"entity_id\": \"b\", \"loc_time_ms\": 1, \"latitud\": 1}\n"
      "{not json}\n"
      "[1]\n"
      "{\"entity_id\": \"c\", \"latitude\": 1, \"longitude\": 1}\n"
      "{\"entity_id\": \"d\", \"loc_time_ms\": 1, \"latitude\": 1, "
      "\"longitude\": 1} trailing\n"
      "{\"entity_id\": \"e\", \"loc_time_ms\": 1, \"latitude\": 1, "
      "\"longitude\": 1, \"speed_kmh\": \"fast\"}\n");
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.points.size(), 1u);
  ASSERT_EQ(r.bad.size(), 6u);
  EXPECT_EQ(r.bad[0].line, 2);
  EXPECT_THAT(r.bad[0].reason, HasSubstr("unknown field 'latitud'"));
  EXPECT_EQ(r.bad[1].line, 3);
  EXPECT_THAT(r.bad[1].reason, HasSubstr("member name in quotes"));
  EXPECT_EQ(r.bad[1].text, "{not json}");
  EXPECT_THAT(r.bad[2].reason, HasSubstr("expected a JSON object"));
  EXPECT_THAT(r.bad[3].reason, HasSubstr("missing loc_time_ms"));
  EXPECT_THAT(r.bad[4].reason, HasSubstr("text after the JSON object"));
  EXPECT_THAT(r.bad[5].reason, HasSubstr("speed_kmh must be a number"));
}

// Coordinates are the numbers written, zero written with an exponent too;
// a number past a double's range is a bad row naming it.
TEST(NdjsonReaderTest, CoordinatesAreExactNumbers) {
  Read r = Ndjson(
      R"({"entity_id":"z","loc_time_ms":1763700000000,"latitude":0e-35,"longitude":-0.0E+7})"
      "\n"
      R"({"entity_id":"y","loc_time_ms":1763700000000,"latitude":39.9e0,"longitude":1164e-1})"
      "\n"
      R"({"entity_id":"x","loc_time_ms":1763700000000,"latitude":1,"longitude":1,"speed_kmh":2e308})");
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_EQ(r.points[0].lat, 0.0);
  EXPECT_EQ(r.points[0].lon, 0.0);
  EXPECT_EQ(r.points[1].lat, 39.9);
  EXPECT_EQ(r.points[1].lon, 116.4);
  ASSERT_EQ(r.bad.size(), 1u);
  EXPECT_THAT(r.bad[0].reason, HasSubstr("number out of range"));
}

constexpr char kCollection[] = R"({
  "type": "FeatureCollection",
  "name": "fleet",
  "features": [
    {"type": "Feature", "id": "car1",
     "geometry": {"type": "Point", "coordinates": [116.4, 39.9]},
     "properties": {"time": "2025-11-21T05:20:00Z", "speed_kmh": 30,
                    "colour": "red"}},
    {"type": "Feature",
     "geometry": {"type": "Point", "coordinates": [116.5, 39.8, 44.5]},
     "properties": {"entity_id": "car2", "loc_time_ms": 1763702400000}},
    {"type": "Feature",
     "geometry": {"type": "LineString", "coordinates": [[1, 2], [3, 4]]},
     "properties": {"id": "car3", "time": 1763702400}},
    {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 2]},
     "properties": {"id": "car4"}}
  ],
  "crs": {"type": "name"}
})";

TEST(GeoJsonReaderTest, FeaturesWithDefaultIdAndTimeProperties) {
  Read r = GeoJson(kCollection);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_EQ(r.points[0].entity, "car1");  // the feature's id
  EXPECT_EQ(r.points[0].loc_time_ms, 1763702400000);
  EXPECT_EQ(r.points[0].lon, 116.4);
  EXPECT_EQ(r.points[0].lat, 39.9);
  EXPECT_EQ(r.points[0].speed_kmh, 30);
  EXPECT_TRUE(r.points[0].attributes.empty());  // other properties ignored
  EXPECT_EQ(r.points[1].entity, "car2");
  EXPECT_EQ(r.points[1].height_m, 44.5);
  ASSERT_EQ(r.bad.size(), 2u);
  EXPECT_EQ(r.bad[0].line, 12);  // where the feature starts
  EXPECT_THAT(r.bad[0].reason,
              HasSubstr("features[2]: geometry is not a Point"));
  EXPECT_THAT(r.bad[0].text, HasSubstr("\"LineString\""));
  EXPECT_THAT(r.bad[1].reason, HasSubstr("no time"));
}

TEST(GeoJsonReaderTest, NamedIdAndTimeProperties) {
  GeoJsonOptions options;
  options.id_property = "vehicle";
  options.time_property = "ts";
  Read r = GeoJson(R"({"type": "FeatureCollection", "features": [
    {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 2]},
     "properties": {"vehicle": 17, "ts": "2025-11-21 05:20:00"}},
    {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 2]},
     "properties": {"id": "x", "ts": 1}}]})",
                   options);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.points.size(), 1u);
  EXPECT_EQ(r.points[0].entity, "17");
  EXPECT_EQ(r.points[0].loc_time_ms, 1763702400000);
  ASSERT_EQ(r.bad.size(), 1u);
  EXPECT_THAT(r.bad[0].reason, HasSubstr("missing properties.vehicle"));
}

TEST(GeoJsonReaderTest, BrokenDocumentsEndTheInput) {
  EXPECT_THAT(std::string(GeoJson(R"({"type": "Feature"})").status.message()),
              HasSubstr("expected \"FeatureCollection\""));
  EXPECT_THAT(
      std::string(GeoJson(R"({"type": "FeatureCollection"})").status.message()),
      HasSubstr("no \"features\""));
  Read cut = GeoJson(R"({"type": "FeatureCollection", "features": [
    {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 2]},
     "properties": {"id": "a", "time": 1763702400}},
    {"type": )");
  EXPECT_EQ(cut.points.size(), 1u);
  EXPECT_THAT(std::string(cut.status.message()),
              HasSubstr("in.geojson: line 4"));
  EXPECT_THAT(std::string(GeoJson("").status.message()), HasSubstr("empty"));
  EXPECT_THAT(std::string(GeoJson("{} {}").status.message()),
              HasSubstr("the end after the FeatureCollection"));
}

}  // namespace
}  // namespace trackdb::import
