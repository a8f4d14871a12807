// Space-time search cost follows the box, not the history: --entities
// vehicles drive random walks through a 30 km city (a fix every 10 s at
// ~30 km/h), written in time order as trackers send them, in calls of
// --batch fixes. After the first --small_points fixes, --queries searches
// (a --radius_m circle somewhere in the city, a --window_s time window
// somewhere in that first part of the history) run once each; then the
// history grows to --large_points with later fixes, and the same searches
// run again. Reported per phase: p50/p99/mean latency, rows, and what the
// searches read (history cells, fixes checked); then the growth ratio of
// mean latency (target < 2 from 1M to 10M) and whether both phases
// returned the same rows (they must: the new fixes are all later). Each
// phase's searches start after a full compaction (--settle; off, they race
// the compactions the writes started).
//
//   bazel run --config=bench //bench:history_search_bench
//   bazel run --config=bench //bench:history_search_bench -- \
//       --large_points=3000000
//
// With --check it exits 1 when the rows differ or the searches read (cells
// and fixes) twice as much or more (the CI smoke runs it small; latency at
// that size is noise).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "index/region.h"
#include "storage/track_store.h"

ABSL_FLAG(int, entities, 1000, "vehicles");
ABSL_FLAG(int64_t, small_points, 1000000, "history before the first phase");
ABSL_FLAG(int64_t, large_points, 10000000, "history before the second");
ABSL_FLAG(int, batch, 1000, "fixes per AddPoints call");
ABSL_FLAG(int, queries, 200, "searches per phase");
ABSL_FLAG(double, radius_m, 500, "search circle radius");
ABSL_FLAG(int64_t, window_s, 3600, "search time window");
ABSL_FLAG(bool, settle, true,
          "compact fully before each phase's searches, so that neither "
          "competes with the compactions its writes started");
ABSL_FLAG(bool, check, false, "exit 1 unless rows match and reads < 2x");
ABSL_FLAG(std::string, dir, "",
          "scratch dir (default: $TMPDIR/trackdb-history-search-bench)");

namespace trackdb::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int64_t kT0 = 1'700'000'000'000;
constexpr int64_t kFixEveryMs = 10'000;
constexpr double kLat = 39.9, kLon = 116.4, kHalfCityDeg = 0.135;
constexpr char kCollection[] = "fleet";

void Die(const std::string& what, const absl::Status& s) {
  std::fprintf(stderr, "history_search_bench: %s: %s\n", what.c_str(),
               s.ToString().c_str());
  std::exit(2);
}

// The fleet, one fix per vehicle per tick.
class Fleet {
 public:
  explicit Fleet(int n) : rng_(42), lat_(n), lon_(n), heading_(n) {
    std::uniform_real_distribution<double> u(-kHalfCityDeg, kHalfCityDeg);
    for (int i = 0; i < n; ++i) {
      lat_[i] = kLat + u(rng_);
      lon_[i] = kLon + u(rng_);
      heading_[i] = u(rng_) * 20;
    }
  }
  // Writes ticks until `total` fixes are stored.
  void WriteUntil(storage::TrackStore& store, int64_t total, int batch) {
    std::vector<model::TrackPoint> points;
    while (written_ < total) {
      points.push_back(Next());
      if (static_cast<int>(points.size()) == batch || written_ == total) {
        if (absl::Status s = store.AddPoints(kCollection, points); !s.ok()) {
          Die("writing", s);
        }
        points.clear();
      }
    }
  }
  int64_t first_phase_end_ms = 0;

 private:
  model::TrackPoint Next() {
    const int n = static_cast<int>(lat_.size());
    const int i = static_cast<int>(written_ % n);
    const int64_t tick = written_ / n;
    std::normal_distribution<double> turn(0, 0.3);
    heading_[i] += turn(rng_);
    // ~83 m per 10 s; bounce off the city's edge.
    lat_[i] += std::cos(heading_[i]) * 0.00075;
    lon_[i] += std::sin(heading_[i]) * 0.00097;
    if (std::abs(lat_[i] - kLat) > kHalfCityDeg ||
        std::abs(lon_[i] - kLon) > kHalfCityDeg) {
      heading_[i] += M_PI;
    }
    model::TrackPoint p;
    p.entity = absl::StrCat("vehicle-", i);
    p.loc_time_ms = kT0 + tick * kFixEveryMs + i;
    p.lat = lat_[i];
    p.lon = lon_[i];
    p.speed_kmh = 30;
    ++written_;
    return p;
  }
  std::mt19937_64 rng_;
  std::vector<double> lat_, lon_, heading_;
  int64_t written_ = 0;
};

struct Query {
  index::LatLng centre;
  int64_t start_ms;
};

struct Phase {
  std::vector<double> ms;
  std::vector<std::vector<std::pair<std::string, int64_t>>> rows;
  uint64_t cells = 0, fixes = 0, total_rows = 0;
};

Phase RunQueries(storage::TrackStore& store, const std::vector<Query>& qs) {
  Phase out;
  if (absl::GetFlag(FLAGS_settle)) {
    absl::StatusOr<storage::TrackStore::BulkLoadChange> compacted =
        store.SetBulkLoad(false);
    if (!compacted.ok()) Die("compacting", compacted.status());
    std::printf("compacted in %.1f s\n", compacted->compaction_seconds);
  }
  for (const Query& q : qs) {
    auto circle =
        index::CircleRegion::Create(q.centre, absl::GetFlag(FLAGS_radius_m));
    if (!circle.ok()) Die("circle", circle.status());
    storage::HistoryQuery hq;
    hq.collection = kCollection;
    hq.region = &*circle;
    hq.start_ms = q.start_ms;
    hq.end_ms = q.start_ms + absl::GetFlag(FLAGS_window_s) * 1000;
    hq.limit = 1000;
    std::vector<std::pair<std::string, int64_t>> rows;
    const Clock::time_point start = Clock::now();
    for (;;) {
      absl::StatusOr<storage::HistoryPage> page = store.SearchHistory(hq);
      if (!page.ok()) Die("searching", page.status());
      out.cells += page->cells_read;
      out.fixes += page->fixes_read;
      for (const model::TrackPoint& p : page->points) {
        rows.emplace_back(p.entity, p.loc_time_ms);
      }
      if (page->next_page_token.empty()) break;
      hq.page_token = page->next_page_token;
    }
    out.ms.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - start)
            .count());
    out.total_rows += rows.size();
    out.rows.push_back(std::move(rows));
  }
  return out;
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

double Mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / v.size();
}

void Report(const char* name, int64_t history, const Phase& p) {
  const double n = static_cast<double>(p.ms.size());
  std::printf(
      "%s: %lld fixes stored; %zu searches: p50 %.3f ms, p99 %.3f ms, mean "
      "%.3f ms; %.1f rows, %.0f cells read, %.0f fixes checked per search\n",
      name, static_cast<long long>(history), p.ms.size(), Percentile(p.ms, 0.5),
      Percentile(p.ms, 0.99), Mean(p.ms), p.total_rows / n, p.cells / n,
      p.fixes / n);
}

int Run() {
  std::string dir = absl::GetFlag(FLAGS_dir);
  if (dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    dir = std::string(tmp ? tmp : "/tmp") + "/trackdb-history-search-bench";
  }
  std::filesystem::remove_all(dir);
  auto store = storage::TrackStore::Open(dir, v1::StorageConfig());
  if (!store.ok()) Die("opening " + dir, store.status());
  Fleet fleet(absl::GetFlag(FLAGS_entities));
  const int64_t small = absl::GetFlag(FLAGS_small_points);
  const int64_t large = absl::GetFlag(FLAGS_large_points);
  Clock::time_point t = Clock::now();
  fleet.WriteUntil(**store, small, absl::GetFlag(FLAGS_batch));
  const double small_s =
      std::chrono::duration<double>(Clock::now() - t).count();
  // The searches: anywhere in the city, in the first phase's time.
  const int64_t span_ms = small / absl::GetFlag(FLAGS_entities) * kFixEveryMs -
                          absl::GetFlag(FLAGS_window_s) * 1000;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-kHalfCityDeg, kHalfCityDeg);
  std::vector<Query> queries;
  for (int i = 0; i < absl::GetFlag(FLAGS_queries); ++i) {
    queries.push_back(
        {{kLat + u(rng), kLon + u(rng)},
         kT0 + static_cast<int64_t>(rng() % std::max<int64_t>(span_ms, 1))});
  }
  const Phase before = RunQueries(**store, queries);
  t = Clock::now();
  fleet.WriteUntil(**store, large, absl::GetFlag(FLAGS_batch));
  const double large_s =
      std::chrono::duration<double>(Clock::now() - t).count();
  const Phase after = RunQueries(**store, queries);
  std::printf(
      "wrote %lld fixes in %.1f s (%.0f/s), then %lld in %.1f s "
      "(%.0f/s), %d per call\n",
      static_cast<long long>(small), small_s, small / small_s,
      static_cast<long long>(large - small), large_s, (large - small) / large_s,
      absl::GetFlag(FLAGS_batch));
  Report("small", small, before);
  Report("large", large, after);
  const double ratio = Mean(after.ms) / Mean(before.ms);
  const bool same = before.rows == after.rows;
  std::printf(
      "growth: mean latency x%.2f for x%.1f history; p50 x%.2f; "
      "same rows: %s\n",
      ratio, static_cast<double>(large) / small,
      Percentile(after.ms, 0.5) / Percentile(before.ms, 0.5),
      same ? "yes" : "NO");
  (*store)->Close().IgnoreError();
  std::filesystem::remove_all(dir);
  // The check is on what the searches read, which the machine's noise
  // cannot move (small runs' latencies can, either way).
  const double reads_ratio = static_cast<double>(after.cells + after.fixes) /
                             std::max<uint64_t>(before.cells + before.fixes, 1);
  std::printf("reads: x%.2f\n", reads_ratio);
  if (absl::GetFlag(FLAGS_check) && (!same || !(reads_ratio < 2))) return 1;
  return 0;
}

}  // namespace
}  // namespace trackdb::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return trackdb::bench::Run();
}
