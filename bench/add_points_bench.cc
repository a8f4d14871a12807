// Write-path throughput: points/s through TrackStore::AddPoints with 1 and
// with 100 points per call, over 100k entities that already have a latest
// point, so every point moves one: a history Put and a latest Put in one
// WriteBatch (a schema with a geohash column family also moves a geo entry:
// two more), plus, when the point lands in another ~1 km cell or 10
// minutes, its history cell key: nearly always here, since each point lands
// anywhere in the city; BM_AddPointsDriving moves each entity a street on
// instead.
//
//   bazel run --config=bench //bench:add_points_bench
//
// Results and the db_bench reference: bench/README.md.

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "storage/track_store.h"

namespace trackdb {
namespace {

constexpr int kEntities = 100000;
storage::TrackStore* g_store = nullptr;
std::atomic<int64_t> g_clock{1};

// A position in a 30 km x 30 km city.
model::TrackPoint RandomPoint(std::mt19937_64& rng, int entity) {
  std::uniform_real_distribution<double> d(-0.135, 0.135);
  model::TrackPoint p;
  p.entity = absl::StrCat("vehicle-", entity);
  p.loc_time_ms = g_clock.fetch_add(1);
  p.lat = 39.9 + d(rng);
  p.lon = 116.4 + d(rng);
  p.speed_kmh = 40;
  p.direction_deg = 90;
  return p;
}

// Calls AddPoints on `collection` with state.range(0) points from `next`
// per iteration.
template <typename Next>
void WriteCalls(benchmark::State& state, const char* collection, Next next) {
  const int per_call = static_cast<int>(state.range(0));
  std::vector<model::TrackPoint> batch(per_call);
  for (auto _ : state) {
    for (auto& p : batch) p = next();
    absl::Status s = g_store->AddPoints(collection, batch);
    if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
  }
  state.SetItemsProcessed(state.iterations() * per_call);
  state.counters["points_per_call"] =
      benchmark::Counter(per_call, benchmark::Counter::kAvgThreads);
}

// 1 and 100 points per call, from 1 and 4 threads.
void Shapes(benchmark::internal::Benchmark* b) {
  b->Arg(1)->Arg(100)->Threads(1)->Threads(4)->MinTime(3)->UseRealTime();
}

void BM_AddPoints(benchmark::State& state) {
  std::mt19937_64 rng(state.thread_index() * 7919 + 1);
  std::uniform_int_distribution<int> pick(0, kEntities - 1);
  WriteCalls(state, "fleet", [&] { return RandomPoint(rng, pick(rng)); });
}
BENCHMARK(BM_AddPoints)->Apply(Shapes);

// Where each entity is and where it heads: the driving case moves it on.
struct Position {
  double lat = 0, lon = 0, heading = 0;
};
std::vector<Position> g_position(kEntities);

// The same, but each point moves its entity ~80 m on from where it was,
// as a vehicle reporting every 10 s at 30 km/h does, rather than anywhere
// in the city: the shape of real fleets, where an entity's history cell
// (storage/points/history_cells.h) changes every dozen fixes or so. Each thread
// drives its own slice of the entities, in a collection of their own (so
// that BM_AddPoints's jumps do not move them).
constexpr char kDrivingCollection[] = "driving";
void BM_AddPointsDriving(benchmark::State& state) {
  std::mt19937_64 rng(state.thread_index() * 7919 + 2);
  const int slice = kEntities / state.threads();
  std::uniform_int_distribution<int> pick(0, slice - 1);
  std::normal_distribution<double> turn(0, 0.5);
  WriteCalls(state, kDrivingCollection, [&] {
    const int e = state.thread_index() * slice + pick(rng);
    Position& at = g_position[e];
    at.heading += turn(rng);
    at.lat += std::cos(at.heading) * 0.00075;
    at.lon += std::sin(at.heading) * 0.00097;
    model::TrackPoint p = RandomPoint(rng, e);
    p.lat = at.lat;
    p.lon = at.lon;
    return p;
  });
}
BENCHMARK(BM_AddPointsDriving)->Apply(Shapes);

}  // namespace
}  // namespace trackdb

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir =
      absl::StrCat(tmp ? tmp : "/tmp", "/trackdb-add-points-bench");
  std::filesystem::remove_all(dir);
  // trackd's defaults, as shipped.
  auto store = trackdb::storage::TrackStore::Open(dir, {});
  if (!store.ok()) {
    std::fprintf(stderr, "open: %s\n",
                 std::string(store.status().message()).c_str());
    return 1;
  }
  trackdb::g_store = store->get();
  // Every entity gets a latest point first, so each benchmarked point moves it.
  std::mt19937_64 rng(42);
  for (int start = 0; start < trackdb::kEntities; start += 1000) {
    std::vector<trackdb::model::TrackPoint> batch;
    for (int e = start; e < start + 1000; ++e) {
      batch.push_back(trackdb::RandomPoint(rng, e));
      trackdb::g_position[e] = {batch.back().lat, batch.back().lon, 0};
    }
    if (!trackdb::g_store->AddPoints("fleet", batch).ok() ||
        !trackdb::g_store->AddPoints(trackdb::kDrivingCollection, batch).ok()) {
      return 1;
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  store->reset();
  std::filesystem::remove_all(dir);
  return 0;
}
