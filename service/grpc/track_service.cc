#include "service/grpc/track_service.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "analysis/simplify.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "index/distance.h"
#include "index/latlng.h"
#include "index/region.h"
#include "model/validate.h"
#include "service/grpc/analyze_track.h"
#include "service/grpc/cancel_check.h"
#include "model/clock.h"
#include "service/grpc/grpc_status.h"
#include "service/grpc/point_convert.h"
#include "service/grpc/search_area.h"
#include "storage/points/position_at.h"

namespace trackdb::service {
namespace {

absl::StatusOr<uint32_t> PageSize(uint32_t requested, const char* field) {
  uint32_t size = 0;
  if (absl::Status s = model::ValidatePageSize(requested, field, &size);
      !s.ok()) {
    return s;
  }
  return size;
}

// The points of a page to return: all, or with a tolerance, those
// Douglas-Peucker keeps.
std::vector<size_t> SimplifiedIndices(
    const std::vector<model::TrackPoint>& points, double tolerance_m) {
  std::vector<index::LatLng> line;
  line.reserve(points.size());
  for (const model::TrackPoint& p : points) line.push_back({p.lat, p.lon});
  return analysis::SimplifyDouglasPeucker(line, tolerance_m);
}

// Search hits before paging: the points, gathered once, and a small sort
// key per hit, so ordering never moves a TrackPoint.
struct Hits {
  struct Key {
    double distance_m;  // radius searches only; 0 otherwise
    uint32_t index;     // into points
  };
  std::vector<model::TrackPoint> points;
  std::vector<Key> keys;

  // Nearest first, ties (and every non-radius hit) by entity id.
  bool Before(const Key& a, const Key& b) const {
    if (a.distance_m != b.distance_m) return a.distance_m < b.distance_m;
    return points[a.index].entity < points[b.index].entity;
  }
  // Whether `k` comes after the hit a page token names.
  bool After(const Key& k, double distance_m, const std::string& entity) const {
    if (k.distance_m != distance_m) return k.distance_m > distance_m;
    return points[k.index].entity > entity;
  }
};

// Page tokens name the last hit returned: "<distance>:<hex entity>".
std::string TokenOf(double distance_m, const std::string& entity) {
  return absl::StrCat(absl::StrFormat("%.17g", distance_m), ":",
                      absl::BytesToHexString(entity));
}

bool ParseToken(const std::string& token, double* distance,
                std::string* entity) {
  std::vector<std::string> parts =
      absl::StrSplit(token, absl::MaxSplits(':', 1));
  if (parts.size() != 2 || !absl::SimpleAtod(parts[0], distance)) return false;
  if (parts[1].size() % 2 != 0 ||
      parts[1].find_first_not_of("0123456789abcdef") != std::string::npos) {
    return false;
  }
  *entity = absl::HexStringToBytes(parts[1]);
  return true;
}

using AcceptHit = std::function<void(const model::TrackPoint&)>;

// Every point in `region` that the filter's entity ids allow, each passed
// to `accept`: for a short list of entities their latest points, read
// directly; otherwise a region scan, which stops when the call is
// cancelled or past its deadline.
grpc::Status CollectHits(storage::TrackStore& store,
                         grpc::ServerContext* context,
                         const std::string& collection,
                         const index::Region& region,
                         const v1::SearchFilter& filter,
                         const AcceptHit& accept) {
  if (!filter.entity_ids().empty()) {
    const std::vector<std::string> ids(filter.entity_ids().begin(),
                                       filter.entity_ids().end());
    auto latest = store.GetLatest(collection, ids);
    if (!latest.ok()) return ToGrpc(latest.status());
    absl::flat_hash_set<std::string> seen;
    for (const auto& p : *latest) {
      if (p && region.Contains({p->lat, p->lon}) &&
          seen.insert(p->entity).second) {
        accept(*p);
      }
    }
    return grpc::Status::OK;
  }
  CancelCheck check(context);
  bool stopped = false;
  storage::ScanOptions options;
  // active_since_ms needs loc_time, which a positions-only scan keeps.
  options.positions_only = filter.ids_and_positions_only();
  absl::Status s = store.ScanRegion(
      collection, region,
      [&](const model::TrackPoint& p) {
        if (!check.Continue()) {
          stopped = true;
          return false;
        }
        accept(p);
        return true;
      },
      options);
  if (stopped) return check.status();
  if (!s.ok()) return ToGrpc(s);
  return grpc::Status::OK;
}

// Where a page starts: after the hit its token names, if it has one.
struct PageStart {
  bool has_token = false;
  double after_distance = -1;
  std::string after_entity;
};

// Drops the hits earlier pages returned: those not after `start`.
void DropEarlierPages(Hits& hits, const PageStart& start) {
  if (!start.has_token) return;
  std::vector<Hits::Key>& keys = hits.keys;
  keys.erase(std::remove_if(keys.begin(), keys.end(),
                            [&](const Hits::Key& k) {
                              return !hits.After(k, start.after_distance,
                                                 start.after_entity);
                            }),
             keys.end());
}

// The first `page_size` hits, nearest first (ties by entity id), into
// `response` with the next page's token if more remain. Orders just this
// page.
void WritePage(Hits& hits, uint32_t page_size, bool with_distance,
               bool positions_only, v1::SearchResponse* response) {
  std::vector<Hits::Key>& keys = hits.keys;
  const size_t page = std::min<size_t>(keys.size(), page_size);
  auto before = [&hits](const Hits::Key& a, const Hits::Key& b) {
    return hits.Before(a, b);
  };
  if (page == keys.size()) {
    std::sort(keys.begin(), keys.end(), before);
  } else {
    std::partial_sort(keys.begin(), keys.begin() + page, keys.end(), before);
  }
  response->mutable_hits()->Reserve(static_cast<int>(page));
  for (size_t i = 0; i < page; ++i) {
    v1::SearchHit* out = response->add_hits();
    ToProtoPoint(hits.points[keys[i].index], positions_only,
                 out->mutable_point());
    if (with_distance) out->set_distance_m(keys[i].distance_m);
  }
  if (page < keys.size()) {
    const Hits::Key& last = keys[page - 1];
    response->set_next_page_token(
        TokenOf(last.distance_m, hits.points[last.index].entity));
  }
}

// A radius search answers nearest first, so a page is decided by the hits
// of a smaller circle around the same centre once more of them than the
// page holds come after the page token: every hit outside that circle is
// farther than every hit inside (both measured by the same haversine,
// CircleRegion::Contains's). The circle halfway from the token's distance
// (0 on the first page) to the radius holds a quarter of a first page's
// area; when it cannot decide, the search costs a second, smaller scan
// more. nullopt for circles too small for that to pay.
std::optional<index::CircleRegion> InnerCircle(
    const index::CircleRegion& circle, const PageStart& start) {
  constexpr double kMinRadiusMeters = 50;
  const double from = start.has_token ? std::max(0.0, start.after_distance) : 0;
  const double r = (from + circle.radius_m()) / 2;
  if (circle.radius_m() < kMinRadiusMeters || !(r < circle.radius_m())) {
    return std::nullopt;
  }
  absl::StatusOr<index::CircleRegion> inner =
      index::CircleRegion::Create(circle.centre(), r);
  if (!inner.ok()) return std::nullopt;
  return *std::move(inner);
}

// A search's checks after its region's: the collection, then the filter's
// page size, page token (into `*start`) and entity ids.
grpc::Status CheckSearch(const std::string& collection,
                         const v1::SearchFilter& filter, uint32_t* page_size,
                         PageStart* start) {
  if (absl::Status s = ValidateCollectionField(collection); !s.ok()) {
    return ToGrpc(s);
  }
  auto size = PageSize(filter.page_size(), "filter.page_size");
  if (!size.ok()) return ToGrpc(size.status());
  *page_size = *size;
  start->has_token = !filter.page_token().empty();
  if (start->has_token &&
      !ParseToken(filter.page_token(), &start->after_distance,
                  &start->after_entity)) {
    return InvalidArgument("filter.page_token is not one this search returned");
  }
  for (int i = 0; i < filter.entity_ids_size(); ++i) {
    if (absl::Status s = ValidateEntityIdField(
            filter.entity_ids(i), absl::StrCat("filter.entity_ids[", i, "]"));
        !s.ok()) {
      return ToGrpc(s);
    }
  }
  return grpc::Status::OK;
}

// Hits within `where`, with their distance from the circle's centre.
grpc::Status CollectSearchHits(storage::TrackStore& store,
                               grpc::ServerContext* context,
                               const std::string& collection,
                               const index::Region& where,
                               const index::CircleRegion* circle,
                               const v1::SearchFilter& filter, Hits* hits) {
  auto accept = [&](const model::TrackPoint& p) {
    if (filter.has_active_since_ms() &&
        p.loc_time_ms < filter.active_since_ms()) {
      return;
    }
    hits->keys.push_back(
        {circle ? index::HaversineMeters(circle->centre(), {p.lat, p.lon}) : 0,
         static_cast<uint32_t>(hits->points.size())});
    hits->points.push_back(p);
  };
  return CollectHits(store, context, collection, where, filter, accept);
}

}  // namespace

TrackServiceImpl::TrackServiceImpl(storage::TrackStore* store,
                                   const v1::LimitsConfig& limits)
    : store_(store), limits_(model::LimitsFrom(limits)) {}

absl::Status TrackServiceImpl::StoreBatch(
    const std::string& collection,
    const google::protobuf::RepeatedPtrField<v1::Point>& points,
    const std::string& field) {
  if (absl::Status s = ValidateCollectionField(collection); !s.ok()) {
    return s;
  }
  if (absl::Status s = model::ValidateBatchSize(points.size(), field, limits_);
      !s.ok()) {
    return s;
  }
  const int64_t now = NowMs();
  std::vector<model::TrackPoint> batch;
  batch.reserve(points.size());
  for (int i = 0; i < points.size(); ++i) {
    auto p =
        ToTrackPoint(points[i], absl::StrCat(field, "[", i, "]"), limits_, now);
    if (!p.ok()) return p.status();
    batch.push_back(*std::move(p));
  }
  return store_->AddPoints(collection, batch);
}

grpc::Status TrackServiceImpl::AddPoint(grpc::ServerContext*,
                                        const v1::AddPointRequest* request,
                                        v1::AddPointResponse*) {
  if (absl::Status s = ValidateCollectionField(request->collection());
      !s.ok()) {
    return ToGrpc(s);
  }
  if (!request->has_point()) return InvalidArgument("point is required");
  auto p = ToTrackPoint(request->point(), "point", limits_, NowMs());
  if (!p.ok()) return ToGrpc(p.status());
  return ToGrpc(store_->AddPoints(request->collection(), {*p}));
}

grpc::Status TrackServiceImpl::AddPoints(grpc::ServerContext*,
                                         const v1::AddPointsRequest* request,
                                         v1::AddPointsResponse* response) {
  if (absl::Status s =
          StoreBatch(request->collection(), request->points(), "points");
      !s.ok()) {
    return ToGrpc(s);
  }
  response->set_stored(request->points_size());
  return grpc::Status::OK;
}

grpc::Status TrackServiceImpl::StreamPointBytes(
    grpc::ServerContext* context, grpc::ServerReader<grpc::ByteBuffer>* reader,
    v1::StreamPointsResponse* response,
    const std::function<grpc::Status(absl::string_view)>& may_store) {
  grpc::ByteBuffer bytes;
  v1::StreamPointsRequest message;
  std::string collection;
  uint64_t stored = 0;
  // Read() returns false once the client cancels or the deadline passes,
  // so the loop needs no IsCancelled() (which can sleep, cancel_check.h).
  for (int n = 0; reader->Read(&bytes); ++n) {
    if (!grpc::GenericDeserialize<grpc::ProtoBufferReader,
                                  v1::StreamPointsRequest>(&bytes, &message)
             .ok()) {
      return grpc::Status(
          grpc::StatusCode::INVALID_ARGUMENT,
          absl::StrCat("message[", n,
                       "]: not a valid trackdb.v1.StreamPointsRequest "
                       "(protobuf decoding failed) (",
                       stored, " points of earlier messages were stored)"));
    }
    // Later messages may leave the collection empty to keep the first's.
    if (!message.collection().empty()) collection = message.collection();
    if (may_store && !collection.empty()) {
      if (grpc::Status m = may_store(collection); !m.ok()) return m;
    }
    absl::Status s = StoreBatch(collection, message.points(),
                                absl::StrCat("message[", n, "].points"));
    if (!s.ok()) {
      return ToGrpc(absl::Status(
          s.code(), absl::StrCat(s.message(), " (", stored,
                                 " points of earlier messages were stored)")));
    }
    stored += message.points_size();
  }
  if (context->IsCancelled()) {
    return grpc::Status(grpc::StatusCode::CANCELLED, "client cancelled");
  }
  response->set_stored(stored);
  return grpc::Status::OK;
}

grpc::Status TrackServiceImpl::GetLatest(grpc::ServerContext*,
                                         const v1::GetLatestRequest* request,
                                         v1::GetLatestResponse* response) {
  if (absl::Status s = ValidateCollectionField(request->collection());
      !s.ok()) {
    return ToGrpc(s);
  }
  if (absl::Status s = model::ValidateBatchSize(request->entity_ids_size(),
                                                "entity_ids", limits_);
      !s.ok()) {
    return ToGrpc(s);
  }
  for (int i = 0; i < request->entity_ids_size(); ++i) {
    if (absl::Status s = ValidateEntityIdField(
            request->entity_ids(i), absl::StrCat("entity_ids[", i, "]"));
        !s.ok()) {
      return ToGrpc(s);
    }
  }
  const std::vector<std::string> ids(request->entity_ids().begin(),
                                     request->entity_ids().end());
  auto latest = store_->GetLatest(request->collection(), ids);
  if (!latest.ok()) return ToGrpc(latest.status());
  for (size_t i = 0; i < ids.size(); ++i) {
    if ((*latest)[i]) {
      ToProtoPoint(*(*latest)[i], false, response->add_points());
    } else {
      response->add_missing_entity_ids(ids[i]);
    }
  }
  return grpc::Status::OK;
}

grpc::Status TrackServiceImpl::GetTrack(grpc::ServerContext*,
                                        const v1::GetTrackRequest* request,
                                        v1::GetTrackResponse* response) {
  if (absl::Status s =
          ValidateEntityFields(request->collection(), request->entity_id());
      !s.ok()) {
    return ToGrpc(s);
  }
  auto page_size = PageSize(request->page_size(), "page_size");
  if (!page_size.ok()) return ToGrpc(page_size.status());
  storage::TrackQuery q;
  q.collection = request->collection();
  q.entity = request->entity_id();
  if (absl::Status s =
          TimeRangeFields(request->start_time_ms(), request->end_time_ms(),
                          &q.start_ms, &q.end_ms);
      !s.ok()) {
    return ToGrpc(s);
  }
  q.limit = static_cast<int>(*page_size);
  q.page_token = request->page_token();
  q.descending = request->descending();
  const double tolerance = request->simplify_tolerance_m();
  if (!std::isfinite(tolerance) || tolerance < 0) {
    return InvalidArgument(absl::StrCat(
        "simplify_tolerance_m must be a finite number of metres >= 0, got ",
        tolerance));
  }
  auto page = store_->GetTrack(q);
  if (!page.ok()) return ToGrpc(page.status());
  for (size_t i : SimplifiedIndices(page->points, tolerance)) {
    ToProtoPoint(page->points[i], false, response->add_points());
  }
  response->set_next_page_token(page->next_page_token);
  return grpc::Status::OK;
}

grpc::Status TrackServiceImpl::GetPositionAt(
    grpc::ServerContext*, const v1::GetPositionAtRequest* request,
    v1::GetPositionAtResponse* response) {
  if (absl::Status s =
          ValidateEntityFields(request->collection(), request->entity_id());
      !s.ok()) {
    return ToGrpc(s);
  }
  if (request->time_ms() == 0) {
    return InvalidArgument("time_ms is required (Unix milliseconds)");
  }
  if (request->max_gap_ms() < 0) {
    return InvalidArgument(absl::StrCat(
        "max_gap_ms must be >= 0 (0: no limit), got ", request->max_gap_ms()));
  }
  storage::PositionAtQuery q;
  q.collection = request->collection();
  q.entity = request->entity_id();
  q.time_ms = request->time_ms();
  q.max_gap_ms = request->max_gap_ms();
  switch (request->method()) {
    case v1::GetPositionAtRequest::INTERPOLATE:
      q.method = storage::PositionAtQuery::Method::kInterpolate;
      break;
    case v1::GetPositionAtRequest::NEAREST:
      q.method = storage::PositionAtQuery::Method::kNearest;
      break;
    default:
      return InvalidArgument(
          absl::StrCat("method ", request->method(),
                       " is not INTERPOLATE (0) or NEAREST (1)"));
  }
  absl::StatusOr<storage::PositionAt> at = storage::GetPositionAt(*store_, q);
  if (!at.ok()) return ToGrpc(at.status());
  response->mutable_position()->set_latitude(at->position.lat);
  response->mutable_position()->set_longitude(at->position.lon);
  if (at->before) ToProtoPoint(*at->before, false, response->mutable_before());
  if (at->after) ToProtoPoint(*at->after, false, response->mutable_after());
  return grpc::Status::OK;
}

grpc::Status TrackServiceImpl::AnalyzeTrack(
    grpc::ServerContext* context, const v1::AnalyzeTrackRequest* request,
    v1::AnalyzeTrackResponse* response) {
  return service::AnalyzeTrack(context, *store_, *request, response);
}

grpc::Status TrackServiceImpl::DeleteEntity(
    grpc::ServerContext*, const v1::DeleteEntityRequest* request,
    v1::DeleteEntityResponse* response) {
  if (absl::Status s =
          ValidateEntityFields(request->collection(), request->entity_id());
      !s.ok()) {
    return ToGrpc(s);
  }
  auto existed =
      store_->DeleteEntity(request->collection(), request->entity_id());
  if (!existed.ok()) return ToGrpc(existed.status());
  response->set_existed(*existed);
  return grpc::Status::OK;
}

grpc::Status TrackServiceImpl::SetRetention(
    grpc::ServerContext*, const v1::SetRetentionRequest* request,
    v1::SetRetentionResponse*) {
  if (absl::Status s = ValidateCollectionField(request->collection());
      !s.ok()) {
    return ToGrpc(s);
  }
  storage::RetentionPolicy policy;
  policy.max_age_ms = request->retention().max_age_ms();
  policy.expire_latest = request->retention().expire_latest();
  policy.max_points = request->retention().max_points();
  // Checked here to name the fields as the request does.
  absl::Status s = model::ValidateRetention(
      policy.max_age_ms, policy.expire_latest, "retention.max_age_ms",
      "retention.expire_latest");
  s.Update(model::ValidateRetentionPoints(policy.max_points,
                                          "retention.max_points"));
  if (!s.ok()) return ToGrpc(s);
  return ToGrpc(store_->retention().Set(request->collection(), policy));
}

grpc::Status TrackServiceImpl::GetRetention(
    grpc::ServerContext*, const v1::GetRetentionRequest* request,
    v1::Retention* response) {
  if (absl::Status s = ValidateCollectionField(request->collection());
      !s.ok()) {
    return ToGrpc(s);
  }
  const storage::RetentionPolicy policy =
      store_->retention().Get(request->collection());
  response->set_max_age_ms(policy.max_age_ms);
  response->set_expire_latest(policy.expire_latest);
  response->set_max_points(policy.max_points);
  return grpc::Status::OK;
}

grpc::Status TrackServiceImpl::SearchBounds(
    grpc::ServerContext* context, const v1::SearchBoundsRequest* request,
    v1::SearchResponse* response) {
  auto rect = BoundsRegion(
      request->has_south_west() ? &request->south_west() : nullptr,
      request->has_north_east() ? &request->north_east() : nullptr, "");
  if (!rect.ok()) return ToGrpc(rect.status());
  return Search(context, request->collection(), *rect, nullptr,
                request->filter(), response);
}

grpc::Status TrackServiceImpl::SearchRadius(
    grpc::ServerContext* context, const v1::SearchRadiusRequest* request,
    v1::SearchResponse* response) {
  auto circle =
      CircleRegionOf(request->has_center() ? &request->center() : nullptr,
                     request->radius_m(), limits_, "");
  if (!circle.ok()) return ToGrpc(circle.status());
  return Search(context, request->collection(), *circle, &*circle,
                request->filter(), response);
}

grpc::Status TrackServiceImpl::SearchPolygon(
    grpc::ServerContext* context, const v1::SearchPolygonRequest* request,
    v1::SearchResponse* response) {
  auto polygon = PolygonRegionOf(request->vertices(), limits_, "");
  if (!polygon.ok()) return ToGrpc(polygon.status());
  return Search(context, request->collection(), *polygon, nullptr,
                request->filter(), response);
}

grpc::Status TrackServiceImpl::Search(grpc::ServerContext* context,
                                      const std::string& collection,
                                      const index::Region& region,
                                      const index::CircleRegion* circle,
                                      const v1::SearchFilter& filter,
                                      v1::SearchResponse* response) {
  // After the region's own fields, which each search checks first.
  uint32_t page_size = 0;
  PageStart start;
  if (grpc::Status s = CheckSearch(collection, filter, &page_size, &start);
      !s.ok()) {
    return s;
  }
  auto collect = [&](const index::Region& where, Hits* hits) {
    return CollectSearchHits(*store_, context, collection, where, circle,
                             filter, hits);
  };
  const bool with_distance = circle != nullptr;
  if (std::optional<index::CircleRegion> inner =
          circle && filter.entity_ids().empty() ? InnerCircle(*circle, start)
                                                : std::nullopt) {
    Hits hits;
    if (grpc::Status s = collect(*inner, &hits); !s.ok()) return s;
    DropEarlierPages(hits, start);
    if (hits.keys.size() > page_size) {
      WritePage(hits, page_size, with_distance, filter.ids_and_positions_only(),
                response);
      return grpc::Status::OK;
    }
  }
  Hits hits;
  if (grpc::Status s = collect(region, &hits); !s.ok()) return s;
  DropEarlierPages(hits, start);
  WritePage(hits, page_size, with_distance, filter.ids_and_positions_only(),
            response);
  return grpc::Status::OK;
}

}  // namespace trackdb::service
