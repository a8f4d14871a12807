// TrackService.ExportGeoJson: the query runs as its own call (same checks,
// same page), and its answer is written by formats/track_writer.h.
#include <sstream>

#include "formats/track_writer.h"
#include "service/grpc/grpc_status.h"
#include "service/grpc/point_convert.h"
#include "service/grpc/track_service.h"

namespace trackdb::service {
namespace {

void WriteHits(const v1::SearchResponse& found, formats::TrackWriter& out) {
  for (const v1::SearchHit& hit : found.hits()) {
    out.Position(FromProtoPoint(hit.point()),
                 hit.has_distance_m() ? std::optional<double>(hit.distance_m())
                                      : std::nullopt);
  }
}

}  // namespace

grpc::Status TrackServiceImpl::ExportGeoJson(
    grpc::ServerContext* context, const v1::ExportGeoJsonRequest* request,
    v1::ExportGeoJsonResponse* response) {
  std::ostringstream text;
  std::unique_ptr<formats::TrackWriter> out =
      formats::NewTrackWriter(formats::Format::kGeoJson, &text);
  grpc::Status status;
  v1::SearchResponse found;
  switch (request->query_case()) {
    case v1::ExportGeoJsonRequest::kTrack: {
      v1::GetTrackResponse page;
      status = GetTrack(context, &request->track(), &page);
      if (!status.ok()) return status;
      out->BeginTrack(request->track().entity_id());
      for (const v1::Point& p : page.points()) out->Fix(FromProtoPoint(p));
      out->EndTrack();
      response->set_next_page_token(page.next_page_token());
      break;
    }
    case v1::ExportGeoJsonRequest::kBounds:
      status = SearchBounds(context, &request->bounds(), &found);
      break;
    case v1::ExportGeoJsonRequest::kRadius:
      status = SearchRadius(context, &request->radius(), &found);
      break;
    case v1::ExportGeoJsonRequest::kPolygon:
      status = SearchPolygon(context, &request->polygon(), &found);
      break;
    case v1::ExportGeoJsonRequest::QUERY_NOT_SET:
      return InvalidArgument(
          "query is required: one of track, bounds, radius, polygon");
  }
  if (!status.ok()) return status;
  if (request->query_case() != v1::ExportGeoJsonRequest::kTrack) {
    WriteHits(found, *out);
    response->set_next_page_token(found.next_page_token());
  }
  out->Finish();
  response->set_geojson(text.str());
  return grpc::Status::OK;
}

}  // namespace trackdb::service
