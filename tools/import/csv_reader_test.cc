#include "tools/import/csv_reader.h"

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

Read ReadAll(const std::string& text, CsvLayout layout, TimeOptions time = {}) {
  auto in = InputSource::FromString(text, "in.csv");
  auto reader = NewCsvReader(in.get(), std::move(layout), time);
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

TEST(CsvReaderTest, TDriveRows) {
  TimeOptions beijing;
  beijing.utc_offset_minutes = 480;
  Read r = ReadAll(
      "1,2008-02-02 15:36:08,116.51172,39.92123\n"
      "1,2008-02-02 15:46:08,116.51135,39.93883\n",
      TDriveLayout(), beijing);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_EQ(r.points[0].entity, "1");
  EXPECT_EQ(r.points[0].loc_time_ms, 1201966568000 - 8 * 3600 * 1000);
  EXPECT_EQ(r.points[0].lon, 116.51172);
  EXPECT_EQ(r.points[0].lat, 39.92123);
  EXPECT_FALSE(r.points[0].height_m.has_value());
  EXPECT_EQ(r.points[1].loc_time_ms - r.points[0].loc_time_ms, 600000);
}

TEST(CsvReaderTest, GeoLifePltSkipsHeaderAndConvertsFeet) {
  const std::string plt =
      "Geolife trajectory\nWGS 84\nAltitude is in Feet\nReserved 3\n"
      "0,2,255,My Track,0,0,2,8421376\n0\n"
      "39.984702,116.318417,0,492,39744.1201851852,2008-10-23,02:53:04\n"
      "39.984683,116.31845,0,-777,39744.1202546296,2008-10-23,02:53:10\n";
  Read r = ReadAll(plt, GeoLifeLayout("000"));
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_EQ(r.points[0].entity, "000");
  EXPECT_EQ(r.points[0].lat, 39.984702);
  EXPECT_EQ(r.points[0].lon, 116.318417);
  EXPECT_DOUBLE_EQ(*r.points[0].height_m, 492 * 0.3048);
  EXPECT_FALSE(r.points[1].height_m.has_value());  // -777: unknown
  // 2008-10-23T02:53:04Z, which days_since_1899 (39744.1201851852) agrees
  // with.
  EXPECT_EQ(r.points[0].loc_time_ms, 1224730384000);
  EXPECT_NEAR((39744.1201851852 - 25569) * 86400000, 1224730384000, 1);
}

TEST(CsvReaderTest, HeaderNamesAliasesOptionalsAndAttributes) {
  Read r = ReadAll(
      "ID,Timestamp,Lat,Lng,Speed,heading,attr.Color,-\n"
      "car7,1763700000000,39.9,116.4,42,,red,x\n"
      "car8,1763700000,39.8,116.3,,90,,y\n",
      CsvLayout{});
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_EQ(r.points[0].entity, "car7");
  EXPECT_EQ(r.points[0].loc_time_ms, 1763700000000);
  EXPECT_EQ(r.points[0].speed_kmh, 42);
  EXPECT_FALSE(r.points[0].direction_deg.has_value());
  EXPECT_THAT(r.points[0].attributes, ElementsAre(Pair("Color", "red")));
  EXPECT_EQ(r.points[1].loc_time_ms, 1763700000000);  // seconds, auto
  EXPECT_FALSE(r.points[1].speed_kmh.has_value());
  EXPECT_EQ(r.points[1].direction_deg, 90);
  EXPECT_TRUE(r.points[1].attributes.empty());
}

TEST(CsvReaderTest, ColumnListQuotesAndOtherDelimiters) {
  auto columns = ParseColumnList("entity_id,loc_time_ms,latitude,longitude");
  ASSERT_TRUE(columns.ok());
  CsvLayout layout;
  layout.columns = *columns;
  Read r = ReadAll(
      "\"car, 7\",1700000000000,1,2\n\"say \"\"hi\"\"\",1700000000000,3,4\n",
      layout);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_EQ(r.points[0].entity, "car, 7");
  EXPECT_EQ(r.points[1].entity, "say \"hi\"");
  layout.delimiter = '\t';
  r = ReadAll("car\t1700000000000\t1\t2\n", layout);
  ASSERT_EQ(r.points.size(), 1u);
  EXPECT_EQ(r.points[0].lon, 2);
}

TEST(CsvReaderTest, BadRowsNameLineColumnAndReason) {
  Read r = ReadAll(
      "1,2008-02-02 15:36:08,116.5,39.9\n"
      "2,2008-02-02 15:36:08,116.5\n"         // line 2: 3 fields
      "3,2008-02-30 15:36:08,116.5,39.9\n"    // line 3: no such day
      "\n"                                    // blank: skipped
      "4,2008-02-02 15:36:08,east,39.9\n"     // line 5: not a number
      "5,2008-02-02 15:36:08,116.5,\"39.9\n"  // line 6: open quote
      "6,2008-02-02 15:36:08,116.5,39.9\n",
      TDriveLayout());
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.points.size(), 2u);
  ASSERT_EQ(r.bad.size(), 4u);
  EXPECT_EQ(r.bad[0].line, 2);
  EXPECT_THAT(r.bad[0].reason, HasSubstr("has 3 fields; expected 4"));
  EXPECT_EQ(r.bad[0].text, "2,2008-02-02 15:36:08,116.5");
  EXPECT_EQ(r.bad[1].line, 3);
  EXPECT_THAT(r.bad[1].reason, HasSubstr("column 2 (time)"));
  EXPECT_THAT(r.bad[1].reason, HasSubstr("day out of range"));
  EXPECT_EQ(r.bad[2].line, 5);
  EXPECT_THAT(r.bad[2].reason,
              HasSubstr("column 3 (longitude): 'east' is not a number"));
  EXPECT_EQ(r.bad[3].line, 6);
  EXPECT_THAT(r.bad[3].reason, HasSubstr("unterminated quoted field"));
}

TEST(CsvReaderTest, HeaderErrorsEndTheInput) {
  Read r = ReadAll("id,time,lat,lon,colour\n1,2,3,4,5\n", CsvLayout{});
  EXPECT_EQ(r.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status.message()),
              HasSubstr("in.csv:1: header: unknown column 'colour'"));
  r = ReadAll("id,lat,lon\n", CsvLayout{});
  EXPECT_THAT(std::string(r.status.message()),
              HasSubstr("need exactly one time"));
  r = ReadAll("id,time,lat,lat\n", CsvLayout{});
  EXPECT_THAT(std::string(r.status.message()), HasSubstr("appears twice"));
  r = ReadAll("id,time,lat,lon,attr.a,attr.a\n", CsvLayout{});
  EXPECT_THAT(std::string(r.status.message()),
              HasSubstr("attr.a appears twice"));
  r = ReadAll("", CsvLayout{});
  EXPECT_THAT(std::string(r.status.message()), HasSubstr("empty"));
}

TEST(CsvReaderTest, SplitCsvLine) {
  std::vector<absl::string_view> f;
  std::string scratch;
  ASSERT_TRUE(SplitCsvLine("a,,b,", ',', &f, &scratch).ok());
  EXPECT_THAT(f, ElementsAre("a", "", "b", ""));
  ASSERT_TRUE(SplitCsvLine("\"\",\"x\"\"y\",z", ',', &f, &scratch).ok());
  EXPECT_THAT(f, ElementsAre("", "x\"y", "z"));
  EXPECT_FALSE(SplitCsvLine("\"a\"b,c", ',', &f, &scratch).ok());
}

}  // namespace
}  // namespace trackdb::import
