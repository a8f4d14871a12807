#include "service/grpc/analyze_track.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/track_analysis.h"
#include "model/limits.h"
#include "model/validate.h"
#include "service/grpc/grpc_status.h"
#include "service/grpc/point_convert.h"
#include "storage/points/track_range.h"

namespace trackdb::service {
namespace {

// The options, defaults filled in; INVALID_ARGUMENT naming a bad field.
grpc::Status Options(const v1::AnalyzeTrackRequest& r,
                     analysis::AnalysisOptions* o) {
  const struct {
    const char* field;
    double value;
  } non_negative[] = {{"max_speed_kmh", r.max_speed_kmh()},
                      {"max_accuracy_m", r.max_accuracy_m()},
                      {"gap_ms", static_cast<double>(r.gap_ms())},
                      {"stay_radius_m", r.stay_radius_m()},
                      {"stay_min_ms", static_cast<double>(r.stay_min_ms())}};
  for (const auto& f : non_negative) {
    if (!std::isfinite(f.value) || f.value < 0) {
      return InvalidArgument(absl::StrCat(
          f.field, " must be a finite number >= 0 (0: ", "the default), got ",
          f.value));
    }
  }
  if (absl::Status s = model::ValidateStayBounds(
          r.stay_radius_m(), r.stay_min_ms(), "stay_radius_m", "stay_min_ms");
      !s.ok()) {
    return ToGrpc(s);
  }
  if (r.gap_mode() != v1::AnalyzeTrackRequest::STRAIGHT_LINE &&
      r.gap_mode() != v1::AnalyzeTrackRequest::NONE) {
    return InvalidArgument(absl::StrCat(
        "gap_mode ", r.gap_mode(), " is not STRAIGHT_LINE (0) or NONE (1)"));
  }
  o->max_speed_kmh = r.max_speed_kmh();
  o->max_accuracy_m = r.max_accuracy_m();
  o->count_gaps = r.gap_mode() == v1::AnalyzeTrackRequest::STRAIGHT_LINE;
  if (r.gap_ms() > 0) o->gap_ms = r.gap_ms();
  if (r.stay_radius_m() > 0) o->stay_radius_m = r.stay_radius_m();
  if (r.stay_min_ms() > 0) o->stay_min_ms = r.stay_min_ms();
  return grpc::Status::OK;
}

// Every fix of the range, oldest first.
grpc::Status ReadRange(grpc::ServerContext* context, storage::TrackStore& store,
                       const v1::AnalyzeTrackRequest& r,
                       std::vector<model::TrackPoint>* points) {
  storage::TrackQuery range;
  range.collection = r.collection();
  range.entity = r.entity_id();
  if (absl::Status s = TimeRangeFields(r.start_time_ms(), r.end_time_ms(),
                                       &range.start_ms, &range.end_ms);
      !s.ok()) {
    return ToGrpc(s);
  }
  absl::StatusOr<std::vector<model::TrackPoint>> read = storage::ReadTrackRange(
      store, range, model::kMaxAnalyzedFixes,
      [context] { return context != nullptr && context->IsCancelled(); });
  if (!read.ok()) return ToGrpc(read.status());
  *points = *std::move(read);
  return grpc::Status::OK;
}

void ToResponse(const analysis::TrackAnalysis& a,
                v1::AnalyzeTrackResponse* out) {
  out->set_fixes(a.fixes);
  out->set_jumps(a.jumps);
  out->set_inaccurate(a.inaccurate);
  out->set_start_ms(a.start_ms);
  out->set_end_ms(a.end_ms);
  out->set_distance_m(a.distance_m);
  out->set_moving_ms(a.moving_ms);
  out->set_max_speed_kmh(a.max_speed_kmh);
  out->set_mean_speed_kmh(a.mean_speed_kmh);
  for (const analysis::Stay& s : a.stays) {
    v1::TrackStay* stay = out->add_stays();
    stay->set_start_ms(s.start_ms);
    stay->set_end_ms(s.end_ms);
    stay->mutable_centre()->set_latitude(s.centre.lat);
    stay->mutable_centre()->set_longitude(s.centre.lon);
    stay->set_fixes(static_cast<uint32_t>(s.fixes));
  }
  for (const analysis::Trip& t : a.trips) {
    v1::TrackTrip* trip = out->add_trips();
    trip->set_start_ms(t.start_ms);
    trip->set_end_ms(t.end_ms);
    trip->set_distance_m(t.distance_m);
  }
  for (const analysis::Gap& g : a.gaps) {
    v1::TrackGap* gap = out->add_gaps();
    gap->set_start_ms(g.start_ms);
    gap->set_end_ms(g.end_ms);
    gap->set_straight_m(g.straight_m);
  }
}

}  // namespace

grpc::Status AnalyzeTrack(grpc::ServerContext* context,
                          storage::TrackStore& store,
                          const v1::AnalyzeTrackRequest& request,
                          v1::AnalyzeTrackResponse* response) {
  if (absl::Status s =
          ValidateEntityFields(request.collection(), request.entity_id());
      !s.ok()) {
    return ToGrpc(s);
  }
  analysis::AnalysisOptions options;
  if (grpc::Status s = Options(request, &options); !s.ok()) return s;
  std::vector<model::TrackPoint> points;
  if (grpc::Status s = ReadRange(context, store, request, &points); !s.ok()) {
    return s;
  }
  options.cancelled = [context] {
    return context != nullptr && context->IsCancelled();
  };
  const analysis::TrackAnalysis analysis =
      analysis::AnalyzeTrack(points, options);
  if (options.cancelled()) {
    return grpc::Status(grpc::StatusCode::CANCELLED, "cancelled");
  }
  ToResponse(analysis, response);
  return grpc::Status::OK;
}

}  // namespace trackdb::service
