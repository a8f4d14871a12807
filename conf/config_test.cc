#include "conf/config.h"

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace trackdb::conf {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::AllOf;
using ::testing::HasSubstr;

std::string ErrorOf(absl::string_view text) {
  auto c = ParseConfigText(text, "test.textproto");
  EXPECT_FALSE(c.ok()) << text;
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(c.status().message());
}

TEST(ConfigTest, ShippedFileSpellsOutTheDefaults) {
  auto shipped = LoadConfigFile("conf/trackdb.textproto");
  ASSERT_TRUE(shipped.ok()) << shipped.status();
  const v1::TrackdbConfig defaults = WithDefaults(v1::TrackdbConfig());
  std::string diff;
  MessageDifferencer differ;
  differ.ReportDifferencesToString(&diff);
  EXPECT_TRUE(differ.Compare(defaults, *shipped)) << diff;
}

TEST(ConfigTest, EmptyConfigIsValidAndGetsDefaults) {
  auto c = ParseConfigText("", "empty");
  ASSERT_TRUE(c.ok());
  const v1::TrackdbConfig d = WithDefaults(*c);
  EXPECT_EQ(d.data_dir(), "data");
  EXPECT_EQ(d.server().grpc_port(), 50051u);
  EXPECT_EQ(d.storage().durability(), v1::DURABILITY_WAL);
  EXPECT_EQ(d.storage().write_buffer_size_mb(), 64u);
}

TEST(ConfigTest, ExplicitValuesOverrideDefaults) {
  auto c = ParseConfigText(
      "server { grpc_port: 0 } storage { write_buffer_size_mb: 8 "
      "durability: DURABILITY_WAL_SYNC }",
      "x");
  ASSERT_TRUE(c.ok()) << c.status();
  const v1::TrackdbConfig d = WithDefaults(*c);
  EXPECT_EQ(d.server().grpc_port(), 0u);  // explicit 0 is kept: a free port
  EXPECT_EQ(d.storage().write_buffer_size_mb(), 8u);
  EXPECT_EQ(d.storage().durability(), v1::DURABILITY_WAL_SYNC);
}

TEST(ConfigTest, UnknownFieldNamesLineColumnAndField) {
  EXPECT_THAT(
      ErrorOf("data_dir: \"d\"\nstorage {\n  write_bufer_size_mb: 8\n}"),
      AllOf(HasSubstr("test.textproto:3:"), HasSubstr("write_bufer_size_mb")));
}

TEST(ConfigTest, BadValuesAreRefused) {
  EXPECT_THAT(
      ErrorOf("storage { durability: DURABILITY_SOMETIMES }"),
      AllOf(HasSubstr("test.textproto:1:"), HasSubstr("DURABILITY_SOMETIMES")));
  EXPECT_THAT(ErrorOf("storage { write_buffer_size_mb: \"big\" }"),
              AllOf(HasSubstr("test.textproto:1:"),
                    HasSubstr("(field \"write_buffer_size_mb\")")));
  EXPECT_THAT(ErrorOf("storage { write_buffer_size_mb: -1 }"),
              HasSubstr("test.textproto:1:"));
  EXPECT_THAT(ErrorOf("data_dir: \"a\"\ndata_dir: \"b\""),
              HasSubstr("data_dir"));
}

TEST(ConfigTest, InconsistentValuesNameTheField) {
  EXPECT_THAT(ErrorOf("server { grpc_port: 70000 }"),
              HasSubstr("server.grpc_port"));
  EXPECT_THAT(ErrorOf("storage { write_buffer_size_mb: 0 }"),
              HasSubstr("storage.write_buffer_size_mb"));
  EXPECT_THAT(ErrorOf("storage { level0_slowdown_writes_trigger: 2 }"),
              HasSubstr("storage.level0_slowdown_writes_trigger"));
  EXPECT_THAT(ErrorOf("storage { level0_stop_writes_trigger: 10 }"),
              HasSubstr("storage.level0_stop_writes_trigger"));
  EXPECT_THAT(ErrorOf("storage { write_buffer_size_mb: 128 "
                      "db_write_buffer_size_mb: 13 }"),
              AllOf(HasSubstr("storage.db_write_buffer_size_mb"),
                    HasSubstr("smaller than one memtable")));
}

TEST(ConfigTest, BulkLoadSkipsTriggerOrdering) {
  EXPECT_TRUE(ParseConfigText("storage { bulk_load: true "
                              "level0_stop_writes_trigger: 10 }",
                              "x")
                  .ok());
}

TEST(ConfigTest, MissingFileIsNotFound) {
  auto c = LoadConfigFile("/nonexistent/trackdb.textproto");
  EXPECT_EQ(c.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(c.status().message(),
              HasSubstr("/nonexistent/trackdb.textproto"));
}

}  // namespace
}  // namespace trackdb::conf
