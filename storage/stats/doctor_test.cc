#include "storage/stats/doctor.h"

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/engine/disk_faults.h"
#include "storage/format/keys.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::NewDataDir;
using ::testing::Not;
using testing::Point;

constexpr uint64_t kMiB = 1 << 20;

auto Named(const std::string& code, Finding::Severity severity) {
  return AllOf(Field(&Finding::code, code),
               Field(&Finding::severity, severity));
}
auto Says(const std::string& code, const std::string& text) {
  return AllOf(Field(&Finding::code, code),
               Field(&Finding::message, HasSubstr(text)));
}
std::vector<std::string> Codes(const std::vector<Finding>& findings) {
  std::vector<std::string> codes;
  for (const Finding& f : findings) {
    if (f.severity > Finding::kInfo) codes.push_back(f.code);
  }
  return codes;
}

// A healthy store: default options, a few full flushes, L0 small.
StoreStats Healthy() {
  StoreStats s;
  s.memory_budget_bytes = 1024 * kMiB;
  s.memtable_budget_bytes = 512 * kMiB;
  s.block_cache_capacity_bytes = 896 * kMiB;
  s.block_cache_usage_bytes = 700 * kMiB;
  s.process_rss_bytes = 1000 * kMiB;
  s.max_background_jobs = 4;
  for (const char* name : {"default", kPointsCf, kLatestCf, kKvCf}) {
    CfStats c;
    c.name = name;
    c.write_buffer_size = 64 * kMiB;
    c.max_write_buffer_number = 4;
    c.level0_file_num_compaction_trigger = 4;
    c.level0_slowdown_writes_trigger = 40;
    c.level0_stop_writes_trigger = 64;
    c.l0_files = 2;
    c.flushes = 10;
    c.flush_raw_bytes = 10 * 55 * kMiB;
    c.flush_bytes = 10 * 20 * kMiB;
    s.column_families.push_back(c);
  }
  return s;
}

StoreOptions DefaultOptions() {
  auto o = BuildStoreOptions(v1::StorageConfig());
  EXPECT_TRUE(o.ok());
  return *o;
}

CfStats& Cf(StoreStats& s, const std::string& name) {
  for (CfStats& c : s.column_families) {
    if (c.name == name) return c;
  }
  return s.column_families[0];
}

TEST(DoctorTest, HealthyStoreHasNoProblems) {
  const auto findings = Diagnose(Healthy(), DefaultOptions());
  EXPECT_THAT(Codes(findings), IsEmpty()) << FormatFindings(findings);
  EXPECT_THAT(FormatFindings(findings), HasSubstr("no problems found"));
}

TEST(DoctorTest, HistoryBytesAFixWithTheFixesRawAndInChunks) {
  StoreStats s = Healthy();
  EXPECT_THAT(Diagnose(s, DefaultOptions()),
              Not(Contains(Field(&Finding::code, "history_bytes"))));
  Cf(s, kPointsCf).history_fixes = 1000;
  Cf(s, kPointsCf).history_bytes = 30000;
  CfStats chunks;
  chunks.name = kChunksCf;
  chunks.history_fixes = 9000;
  chunks.history_bytes = 30000;
  s.column_families.push_back(chunks);
  const std::vector<Finding> findings = Diagnose(s, DefaultOptions());
  EXPECT_THAT(findings, Contains(Named("history_bytes", Finding::kInfo)));
  EXPECT_THAT(findings,
              Contains(Says("history_bytes",
                            "history on disk: 6.00 bytes a fix (9000 fixes in "
                            "chunks, 1000 raw, not yet folded")));
}

TEST(DoctorTest, SmallFlushesWithNumbers) {
  StoreStats s = Healthy();
  Cf(s, kPointsCf).flushes = 200;
  Cf(s, kPointsCf).flush_raw_bytes = 200 * 4 * kMiB;
  Cf(s, kPointsCf).flush_bytes = 200 * 2 * kMiB;
  s.memtable_budget_bytes = 13 * kMiB;
  const auto findings = Diagnose(s, DefaultOptions());
  EXPECT_THAT(findings, Contains(Named("small_flushes", Finding::kProblem)));
  EXPECT_THAT(findings,
              Contains(Says("small_flushes",
                            "column family points: 200 flushes averaging 4.0 "
                            "MiB of data (2.0 MiB on disk), 6% of its 64.0 MiB "
                            "write buffer")));
  EXPECT_THAT(findings, Contains(AllOf(Named("memtable_budget_below_memtables",
                                             Finding::kProblem),
                                       Says("memtable_budget_below_memtables",
                                            "(db_write_buffer_size, 13.0 MiB) "
                                            "is smaller than one memtable"))));
}

// `default` holds only the registry counters: RocksDB flushes it whenever
// the WAL reaches max_total_wal_size, a few KiB at a time. Tiny, but not
// the small-flush problem: the other column families flush full memtables.
TEST(DoctorTest, RarelyWrittenColumnFamilyFlushingSmallIsNotAProblem) {
  StoreStats s = Healthy();
  Cf(s, "default").flushes = 12;
  Cf(s, "default").flush_raw_bytes = 12 * 4096;
  Cf(s, "default").flush_bytes = 12 * 1212;
  auto findings = Diagnose(s, DefaultOptions());
  EXPECT_THAT(Codes(findings), IsEmpty()) << FormatFindings(findings);

  // The same flushes in a store where `default` is most of what is written
  // (nothing else flushed) are judged.
  for (CfStats& c : s.column_families) {
    if (c.name != "default") c.flushes = c.flush_raw_bytes = c.flush_bytes = 0;
  }
  findings = Diagnose(s, DefaultOptions());
  EXPECT_THAT(findings, Contains(Says("small_flushes",
                                      "column family default: 12 "
                                      "flushes averaging 4 KiB")));
}

TEST(DoctorTest, L0StallsSlowdownVersusStop) {
  StoreStats s = Healthy();
  CfStats& points = Cf(s, kPointsCf);
  points.l0_slowdowns = 12;
  points.slowdown_seconds = 3.25;
  points.l0_files = 21;
  points.level0_slowdown_writes_trigger = 20;
  auto findings = Diagnose(s, DefaultOptions());
  EXPECT_THAT(findings, Contains(Named("l0_slowdown", Finding::kWarning)));
  EXPECT_THAT(findings,
              Contains(Says("l0_slowdown",
                            "column family points: L0 reached "
                            "level0_slowdown_writes_trigger (20) 12 times")));
  EXPECT_THAT(findings, Contains(Says("l0_slowdown", "slowed for 3.2 s")));

  points.l0_stops = 2;
  points.stop_seconds = 1.5;
  findings = Diagnose(s, DefaultOptions());
  EXPECT_THAT(findings, Contains(Named("l0_stop", Finding::kProblem)));
  EXPECT_THAT(findings, Contains(Says("l0_stop", "stopped for 1.5 s")));
}

TEST(DoctorTest, CompactionBehindAndMemtableStalls) {
  StoreStats s = Healthy();
  Cf(s, kLatestCf).l0_files = 12;
  Cf(s, kLatestCf).pending_compaction_bytes = 3 * kMiB;
  Cf(s, kPointsCf).memtable_stops = 5;
  const auto findings = Diagnose(s, DefaultOptions());
  EXPECT_THAT(findings, Contains(Says("compaction_behind",
                                      "column family latest: compaction is "
                                      "behind: L0 has 12 files")));
  EXPECT_THAT(findings, Contains(Named("memtable_stall", Finding::kProblem)));
}

TEST(DoctorTest, MemoryAboveBudget) {
  StoreStats s = Healthy();
  s.block_cache_usage_bytes = 1300 * kMiB;
  s.process_rss_bytes = 2048 * kMiB;
  const auto findings = Diagnose(s, DefaultOptions());
  EXPECT_THAT(findings,
              Contains(Says("memory_above_budget",
                            "use 1300.0 MiB, above the memory budget of "
                            "1024.0 MiB")));
  EXPECT_THAT(findings, Contains(Says("rss_above_budget", "2.00x")));
}

TEST(DoctorTest, BulkLoadLeftOn) {
  StoreStats s = Healthy();
  s.bulk_load = true;
  for (CfStats& c : s.column_families) c.disable_auto_compactions = true;
  Cf(s, kPointsCf).l0_files = 900;
  const auto findings = Diagnose(s, DefaultOptions());
  EXPECT_THAT(findings, Contains(Says("bulk_load_on",
                                      "bulk-load mode is on: L0 holds 906")));
  // L0 beyond the triggers is bulk loading's doing, not a stall.
  EXPECT_THAT(Codes(findings), Not(Contains("l0_slowdown")));
}

// --- Real stores configured with the field reports' bad settings ---

void Write(TrackStore& store, int points, int entities) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> d(-0.1, 0.1);
  std::vector<model::TrackPoint> batch;
  for (int i = 0; i < points; ++i) {
    batch.push_back(Point(absl::StrCat("vehicle-", i % entities), 1000 + i,
                          39.9 + d(rng), 116.4 + d(rng)));
    if (batch.size() == 200) {
      ASSERT_TRUE(store.AddPoints("fleet", batch).ok());
      batch.clear();
    }
  }
}

std::unique_ptr<TrackStore> Open(const v1::StorageConfig& config) {
  auto store = TrackStore::Open(NewDataDir(), config);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

TEST(DoctorRealStoreTest, Seed000TotalMemtableBudgetBelowOneMemtable) {
  // Pika's trap: 8 MiB memtables under a 1 MiB total, set through a raw
  // option string, which the config checks do not see.
  v1::StorageConfig config;
  config.set_write_buffer_size_mb(8);
  config.set_rocksdb_db_options("db_write_buffer_size=1048576");
  auto store = Open(config);
  Write(*store, 30000, 5000);
  const auto findings = Diagnose(ReadStoreStats(*store), store->options());
  EXPECT_THAT(findings, Contains(Named("memtable_budget_below_memtables",
                                       Finding::kProblem)))
      << FormatFindings(findings);
  EXPECT_THAT(findings,
              Contains(AllOf(Named("small_flushes", Finding::kProblem),
                             Says("small_flushes",
                                  "of its 8.0 MiB "
                                  "write buffer"))))
      << FormatFindings(findings);
}

TEST(DoctorRealStoreTest, Seed004L0TriggersHit) {
  // A write stall's shape, shrunk: L0 triggers that flushes reach before
  // compaction empties L0. Here compaction never runs (compaction style
  // "none"), while automatic compaction stays formally on, which RocksDB
  // needs to apply L0 triggers at all.
  v1::StorageConfig config;
  config.set_write_buffer_size_mb(1);
  config.set_level0_file_num_compaction_trigger(1);
  config.set_level0_slowdown_writes_trigger(2);
  config.set_level0_stop_writes_trigger(3);
  config.set_rocksdb_cf_options("compaction_style=kCompactionStyleNone");
  auto store = Open(config);
  for (int round = 0; round < 3; ++round) {
    Write(*store, 200, 200);
    ASSERT_TRUE(testing::FlushColumnFamily(*store, ColumnFamily::kPoints).ok());
  }
  const StoreStats stats = ReadStoreStats(*store);
  EXPECT_TRUE(stats.cf(kPointsCf)->stopped_now);
  const auto findings = Diagnose(stats, store->options());
  EXPECT_THAT(findings,
              Contains(AllOf(Named("l0_stop", Finding::kProblem),
                             Says("l0_stop", "column family points"),
                             Says("l0_stop", "level0_stop_writes_trigger (3)"),
                             Says("l0_stop", "L0 has 3 files now"))))
      << FormatFindings(findings);
  EXPECT_THAT(findings, Contains(Says("l0_stop", "2 times")))
      << "slowdown at 2 files, then stop at 3";
}

TEST(DoctorRealStoreTest, BulkLoadLeftOnUntilSwitchedOff) {
  v1::StorageConfig config;
  config.set_write_buffer_size_mb(1);
  auto store = Open(config);
  ASSERT_TRUE(store->SetBulkLoad(true).ok());
  for (int round = 0; round < 3; ++round) {
    Write(*store, 200, 200);
    ASSERT_TRUE(testing::FlushAll(*store).ok());
  }
  // 3 flushes of points and latest, and the schema version's file.
  auto findings = Diagnose(ReadStoreStats(*store), store->options());
  EXPECT_THAT(
      findings,
      Contains(Says("bulk_load_on", "bulk-load mode is on: L0 holds 7 files")))
      << FormatFindings(findings);

  ASSERT_TRUE(store->SetBulkLoad(false).ok());
  findings = Diagnose(ReadStoreStats(*store), store->options());
  EXPECT_THAT(Codes(findings), IsEmpty()) << FormatFindings(findings);
}

TEST(DoctorRealStoreTest, ReadOnlyOpenSeesBulkLoadLeftOnAndSmallL0Files) {
  // trackd stopped (or crashed) with bulk-load mode on: the OPTIONS file
  // says so, and L0 is full of small files.
  const std::string dir = NewDataDir();
  v1::StorageConfig config;
  config.set_write_buffer_size_mb(16);
  {
    auto store = TrackStore::Open(dir, config);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->SetBulkLoad(true).ok());
    for (int round = 0; round < 5; ++round) {
      Write(**store, 200, 200);
      ASSERT_TRUE(
          testing::FlushColumnFamily(**store, ColumnFamily::kPoints).ok());
    }
    ASSERT_TRUE((*store)->Close().ok());
  }
  auto read = ReadStoreStatsReadOnly(dir, config);
  ASSERT_TRUE(read.ok()) << read.status();
  const CfStats* points = read->stats.cf(kPointsCf);
  ASSERT_NE(points, nullptr);
  EXPECT_EQ(points->l0_files, 5);
  EXPECT_TRUE(points->disable_auto_compactions);
  EXPECT_EQ(points->write_buffer_size, 16u << 20);
  const auto findings = Diagnose(read->stats, read->options);
  EXPECT_THAT(findings, Contains(Says("bulk_load_on",
                                      "automatic compaction is disabled")))
      << FormatFindings(findings);
  EXPECT_THAT(
      findings,
      Contains(Says("small_flushes", "column family points: L0 holds 5 files")))
      << FormatFindings(findings);
}

// A full disk, then a failing one, under a real store: the doctor says
// which, and that writes are refused, until the disk is back.
TEST(DoctorRealStoreTest, FullOrFailingDisk) {
  auto faults = std::make_shared<DiskFaults>();
  auto opened = TrackStore::Open(NewDataDir(), v1::StorageConfig(), faults);
  ASSERT_TRUE(opened.ok()) << opened.status();
  TrackStore& store = **opened;
  ASSERT_TRUE(store.AddPoints("fleet", {Point("a", 1000, 30, 120)}).ok());
  EXPECT_THAT(Codes(Diagnose(ReadStoreStats(store), store.options())),
              IsEmpty());

  faults->Set(DiskFaults::Fault::kNoSpace);
  EXPECT_FALSE(store.AddPoints("fleet", {Point("a", 2000, 30, 120)}).ok());
  auto findings = Diagnose(ReadStoreStats(store), store.options());
  EXPECT_THAT(findings,
              Contains(AllOf(Named("disk_full", Finding::kProblem),
                             Says("disk_full", "writes are refused"),
                             Says("disk_full", "No space left on device"))))
      << FormatFindings(findings);

  faults->Set(DiskFaults::Fault::kNone);
  absl::Status s;
  for (int i = 0; i < 600; ++i) {  // RocksDB polls the free space
    s = store.AddPoints("fleet", {Point("a", 2000, 30, 120)});
    if (s.ok()) break;
    absl::SleepFor(absl::Milliseconds(50));
  }
  ASSERT_TRUE(s.ok()) << s;
  findings = Diagnose(ReadStoreStats(store), store.options());
  EXPECT_THAT(Codes(findings), IsEmpty()) << FormatFindings(findings);

  faults->Set(DiskFaults::Fault::kIoError);
  EXPECT_FALSE(store.AddPoints("fleet", {Point("a", 3000, 30, 120)}).ok());
  findings = Diagnose(ReadStoreStats(store), store.options());
  EXPECT_THAT(findings, Contains(AllOf(Named("disk_error", Finding::kProblem),
                                       Says("disk_error", "Input/output error"),
                                       Says("disk_error", "restart trackd"))))
      << FormatFindings(findings);
  faults->Set(DiskFaults::Fault::kNone);
}

}  // namespace
}  // namespace trackdb::storage
