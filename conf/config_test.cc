#include "conf/config.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace trackdb::conf {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string ErrorOf(absl::string_view text) {
  auto c = ParseConfigText(text, "test.textproto");
  EXPECT_FALSE(c.ok()) << text;
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(c.status().message());
}

std::string ReadShipped() {
  std::ifstream in("conf/trackdb.textproto");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every field is spelt out except the three derived from the memory budget,
// which the file shows commented out ("# (derived) field: value") so that
// editing the budget in a copy of the file still moves them.
TEST(ConfigTest, ShippedFileSpellsOutTheDefaults) {
  auto shipped = LoadConfigFile("conf/trackdb.textproto");
  ASSERT_TRUE(shipped.ok()) << shipped.status();
  const v1::TrackdbConfig defaults = WithDefaults(v1::TrackdbConfig());

  v1::TrackdbConfig spelt = defaults;
  spelt.mutable_storage()->clear_db_write_buffer_size_mb();
  spelt.mutable_storage()->clear_write_buffer_size_mb();
  spelt.mutable_storage()->clear_block_cache_size_mb();
  spelt.mutable_server()->clear_resp_threads();  // derived from the cores
  std::string diff;
  MessageDifferencer differ;
  differ.ReportDifferencesToString(&diff);
  EXPECT_TRUE(differ.Compare(spelt, *shipped)) << diff;

  // The commented-out derived values are the derivation's.
  std::string derived_text;
  std::istringstream lines(ReadShipped());
  const std::string marker = "# (derived) ";
  for (std::string line; std::getline(lines, line);) {
    const size_t at = line.find(marker);
    if (at != std::string::npos) {
      absl::StrAppend(&derived_text, line.substr(at + marker.size()), "\n");
    }
  }
  v1::StorageConfig derived;
  ASSERT_TRUE(
      google::protobuf::TextFormat::ParseFromString(derived_text, &derived))
      << derived_text;
  EXPECT_EQ(derived.db_write_buffer_size_mb(),
            defaults.storage().db_write_buffer_size_mb());
  EXPECT_EQ(derived.write_buffer_size_mb(),
            defaults.storage().write_buffer_size_mb());
  EXPECT_EQ(derived.block_cache_size_mb(),
            defaults.storage().block_cache_size_mb());
  EXPECT_TRUE(derived.has_db_write_buffer_size_mb() &&
              derived.has_write_buffer_size_mb() &&
              derived.has_block_cache_size_mb())
      << derived_text;
}

TEST(ConfigTest, RespLoopsDefaultToOnePerCore) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(WithDefaults(v1::TrackdbConfig()).server().resp_threads(), cores);
  v1::TrackdbConfig zero;
  zero.mutable_server()->set_resp_threads(0);
  EXPECT_EQ(WithDefaults(zero).server().resp_threads(), cores);
  v1::TrackdbConfig three;
  three.mutable_server()->set_resp_threads(3);
  EXPECT_EQ(WithDefaults(three).server().resp_threads(), 3u);
  EXPECT_EQ(WithDefaults(three).server().resp_worker_threads(), 4u);
}

TEST(ConfigTest, MemoryBudgetDerivesMemtablesAndCache) {
  // The server's reserve: budget / 8, at least 64 MiB, at most half.
  EXPECT_EQ(ServerReserveMb(1024), 128u);
  EXPECT_EQ(ServerReserveMb(256), 64u);
  EXPECT_EQ(ServerReserveMb(64), 32u);
  EXPECT_EQ(RocksDbShareMb(256), 192u);

  v1::StorageConfig s;
  s.set_memory_budget_mb(256);
  v1::StorageConfig d = WithStorageDefaults(s);
  EXPECT_EQ(d.db_write_buffer_size_mb(), 96u);
  EXPECT_EQ(d.write_buffer_size_mb(), 8u);
  EXPECT_EQ(d.block_cache_size_mb(), 96u);

  s.set_memory_budget_mb(8192);  // larger budgets: more, not larger, memtables
  d = WithStorageDefaults(s);
  EXPECT_EQ(d.db_write_buffer_size_mb(), 3584u);
  EXPECT_EQ(d.write_buffer_size_mb(), 8u);
  EXPECT_EQ(d.block_cache_size_mb(), 3584u);

  // Explicit knobs override; the cache gets what the memtables leave.
  s.set_memory_budget_mb(1024);
  s.set_db_write_buffer_size_mb(256);
  s.set_write_buffer_size_mb(16);
  d = WithStorageDefaults(s);
  EXPECT_EQ(d.db_write_buffer_size_mb(), 256u);
  EXPECT_EQ(d.write_buffer_size_mb(), 16u);
  EXPECT_EQ(d.block_cache_size_mb(), 640u);
  s.set_block_cache_size_mb(100);
  EXPECT_EQ(WithStorageDefaults(s).block_cache_size_mb(), 100u);
}

TEST(ConfigTest, TinyBudgetIsRefused) {
  EXPECT_THAT(ErrorOf("storage { memory_budget_mb: 4 }"),
              AllOf(HasSubstr("storage.memory_budget_mb"), HasSubstr("4")));
}

TEST(ConfigTest, EmptyConfigIsValidAndGetsDefaults) {
  auto c = ParseConfigText("", "empty");
  ASSERT_TRUE(c.ok());
  const v1::TrackdbConfig d = WithDefaults(*c);
  EXPECT_EQ(d.data_dir(), "data");
  EXPECT_EQ(d.server().grpc_port(), 50051u);
  EXPECT_EQ(d.storage().durability(), v1::DURABILITY_WAL);
  EXPECT_EQ(d.storage().write_buffer_size_mb(), 8u);
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
  EXPECT_THAT(ErrorOf("server { enable_debug_command: \"maybe\" }"),
              HasSubstr("server.enable_debug_command must be"));
  EXPECT_THAT(ErrorOf("server { grpc_max_concurrent_streams: 0 }"),
              HasSubstr("server.grpc_max_concurrent_streams must be"));
  EXPECT_THAT(ErrorOf("server { grpc_max_threads: 2 }"),
              HasSubstr("server.grpc_max_threads must be at least 4"));
  EXPECT_THAT(ErrorOf("server { grpc_max_metadata_bytes: 10 }"),
              HasSubstr("server.grpc_max_metadata_bytes must be"));
  EXPECT_THAT(ErrorOf("server { grpc_max_message_bytes: 10 }"),
              HasSubstr("server.grpc_max_message_bytes must be"));
}

TEST(ConfigTest, MetricsPortIsOffUnlessSetAndChecked) {
  v1::TrackdbConfig d = WithDefaults(v1::TrackdbConfig());
  EXPECT_EQ(d.server().metrics_port(), 0u);
  EXPECT_EQ(d.server().metrics_bind_address(), "127.0.0.1");
  EXPECT_THAT(ErrorOf("server { metrics_port: 70000 }"),
              HasSubstr("server.metrics_port must be 0..65535"));
  EXPECT_EQ(d.server().http_port(), 0u);
  EXPECT_EQ(d.server().http_bind_address(), "127.0.0.1");
  EXPECT_EQ(d.server().http_leaflet_dir(), "/usr/share/javascript/leaflet");
  EXPECT_THAT(ErrorOf("server { http_tile_url: \"https://t/{z}/{x}.png\" }"),
              HasSubstr("server.http_tile_url must hold {z}, {x} and {y}"));
  EXPECT_THAT(ErrorOf("server { http_port: 65536 }"),
              HasSubstr("server.http_port must be 0..65535"));
  EXPECT_THAT(ErrorOf("server { http_bind_address: \"x.y\" }"),
              HasSubstr("server.http_bind_address \"x.y\" is not an IPv4"));
  EXPECT_THAT(ErrorOf("server { metrics_bind_address: \"example.com\" }"),
              HasSubstr("server.metrics_bind_address \"example.com\" is not"));
  EXPECT_TRUE(ParseConfigText("server { metrics_port: 9851 "
                              "metrics_bind_address: \"localhost\" }",
                              "test.textproto")
                  .ok());
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

TEST(ConfigTest, ReplicaOfIsHostAndPort) {
  auto c = ParseConfigText("replication { replicaof: \"10.0.0.7 6380\" }", "x");
  ASSERT_TRUE(c.ok()) << c.status();
  auto primary = ParseReplicaOf(c->replication().replicaof());
  ASSERT_TRUE(primary.ok());
  EXPECT_EQ(primary->host, "10.0.0.7");
  EXPECT_EQ(primary->port, 6380);
  for (const char* bad :
       {"10.0.0.7", "10.0.0.7:6380", "h 0", "h 70000", "h 6380 x"}) {
    auto r = ParseConfigText(
        absl::StrCat("replication { replicaof: \"", bad, "\" }"), "x");
    EXPECT_THAT(r.status().message(), HasSubstr("replication.replicaof"))
        << bad;
  }
  EXPECT_THAT(ParseConfigText("replication { sync_replicas: 1 "
                              "sync_timeout_ms: 0 }",
                              "x")
                  .status()
                  .message(),
              HasSubstr("replication.sync_timeout_ms"));
}

TEST(ConfigTest, GrpcKeepaliveHasDefaultsAndFloors) {
  v1::TrackdbConfig d = WithDefaults(v1::TrackdbConfig());
  EXPECT_EQ(d.server().grpc_keepalive_time_ms(), 60000u);
  EXPECT_EQ(d.server().grpc_keepalive_timeout_ms(), 20000u);
  EXPECT_THAT(ErrorOf("server { grpc_keepalive_time_ms: 999 }"),
              HasSubstr("server.grpc_keepalive_time_ms must be at least"));
  EXPECT_THAT(ErrorOf("server { grpc_keepalive_timeout_ms: 0 }"),
              HasSubstr("server.grpc_keepalive_timeout_ms must be at least"));
  EXPECT_THAT(ErrorOf("server { grpc_keepalive_time_ms: 3000000000 }"),
              HasSubstr("at most 2147483647"));
}

TEST(ConfigTest, MissingFileIsNotFound) {
  auto c = LoadConfigFile("/nonexistent/trackdb.textproto");
  EXPECT_EQ(c.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(c.status().message(),
              HasSubstr("/nonexistent/trackdb.textproto"));
}

}  // namespace
}  // namespace trackdb::conf
