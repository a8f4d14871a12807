// What fence detection costs per fix, by the number of fences in the
// collection: the fence index's lookup (fence/fence_index.h) for the fix,
// the fences the entity is already inside (which an exit needs), and the
// detector (fence/detector.h) on each. Pure computation, no storage: the
// part of an AddPoint that fences would add, to hold against the cost of
// the write itself (add_points_bench, bench/README.md).
//
// Fences: circles of 100 m to 1 km and hexagons of the same size, at
// random; ENTER and EXIT. Spread over 0.5 x 0.5 degrees of a city (~55 x
// 43 km) for 1,000 fences, and for more either over the same area (dense:
// at 100,000 each fix is inside ~40 fences) or over an area grown with
// their number (the same density as 1,000: what the index alone adds).
// Fixes: 10,000 entities each moving up to ~100 m per fix, over the area.
//
//   bazel run --config=bench //bench:fence_bench
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "benchmark/benchmark.h"
#include "fence/detector.h"
#include "fence/fence.h"
#include "fence/fence_index.h"
#include "model/limits.h"

namespace trackdb {
namespace {

constexpr double kLat = 39.9, kLon = 116.4;
constexpr int kEntities = 10000;

v1::Fence RandomFence(int i, double span, std::mt19937_64* rng) {
  std::uniform_real_distribution<double> at(0, span), size(100, 1000);
  v1::Fence f;
  f.set_collection("fleet");
  f.set_name("fence-" + std::to_string(i));
  const double lat = kLat + at(*rng), lon = kLon + at(*rng), r = size(*rng);
  if (i % 2 == 0) {
    f.mutable_circle()->mutable_center()->set_latitude(lat);
    f.mutable_circle()->mutable_center()->set_longitude(lon);
    f.mutable_circle()->set_radius_m(r);
  } else {
    const double dlat = r / 111226.0, dlon = dlat / std::cos(lat * M_PI / 180);
    for (int k = 0; k < 6; ++k) {
      auto* v = f.mutable_polygon()->add_vertices();
      v->set_latitude(lat + dlat * std::sin(k * M_PI / 3));
      v->set_longitude(lon + dlon * std::cos(k * M_PI / 3));
    }
  }
  return f;
}

struct Entity {
  double lat, lon;
  std::optional<fence::PriorFix> prior;
  absl::flat_hash_set<uint64_t> active;  // fences it is inside or pending
};

// range(0): fences; range(1): 1 to spread them as 1,000 are (the area
// grows), 0 to pack them into 1,000's area.
void BM_DetectPerFix(benchmark::State& state) {
  const double span =
      0.5 * (state.range(1)
                 ? std::sqrt(std::max<double>(1, state.range(0) / 1000.0))
                 : 1);
  std::mt19937_64 rng(5);
  std::vector<fence::Fence> fences;
  fence::FenceIndex index;
  for (int i = 0; i < state.range(0); ++i) {
    fences.push_back(*fence::CompileFence(RandomFence(i, span, &rng), {}));
    index.Add(i, *fences.back().shape);
  }
  std::uniform_real_distribution<double> at(0, span), step(-0.0009, 0.0009);
  std::vector<Entity> entities(kEntities);
  for (Entity& e : entities) e = {kLat + at(rng), kLon + at(rng), {}};
  absl::flat_hash_map<std::pair<uint64_t, int>, fence::EntityFenceState> states;
  model::TrackPoint fix;
  fix.loc_time_ms = 1700000000000;
  std::vector<uint64_t> ids;
  int64_t events = 0, n = 0;
  for (auto _ : state) {
    const int who = n++ % kEntities;
    Entity& e = entities[who];
    e.lat += step(rng);
    e.lon += step(rng);
    fix.lat = e.lat;
    fix.lon = e.lon;
    fix.loc_time_ms += 1;
    ids.clear();
    index.Candidates({fix.lat, fix.lon}, &ids);
    ids.insert(ids.end(), e.active.begin(), e.active.end());
    for (uint64_t id : ids) {
      fence::EntityFenceState& s = states[{id, who}];
      events += fence::Evaluate(fences[id], fix, e.prior, &s).size();
      if (s.inside || s.pending_fixes > 0) {
        e.active.insert(id);
      } else {
        e.active.erase(id);
      }
    }
    e.prior = fence::PriorFix{fix.loc_time_ms, fix.lat, fix.lon};
  }
  state.counters["events/fix"] =
      benchmark::Counter(static_cast<double>(events) / std::max<int64_t>(n, 1));
}
BENCHMARK(BM_DetectPerFix)
    ->Args({0, 1})
    ->Args({1000, 1})
    ->Args({100000, 1})
    ->Args({100000, 0});

void BM_IndexBuild(benchmark::State& state) {
  std::mt19937_64 rng(5);
  std::vector<fence::Fence> fences;
  for (int i = 0; i < state.range(0); ++i) {
    fences.push_back(*fence::CompileFence(RandomFence(i, 0.5, &rng), {}));
  }
  for (auto _ : state) {
    fence::FenceIndex index;
    for (size_t i = 0; i < fences.size(); ++i) index.Add(i, *fences[i].shape);
    benchmark::DoNotOptimize(index.size());
  }
}
BENCHMARK(BM_IndexBuild)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace trackdb

BENCHMARK_MAIN();
