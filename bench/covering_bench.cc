// What a search's covering costs: index::Covering of a 200 m circle (the
// fixed part of every small search, before any candidate is read) at
// several max_cells, and the area each covering spans relative to the
// circle's (what the scan then examines and filters).
//
//   bazel run --config=bench //bench:covering_bench
#include <cmath>
#include <random>

#include "benchmark/benchmark.h"
#include "index/covering.h"
#include "index/distance.h"
#include "index/region.h"
#include "s2/s2cell.h"
#include "s2/s2cell_id.h"

namespace trackdb {
namespace {

void BM_CircleCovering(benchmark::State& state) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-0.13, 0.13);
  index::CoveringOptions options;
  options.max_cells = static_cast<int>(state.range(0));
  double area_ratio = 0, ranges = 0;
  int64_t n = 0;
  for (auto _ : state) {
    const auto circle =
        index::CircleRegion::Create({39.9 + u(rng), 116.4 + u(rng)}, 200);
    std::vector<index::CellRange> covering = index::Covering(*circle, options);
    benchmark::DoNotOptimize(covering.data());
    if (n++ % 64 == 0) {  // outside the measured cost's main part
      double area = 0;
      for (const index::CellRange& r : covering) {
        // A range is whole cells: sum the leaf count as area units.
        area += (r.last - r.first + 2) / 2.0;
      }
      const double leaf_m2 = S2Cell::AverageArea(S2CellId::kMaxLevel) *
                             index::kEarthRadiusMeters *
                             index::kEarthRadiusMeters;
      area_ratio += area * leaf_m2 / (M_PI * 200 * 200);
      ranges += covering.size();
    }
  }
  const double sampled = (n + 63) / 64;
  state.counters["area/circle"] = area_ratio / sampled;
  state.counters["ranges"] = ranges / sampled;
}
BENCHMARK(BM_CircleCovering)->Arg(4)->Arg(6)->Arg(8)->Arg(12)->Arg(20);

}  // namespace
}  // namespace trackdb

BENCHMARK_MAIN();
