// trackdb_import end to end, minus flag parsing: generated files in every
// format into a data dir (offline) and into an in-process trackd (online).
#include "tools/import/importer.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "conf/config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/grpc/test_server.h"
#include "storage/format/chunk_codec.h"
#include "storage/format/keys.h"
#include "storage/format/point_codec.h"
#include "storage/store_test_util.h"
#include "tools/import/offline_sink.h"
#include "tools/import/online_sink.h"
#include "tools/import/test_files.h"

namespace trackdb::import {
namespace {

using storage::testing::InvariantViolations;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr int64_t kNow = 1763700000000;  // 2025-11-21
constexpr int64_t kT0 = 1224730384000;   // 2008-10-23T02:53:04Z
const char* const kEntities[] = {"000", "001", "002"};
constexpr int kPerEntity = 5;

// Entity e's i-th point: one a minute, moving north-east.
struct Row {
  std::string entity;
  int64_t t;
  double lat, lon;
};
std::vector<Row> Rows() {
  std::vector<Row> rows;
  for (int i = 0; i < kPerEntity; ++i) {
    for (int e = 0; e < 3; ++e) {
      rows.push_back({kEntities[e], kT0 + i * 60000 + e * 1000,
                      39.9 + e * 0.01 + i * 0.001, 116.3 + i * 0.001});
    }
  }
  return rows;
}

std::string Iso(int64_t ms) {
  return absl::FormatTime("%Y-%m-%d %H:%M:%S", absl::FromUnixMillis(ms),
                          absl::UTCTimeZone());
}

std::string HeaderCsv() {
  std::string out = "entity_id,time,latitude,longitude\n";
  for (const Row& r : Rows()) {
    absl::StrAppendFormat(&out, "%s,%s,%.6f,%.6f\n", r.entity, Iso(r.t), r.lat,
                          r.lon);
  }
  return out;
}

std::string TDrive() {
  std::string out;
  for (const Row& r : Rows()) {
    absl::StrAppendFormat(&out, "%s,%s,%.6f,%.6f\n", r.entity, Iso(r.t), r.lon,
                          r.lat);
  }
  return out;
}

// GeoLife: one .plt per user, Data/<user>/Trajectory/<start>.plt.
void WriteGeoLife(const std::string& dir) {
  for (const char* user : kEntities) {
    std::string plt =
        "Geolife trajectory\nWGS 84\nAltitude is in Feet\nReserved 3\n"
        "0,2,255,My Track,0,0,2,8421376\n0\n";
    for (const Row& r : Rows()) {
      if (r.entity != user) continue;
      const std::string when = Iso(r.t);
      absl::StrAppendFormat(&plt, "%.6f,%.6f,0,-777,%.10f,%s,%s\n", r.lat,
                            r.lon, r.t / 86400000.0 + 25569, when.substr(0, 10),
                            when.substr(11));
    }
    testing::WriteFile(
        absl::StrCat(dir, "/Data/", user, "/Trajectory/", "20081023025304.plt"),
        plt);
  }
}

std::string Ndjson() {
  std::string out;
  for (const Row& r : Rows()) {
    absl::StrAppendFormat(&out,
                          "{\"entity_id\": \"%s\", \"loc_time_ms\": %d, "
                          "\"latitude\": %.6f, \"longitude\": %.6f}\n",
                          r.entity, r.t, r.lat, r.lon);
  }
  return out;
}

std::string GeoJson() {
  std::string out = "{\"type\": \"FeatureCollection\", \"features\": [\n";
  const std::vector<Row> rows = Rows();
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    absl::StrAppendFormat(
        &out,
        "%s{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", "
        "\"coordinates\": [%.6f, %.6f]}, \"properties\": {\"id\": \"%s\", "
        "\"time\": \"%sZ\"}}\n",
        i == 0 ? "" : ",", r.lon, r.lat, r.entity, Iso(r.t));
  }
  return out + "]}\n";
}

v1::StorageConfig SmallStorage() {
  v1::StorageConfig c;
  c.set_write_buffer_size_mb(1);
  c.set_db_write_buffer_size_mb(16);
  c.set_block_cache_size_mb(8);
  return c;
}

ImportOptions Options(std::vector<std::string> inputs, Format format) {
  ImportOptions o;
  o.inputs = std::move(inputs);
  o.format = format;
  o.limits = conf::WithDefaults({}).limits();
  o.now_ms = kNow;
  return o;
}

struct Outcome {
  absl::Status status;
  ImportSummary summary;
  storage::SstImportStats stats;
};

Outcome ImportOffline(const ImportOptions& options,
                      const std::string& data_dir) {
  Outcome out;
  auto sink = OfflineSink::Open(data_dir, SmallStorage(), "fleet", {});
  if (!sink.ok()) {
    out.status = sink.status();
    return out;
  }
  auto read = ReadInputs(options, sink->get(), nullptr);
  if (!read.ok()) {
    out.status = read.status();
    return out;
  }
  out.summary = *read;
  out.status = (*sink)->Finish(nullptr);
  out.stats = (*sink)->stats();
  return out;
}

using Dump = std::vector<std::pair<std::string, std::string>>;

// The fixes of chunks (each as its points key and value), beside the raw
// ones of `points`, which win at the same time: history as one list,
// however it is laid out.
void AddChunkedFixes(storage::TrackStore& store, const std::string& prefix,
                     Dump* points) {
  std::map<std::string, std::string> all(points->begin(), points->end());
  for (const auto& [key, value] : storage::testing::ReadRaw(
           store, storage::ColumnFamily::kChunks, prefix)) {
    std::vector<model::TrackPoint> fixes;
    EXPECT_TRUE(storage::DecodeChunk(value, &fixes).ok());
    const std::string entity_prefix = key.substr(0, key.size() - 8);
    for (const model::TrackPoint& p : fixes) {
      std::string fix_key = entity_prefix;
      storage::AppendKeyTime(&fix_key, p.loc_time_ms);
      all.emplace(fix_key, storage::EncodePointValue(p));
    }
  }
  points->assign(all.begin(), all.end());
}

// Every fix (raw or chunked) and latest point of one collection, as keys
// and values.
std::vector<Dump> DumpCollection(storage::TrackStore& store,
                                 const std::string& collection = "fleet") {
  const std::string prefix = storage::CollectionPrefix(collection);
  std::vector<Dump> out;
  for (storage::ColumnFamily cf :
       {storage::ColumnFamily::kPoints, storage::ColumnFamily::kLatest}) {
    out.push_back(storage::testing::ReadRaw(store, cf, prefix));
  }
  // Fixes only: the history cells are derived from them, by the import
  // and by AddPoints each its own way (storage/points/history_cells.h), and
  // storage's tests check them.
  const std::string cells = storage::HistoryCellsPrefix(collection);
  Dump& points = out[0];
  points.erase(std::remove_if(points.begin(), points.end(),
                              [&](const auto& entry) {
                                return absl::StartsWith(entry.first, cells);
                              }),
               points.end());
  AddChunkedFixes(store, prefix, &points);
  return out;
}

std::vector<Dump> DumpDir(const std::string& dir) {
  auto store = storage::testing::OpenStore(dir);
  return DumpCollection(*store);
}

class ImporterTest : public ::testing::Test {
 protected:
  std::string dir_ = testing::NewTempDir();
};

TEST_F(ImporterTest, EveryFormatStoresTheSamePoints) {
  testing::WriteFile(dir_ + "/points.csv", HeaderCsv());
  testing::WriteFile(dir_ + "/tdrive/1.txt", TDrive());
  WriteGeoLife(dir_ + "/geolife");
  testing::WriteFile(dir_ + "/points.ndjson.gz", Ndjson(), /*gzip=*/true);
  testing::WriteFile(dir_ + "/points.geojson", GeoJson());

  const std::vector<std::pair<std::string, Format>> inputs = {
      {dir_ + "/points.csv", Format::kAuto},
      {dir_ + "/tdrive", Format::kTDrive},
      {dir_ + "/geolife/Data", Format::kGeoLife},
      {dir_ + "/points.ndjson.gz", Format::kAuto},
      {dir_ + "/points.geojson", Format::kAuto},
  };
  std::vector<Dump> first;
  for (const auto& [path, format] : inputs) {
    SCOPED_TRACE(path);
    auto files = ExpandInputs({path}, format);
    ASSERT_TRUE(files.ok()) << files.status();
    const std::string data = storage::testing::NewDataDir();
    Outcome o = ImportOffline(Options(*files, format), data);
    ASSERT_TRUE(o.status.ok()) << o.status;
    EXPECT_EQ(o.summary.points, 3u * kPerEntity);
    EXPECT_EQ(o.stats.entities, 3u);
    const std::vector<Dump> dump = DumpDir(data);
    EXPECT_EQ(dump[0].size(), 3u * kPerEntity);
    EXPECT_EQ(dump[1].size(), 3u);
    if (first.empty()) {
      first = dump;
    } else {
      EXPECT_EQ(dump, first) << "differs from the CSV import";
    }
    auto store = storage::testing::OpenStore(data);
    EXPECT_THAT(InvariantViolations(*store, "fleet"), IsEmpty());
  }
}

TEST_F(ImporterTest, StopsAtTheFirstBadRowAndWritesNothing) {
  std::string csv = HeaderCsv();
  csv += "000,2008-10-23 03:00:00,91.5,116.3\n";  // line 17: bad latitude
  csv += "001,2008-10-23 03:00:00,39.9,oops\n";   // line 18
  testing::WriteFile(dir_ + "/bad.csv", csv);
  const std::string data = storage::testing::NewDataDir();
  Outcome o = ImportOffline(Options({dir_ + "/bad.csv"}, Format::kCsv), data);
  EXPECT_EQ(o.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(o.status.message()),
              HasSubstr("bad.csv:17: point.latitude must be a number in "
                        "[-90, 90], got 91.5"));
  EXPECT_THAT(std::string(o.status.message()), HasSubstr("--skip_bad_rows"));
  const std::vector<Dump> dump = DumpDir(data);
  EXPECT_THAT(dump[0], IsEmpty());
  EXPECT_THAT(dump[1], IsEmpty());
  // No temp files left in the data dir either.
  for (const auto& entry : std::filesystem::directory_iterator(data)) {
    EXPECT_THAT(entry.path().filename().string(),
                ::testing::Not(HasSubstr("import-tmp")));
  }
}

TEST_F(ImporterTest, SkipsBadRowsCountsThemAndWritesTheFirstToARejectFile) {
  std::string csv = "id,loc_time_ms,lat,lon\n";
  csv += "a,1700000000000,1,1\n";
  csv += "b,1700000000000,1\n";  // line 3: short
  csv += "c,1700000000,1,1\n";   // line 4: seconds as ms: 2023? no, 1970
  csv += "d,1700000000000,1,1\n";
  csv += "e,9999999999999,1,1\n";  // line 6: far future
  testing::WriteFile(dir_ + "/some-bad.csv", csv);
  ImportOptions options = Options({dir_ + "/some-bad.csv"}, Format::kCsv);
  options.skip_bad_rows = true;
  options.reject_file = dir_ + "/rejects.txt";
  options.max_rejects = 2;
  const std::string data = storage::testing::NewDataDir();
  Outcome o = ImportOffline(options, data);
  ASSERT_TRUE(o.status.ok()) << o.status;
  EXPECT_EQ(o.summary.points, 2u);
  EXPECT_EQ(o.summary.bad_rows, 3u);
  EXPECT_EQ(o.summary.rejects_written, 2u);
  std::ifstream in(options.reject_file);
  std::stringstream text;
  text << in.rdbuf();
  const std::string where = dir_ + "/some-bad.csv";
  EXPECT_EQ(text.str(),
            absl::StrCat("# ", where, ":3: has 3 fields; expected 4\n",
                         "b,1700000000000,1\n", "# ", where,
                         ":4: point.loc_time_ms 1700000000 is outside "
                         "[946684800000, 1763786400000] (Unix milliseconds; "
                         "seconds by mistake?)\n",
                         "c,1700000000,1,1\n"));
  EXPECT_EQ(DumpDir(data)[1].size(), 2u);
}

TEST_F(ImporterTest, ReimportGivesIdenticalContents) {
  testing::WriteFile(dir_ + "/points.csv", HeaderCsv());
  const std::string data = storage::testing::NewDataDir();
  const ImportOptions options = Options({dir_ + "/points.csv"}, Format::kCsv);
  ASSERT_TRUE(ImportOffline(options, data).status.ok());
  const std::vector<Dump> once = DumpDir(data);
  Outcome again = ImportOffline(options, data);
  ASSERT_TRUE(again.status.ok()) << again.status;
  EXPECT_EQ(DumpDir(data), once);
  EXPECT_EQ(once[0].size(), 3u * kPerEntity);
}

TEST_F(ImporterTest, MergesWithNewerAndOlderPointsAlreadyStored) {
  const std::string data = storage::testing::NewDataDir();
  {
    auto store = storage::testing::OpenStore(data);
    using storage::testing::Point;
    ASSERT_TRUE(store
                    ->AddPoints("fleet",
                                {// newer than anything imported: stays latest
                                 Point("000", kT0 + 3600000, 10, 10),
                                 // older: the import's newest replaces it
                                 Point("001", kT0 - 3600000, 20, 20),
                                 // in between the imported points
                                 Point("002", kT0 + 90000, 30, 30)})
                    .ok());
  }
  testing::WriteFile(dir_ + "/points.csv", HeaderCsv());
  Outcome o =
      ImportOffline(Options({dir_ + "/points.csv"}, Format::kCsv), data);
  ASSERT_TRUE(o.status.ok()) << o.status;
  EXPECT_EQ(o.stats.latest_kept, 1u);
  EXPECT_EQ(o.stats.latest_updated, 2u);

  auto store = storage::testing::OpenStore(data);
  EXPECT_THAT(InvariantViolations(*store, "fleet"), IsEmpty());
  auto latest =
      store->GetLatest("fleet", std::vector<std::string>{"000", "001", "002"});
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ((*latest)[0]->loc_time_ms, kT0 + 3600000);  // kept
  EXPECT_EQ((*latest)[0]->lat, 10);
  EXPECT_EQ((*latest)[1]->loc_time_ms, kT0 + 4 * 60000 + 1000);
  EXPECT_EQ((*latest)[2]->loc_time_ms, kT0 + 4 * 60000 + 2000);
  const std::vector<Dump> dump = DumpCollection(*store);
  EXPECT_EQ(dump[0].size(), 3u * kPerEntity + 3);  // every point kept
}

TEST_F(ImporterTest, RefusesADataDirInUse) {
  const std::string data = storage::testing::NewDataDir();
  auto held = storage::testing::OpenStore(data);  // as a running trackd would
  auto sink = OfflineSink::Open(data, SmallStorage(), "fleet", {});
  EXPECT_EQ(sink.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(sink.status().message()),
              HasSubstr("in use by another process"));
}

TEST_F(ImporterTest, OfflineFinishesWithACompactedStoreAndTimesTheReopen) {
  const std::string data = storage::testing::NewDataDir();
  testing::WriteFile(dir_ + "/points.csv", HeaderCsv());
  auto sink = OfflineSink::Open(data, SmallStorage(), "fleet", {});
  ASSERT_TRUE(sink.ok());
  ASSERT_TRUE(ReadInputs(Options({dir_ + "/points.csv"}, Format::kCsv),
                         sink->get(), nullptr)
                  .ok());
  ASSERT_TRUE((*sink)->Finish(nullptr).ok());
  EXPECT_GT((*sink)->reopen_seconds(), 0);
  const std::vector<std::string> summary = (*sink)->Summary();
  EXPECT_THAT(summary.back(), HasSubstr("reopen after the import"));
  auto store = storage::testing::OpenStore(data);
  for (storage::ColumnFamily cf :
       {storage::ColumnFamily::kPoints, storage::ColumnFamily::kLatest}) {
    EXPECT_EQ(storage::testing::FilesAtLevel0(*store, cf).value_or(-1), 0);
  }
}

class OnlineImportTest : public ImporterTest {
 protected:
  absl::Status ImportOnline(service::testing::TestServer& server,
                            const ImportOptions& options,
                            OnlineOptions online) {
    online.collection = "fleet";
    OnlineSink sink(server.channel(), online);
    auto read = ReadInputs(options, &sink, nullptr);
    if (!read.ok()) {
      sink.Finish(nullptr).IgnoreError();
      return read.status();
    }
    absl::Status s = sink.Finish(nullptr);
    if (s.ok()) EXPECT_EQ(sink.stored(), read->points);
    return s;
  }
};

TEST_F(OnlineImportTest, StoresExactlyWhatAnOfflineImportStores) {
  testing::WriteFile(dir_ + "/points.ndjson", Ndjson());
  const ImportOptions options =
      Options({dir_ + "/points.ndjson"}, Format::kAuto);
  service::testing::TestServer server;
  OnlineOptions online;
  online.batch_points = 4;  // several batches, several in flight
  online.in_flight = 3;
  ASSERT_TRUE(ImportOnline(server, options, online).ok());
  // And again: idempotent.
  ASSERT_TRUE(ImportOnline(server, options, online).ok());

  const std::string data = storage::testing::NewDataDir();
  ASSERT_TRUE(ImportOffline(options, data).status.ok());
  EXPECT_EQ(DumpCollection(server.store()), DumpDir(data));
  EXPECT_THAT(InvariantViolations(server.store(), "fleet"), IsEmpty());
}

TEST_F(OnlineImportTest, TrackdsRefusalNamesTheInputLine) {
  // This trackd allows one attribute; the importer checks the default 32.
  v1::TrackdbConfig config;
  config.mutable_limits()->set_max_attributes(1);
  service::testing::TestServer server(config);
  std::string csv = "id,loc_time_ms,lat,lon,attr.a,attr.b\n";
  csv += "x,1700000000000,1,1,,\n";
  csv += "y,1700000000000,1,1,1,\n";
  csv += "z,1700000000000,1,1,1,2\n";  // line 4: two attributes
  testing::WriteFile(dir_ + "/attrs.csv", csv);
  OnlineOptions online;
  online.batch_points = 10;
  absl::Status s = ImportOnline(
      server, Options({dir_ + "/attrs.csv"}, Format::kCsv), online);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("attrs.csv:4: trackd refused AddPoints after 1 "
                        "attempt: points[2].attributes has 2 entries"));
}

TEST_F(OnlineImportTest, AnUnreachableTrackdFailsAfterRetries) {
  testing::WriteFile(dir_ + "/points.csv", HeaderCsv());
  OnlineOptions online;
  online.collection = "fleet";
  online.max_attempts = 2;
  online.call_timeout = absl::Milliseconds(200);
  // A port nothing listens on.
  OnlineSink sink(
      grpc::CreateChannel("127.0.0.1:1", grpc::InsecureChannelCredentials()),
      online);
  // The options (whose file names the batches point at) outlive Finish.
  const ImportOptions options = Options({dir_ + "/points.csv"}, Format::kCsv);
  auto read = ReadInputs(options, &sink, nullptr);
  absl::Status s = read.ok() ? sink.Finish(nullptr) : read.status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(s.message()), HasSubstr("after 2 attempts"));
  EXPECT_EQ(sink.retries(), 1u);
}

}  // namespace
}  // namespace trackdb::import
