#ifndef TRACKDB_ANALYSIS_TRACK_ANALYSIS_H_
#define TRACKDB_ANALYSIS_TRACK_ANALYSIS_H_

// What a track says beyond its points: how far the entity went (without
// GPS jumps, drift while parked, and with gaps in the signal reported),
// where it stayed, its trips between stays, and its speeds. One pass over
// the points in time order, as gRPC AnalyzeTrack reads them.
//
// The rules, in order:
// 1. Filtering: a fix whose accuracy_m is worse than max_accuracy_m is
//    dropped (fixes without accuracy are kept); then a fix reached from the
//    last kept fix faster than max_speed_kmh is a jump and is dropped (the
//    track goes on from the last kept fix, so one wild fix drops alone).
//    The first fix has no fix before it: it is a jump when leaving it is
//    too fast and going on from the next fix is not.
// 2. Stays (Li et al.'s stay points, as trajectory services define them):
//    from each kept fix, the run of following fixes within stay_radius_m of
//    it; if the run spans at least stay_min_ms it is a stay (its centre is
//    the spherical mean of its fixes) and the search goes on after it, else
//    from the next fix.
// 3. Between consecutive kept fixes: both in one stay is drift (neither
//    distance nor moving time, even across a silence: a parked tracker
//    that sleeps is staying); more than gap_ms apart is a gap (reported,
//    with its straight-line length, which counts in distance_m only with
//    count_gaps); anything else is movement, whose length is distance_m and
//    whose time is moving_ms (fixes at the same time add no speed).
// 4. Trips: the movement between stays (before the first and after the
//    last too), each with its length.
// Distances are great-circle, on Redis's sphere (index/distance.h).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "absl/types/span.h"
#include "index/latlng.h"
#include "model/track_point.h"

namespace trackdb::analysis {

struct AnalysisOptions {
  double max_speed_kmh = 0;   // 0: no jump filter
  double max_accuracy_m = 0;  // 0: no accuracy filter
  int64_t gap_ms = 300000;
  bool count_gaps = true;
  // The stay search looks, from each fix, at the run of fixes within the
  // radius after it: a run that fails is shorter than stay_min_ms, so the
  // work is at most the fixes times those in stay_min_ms (the doors bound
  // both, model::kMaxStayRadiusM and kMaxStayMinMs).
  double stay_radius_m = 20;
  int64_t stay_min_ms = 600000;
  // Asked every 64 fixes of the stay search; true stops it (the analysis
  // is then incomplete: the caller reports the cancellation).
  std::function<bool()> cancelled;
};

struct Gap {
  int64_t start_ms = 0;  // the last fix before it
  int64_t end_ms = 0;    // the first fix after it
  double straight_m = 0;
};

struct Stay {
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  index::LatLng centre;
  size_t fixes = 0;
};

struct Trip {
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  double distance_m = 0;
};

struct TrackAnalysis {
  size_t fixes = 0;          // given
  size_t jumps = 0;          // dropped as jumps
  size_t inaccurate = 0;     // dropped for accuracy
  std::vector<size_t> kept;  // indices of the fixes kept
  int64_t start_ms = 0;      // first kept fix (0 when none)
  int64_t end_ms = 0;        // last kept fix
  double distance_m = 0;
  int64_t moving_ms = 0;
  double max_speed_kmh = 0;   // over movement segments
  double mean_speed_kmh = 0;  // movement's length over its time
  std::vector<Gap> gaps;
  std::vector<Stay> stays;
  std::vector<Trip> trips;
};

// `points` in ascending loc_time_ms.
TrackAnalysis AnalyzeTrack(absl::Span<const model::TrackPoint> points,
                           const AnalysisOptions& options);

}  // namespace trackdb::analysis

#endif  // TRACKDB_ANALYSIS_TRACK_ANALYSIS_H_
