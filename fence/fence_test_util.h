#ifndef TRACKDB_FENCE_FENCE_TEST_UTIL_H_
#define TRACKDB_FENCE_FENCE_TEST_UTIL_H_

// Fences and fixes for fence/'s tests, in a few words each.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fence/detector.h"
#include "fence/fence.h"
#include "model/track_point.h"
#include "trackdb/v1/fence.pb.h"

namespace trackdb::fence::testing {

// A fence in collection "fleet" named "depot" with this shape, detecting
// ENTER and EXIT (the default); the caller sets the rest.
v1::Fence CircleFence(double lat, double lon, double radius_m);
v1::Fence RectFence(double south, double west, double north, double east);
// rings[0] is the outer ring, the others holes; each {lat, lon} pairs.
v1::Fence PolygonFence(const std::vector<std::vector<index::LatLng>>& rings);
void DetectEverything(v1::Fence* fence);

// CompileFence with default limits; fails the test on an error.
Fence Compile(const v1::Fence& proto);

model::TrackPoint Fix(int64_t t_ms, double lat, double lon,
                      std::optional<double> accuracy_m = std::nullopt);

// "ENTER", "EXIT", ... and "late INSIDE", "DWELL 61000": for readable
// expectations.
std::string Describe(const FenceHit& hit);
std::vector<std::string> Describe(const std::vector<FenceHit>& hits);

// Each fix's events, described, by detector.h's rules applied to a whole
// sequence of one entity's fixes at once (which count, the runs that
// confirm a side, stays), not one fix at a time: a reference for the
// detector. inside(i): where fix i lies; path_meets(prior, i): whether
// the path from fix `prior` to fix i meets the area (asked only when the
// fence detects CROSS).
std::vector<std::vector<std::string>> ReferenceEvents(
    const Fence& fence, const std::vector<model::TrackPoint>& fixes,
    const std::function<bool(size_t)>& inside,
    const std::function<bool(size_t, size_t)>& path_meets);

}  // namespace trackdb::fence::testing

#endif  // TRACKDB_FENCE_FENCE_TEST_UTIL_H_
