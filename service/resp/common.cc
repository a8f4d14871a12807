#include "service/resp/common.h"


#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace trackdb::resp {

absl::StatusOr<KeyType> TypeOf(storage::TrackStore& store,
                               absl::string_view name, int64_t now_ms) {
  auto s = store.GetString(name, now_ms);
  if (!s.ok()) return s.status();
  if (s->has_value()) return KeyType::kString;
  auto n = store.CollectionSize(name);
  if (!n.ok()) return n.status();
  return *n > 0 ? KeyType::kGeo : KeyType::kNone;
}

const char* TypeName(KeyType t) {
  switch (t) {
    case KeyType::kString:
      return "string";
    case KeyType::kGeo:
      return "zset";
    default:
      return "none";
  }
}

std::string ToLower(absl::string_view s) { return absl::AsciiStrToLower(s); }

bool EqualsIgnoreCase(absl::string_view a, absl::string_view b) {
  return absl::EqualsIgnoreCase(a, b);
}

}  // namespace trackdb::resp
