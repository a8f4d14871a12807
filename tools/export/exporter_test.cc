// Exports against an in-process trackd, checked against what was written
// (the generator keeps every fix): a collection, one entity's range, a
// search's positions and a search's tracks.
#include "tools/export/exporter.h"

#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "index/distance.h"
#include "service/grpc/test_server.h"

namespace trackdb::export_tool {
namespace {

using ::testing::ElementsAreArray;
using ::testing::UnorderedElementsAreArray;

constexpr int64_t kT0 = 1700000000000;
constexpr int kEntities = 20;
constexpr int kFixes = 50;

// One CSV row's identity: entity, time, lat, lon (exact).
using Row = std::tuple<std::string, int64_t, double, double>;

class ExporterTest : public ::testing::Test {
 protected:
  ExporterTest() {
    std::mt19937_64 rng(11);
    std::normal_distribution<double> step(0, 0.002);
    for (int e = 0; e < kEntities; ++e) {
      const std::string id = absl::StrCat("car", e);
      double lat = 39.9 + 0.01 * e, lon = 116.4;
      std::vector<model::TrackPoint> track;
      for (int i = 0; i < kFixes; ++i) {
        model::TrackPoint p;
        p.entity = id;
        p.loc_time_ms = kT0 + 1000 * i;
        p.lat = lat += step(rng);
        p.lon = lon += step(rng);
        track.push_back(p);
      }
      EXPECT_TRUE(server_.store().AddPoints("fleet", track).ok());
      written_[id] = track;
    }
  }

  // `query` exported as CSV, parsed back into rows.
  std::vector<Row> ExportRows(const ExportQuery& query,
                              ExportCounts* counts = nullptr) {
    std::ostringstream text;
    auto writer = formats::NewTrackWriter(formats::Format::kCsv, &text);
    absl::StatusOr<ExportCounts> done = Export(server_.stub(), query, *writer);
    EXPECT_TRUE(done.ok()) << done.status();
    if (counts != nullptr && done.ok()) *counts = *done;
    std::vector<Row> rows;
    std::vector<std::string> lines = absl::StrSplit(text.str(), "\r\n");
    for (size_t i = 1; i + 1 < lines.size(); ++i) {
      std::vector<std::string> f = absl::StrSplit(lines[i], ',');
      Row row{f[0], 0, 0, 0};
      EXPECT_TRUE(absl::SimpleAtoi(f[1], &std::get<1>(row)));
      EXPECT_TRUE(absl::SimpleAtod(f[3], &std::get<2>(row)));
      EXPECT_TRUE(absl::SimpleAtod(f[4], &std::get<3>(row)));
      rows.push_back(row);
    }
    return rows;
  }

  static Row RowOf(const model::TrackPoint& p) {
    return {p.entity, p.loc_time_ms, p.lat, p.lon};
  }

  service::testing::TestServer server_;
  std::map<std::string, std::vector<model::TrackPoint>> written_;
};

TEST_F(ExporterTest, ACollectionIsEveryFixOfEveryEntity) {
  std::vector<Row> expected;
  for (const auto& [id, track] : written_) {
    for (const auto& p : track) expected.push_back(RowOf(p));
  }
  ExportQuery query;
  query.collection = "fleet";
  query.page_size = 7;  // many pages per track
  ExportCounts counts;
  EXPECT_THAT(ExportRows(query, &counts), UnorderedElementsAreArray(expected));
  EXPECT_EQ(counts.entities, static_cast<uint64_t>(kEntities));
  EXPECT_EQ(counts.fixes, static_cast<uint64_t>(kEntities * kFixes));
}

TEST_F(ExporterTest, OneEntityInATimeRangeInOrder) {
  std::vector<Row> expected;
  for (int i = 10; i <= 20; ++i) expected.push_back(RowOf(written_["car3"][i]));
  ExportQuery query;
  query.collection = "fleet";
  query.entity = "car3";
  query.from_ms = kT0 + 10000;
  query.to_ms = kT0 + 20000;
  EXPECT_THAT(ExportRows(query), ElementsAreArray(expected));
}

TEST_F(ExporterTest, ASearchGivesItsHitsPositionsOrTracks) {
  const index::LatLng centre{40.0, 116.4};
  const double radius = 4000;
  std::vector<Row> positions, tracks;
  for (const auto& [id, track] : written_) {
    const model::TrackPoint& last = track.back();
    if (index::HaversineMeters(centre, {last.lat, last.lon}) > radius) continue;
    positions.push_back(RowOf(last));
    for (const auto& p : track) tracks.push_back(RowOf(p));
  }
  ASSERT_GT(positions.size(), 1u);
  ASSERT_LT(positions.size(), static_cast<size_t>(kEntities));
  ExportQuery query;
  query.collection = "fleet";
  query.radius.emplace();
  query.radius->set_collection("fleet");
  query.radius->mutable_center()->set_latitude(centre.lat);
  query.radius->mutable_center()->set_longitude(centre.lon);
  query.radius->set_radius_m(radius);
  query.page_size = 2;
  query.tracks = false;
  EXPECT_THAT(ExportRows(query), UnorderedElementsAreArray(positions));
  query.tracks = true;
  EXPECT_THAT(ExportRows(query), UnorderedElementsAreArray(tracks));
}

TEST_F(ExporterTest, ProgressCountsEntitiesAndAFailedCallIsNamed) {
  ExportQuery query;
  query.collection = "fleet";
  std::ostringstream text;
  auto writer = formats::NewTrackWriter(formats::Format::kGeoJson, &text);
  uint64_t last_read = 0, last_total = 0;
  ASSERT_TRUE(Export(server_.stub(), query, *writer,
                     [&](const ExportCounts&, uint64_t read, uint64_t total) {
                       last_read = read;
                       last_total = total;
                     })
                  .ok());
  EXPECT_EQ(last_read, static_cast<uint64_t>(kEntities));
  EXPECT_EQ(last_total, static_cast<uint64_t>(kEntities));

  query.entity = "car1";
  query.page_size = 5000;
  auto bad_writer = formats::NewTrackWriter(formats::Format::kGpx, &text);
  absl::StatusOr<ExportCounts> bad = Export(server_.stub(), query, *bad_writer);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              ::testing::StartsWith("GetTrack: "));
  EXPECT_THAT(std::string(bad.status().message()),
              ::testing::HasSubstr("page_size"));
}

}  // namespace
}  // namespace trackdb::export_tool
