#include "service/events/fence_event_proto.h"

#include <string>

#include "service/grpc/point_convert.h"

namespace trackdb::service {

void ToProtoEvent(absl::string_view collection,
                  const storage::FenceEventRecord& in, v1::FenceEvent* out) {
  out->set_offset(in.offset);
  out->set_collection(std::string(collection));
  out->set_fence(in.fence);
  out->set_kind(in.kind);
  ToProtoPoint(in.point, /*ids_and_positions_only=*/false,
               out->mutable_point());
  out->set_late(in.late);
  out->set_dwell_ms(in.dwell_ms);
  out->set_nearby(in.nearby);
  out->set_nearby_distance_m(in.nearby_distance_m);
}

}  // namespace trackdb::service
