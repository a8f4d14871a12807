#ifndef TRACKDB_STORAGE_FENCE_CODEC_H_
#define TRACKDB_STORAGE_FENCE_CODEC_H_

// Values of the fences column family (keys: storage/format/keys.h).
//
// A fence state (fence/detector.h EntityFenceState):
//   byte    format version (1)
//   byte    bits: 1 inside, 2 last_inside, 4 dwell_reported
//   int64   stay_start_ms, big-endian two's complement
//   uint32  pending_fixes, varint
//   int64   pending_since_ms, big-endian
//
// An event (the collection and offset are in its key):
//   byte    format version (1)
//   byte    kind (trackdb.v1.FenceEventKind)
//   byte    bits: 1 late, 2 nearby
//   int64   dwell_ms, big-endian
//   int64   logged_ms (server time when logged), big-endian
//   varint32 len, fence name; varint32 len, entity
//   with bit 2: varint32 len, nearby entity (not empty); its distance in
//           metres, an IEEE double's bits, big-endian
//   the rest: the point, EncodePointValue (storage/format/point_codec.h)

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "fence/detector.h"
#include "storage/fence_store.h"

namespace trackdb::storage {

std::string EncodeFenceState(const fence::EntityFenceState& state);
std::optional<fence::EntityFenceState> DecodeFenceState(
    absl::string_view value);

std::string EncodeFenceEvent(const FenceEventRecord& event);
// Fills everything but offset and collection; DATA_LOSS on a bad value.
absl::Status DecodeFenceEvent(absl::string_view value, FenceEventRecord* out);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_FENCE_CODEC_H_
