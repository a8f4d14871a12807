// Writes a T-Drive-shaped CSV for the import benchmark (bench/import_bench.sh):
//
//   id,YYYY-MM-DD HH:MM:SS,longitude,latitude
//
// --entities vehicles each drive a random walk in a 30 km x 30 km city
// around (39.9, 116.4), one point a minute; rows come in time order, as a
// fleet's feed is exported, so consecutive rows belong to different
// entities (the import has to sort them). --points / --entities points per
// entity.
//
//   import_gen --points=2000000 --entities=20000 > points.csv

#include <cstdio>
#include <ctime>
#include <numeric>
#include <random>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"

ABSL_FLAG(int64_t, points, 2000000, "rows to write");
ABSL_FLAG(int, entities, 20000, "distinct entities");
ABSL_FLAG(int, seed, 4, "random seed");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const int64_t points = absl::GetFlag(FLAGS_points);
  const int entities = absl::GetFlag(FLAGS_entities);
  std::mt19937_64 rng(absl::GetFlag(FLAGS_seed));
  std::uniform_real_distribution<double> start(-0.135, 0.135);
  std::normal_distribution<double> step(0, 0.002);  // ~200 m a minute
  std::vector<double> lat(entities), lon(entities);
  for (int e = 0; e < entities; ++e) {
    lat[e] = 39.9 + start(rng);
    lon[e] = 116.4 + start(rng);
  }
  std::vector<int> order(entities);
  std::iota(order.begin(), order.end(), 0);
  const std::time_t t0 = 1201910400;  // 2008-02-02 00:00:00 UTC
  static char buffer[1 << 20];
  std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
  int64_t written = 0;
  for (int64_t minute = 0; written < points; ++minute) {
    std::shuffle(order.begin(), order.end(), rng);
    for (int i = 0; i < entities && written < points; ++i, ++written) {
      const int e = order[i];
      lat[e] += step(rng);
      lon[e] += step(rng);
      // Each entity reports at its own second within the minute.
      const std::time_t t = t0 + minute * 60 + e % 60;
      std::tm tm;
      gmtime_r(&t, &tm);
      char when[32];
      std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
      std::printf("%d,%s,%.5f,%.5f\n", e + 1, when, lon[e], lat[e]);
    }
  }
  return 0;
}
