#include "service/events/fence_json.h"

#include "google/protobuf/stubs/common.h"
#include "google/protobuf/util/json_util.h"
#include "service/events/fence_event_proto.h"

namespace trackdb::resp {
namespace {

std::string JsonText(absl::string_view s) {
  if (google::protobuf::internal::IsStructurallyValidUTF8(s.data(), s.size())) {
    return std::string(s);
  }
  std::string out;
  for (unsigned char c : s) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back(static_cast<char>(0xc0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
    }
  }
  return out;
}

std::string ToJson(const google::protobuf::Message& m) {
  std::string out;
  // Every string in `m` is UTF-8 (JsonText, and fence names are), so the
  // conversion cannot fail.
  (void)google::protobuf::util::MessageToJsonString(
      m, &out, google::protobuf::util::JsonPrintOptions());
  return out;
}

}  // namespace

std::string FenceJson(absl::string_view key, v1::Fence fence) {
  fence.set_collection(JsonText(key));
  return ToJson(fence);
}

std::string FenceEventJson(absl::string_view key,
                           const storage::FenceEventRecord& event) {
  v1::FenceEvent proto;
  service::ToProtoEvent(JsonText(key), event, &proto);
  proto.mutable_point()->set_entity_id(JsonText(event.point.entity));
  proto.set_nearby(JsonText(event.nearby));
  return ToJson(proto);
}

}  // namespace trackdb::resp
