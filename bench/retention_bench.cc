// History retention reclaims disk: a collection holding --days of history
// (--entities entities, --points fixes each, evenly spread, written in time
// order as trackers send them) gets a retention of --keep_days, then one
// full compaction runs (what bulk-load off runs; RocksDB's own compactions
// apply the same filter as data flows). Reported: the points column
// family's SST bytes before and after, against a reference store holding
// only the kept fixes, so that
//
//   reclaimed = (before - after) / (before - kept_only)
//
// is the share of the expired history's bytes that came back (target
// >= 0.90), plus the filter's count against the expired fixes written.
//
//   bazel run --config=bench //bench:retention_bench
//   bazel run --config=bench //bench:retention_bench -- --entities=200
//
// With --max_points=N the retention is N fixes per entity instead (no
// age): the minute pass's range deletions (RetentionStore::TrimHistories),
// then the same compaction, against a store of each entity's newest N.
//
// With --check it exits 1 when reclaimed < 0.90 or a count or read is
// wrong (the CI smoke runs it small, both ways).

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
#include "absl/time/clock.h"
#include "storage/stats/store_stats.h"
#include "storage/track_store.h"

ABSL_FLAG(int, entities, 2000, "entities in the collection");
ABSL_FLAG(int, points, 1000, "fixes per entity, evenly spread over --days");
ABSL_FLAG(int, days, 730, "history written, ending now");
ABSL_FLAG(int, keep_days, 365, "the retention set afterwards");
ABSL_FLAG(int64_t, max_points, 0,
          "if > 0: keep this many fixes per entity instead of --keep_days");
ABSL_FLAG(int, steady_passes, 1,
          "with --max_points: passes timed after every entity moved once "
          "(more, for a profile)");
ABSL_FLAG(bool, check, false, "exit 1 unless reclaimed >= 0.90, and counts");
ABSL_FLAG(std::string, dir, "",
          "scratch dir (default: $TMPDIR/trackdb-retention-bench)");

namespace trackdb::bench {
namespace {

using Clock = std::chrono::steady_clock;
using storage::TrackStore;

constexpr int64_t kDayMs = 86400000;
constexpr char kCollection[] = "fleet";

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

void Die(const std::string& what, const absl::Status& s) {
  std::fprintf(stderr, "retention_bench: %s: %s\n", what.c_str(),
               s.ToString().c_str());
  std::exit(2);
}

std::unique_ptr<TrackStore> OpenFresh(const std::string& dir) {
  std::filesystem::remove_all(dir);
  auto store = TrackStore::Open(dir, v1::StorageConfig());
  if (!store.ok()) Die("opening " + dir, store.status());
  return *std::move(store);
}

// Writes the fixes of step `j` of every entity (random walks from one
// seed, so both stores get the same fixes) to each store that keeps them.
struct Writer {
  int64_t start_ms;
  int64_t step_ms;
  int64_t cutoff_ms;        // the oldest loc_time kept
  int first_kept_step = 0;  // with --max_points: the oldest step kept
  std::vector<double> lat, lon;
  std::mt19937_64 rng{7};

  model::TrackPoint Next(int entity, int j) {
    std::normal_distribution<double> step(0, 0.0005);
    std::uniform_real_distribution<double> u(0, 1);
    lat[entity] += step(rng);
    lon[entity] += step(rng);
    model::TrackPoint p;
    p.entity = absl::StrCat("vehicle:", entity);
    p.loc_time_ms = start_ms + j * step_ms;
    p.lat = lat[entity];
    p.lon = lon[entity];
    p.speed_kmh = std::round(u(rng) * 900) / 10;
    p.direction_deg = std::floor(u(rng) * 3600) / 10;
    p.accuracy_m = std::round(u(rng) * 300) / 10;
    return p;
  }
};

uint64_t PointsSstBytes(TrackStore& store) {
  const storage::StoreStats stats = storage::ReadStoreStats(store);
  const storage::CfStats* points = stats.cf("points");
  return points ? points->live_sst_bytes : 0;
}

void Compact(TrackStore& store, const char* what) {
  auto done = store.SetBulkLoad(false);  // a full compaction
  if (!done.ok()) Die(what, done.status());
}

// Writes everything; returns how many fixes are older than the cutoff.
int64_t WriteHistory(Writer& w, TrackStore& full, TrackStore& kept_only) {
  const int entities = absl::GetFlag(FLAGS_entities);
  int64_t expired = 0;
  std::vector<model::TrackPoint> all, kept;
  for (int j = 0; j < absl::GetFlag(FLAGS_points); ++j) {
    all.clear();
    kept.clear();
    for (int e = 0; e < entities; ++e) {
      all.push_back(w.Next(e, j));
      if (all.back().loc_time_ms >= w.cutoff_ms && j >= w.first_kept_step) {
        kept.push_back(all.back());
      } else {
        ++expired;
      }
    }
    if (auto s = full.AddPoints(kCollection, all); !s.ok()) Die("write", s);
    if (auto s = kept_only.AddPoints(kCollection, kept); !s.ok()) {
      Die("write", s);
    }
  }
  return expired;
}

// What the minute pass costs once every entity has moved: one fix more
// each, then TrimHistories (each entity stepped back over its max_points).
void SteadyTrimPass(Writer& w, TrackStore& store) {
  const int entities = absl::GetFlag(FLAGS_entities);
  for (int pass = 0; pass < absl::GetFlag(FLAGS_steady_passes); ++pass) {
    std::vector<model::TrackPoint> moved;
    for (int e = 0; e < entities; ++e) {
      moved.push_back(w.Next(e, absl::GetFlag(FLAGS_points) + pass));
    }
    if (auto s = store.AddPoints(kCollection, moved); !s.ok()) Die("write", s);
    const Clock::time_point t = Clock::now();
    auto trimmed = store.retention().TrimHistories();
    if (!trimmed.ok()) Die("trimming", trimmed.status());
    const double s = Since(t);
    std::printf(
        "steady pass (every entity moved once): %lld fixes trimmed in %.1f "
        "ms, %.1f us per entity\n",
        static_cast<long long>(*trimmed), 1000 * s, 1e6 * s / entities);
  }
}

struct Result {
  uint64_t before, after, reference;
  int64_t expired_written;
  uint64_t dropped;
  double reclaimed, write_s, compact_s;
};

// The oldest fix GetTrack shows of one entity: none older than the cutoff.
bool ReadsHonourTheCutoff(TrackStore& store, const Writer& w) {
  storage::TrackQuery q;
  q.collection = kCollection;
  q.entity = "vehicle:0";
  q.limit = 1;
  auto page = store.GetTrack(q);
  return page.ok() && !page->points.empty() &&
         page->points[0].loc_time_ms >= w.cutoff_ms;
}

int Report(const Result& r, TrackStore& full, const Writer& w) {
  const int64_t fixes = static_cast<int64_t>(absl::GetFlag(FLAGS_entities)) *
                        absl::GetFlag(FLAGS_points);
  auto mib = [](uint64_t b) { return b / 1048576.0; };
  const int64_t max_points = absl::GetFlag(FLAGS_max_points);
  std::printf(
      "%lld fixes over %d days (%.1f s to write, %.0f fixes/s), "
      "retention %s\n\n",
      static_cast<long long>(fixes), absl::GetFlag(FLAGS_days), r.write_s,
      fixes / r.write_s,
      max_points > 0
          ? absl::StrCat(max_points, " fixes per entity").c_str()
          : absl::StrCat(absl::GetFlag(FLAGS_keep_days), " days").c_str());
  std::printf("| points CF SST | MiB |\n|---|---:|\n");
  std::printf("| all history, compacted | %.1f |\n", mib(r.before));
  std::printf("| after retention + one full compaction (%.1f s%s) | %.1f |\n",
              r.compact_s, max_points > 0 ? ", trimming included" : "",
              mib(r.after));
  std::printf(
      "| reference: a store written with only the kept fixes | %.1f |\n",
      mib(r.reference));
  std::printf(
      "\nexpired history reclaimed: %.1f %% (target >= 90 %%); fixes "
      "expired: %lld written, %llu removed by retention\n",
      100 * r.reclaimed, static_cast<long long>(r.expired_written),
      static_cast<unsigned long long>(r.dropped));
  const bool reads_ok = ReadsHonourTheCutoff(full, w);
  if (!reads_ok) std::printf("GetTrack showed a fix older than the cutoff\n");
  if (!absl::GetFlag(FLAGS_check)) return 0;
  return r.reclaimed >= 0.9 &&
                 r.dropped == static_cast<uint64_t>(r.expired_written) &&
                 reads_ok
             ? 0
             : 1;
}

int Run() {
  std::string dir = absl::GetFlag(FLAGS_dir);
  if (dir.empty()) {
    dir = (std::filesystem::temp_directory_path() / "trackdb-retention-bench")
              .string();
  }
  const int64_t now = absl::ToUnixMillis(absl::Now());
  const int points = absl::GetFlag(FLAGS_points);
  Writer w;
  w.step_ms = absl::GetFlag(FLAGS_days) * kDayMs / points;
  // Half a step off the day boundaries, so that no fix sits on the cutoff,
  // which moves on by the seconds the run takes.
  w.start_ms = now - absl::GetFlag(FLAGS_days) * kDayMs + w.step_ms / 2;
  w.cutoff_ms = now - absl::GetFlag(FLAGS_keep_days) * kDayMs;
  const int64_t max_points = absl::GetFlag(FLAGS_max_points);
  if (max_points > 0) {
    w.first_kept_step = std::max<int64_t>(0, points - max_points);
    w.cutoff_ms = w.start_ms + w.first_kept_step * w.step_ms;
  }
  w.lat.assign(absl::GetFlag(FLAGS_entities), 39.9);
  w.lon.assign(absl::GetFlag(FLAGS_entities), 116.4);

  auto full = OpenFresh(dir + "/full");
  auto kept_only = OpenFresh(dir + "/kept_only");
  const Clock::time_point t0 = Clock::now();
  const int64_t expired = WriteHistory(w, *full, *kept_only);
  const double write_s = Since(t0);
  Compact(*full, "compacting");
  Compact(*kept_only, "compacting");
  const uint64_t before = PointsSstBytes(*full);
  const uint64_t reference = PointsSstBytes(*kept_only);

  storage::RetentionPolicy policy;
  if (max_points > 0) {
    policy.max_points = max_points;
  } else {
    policy.max_age_ms = absl::GetFlag(FLAGS_keep_days) * kDayMs;
  }
  if (auto s = full->retention().Set(kCollection, policy); !s.ok()) {
    Die("setting retention", s);
  }
  const Clock::time_point t1 = Clock::now();
  if (max_points > 0) {
    if (auto trimmed = full->retention().TrimHistories(); !trimmed.ok()) {
      Die("trimming", trimmed.status());
    }
  }
  Compact(*full, "compacting with retention");
  const double compact_s = Since(t1);
  const uint64_t after = PointsSstBytes(*full);
  const storage::RetentionCounters counters = full->retention().counters();
  const uint64_t dropped =
      max_points > 0 ? counters.points_trimmed : counters.points_expired;
  if (max_points > 0) SteadyTrimPass(w, *full);
  const double reclaimed = before > reference
                               ? static_cast<double>(before - after) /
                                     static_cast<double>(before - reference)
                               : 0;
  return Report({before, after, reference, expired, dropped, reclaimed, write_s,
                 compact_s},
                *full, w);
}

}  // namespace
}  // namespace trackdb::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return trackdb::bench::Run();
}
