#include "analysis/track_analysis.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "index/distance.h"
#include "index/interpolate.h"

namespace trackdb::analysis {
namespace {

constexpr int kNoStay = -1;

index::LatLng At(const model::TrackPoint& p) { return {p.lat, p.lon}; }

double SpeedKmh(double meters, int64_t ms) {
  if (ms <= 0) return meters > 0 ? std::numeric_limits<double>::infinity() : 0;
  return meters / static_cast<double>(ms) * 3600;
}

double SpeedKmh(const model::TrackPoint& a, const model::TrackPoint& b) {
  return SpeedKmh(index::HaversineMeters(At(a), At(b)),
                  b.loc_time_ms - a.loc_time_ms);
}

bool Accurate(const model::TrackPoint& p, const AnalysisOptions& o) {
  return !(o.max_accuracy_m > 0 && p.accuracy_m &&
           *p.accuracy_m > o.max_accuracy_m);
}

// Whether the first accurate fix is wild: leaving it is too fast, and the
// two accurate fixes after it agree with each other.
bool FirstIsAJump(absl::Span<const model::TrackPoint> points,
                  const std::vector<size_t>& accurate,
                  const AnalysisOptions& o) {
  if (o.max_speed_kmh <= 0 || accurate.size() < 3) return false;
  const model::TrackPoint& a = points[accurate[0]];
  const model::TrackPoint& b = points[accurate[1]];
  const model::TrackPoint& c = points[accurate[2]];
  return SpeedKmh(a, b) > o.max_speed_kmh && SpeedKmh(b, c) <= o.max_speed_kmh;
}

void Filter(absl::Span<const model::TrackPoint> points,
            const AnalysisOptions& o, TrackAnalysis* out) {
  std::vector<size_t> accurate;
  for (size_t i = 0; i < points.size(); ++i) {
    if (Accurate(points[i], o)) {
      accurate.push_back(i);
    } else {
      ++out->inaccurate;
    }
  }
  size_t from = 0;
  if (FirstIsAJump(points, accurate, o)) {
    ++out->jumps;
    from = 1;
  }
  std::optional<size_t> last;
  for (size_t k = from; k < accurate.size(); ++k) {
    const size_t i = accurate[k];
    if (o.max_speed_kmh > 0 && last &&
        SpeedKmh(points[*last], points[i]) > o.max_speed_kmh) {
      ++out->jumps;
      continue;
    }
    out->kept.push_back(i);
    last = i;
  }
}

// Stays over the kept fixes; `stay_of[k]` says which stay kept fix k is in.
void FindStays(absl::Span<const model::TrackPoint> points,
               const AnalysisOptions& o, TrackAnalysis* out,
               std::vector<int>* stay_of) {
  const std::vector<size_t>& kept = out->kept;
  stay_of->assign(kept.size(), kNoStay);
  size_t i = 0;
  while (i < kept.size()) {
    const model::TrackPoint& anchor = points[kept[i]];
    size_t j = i + 1;
    while (j < kept.size() &&
           index::HaversineMeters(At(anchor), At(points[kept[j]])) <=
               o.stay_radius_m) {
      ++j;
    }
    if (points[kept[j - 1]].loc_time_ms - anchor.loc_time_ms < o.stay_min_ms) {
      // A run to the end too short: any later run is shorter still.
      if (j == kept.size()) return;
      ++i;
      if (i % 64 == 0 && o.cancelled && o.cancelled()) return;
      continue;
    }
    Stay stay;
    stay.start_ms = anchor.loc_time_ms;
    stay.end_ms = points[kept[j - 1]].loc_time_ms;
    stay.fixes = j - i;
    std::vector<index::LatLng> fixes;
    for (size_t k = i; k < j; ++k) {
      fixes.push_back(At(points[kept[k]]));
      (*stay_of)[k] = static_cast<int>(out->stays.size());
    }
    stay.centre = index::SphericalMean(fixes);
    out->stays.push_back(stay);
    i = j;
  }
}

// Step 3 and 4: each segment between consecutive kept fixes.
void Walk(absl::Span<const model::TrackPoint> points, const AnalysisOptions& o,
          const std::vector<int>& stay_of, TrackAnalysis* out) {
  const std::vector<size_t>& kept = out->kept;
  double moving_m = 0;
  std::optional<Trip> trip;
  for (size_t k = 1; k < kept.size(); ++k) {
    const model::TrackPoint& a = points[kept[k - 1]];
    const model::TrackPoint& b = points[kept[k]];
    if (stay_of[k - 1] != kNoStay && stay_of[k - 1] == stay_of[k]) continue;
    const int64_t dt = b.loc_time_ms - a.loc_time_ms;
    const double d = index::HaversineMeters(At(a), At(b));
    double counted = d;
    if (dt > o.gap_ms) {
      out->gaps.push_back(Gap{a.loc_time_ms, b.loc_time_ms, d});
      if (!o.count_gaps) counted = 0;
    } else {
      moving_m += d;
      out->moving_ms += dt;
      if (dt > 0) {
        out->max_speed_kmh = std::max(out->max_speed_kmh, SpeedKmh(d, dt));
      }
    }
    out->distance_m += counted;
    if (!trip) trip = Trip{a.loc_time_ms, a.loc_time_ms, 0};
    trip->distance_m += counted;
    trip->end_ms = b.loc_time_ms;
    if (stay_of[k] != kNoStay) {
      out->trips.push_back(*trip);
      trip.reset();
    }
  }
  if (trip) out->trips.push_back(*trip);
  if (out->moving_ms > 0) {
    out->mean_speed_kmh = SpeedKmh(moving_m, out->moving_ms);
  }
}

}  // namespace

TrackAnalysis AnalyzeTrack(absl::Span<const model::TrackPoint> points,
                           const AnalysisOptions& options) {
  TrackAnalysis out;
  out.fixes = points.size();
  Filter(points, options, &out);
  if (out.kept.empty()) return out;
  out.start_ms = points[out.kept.front()].loc_time_ms;
  out.end_ms = points[out.kept.back()].loc_time_ms;
  std::vector<int> stay_of;
  FindStays(points, options, &out, &stay_of);
  Walk(points, options, stay_of, &out);
  return out;
}

}  // namespace trackdb::analysis
