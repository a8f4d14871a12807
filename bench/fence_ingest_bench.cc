// Ingest with fences: TrackStore::AddPoints, one point per call, moving
// entities (each point a new position near the last), into collections
// with 0, 1,000 and 100,000 circle fences (50-500 m), in one run so that
// the ratio to 0 fences is what the table reports. "Spread": fences as
// dense as 1,000 over a 30 km city (a fix is inside ~0.3 of them), the
// area and the entities' range growing with the count; "dense": 100,000
// in the one city (a fix is inside ~30); "roaming": one fence, within
// 100 m of another vehicle (a search of the latest index around every
// fix). Each point is evaluated against
// the fences that can see it and its events go in its own batch
// (storage/fence_eval.cc).
//
//   bazel run --config=bench //bench:fence_ingest_bench
//
// Results: bench/README.md, "Fences".

#include <algorithm>
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

constexpr int kEntities = 10000;
constexpr double kLat = 30.0, kLon = 110.0, kCity = 0.27;  // ~30 km
storage::TrackStore* g_store = nullptr;

// fences < 0: one roaming fence (kRoaming).
constexpr int kRoaming = -1;

std::string Collection(int fences, bool spread) {
  if (fences == kRoaming) return "fleet-roaming";
  return absl::StrCat("fleet-", fences, spread ? "-spread" : "-dense");
}

// The side of the square the fences and entities are in.
double Span(int fences, bool spread) {
  return spread ? kCity * std::sqrt(std::max(1.0, fences / 1000.0)) : kCity;
}

// One roaming fence: within 100 m of another of the collection's
// vehicles (~0.3 others a fix, 10,000 in the city).
void PutRoamingFence() {
  v1::Fence f;
  f.set_collection(Collection(kRoaming, true));
  f.set_name("near-another");
  f.mutable_roam()->set_radius_m(100);
  if (!g_store->fences().Put(f).ok()) std::abort();
}

// `n` circles of 50-500 m radius, centres anywhere in the square; each
// detects ENTER and EXIT (the default).
void PutFences(int n, bool spread) {
  std::mt19937_64 rng(n);
  std::uniform_real_distribution<double> at(0, Span(n, spread)),
      radius(50, 500);
  for (int i = 0; i < n; ++i) {
    v1::Fence f;
    f.set_collection(Collection(n, spread));
    f.set_name(absl::StrCat("fence-", i));
    f.mutable_circle()->mutable_center()->set_latitude(kLat + at(rng));
    f.mutable_circle()->mutable_center()->set_longitude(kLon + at(rng));
    f.mutable_circle()->set_radius_m(radius(rng));
    if (!g_store->fences().Put(f).ok()) std::abort();
  }
}

struct Entity {
  double lat, lon;
};
// Fix times only grow, across the benchmark's repeated runs too: every
// point is new, never late.
int64_t g_clock = 1700000000000;

void BM_AddPointWithFences(benchmark::State& state) {
  const int fences = static_cast<int>(state.range(0));
  const bool spread = state.range(1) != 0;
  const std::string collection = Collection(fences, spread);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> at(0, Span(fences, spread)),
      step(-0.0005, 0.0005);
  std::vector<Entity> entities(kEntities);
  for (Entity& e : entities) e = {kLat + at(rng), kLon + at(rng)};
  std::vector<model::TrackPoint> point(1);
  const uint64_t first_event = g_store->fences().LogEnd(collection);
  int64_t n = 0;
  for (auto _ : state) {
    Entity& e = entities[n++ % kEntities];
    e.lat += step(rng);
    e.lon += step(rng);
    model::TrackPoint& p = point[0];
    p.entity = absl::StrCat("vehicle-", &e - entities.data());
    p.loc_time_ms = ++g_clock;
    p.lat = e.lat;
    p.lon = e.lon;
    absl::Status s = g_store->AddPoints(collection, point);
    if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["events/point"] =
      static_cast<double>(g_store->fences().LogEnd(collection) - first_event) /
      std::max<int64_t>(n, 1);
}
BENCHMARK(BM_AddPointWithFences)
    ->Args({0, 1})
    ->Args({1000, 1})
    ->Args({100000, 1})
    ->Args({0, 1})  // again: the machine's drift over the run
    ->Args({100000, 0})
    ->Args({kRoaming, 1})
    ->MinTime(5)
    ->UseRealTime();

}  // namespace
}  // namespace trackdb

int main(int argc, char** argv) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / "trackdb_fence_ingest_bench")
          .string();
  std::filesystem::remove_all(dir);
  auto store = trackdb::storage::TrackStore::Open(dir, {});
  if (!store.ok()) return 1;
  trackdb::g_store = store->get();
  trackdb::PutFences(1000, true);
  trackdb::PutFences(100000, true);
  trackdb::PutFences(100000, false);
  trackdb::PutRoamingFence();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  (*store)->Close().IgnoreError();
  std::filesystem::remove_all(dir);
  return 0;
}
