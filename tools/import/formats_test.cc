#include "tools/import/formats.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/import/test_files.h"

namespace trackdb::import {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(FormatsTest, FormatByName) {
  EXPECT_EQ(*FormatOfPath("a/points.csv"), Format::kCsv);
  EXPECT_EQ(*FormatOfPath("points.csv.gz"), Format::kCsv);
  EXPECT_EQ(*FormatOfPath("20081023025304.plt"), Format::kGeoLife);
  EXPECT_EQ(*FormatOfPath("x.jsonl"), Format::kNdjson);
  EXPECT_EQ(*FormatOfPath("x.ndjson.gz"), Format::kNdjson);
  EXPECT_EQ(*FormatOfPath("x.geojson"), Format::kGeoJson);
  EXPECT_THAT(std::string(FormatOfPath("1.txt").status().message()),
              HasSubstr("pass --format"));
  EXPECT_THAT(std::string(FormatOfPath("-").status().message()),
              HasSubstr("stdin"));
  EXPECT_EQ(*ParseFormat("plt"), Format::kGeoLife);
  EXPECT_FALSE(ParseFormat("xml").ok());
}

TEST(FormatsTest, GeoLifeEntityFromThePath) {
  EXPECT_EQ(GeoLifeEntityOf("Data/010/Trajectory/20081023025304.plt",
                            GeoLifeEntity::kUser),
            "010");
  EXPECT_EQ(GeoLifeEntityOf("/x/Data/010/Trajectory/20081023025304.plt.gz",
                            GeoLifeEntity::kFile),
            "010/20081023025304");
  // Outside the GeoLife layout: the file's name.
  EXPECT_EQ(GeoLifeEntityOf("tracks/walk.plt", GeoLifeEntity::kUser), "walk");
}

TEST(FormatsTest, DirectoriesExpandToTheFormatsFilesSorted) {
  const std::string dir = testing::NewTempDir();
  testing::WriteFile(dir + "/Data/001/Trajectory/b.plt", "");
  testing::WriteFile(dir + "/Data/000/Trajectory/a.plt.gz", "", true);
  testing::WriteFile(dir + "/Data/000/labels.txt", "");
  auto files = ExpandInputs({dir + "/Data", "-"}, Format::kGeoLife);
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_THAT(*files, ElementsAre(dir + "/Data/000/Trajectory/a.plt.gz",
                                  dir + "/Data/001/Trajectory/b.plt", "-"));
  EXPECT_THAT(
      std::string(ExpandInputs({dir}, Format::kGeoJson).status().message()),
      HasSubstr("no geojson files"));
  // A file is taken as it is, whatever its name.
  EXPECT_THAT(*ExpandInputs({dir + "/Data/000/labels.txt"}, Format::kCsv),
              ElementsAre(dir + "/Data/000/labels.txt"));
}

TEST(FormatsTest, GeoLifeFromStdinNeedsAnEntity) {
  auto in = InputSource::FromString("");
  ReaderOptions options;
  EXPECT_THAT(std::string(NewReader(Format::kGeoLife, in.get(), options, "-")
                              .status()
                              .message()),
              HasSubstr("--entity"));
  options.entity = "walker";
  EXPECT_TRUE(NewReader(Format::kGeoLife, in.get(), options, "-").ok());
}

}  // namespace
}  // namespace trackdb::import
