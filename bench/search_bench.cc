// Search cost: TrackStore::ScanRegion 200 m radius queries over a city of
// vehicles, and what each query reads (covering ranges, latest-index
// entries examined, hits), to
// show that a query costs what its hits cost, not what the collection holds.
//
//   bazel run --config=bench //bench:search_bench
//
// Three collections in one store, each point placed as bench/grpc_load.cc
// places them (uniformly in a box around (39.9, 116.4)):
//   city_100k   100k entities in the 30 km x 23 km city      (145/km^2)
//   city_1m     1M entities in the same city                  (1450/km^2)
//   region_1m   1M entities in a box sqrt(10) times as wide
//               and high, so 10x the area                     (145/km^2)
//   region_10m  10M entities in a box sqrt(10) times as wide and high
//               as the city, so 10x the area               (1450/km^2)
//               (only with --with_10m: it takes minutes to load and
//               about 2 GB of memory)
// city_1m vs city_100k: 10x the hits, so cost should grow 10x.
// region_1m vs city_100k, and region_10m vs city_1m: the same hits from a
// 10x larger collection, so cost should not grow at all.
//
// Flags (besides Google Benchmark's):
//   --data_dir=DIR   where the store lives ($TMPDIR/trackdb-search-bench)
//   --reuse          use the store already in DIR instead of reloading it
//   --keep           leave the store in DIR at exit (for --reuse)
//   --with_10m       also region_10m (below)
//   --memory_budget_mb=N  trackd's memory budget (default: trackd's own)
//   --callgrind_queries=N  instead of benchmarks: run N warm-up queries on
//       city_1m, then N more inside MeasuredQueries(), for callgrind to
//       count instructions per query (the command: bench/README.md,
//       "Search cost at the storage level").
// Results: bench/README.md.

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "index/region.h"
#include "rocksdb/perf_context.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/track_store.h"

ABSL_FLAG(std::string, data_dir, "", "store directory");
ABSL_FLAG(bool, reuse, false, "reuse the store already in --data_dir");
ABSL_FLAG(bool, keep, false, "keep the store at exit");
ABSL_FLAG(int, callgrind_queries, 0, "run N measured queries, no benchmarks");
ABSL_FLAG(bool, positions_only, true,
          "--callgrind_queries: decode positions only, as grpc_load asks");
ABSL_FLAG(bool, with_10m, false, "also load and measure region_10m");
ABSL_FLAG(int, memory_budget_mb, 0,
          "storage.memory_budget_mb (0: trackd's default); the latest index "
          "of --with_10m's 12.1M entities needs about 1.3 GB of it");
ABSL_FLAG(bool, compact, false,
          "compact the latest column family into one sorted run first");

namespace trackdb {
namespace {

constexpr double kRadiusM = 200;
constexpr double kCityLat = 39.9, kCityLon = 116.4;
constexpr double kCityHalfDeg = 0.135;  // as bench/grpc_load.cc

struct Dataset {
  const char* collection;
  int entities;
  double half_deg;  // half the box's side, degrees
};
const Dataset kDatasets[] = {
    {"city_100k", 100000, kCityHalfDeg},
    {"city_1m", 1000000, kCityHalfDeg},
    {"region_1m", 1000000, kCityHalfDeg * 3.1622776601683795},
    {"region_10m", 10000000, kCityHalfDeg * 3.1622776601683795},
};
// The datasets this run loads and measures: the first three, and
// region_10m with --with_10m.
int DatasetCount() { return absl::GetFlag(FLAGS_with_10m) ? 4 : 3; }

storage::TrackStore* g_store = nullptr;

absl::Status Load(const Dataset& d) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-d.half_deg, d.half_deg);
  int64_t t = 1763700000000;
  std::vector<model::TrackPoint> batch;
  for (int start = 0; start < d.entities; start += 1000) {
    batch.clear();
    for (int e = start; e < std::min(d.entities, start + 1000); ++e) {
      model::TrackPoint p;
      p.entity = absl::StrCat("v", e);
      p.loc_time_ms = t++;
      p.lat = kCityLat + u(rng);
      p.lon = kCityLon + u(rng);
      p.speed_kmh = 30;
      batch.push_back(std::move(p));
    }
    if (absl::Status s = g_store->AddPoints(d.collection, batch); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

// Flushes every memtable and waits for compactions to finish, so queries
// see the settled LSM tree trackd has once its preload is digested.
void Settle() {
  rocksdb::DB* db = g_store->engine().db.get();
  rocksdb::FlushOptions flush;
  flush.wait = true;
  for (auto* cf : {g_store->engine().points(), g_store->engine().latest()}) {
    db->Flush(flush, cf).PermitUncheckedError();
  }
  for (int quiet = 0; quiet < 3;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    uint64_t pending = 0, running = 0;
    db->GetIntProperty("rocksdb.compaction-pending", &pending);
    db->GetIntProperty("rocksdb.num-running-compactions", &running);
    quiet = (pending == 0 && running == 0) ? quiet + 1 : 0;
  }
}

// A 200 m circle centred inside the dataset's box (not in its outer 4%, so
// every query sees the box's density).
index::CircleRegion RandomCircle(std::mt19937_64& rng, const Dataset& d) {
  std::uniform_real_distribution<double> u(-d.half_deg * 0.96,
                                           d.half_deg * 0.96);
  return *index::CircleRegion::Create({kCityLat + u(rng), kCityLon + u(rng)},
                                      kRadiusM);
}

absl::Status Query(const Dataset& d, std::mt19937_64& rng,
                   const storage::ScanOptions& options) {
  const index::CircleRegion circle = RandomCircle(rng, d);
  return g_store->ScanRegion(
      d.collection, circle,
      [](const model::TrackPoint& p) {
        benchmark::DoNotOptimize(p.lat);
        return true;
      },
      options);
}

// Args: dataset (index into kDatasets), positions_only (0 or 1).
void BM_ScanRadius(benchmark::State& state) {
  const Dataset& d = kDatasets[state.range(0)];
  state.SetLabel(absl::StrCat(d.collection,
                              state.range(1) ? " positions" : " full points"));
  std::mt19937_64 rng(99);
  storage::ScanStats stats;
  storage::ScanOptions options;
  options.positions_only = state.range(1) != 0;
  options.stats = &stats;
  int64_t queries = 0;
  for (auto _ : state) {
    if (absl::Status s = Query(d, rng, options); !s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
    }
    ++queries;
  }
  const double n = std::max<int64_t>(queries, 1);
  state.counters["hits/q"] = stats.hits / n;
  state.counters["keys/q"] = stats.keys_read / n;
  state.counters["keys/hit"] =
      stats.keys_read / std::max(1.0, 1.0 * stats.hits);
  state.counters["ranges/q"] = stats.ranges / n;
  state.counters["q/s"] =
      benchmark::Counter(queries, benchmark::Counter::kIsRate);

  // RocksDB's own counts, from 200 more queries after the timed loop
  // (counting costs a little on every key).
  options.stats = nullptr;
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
  rocksdb::get_perf_context()->Reset();
  for (int i = 0; i < 200; ++i) Query(d, rng, options).IgnoreError();
  const rocksdb::PerfContext& perf = *rocksdb::get_perf_context();
  state.counters["blk_miss/q"] = perf.block_read_count / 200.0;
  state.counters["blk_hit/q"] = perf.block_cache_hit_count / 200.0;
  state.counters["tombstones/q"] = perf.internal_delete_skipped_count / 200.0;
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
}
void RegisterBenchmarks() {
  for (int d = 0; d < DatasetCount(); ++d) {
    for (int positions_only : {0, 1}) {
      benchmark::RegisterBenchmark("BM_ScanRadius", BM_ScanRadius)
          ->Args({d, positions_only})
          ->MinTime(3);
    }
  }
}

// Instructions per query are counted by callgrind inside this function only.
__attribute__((noinline)) void MeasuredQueries(
    int n, std::mt19937_64& rng, const storage::ScanOptions& options) {
  for (int i = 0; i < n; ++i) {
    if (!Query(kDatasets[1], rng, options).ok()) std::abort();
  }
}

// Reads every latest entry of `collection` once, so the measured queries
// find the blocks of their hits' points in the block cache as a
// long-running trackd would.
void WarmBlockCache(const char* collection) {
  const std::string prefix = storage::CollectionPrefix(collection);
  std::string end = prefix;
  end.back() = static_cast<char>(end.back() + 1);  // names are ASCII
  rocksdb::Slice upper(end);
  rocksdb::ReadOptions read;
  read.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(
      g_store->engine().db->NewIterator(read, g_store->engine().latest()));
  int64_t n = 0;
  for (it->Seek(prefix); it->Valid(); it->Next()) ++n;
  std::printf("warmed the block cache with %lld latest entries\n",
              static_cast<long long>(n));
}

int CallgrindQueries(int n) {
  WarmBlockCache(kDatasets[1].collection);
  std::mt19937_64 rng(99);
  storage::ScanStats stats;
  storage::ScanOptions options;
  options.positions_only = absl::GetFlag(FLAGS_positions_only);
  options.stats = &stats;
  for (int i = 0; i < n; ++i) {  // warm-up, outside MeasuredQueries
    if (!Query(kDatasets[1], rng, options).ok()) return 1;
  }
  stats = {};
  MeasuredQueries(n, rng, options);
  std::printf(
      "measured %d queries on city_1m (%s): %.1f hits/query, "
      "%.1f keys/query, %.1f ranges/query\n",
      n, options.positions_only ? "positions" : "full points",
      1.0 * stats.hits / n, 1.0 * stats.keys_read / n, 1.0 * stats.ranges / n);
  return 0;
}

}  // namespace
}  // namespace trackdb

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  absl::ParseCommandLine(argc, argv);
  std::string dir = absl::GetFlag(FLAGS_data_dir);
  if (dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    dir = absl::StrCat(tmp ? tmp : "/tmp", "/trackdb-search-bench");
  }
  const bool reuse =
      absl::GetFlag(FLAGS_reuse) && std::filesystem::exists(dir + "/CURRENT");
  if (!reuse) std::filesystem::remove_all(dir);
  // trackd's shipped defaults but without a WAL: the load is setup, not what
  // is measured, and reads do not touch the WAL.
  trackdb::v1::StorageConfig config;
  config.set_durability(trackdb::v1::DURABILITY_WAL_OFF);
  if (const int mb = absl::GetFlag(FLAGS_memory_budget_mb); mb > 0) {
    config.set_memory_budget_mb(mb);
  }
  auto store = trackdb::storage::TrackStore::Open(dir, config);
  if (!store.ok()) {
    std::fprintf(stderr, "open: %s\n",
                 std::string(store.status().message()).c_str());
    return 1;
  }
  trackdb::g_store = store->get();
  if (!reuse) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < trackdb::DatasetCount(); ++i) {
      const trackdb::Dataset& d = trackdb::kDatasets[i];
      if (absl::Status s = trackdb::Load(d); !s.ok()) {
        std::fprintf(stderr, "load %s: %s\n", d.collection,
                     std::string(s.message()).c_str());
        return 1;
      }
    }
    trackdb::Settle();
    std::fprintf(
        stderr, "loaded and settled in %.0f s\n",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count());
  }
  if (absl::GetFlag(FLAGS_compact)) {
    rocksdb::CompactRangeOptions compact;
    compact.bottommost_level_compaction =
        rocksdb::BottommostLevelCompaction::kForce;
    trackdb::g_store->engine()
        .db
        ->CompactRange(compact, trackdb::g_store->engine().latest(), nullptr,
                       nullptr)
        .PermitUncheckedError();
  }
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0)
      std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fprintf(
      stderr, "latest index: %.1f MiB\n",
      trackdb::g_store->engine().latest_index.ApproximateBytes() / 1048576.0);
  std::string levels;
  trackdb::g_store->engine().db->GetProperty(
      trackdb::g_store->engine().latest(), "rocksdb.levelstats", &levels);
  std::fprintf(stderr, "latest column family:\n%s", levels.c_str());
  int rc = 0;
  if (const int n = absl::GetFlag(FLAGS_callgrind_queries); n > 0) {
    rc = trackdb::CallgrindQueries(n);
  } else {
    trackdb::RegisterBenchmarks();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
  }
  store->reset();
  if (!absl::GetFlag(FLAGS_keep)) std::filesystem::remove_all(dir);
  return rc;
}
