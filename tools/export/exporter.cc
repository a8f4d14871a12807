#include "tools/export/exporter.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "service/grpc/point_convert.h"

namespace trackdb::export_tool {
namespace {

// Redis's GEO range, which every stored latitude lies in: a rectangle over
// it finds every entity of a collection.
constexpr double kMaxLatitude = 85.05112878;

absl::Status CallFailed(absl::string_view call, const grpc::Status& s) {
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                      absl::StrCat(call, ": ", s.error_message()));
}

class Exporter {
 public:
  Exporter(v1::TrackService::StubInterface& stub, const ExportQuery& query,
           formats::TrackWriter& out, const ExportProgress& progress)
      : stub_(stub), query_(query), out_(out), progress_(progress) {}

  absl::Status Track(const std::string& entity);
  // Every hit of the query's search (or of the whole range), page by page.
  absl::Status Search(const std::function<void(const v1::SearchHit&)>& visit);
  void Report() {
    if (progress_) progress_(counts_, read_, total_);
  }

  ExportCounts counts_;
  uint64_t read_ = 0;
  uint64_t total_ = 0;

 private:
  absl::Status SearchPage(const std::string& token, v1::SearchResponse* page);

  v1::TrackService::StubInterface& stub_;
  const ExportQuery& query_;
  formats::TrackWriter& out_;
  const ExportProgress& progress_;
};

absl::Status Exporter::Track(const std::string& entity) {
  v1::GetTrackRequest request;
  request.set_collection(query_.collection);
  request.set_entity_id(entity);
  request.set_start_time_ms(query_.from_ms);
  request.set_end_time_ms(query_.to_ms);
  request.set_page_size(query_.page_size);
  out_.BeginTrack(entity);
  bool any = false;
  do {
    v1::GetTrackResponse page;
    grpc::ClientContext context;
    grpc::Status s = stub_.GetTrack(&context, request, &page);
    if (!s.ok()) return CallFailed("GetTrack", s);
    for (const v1::Point& p : page.points()) {
      out_.Fix(service::FromProtoPoint(p));
    }
    any = any || page.points_size() > 0;
    counts_.fixes += page.points_size();
    request.set_page_token(page.next_page_token());
    Report();
  } while (!request.page_token().empty());
  out_.EndTrack();
  if (any) ++counts_.entities;
  ++read_;
  Report();
  return absl::OkStatus();
}

absl::Status Exporter::SearchPage(const std::string& token,
                                  v1::SearchResponse* page) {
  grpc::ClientContext context;
  auto filtered = [&](auto request) {
    request.mutable_filter()->set_page_size(query_.page_size);
    request.mutable_filter()->set_page_token(token);
    request.mutable_filter()->set_ids_and_positions_only(query_.tracks);
    return request;
  };
  grpc::Status s;
  if (query_.radius) {
    s = stub_.SearchRadius(&context, filtered(*query_.radius), page);
  } else if (query_.polygon) {
    s = stub_.SearchPolygon(&context, filtered(*query_.polygon), page);
  } else {
    v1::SearchBoundsRequest everywhere;
    everywhere.set_collection(query_.collection);
    everywhere.mutable_south_west()->set_latitude(-kMaxLatitude);
    everywhere.mutable_south_west()->set_longitude(-180);
    everywhere.mutable_north_east()->set_latitude(kMaxLatitude);
    everywhere.mutable_north_east()->set_longitude(180);
    s = stub_.SearchBounds(
        &context, filtered(query_.bounds ? *query_.bounds : everywhere), page);
  }
  return s.ok() ? absl::OkStatus() : CallFailed("Search", s);
}

absl::Status Exporter::Search(
    const std::function<void(const v1::SearchHit&)>& visit) {
  std::string token;
  do {
    v1::SearchResponse page;
    if (absl::Status s = SearchPage(token, &page); !s.ok()) return s;
    for (const v1::SearchHit& hit : page.hits()) visit(hit);
    token = page.next_page_token();
  } while (!token.empty());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ExportCounts> Export(v1::TrackService::StubInterface& stub,
                                    const ExportQuery& query,
                                    formats::TrackWriter& out,
                                    const ExportProgress& progress) {
  Exporter e(stub, query, out, progress);
  const bool search = query.bounds || query.radius || query.polygon;
  absl::Status status;
  if (!query.entity.empty()) {
    status = e.Track(query.entity);
  } else if (search && !query.tracks) {
    status = e.Search([&](const v1::SearchHit& hit) {
      out.Position(service::FromProtoPoint(hit.point()),
                   hit.has_distance_m() ? std::optional(hit.distance_m())
                                        : std::nullopt);
      ++e.counts_.entities;
      ++e.counts_.fixes;
      ++e.read_;
    });
    e.Report();
  } else {
    std::vector<std::string> entities;
    status = e.Search([&](const v1::SearchHit& hit) {
      entities.push_back(hit.point().entity_id());
    });
    e.total_ = entities.size();
    for (size_t i = 0; status.ok() && i < entities.size(); ++i) {
      status = e.Track(entities[i]);
    }
  }
  out.Finish();
  if (!status.ok()) return status;
  return e.counts_;
}

}  // namespace trackdb::export_tool
