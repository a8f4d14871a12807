// A fleet tracker's field report of RocksDB tuning, its table reproduced on
// its workload: every point is for an entity that already has a latest
// position, so each costs 2 Puts (points and latest; the report's schema
// also moved a geo entry), written through
// TrackStore::AddPoints (--per_call points per WriteBatch). Writer threads
// run for --seconds under each configuration; a sampler records throughput
// and L0 files every --sample_ms for the plot.
//
//   bazel run --config=bench //bench:seed004_bench
//   bazel run --config=bench //bench:seed004_bench -- --mode=import_reopen
//
// Prints a Markdown table (bench/README.md) and writes the time series to
// --csv (one row per sample: config, seconds, points/s, L0 files).
//
// --mode=import_reopen: bulk-load mode on, --import_points new points in
// batches of 1000, bulk-load mode off (full compaction), close, and time the
// reopen, which should take under 1 s after a 10M-point import.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "storage/stats/store_stats.h"
#include "storage/track_store.h"
#include "storage/stats/doctor.h"

ABSL_FLAG(std::string, mode, "table", "table | import_reopen");
ABSL_FLAG(std::string, configs,
          "rocksdb_2016,rocksdb_defaults,trackdb,trackdb_memtable_mib=64,"
          "bulk_load,hand_tuned",
          "which rows of the table to run, in order");
ABSL_FLAG(int, seconds, 45, "ingest time per configuration");
ABSL_FLAG(int, entities, 200000, "entities, all preloaded before timing");
ABSL_FLAG(int, threads, 2, "writer threads");
ABSL_FLAG(int, per_call, 100,
          "points per AddPoints call (each still 3 Puts + 1 Delete)");
ABSL_FLAG(int, sample_ms, 1000, "sampling period of the time series");
ABSL_FLAG(int, history, 10, "points per entity in the base store");
ABSL_FLAG(int, rounds, 1, "rounds over all configurations (median shown)");
ABSL_FLAG(std::string, csv, "", "time series output (default: none)");
ABSL_FLAG(int64_t, import_points, 10000000, "--mode=import_reopen: points");
ABSL_FLAG(std::string, dir, "",
          "scratch dir (default: $TMPDIR/trackdb-seed004)");

namespace trackdb::bench {
namespace {

using Clock = std::chrono::steady_clock;
using model::TrackPoint;
using storage::StoreStats;
using storage::TrackStore;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Config {
  std::string name;
  std::string label;
  v1::StorageConfig storage;
  bool bulk_load_live = false;
};

void SetSeed004Defaults(v1::StorageConfig& s) {
  s.set_write_buffer_size_mb(4);
  s.set_max_write_buffer_number(2);
  s.set_db_write_buffer_size_mb(0);
  s.set_max_background_jobs(2);
  s.set_rocksdb_db_options(
      "max_background_flushes=1;max_background_compactions=1");
  s.set_level0_file_num_compaction_trigger(4);
  s.set_level0_slowdown_writes_trigger(20);
  s.set_level0_stop_writes_trigger(24);
  s.set_compression(v1::COMPRESSION_SNAPPY);
  s.set_block_cache_size_mb(8);
}

Config MakeConfig(const std::string& name) {
  Config c;
  c.name = name;
  v1::StorageConfig& s = c.storage;
  if (name == "rocksdb_2016") {
    // The defaults the report ran on (RocksDB 4.x, 2016): 4 MiB memtables, two
    // of them, one flush and one compaction thread, L0 4/20/24.
    c.label =
        "RocksDB 4.x defaults, 2016 (4 MiB x 2 memtables, 1 "
        "flush + 1 compaction thread, L0 4/20/24)";
    SetSeed004Defaults(s);
  } else if (name == "rocksdb_defaults") {
    // RocksDB's own defaults for the knobs the report tuned.
    c.label =
        "RocksDB defaults (64 MiB x 2 memtables, 2 background jobs, "
        "L0 4/20/36)";
    s.set_write_buffer_size_mb(64);
    s.set_max_write_buffer_number(2);
    s.set_db_write_buffer_size_mb(0);
    s.set_max_background_jobs(2);
    s.set_level0_file_num_compaction_trigger(4);
    s.set_level0_slowdown_writes_trigger(20);
    s.set_level0_stop_writes_trigger(36);
    s.set_compression(v1::COMPRESSION_SNAPPY);
    s.set_block_cache_size_mb(32);
  } else if (name == "trackdb") {
    c.label = "trackdb's defaults (conf/trackdb.textproto)";
  } else if (absl::string_view size = name;
             absl::ConsumePrefix(&size, "trackdb_memtable_mib=")) {
    int mib = 0;
    if (!absl::SimpleAtoi(size, &mib) || mib <= 0) {
      std::fprintf(stderr, "bad memtable size in config %s\n", name.c_str());
      std::exit(2);
    }
    // trackdb's defaults with another memtable size (the table has 64, the
    // default until 8 replaced it). The write path's main cost is skiplist
    // inserts, which get cheaper as memtables shrink; flushes get smaller
    // and more frequent.
    c.label =
        absl::StrCat("trackdb's defaults with write_buffer_size_mb: ", mib);
    s.set_write_buffer_size_mb(mib);
  } else if (name == "bulk_load") {
    c.label = "PrepareForBulkLoad (trackdb's bulk-load mode, left on)";
    c.bulk_load_live = true;
  } else if (name == "hand_tuned") {
    // The report's best rows: IncreaseParallelism(10), 4 flush threads, L0
    // 10/100/200, on the defaults of its time.
    c.label =
        "The field report's hand tuning: 10 background threads (4 flush), L0 "
        "10/100/200, else its time's defaults";
    SetSeed004Defaults(s);
    s.set_max_background_jobs(10);
    s.set_rocksdb_db_options(
        "max_background_flushes=4;max_background_compactions=6");
    s.set_level0_file_num_compaction_trigger(10);
    s.set_level0_slowdown_writes_trigger(100);
    s.set_level0_stop_writes_trigger(200);
  } else {
    std::fprintf(stderr, "unknown config %s\n", name.c_str());
    std::exit(2);
  }
  return c;
}

std::atomic<int64_t> g_time{1763700000000};

TrackPoint RandomPoint(std::mt19937_64& rng, int entity) {
  std::uniform_real_distribution<double> d(-0.135, 0.135);
  TrackPoint p;
  p.entity = absl::StrCat("vehicle-", entity);
  p.loc_time_ms = g_time.fetch_add(1, std::memory_order_relaxed);
  p.lat = 39.9 + d(rng);
  p.lon = 116.4 + d(rng);
  p.speed_kmh = 40;
  p.direction_deg = 90;
  return p;
}

std::unique_ptr<TrackStore> Open(const std::string& dir,
                                 const v1::StorageConfig& config) {
  auto store = TrackStore::Open(dir, config);
  if (!store.ok()) {
    std::fprintf(stderr, "open: %s\n",
                 std::string(store.status().message()).c_str());
    std::exit(1);
  }
  return *std::move(store);
}

int MaxL0(const StoreStats& s) {
  int most = 0;
  for (const auto& c : s.column_families) most = std::max(most, c.l0_files);
  return most;
}

struct Row {
  Config config;
  double points_per_second = 0;
  double stall_seconds = 0;  // STALL_MICROS: writer time spent delayed
  double slowdown_seconds = 0, stop_seconds = 0;  // longest CF, listener
  int max_l0 = 0;
  double avg_flush_bytes = 0;
  double bytes_per_point = 0;
  double reopen_seconds = 0;
  std::string note;
};

// A copy of the base store: SST files (immutable) hard-linked, the rest
// copied, so each configuration starts from the same data in no time.
void CopyStore(const std::string& from, const std::string& to) {
  namespace fs = std::filesystem;
  fs::remove_all(to);
  fs::create_directories(to);
  for (const auto& entry : fs::directory_iterator(from)) {
    const fs::path target = fs::path(to) / entry.path().filename();
    if (entry.path().extension() == ".sst") {
      fs::create_hard_link(entry.path(), target);
    } else {
      fs::copy_file(entry.path(), target);
    }
  }
}

// The store every configuration starts from: --entities entities with
// --history points each (the service has been running a while), loaded in
// bulk-load mode and fully compacted.
void BuildBase(const std::string& dir) {
  std::filesystem::remove_all(dir);
  auto store = Open(dir, v1::StorageConfig());
  if (!store->SetBulkLoad(true).ok()) std::exit(1);
  const int entities = absl::GetFlag(FLAGS_entities);
  std::mt19937_64 rng(42);
  std::vector<TrackPoint> batch;
  const auto start = Clock::now();
  for (int h = 0; h < absl::GetFlag(FLAGS_history); ++h) {
    for (int e = 0; e < entities; ++e) {
      batch.push_back(RandomPoint(rng, e));
      if (batch.size() == 1000) {
        if (!store->AddPoints("fleet", batch).ok()) std::exit(1);
        batch.clear();
      }
    }
  }
  if (!batch.empty() && !store->AddPoints("fleet", batch).ok()) std::exit(1);
  if (!store->SetBulkLoad(false).ok()) std::exit(1);
  if (!store->Close().ok()) std::exit(1);
  std::fprintf(stderr, "base store: %d entities x %d points in %.0f s\n",
               entities, absl::GetFlag(FLAGS_history), Since(start));
}

// What a run did, from the store's statistics before and after it.
void RecordRunStats(const StoreStats& before, const StoreStats& after,
                    int64_t points, double elapsed, Row* row) {
  row->points_per_second = points / elapsed;
  row->stall_seconds = (after.stall_micros - before.stall_micros) / 1e6;
  for (const auto& c : after.column_families) {
    const auto* b = before.cf(c.name);
    row->slowdown_seconds = std::max(row->slowdown_seconds,
                                     c.slowdown_seconds - b->slowdown_seconds);
    row->stop_seconds =
        std::max(row->stop_seconds, c.stop_seconds - b->stop_seconds);
  }
  const uint64_t flushes = after.flushes() - before.flushes();
  row->avg_flush_bytes =
      flushes ? 1.0 * (after.flush_bytes() - before.flush_bytes()) / flushes
              : 0;
  row->bytes_per_point =
      1.0 * (after.disk_writes().bytes - before.disk_writes().bytes) /
      std::max<int64_t>(1, points);
  row->note = absl::StrFormat("%d L0 files at the end", MaxL0(after));
}

Row RunConfig(const Config& config, const std::string& base,
              const std::string& dir, int round, std::ofstream* csv) {
  CopyStore(base, dir);
  Row row;
  row.config = config;
  auto store = Open(dir, config.storage);
  const int entities = absl::GetFlag(FLAGS_entities);
  if (config.bulk_load_live && !store->SetBulkLoad(true).ok()) std::exit(1);

  const StoreStats before = storage::ReadStoreStats(*store);
  std::atomic<int64_t> points{0};
  std::atomic<bool> stop{false};
  const auto start = Clock::now();
  const auto end = start + std::chrono::seconds(absl::GetFlag(FLAGS_seconds));
  std::vector<std::thread> writers;
  for (int t = 0; t < absl::GetFlag(FLAGS_threads); ++t) {
    writers.emplace_back([&, t] {
      std::mt19937_64 rng(1000 + t);
      std::uniform_int_distribution<int> pick(0, entities - 1);
      std::vector<TrackPoint> batch(absl::GetFlag(FLAGS_per_call));
      while (!stop.load(std::memory_order_relaxed)) {
        for (TrackPoint& p : batch) p = RandomPoint(rng, pick(rng));
        if (!store->AddPoints("fleet", batch).ok()) std::exit(1);
        points.fetch_add(batch.size(), std::memory_order_relaxed);
      }
    });
  }
  int64_t last_points = 0;
  auto last = start;
  while (Clock::now() < end) {
    std::this_thread::sleep_for(
        std::chrono::milliseconds(absl::GetFlag(FLAGS_sample_ms)));
    const auto now = Clock::now();
    const int64_t p = points.load();
    const StoreStats s = storage::ReadStoreStats(*store);
    row.max_l0 = std::max(row.max_l0, MaxL0(s));
    if (csv) {
      *csv << config.name << "," << round << ","
           << absl::StrFormat("%.2f", Since(start)) << ","
           << absl::StrFormat(
                  "%.0f", (p - last_points) /
                              std::chrono::duration<double>(now - last).count())
           << "," << MaxL0(s) << "\n";
    }
    last_points = p;
    last = now;
  }
  stop = true;
  for (auto& w : writers) w.join();
  const double elapsed = Since(start);
  const StoreStats after = storage::ReadStoreStats(*store);

  RecordRunStats(before, after, points.load(), elapsed, &row);
  // What trackd's doctor would say of this configuration after the run.
  std::string findings =
      storage::FormatFindings(storage::Diagnose(after, store->options()));
  absl::StripTrailingAsciiWhitespace(&findings);
  std::fprintf(stderr, "  doctor: %s\n",
               absl::StrReplaceAll(findings, {{"\n", "\n          "}}).c_str());

  // Reopen as the configuration leaves the store (bulk-load mode still on
  // for its row, as the report found it).
  if (!store->Close().ok()) std::exit(1);
  store.reset();
  const auto reopen = Clock::now();
  store = Open(dir, config.storage);
  row.reopen_seconds = Since(reopen);
  if (config.bulk_load_live) {
    auto off = store->SetBulkLoad(false);
    if (off.ok()) {
      absl::StrAppend(&row.note,
                      absl::StrFormat("; bulk-load off: %.1f s compaction",
                                      off->compaction_seconds));
    }
  }
  store.reset();
  std::filesystem::remove_all(dir);
  return row;
}

std::string Mib(double bytes) {
  return absl::StrFormat("%.1f MiB", bytes / (1 << 20));
}

int Table(const std::string& dir) {
  std::unique_ptr<std::ofstream> csv;
  if (!absl::GetFlag(FLAGS_csv).empty()) {
    csv = std::make_unique<std::ofstream>(absl::GetFlag(FLAGS_csv));
    *csv << "config,round,seconds,points_per_second,max_l0_files\n";
  }
  const std::string base = dir + "-base";
  BuildBase(base);
  // Rounds interleave the configurations, so that the machine's load (it is
  // shared) spreads over all of them; each row is the median round.
  std::vector<Config> configs;
  for (absl::string_view name :
       absl::StrSplit(absl::GetFlag(FLAGS_configs), ',')) {
    configs.push_back(MakeConfig(std::string(name)));
  }
  std::vector<std::vector<Row>> runs(configs.size());
  for (int round = 1; round <= absl::GetFlag(FLAGS_rounds); ++round) {
    for (size_t i = 0; i < configs.size(); ++i) {
      std::fprintf(stderr, "round %d: %s for %d s ...\n", round,
                   configs[i].name.c_str(), absl::GetFlag(FLAGS_seconds));
      runs[i].push_back(RunConfig(configs[i], base, dir, round, csv.get()));
      const Row& r = runs[i].back();
      std::fprintf(stderr, "  %.0f points/s, stall %.1f s, max L0 %d\n",
                   r.points_per_second, r.stall_seconds, r.max_l0);
    }
  }
  std::filesystem::remove_all(base);
  std::vector<Row> rows;
  for (auto& r : runs) {
    std::sort(r.begin(), r.end(), [](const Row& a, const Row& b) {
      return a.points_per_second < b.points_per_second;
    });
    rows.push_back(r[r.size() / 2]);
    std::string all;
    for (const Row& one : r) {
      absl::StrAppend(&all, all.empty() ? "" : ", ",
                      absl::StrFormat("%.0f", one.points_per_second));
    }
    absl::StrAppend(&rows.back().note, "; rounds: ", all, " points/s");
  }
  double best_tuned = 0, best_steady = 0, trackdb = 0;
  for (const Row& r : rows) {
    if (r.config.name == "trackdb") trackdb = r.points_per_second;
    if (r.config.name == "hand_tuned" || r.config.name == "bulk_load") {
      best_tuned = std::max(best_tuned, r.points_per_second);
    }
    if (r.config.name == "hand_tuned") best_steady = r.points_per_second;
  }
  std::printf(
      "| configuration | points/s | writer stall s (slowdown / stop, s) | "
      "max L0 files | avg flush | disk bytes/point | reopen s | notes |\n"
      "|---|---:|---:|---:|---:|---:|---:|---|\n");
  for (const Row& r : rows) {
    std::printf(
        "| %s | %.0f | %.1f (%.1f / %.1f) | %d | %s | %.0f | %.2f | %s |\n",
        r.config.label.c_str(), r.points_per_second, r.stall_seconds,
        r.slowdown_seconds, r.stop_seconds, r.max_l0,
        Mib(r.avg_flush_bytes).c_str(), r.bytes_per_point, r.reopen_seconds,
        r.note.c_str());
  }
  std::printf(
      "| Offline SST import (tools/trackdb_import) | | | | | | | to be filled "
      "by the import work |\n");
  if (best_tuned > 0 && trackdb > 0) {
    std::printf(
        "\ntrackdb's defaults / best hand-tuned row = %.2f; / the hand "
        "tuning (compaction on) = %.2f\n",
        trackdb / best_tuned, best_steady > 0 ? trackdb / best_steady : 0);
  }
  return 0;
}

int ImportReopen(const std::string& dir) {
  std::filesystem::remove_all(dir);
  const int64_t n = absl::GetFlag(FLAGS_import_points);
  const int entities = absl::GetFlag(FLAGS_entities);
  auto store = Open(dir, v1::StorageConfig());
  if (!store->SetBulkLoad(true).ok()) return 1;
  std::mt19937_64 rng(7);
  const auto start = Clock::now();
  std::vector<TrackPoint> batch;
  for (int64_t i = 0; i < n; ++i) {
    batch.push_back(RandomPoint(rng, static_cast<int>(i % entities)));
    if (batch.size() == 1000 || i + 1 == n) {
      if (!store->AddPoints("fleet", batch).ok()) return 1;
      batch.clear();
    }
  }
  const double ingest = Since(start);
  const StoreStats loaded = storage::ReadStoreStats(*store);
  auto off = store->SetBulkLoad(false);
  if (!off.ok()) return 1;
  if (!store->Close().ok()) return 1;
  store.reset();
  const auto reopen = Clock::now();
  store = Open(dir, v1::StorageConfig());
  const double reopen_seconds = Since(reopen);
  auto latest = store->GetLatest("fleet", "vehicle-1");
  std::printf(
      "import of %lld points (%d entities, bulk-load mode, 1000 per call): "
      "%.1f s = %.0f points/s; L0 files at the end of ingest: %d; bulk-load "
      "off compaction: %.1f s (%d -> %d L0 files); reopen: %.3f s; "
      "vehicle-1 readable: %s\n",
      static_cast<long long>(n), entities, ingest, n / ingest,
      loaded.l0_files(), off->compaction_seconds, off->l0_files_before,
      off->l0_files_after, reopen_seconds,
      latest.ok() && latest->has_value() ? "yes" : "NO");
  store.reset();
  std::filesystem::remove_all(dir);
  return reopen_seconds < 1.0 ? 0 : 1;
}

}  // namespace
}  // namespace trackdb::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  std::string dir = absl::GetFlag(FLAGS_dir);
  if (dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    dir = absl::StrCat(tmp ? tmp : "/tmp", "/trackdb-seed004");
  }
  return absl::GetFlag(FLAGS_mode) == "import_reopen"
             ? trackdb::bench::ImportReopen(dir)
             : trackdb::bench::Table(dir);
}
