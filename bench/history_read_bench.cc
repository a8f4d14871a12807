// History reads from raw keys against the same history in chunks, in one
// run: two stores hold the same fixes, written alike (in time order, as
// trackers send them, --batch fixes a call); one is then folded into
// chunks (HistoryChunker::FoldCollection, as trackd's history folder does),
// and both are compacted fully. Then --rounds rounds, each running on the
// raw store then on the chunked one (alternated, so the machine's noise
// falls on both):
//   track     every sampled entity's whole history through GetTrack, in
//             pages of --page fixes: fixes/s and p50/p99 per entity;
//   position  GetPositionAt (interpolated) at --queries random times of
//             random entities: p50/p99;
//   search    SearchHistory, a --radius_m circle around a random stored fix
//             and a --window_s window around its time: p50/p99, rows.
// Every answer of the chunked store must equal the raw one's (exit 1 when
// not). Bytes on disk (.sst files) are reported per store.
//
// The data: --csv, a file of "entity,time,lat,lon[,speed][,heading]" with a
// header (bench/traj_to_csv.py makes one from real AIS tracks; see
// bench/history_read.sh), or by default a synthetic fleet of --entities
// vehicles driving through a city with a fix every --interval_ms.
//
//   bazel run --config=bench //bench:history_read
//   bazel run --config=bench //bench:history_read_bench -- --entities=500

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "index/region.h"
#include "storage/points/position_at.h"
#include "storage/track_store.h"
#include "tools/import/formats.h"
#include "tools/import/input_source.h"

ABSL_FLAG(std::string, csv, "", "real tracks (default: a synthetic fleet)");
ABSL_FLAG(int, entities, 1000, "synthetic vehicles");
ABSL_FLAG(int, fixes, 1000, "synthetic fixes per vehicle");
ABSL_FLAG(int64_t, interval_ms, 1000, "synthetic time between fixes");
ABSL_FLAG(int, batch, 100, "fixes per AddPoints call");
ABSL_FLAG(int, track_entities, 500, "entities whose whole track is read");
ABSL_FLAG(int, page, 1000, "GetTrack page size");
ABSL_FLAG(int, queries, 2000, "GetPositionAt and SearchHistory calls");
ABSL_FLAG(double, radius_m, 500, "search circle radius");
ABSL_FLAG(int64_t, window_s, 3600, "search time window");
ABSL_FLAG(int, rounds, 3, "alternated rounds");
ABSL_FLAG(int, chunk_fixes, 0, "fixes per chunk (0: the folder's default)");
ABSL_FLAG(std::string, only, "",
          "track, position or search: run that one alone (for a profile)");
ABSL_FLAG(std::string, dir, "",
          "scratch dir (default: $TMPDIR/trackdb-history-read-bench)");

namespace trackdb::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr char kCollection[] = "fleet";

void Die(const std::string& what, const absl::Status& s) {
  std::fprintf(stderr, "history_read_bench: %s: %s\n", what.c_str(),
               s.ToString().c_str());
  std::exit(2);
}

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

std::vector<model::TrackPoint> ReadCsv(const std::string& path) {
  auto in = import::InputSource::Open(path);
  if (!in.ok()) Die("opening " + path, in.status());
  auto reader = import::NewReader(import::Format::kCsv, in->get(),
                                  import::ReaderOptions(), path);
  if (!reader.ok()) Die("reading " + path, reader.status());
  std::vector<model::TrackPoint> points;
  model::TrackPoint p;
  import::BadRow bad;
  for (;;) {
    absl::StatusOr<import::PointReader::Result> r = (*reader)->Next(&p, &bad);
    if (!r.ok()) Die("reading " + path, r.status());
    if (*r == import::PointReader::Result::kEnd) break;
    if (*r == import::PointReader::Result::kBadRow) {
      Die(absl::StrCat(path, " line ", bad.line),
          absl::InvalidArgumentError(bad.reason));
    }
    points.push_back(p);
  }
  return points;
}

// Vehicles on random walks through a 30 km city at about 30 km/h.
std::vector<model::TrackPoint> Fleet(int entities, int fixes,
                                     int64_t interval_ms) {
  constexpr double kLat = 39.9, kLon = 116.4, kHalf = 0.135;
  constexpr int64_t kT0 = 1'700'000'000'000;
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(-kHalf, kHalf);
  std::normal_distribution<double> turn(0, 0.3);
  const double step = 30.0 / 3.6 * interval_ms / 1000 / 111'000;  // degrees
  std::vector<model::TrackPoint> points;
  points.reserve(static_cast<size_t>(entities) * fixes);
  for (int i = 0; i < entities; ++i) {
    double lat = kLat + u(rng), lon = kLon + u(rng), heading = u(rng) * 20;
    for (int k = 0; k < fixes; ++k) {
      heading += turn(rng);
      lat += std::cos(heading) * step;
      lon += std::sin(heading) * step * 1.3;
      if (std::abs(lat - kLat) > kHalf || std::abs(lon - kLon) > kHalf) {
        heading += M_PI;
      }
      model::TrackPoint p;
      p.entity = absl::StrCat("vehicle-", i);
      p.loc_time_ms = kT0 + k * interval_ms + i;
      p.lat = std::round(lat * 1e6) / 1e6;  // what trackers send
      p.lon = std::round(lon * 1e6) / 1e6;
      p.speed_kmh = 30;
      points.push_back(std::move(p));
    }
  }
  return points;
}

void Write(storage::TrackStore& store,
           const std::vector<model::TrackPoint>& points, int batch) {
  for (size_t i = 0; i < points.size(); i += batch) {
    const size_t n = std::min<size_t>(batch, points.size() - i);
    if (absl::Status s = store.AddPoints(
            kCollection, absl::MakeConstSpan(points).subspan(i, n));
        !s.ok()) {
      Die("writing", s);
    }
  }
}

uint64_t SstBytes(const std::string& dir) {
  uint64_t bytes = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    if (f.path().extension() == ".sst") bytes += f.file_size();
  }
  return bytes;
}

struct Samples {
  std::vector<double> ms;
  uint64_t items = 0;  // fixes read (track) or rows (search)
  double total_ms = 0;
  void Add(double ms_one, uint64_t n) {
    ms.push_back(ms_one);
    items += n;
    total_ms += ms_one;
  }
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

// What one store answered, kept to compare the stores.
struct Answers {
  std::vector<std::vector<model::TrackPoint>> tracks;
  std::vector<std::pair<double, double>> positions;
  std::vector<std::vector<std::pair<std::string, int64_t>>> rows;
};

struct Workload {
  std::vector<std::string> track_entities;
  std::vector<storage::PositionAtQuery> positions;
  std::vector<std::pair<index::LatLng, int64_t>> searches;  // centre, time
};

Workload MakeWorkload(const std::vector<model::TrackPoint>& points) {
  std::map<std::string, std::pair<int64_t, int64_t>> spans;
  for (const model::TrackPoint& p : points) {
    auto [it, added] = spans.try_emplace(p.entity, p.loc_time_ms, p.loc_time_ms);
    it->second.first = std::min(it->second.first, p.loc_time_ms);
    it->second.second = std::max(it->second.second, p.loc_time_ms);
  }
  std::vector<std::string> entities;
  for (const auto& [e, span] : spans) entities.push_back(e);
  std::mt19937_64 rng(7);
  Workload w;
  w.track_entities = entities;
  std::shuffle(w.track_entities.begin(), w.track_entities.end(), rng);
  w.track_entities.resize(std::min<size_t>(
      w.track_entities.size(), absl::GetFlag(FLAGS_track_entities)));
  for (int i = 0; i < absl::GetFlag(FLAGS_queries); ++i) {
    const std::string& e = entities[rng() % entities.size()];
    const auto [first, last] = spans[e];
    storage::PositionAtQuery q;
    q.collection = kCollection;
    q.entity = e;
    q.time_ms = first + static_cast<int64_t>(rng() % (last - first + 1));
    w.positions.push_back(q);
    const model::TrackPoint& fix = points[rng() % points.size()];
    w.searches.push_back({{fix.lat, fix.lon}, fix.loc_time_ms});
  }
  return w;
}

void ReadTracks(storage::TrackStore& store, const Workload& w, Samples* out,
                Answers* answers) {
  for (const std::string& entity : w.track_entities) {
    storage::TrackQuery q;
    q.collection = kCollection;
    q.entity = entity;
    q.limit = absl::GetFlag(FLAGS_page);
    std::vector<model::TrackPoint> track;
    const Clock::time_point start = Clock::now();
    for (;;) {
      absl::StatusOr<storage::TrackPage> page = store.GetTrack(q);
      if (!page.ok()) Die("GetTrack", page.status());
      track.insert(track.end(), page->points.begin(), page->points.end());
      if (page->next_page_token.empty()) break;
      q.page_token = page->next_page_token;
    }
    out->Add(MsSince(start), track.size());
    if (answers) answers->tracks.push_back(std::move(track));
  }
}

void ReadPositions(storage::TrackStore& store, const Workload& w,
                   Samples* out, Answers* answers) {
  for (const storage::PositionAtQuery& q : w.positions) {
    const Clock::time_point start = Clock::now();
    absl::StatusOr<storage::PositionAt> at = storage::GetPositionAt(store, q);
    out->Add(MsSince(start), 1);
    if (!at.ok() && !absl::IsOutOfRange(at.status())) Die("PositionAt", at.status());
    if (answers) {
      answers->positions.push_back(
          at.ok() ? std::make_pair(at->position.lat, at->position.lon)
                  : std::make_pair<double, double>(NAN, NAN));
    }
  }
}

void Search(storage::TrackStore& store, const Workload& w, Samples* out,
            Answers* answers) {
  const int64_t half_window_ms = absl::GetFlag(FLAGS_window_s) * 500;
  for (const auto& [centre, time_ms] : w.searches) {
    auto circle =
        index::CircleRegion::Create(centre, absl::GetFlag(FLAGS_radius_m));
    if (!circle.ok()) Die("circle", circle.status());
    storage::HistoryQuery q;
    q.collection = kCollection;
    q.region = &*circle;
    q.start_ms = time_ms - half_window_ms;
    q.end_ms = time_ms + half_window_ms;
    q.limit = 1000;
    std::vector<std::pair<std::string, int64_t>> rows;
    const Clock::time_point start = Clock::now();
    for (;;) {
      absl::StatusOr<storage::HistoryPage> page = store.SearchHistory(q);
      if (!page.ok()) Die("SearchHistory", page.status());
      for (const model::TrackPoint& p : page->points) {
        rows.emplace_back(p.entity, p.loc_time_ms);
      }
      if (page->next_page_token.empty()) break;
      q.page_token = page->next_page_token;
    }
    out->Add(MsSince(start), rows.size());
    if (answers) answers->rows.push_back(std::move(rows));
  }
}

struct StoreRun {
  const char* name;
  std::unique_ptr<storage::TrackStore> store;
  std::string dir;
  Samples track, position, search;
  Answers answers;  // from the first round
  uint64_t sst_bytes = 0;
};

void Report(const StoreRun& r, size_t fixes) {
  std::printf(
      "%-8s track: %.0f fixes/s, p50 %.2f ms, p99 %.2f ms per entity | "
      "position: p50 %.1f us, p99 %.1f us | search: p50 %.3f ms, p99 %.3f "
      "ms, %.1f rows | %.2f B/fix on disk\n",
      r.name, r.track.items / (r.track.total_ms / 1000),
      Percentile(r.track.ms, 0.5), Percentile(r.track.ms, 0.99),
      Percentile(r.position.ms, 0.5) * 1000,
      Percentile(r.position.ms, 0.99) * 1000, Percentile(r.search.ms, 0.5),
      Percentile(r.search.ms, 0.99),
      static_cast<double>(r.search.items) / r.search.ms.size(),
      static_cast<double>(r.sst_bytes) / fixes);
}

bool SameAnswers(const Answers& a, const Answers& b) {
  if (a.rows != b.rows || a.tracks.size() != b.tracks.size()) return false;
  for (size_t i = 0; i < a.tracks.size(); ++i) {
    if (a.tracks[i].size() != b.tracks[i].size()) return false;
    for (size_t k = 0; k < a.tracks[i].size(); ++k) {
      if (!(a.tracks[i][k] == b.tracks[i][k])) return false;
    }
  }
  for (size_t i = 0; i < a.positions.size(); ++i) {
    const auto& [x, y] = a.positions[i];
    const auto& [u, v] = b.positions[i];
    if (!(x == u && y == v) && !(std::isnan(x) && std::isnan(u))) return false;
  }
  return true;
}

// Both stores written alike; the second folded; both compacted.
void Load(StoreRun* runs, const std::vector<model::TrackPoint>& points) {
  std::string root = absl::GetFlag(FLAGS_dir);
  if (root.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    root = std::string(tmp ? tmp : "/tmp") + "/trackdb-history-read-bench";
  }
  std::filesystem::remove_all(root);
  for (int i = 0; i < 2; ++i) {
    StoreRun& r = runs[i];
    r.dir = absl::StrCat(root, "/", r.name);
    std::filesystem::create_directories(r.dir);
    auto store = storage::TrackStore::Open(r.dir, v1::StorageConfig());
    if (!store.ok()) Die("opening " + r.dir, store.status());
    r.store = std::move(*store);
    const Clock::time_point start = Clock::now();
    Write(*r.store, points, absl::GetFlag(FLAGS_batch));
    std::printf("%s: wrote %zu fixes in %.1f s\n", r.name, points.size(),
                MsSince(start) / 1000);
    if (i == 1) {
      const Clock::time_point fold = Clock::now();
      storage::FoldOptions options;
      if (absl::GetFlag(FLAGS_chunk_fixes) > 0) {
        options.chunk_fixes = absl::GetFlag(FLAGS_chunk_fixes);
      }
      absl::StatusOr<storage::FoldCounts> folded =
          r.store->chunker().FoldCollection(kCollection, options);
      if (!folded.ok()) Die("folding", folded.status());
      std::printf("%s: folded %llu fixes into %llu chunks in %.1f s\n",
                  r.name, static_cast<unsigned long long>(folded->fixes),
                  static_cast<unsigned long long>(folded->chunks),
                  MsSince(fold) / 1000);
    }
    auto compacted = r.store->SetBulkLoad(false);
    if (!compacted.ok()) Die("compacting", compacted.status());
    r.sst_bytes = SstBytes(r.dir);
    std::printf("%s: compacted in %.2f s\n", r.name,
                compacted->compaction_seconds);
  }
}

int Run() {
  const std::string csv = absl::GetFlag(FLAGS_csv);
  std::vector<model::TrackPoint> points =
      csv.empty() ? Fleet(absl::GetFlag(FLAGS_entities),
                          absl::GetFlag(FLAGS_fixes),
                          absl::GetFlag(FLAGS_interval_ms))
                  : ReadCsv(csv);
  if (points.empty()) Die("data", absl::InvalidArgumentError("no fixes"));
  // As trackers send them: in time order across entities.
  std::stable_sort(points.begin(), points.end(),
                   [](const model::TrackPoint& a, const model::TrackPoint& b) {
                     return a.loc_time_ms < b.loc_time_ms;
                   });
  const Workload w = MakeWorkload(points);
  StoreRun runs[2] = {{"raw"}, {"chunked"}};
  Load(runs, points);
  for (int round = 0; round < absl::GetFlag(FLAGS_rounds); ++round) {
    for (StoreRun& r : runs) {
      Answers* answers = round == 0 ? &r.answers : nullptr;
      const std::string only = absl::GetFlag(FLAGS_only);
      if (only.empty() || only == "track") {
        ReadTracks(*r.store, w, &r.track, answers);
      }
      if (only.empty() || only == "position") {
        ReadPositions(*r.store, w, &r.position, answers);
      }
      if (only.empty() || only == "search") {
        Search(*r.store, w, &r.search, answers);
      }
    }
  }
  std::printf("%zu fixes, %zu tracks read whole, %zu positions, %zu searches, "
              "%d rounds\n",
              points.size(), w.track_entities.size(), w.positions.size(),
              w.searches.size(), absl::GetFlag(FLAGS_rounds));
  for (const StoreRun& r : runs) Report(r, points.size());
  const StoreRun &raw = runs[0], &chunked = runs[1];
  std::printf(
      "chunked / raw: track fixes/s x%.2f; position p50 x%.2f; search p50 "
      "x%.2f; bytes x%.2f\n",
      (chunked.track.items / chunked.track.total_ms) /
          (raw.track.items / raw.track.total_ms),
      Percentile(chunked.position.ms, 0.5) / Percentile(raw.position.ms, 0.5),
      Percentile(chunked.search.ms, 0.5) / Percentile(raw.search.ms, 0.5),
      static_cast<double>(chunked.sst_bytes) / raw.sst_bytes);
  const bool same = SameAnswers(raw.answers, chunked.answers);
  std::printf("same answers: %s\n", same ? "yes" : "NO");
  for (StoreRun& r : runs) {
    r.store->Close().IgnoreError();
    std::filesystem::remove_all(r.dir);
  }
  return same ? 0 : 1;
}

}  // namespace
}  // namespace trackdb::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return trackdb::bench::Run();
}
