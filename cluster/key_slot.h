#ifndef TRACKDB_CLUSTER_KEY_SLOT_H_
#define TRACKDB_CLUSTER_KEY_SLOT_H_

// Redis Cluster's hash slots: a key's slot is CRC16 (XMODEM: polynomial
// 0x1021, initial value 0) of the key modulo 16384, or of its hash tag, the
// bytes between the first '{' and the first '}' after it when there is at
// least one byte between them, so that "{user1}.a" and "{user1}.b" share a
// slot. A GEO key is a trackdb collection: the collection, whole, lives on
// the node that owns its key's slot, so every search stays on one shard.

#include <cstdint>

#include "absl/strings/string_view.h"

namespace trackdb::cluster {

inline constexpr int kSlots = 16384;

// CRC16-XMODEM of `bytes`.
uint16_t Crc16(absl::string_view bytes);

// The part of `key` that decides its slot: its hash tag, else all of it.
absl::string_view HashedPart(absl::string_view key);

// The slot of `key` in [0, kSlots): any bytes, the empty key included.
int KeySlot(absl::string_view key);

}  // namespace trackdb::cluster

#endif  // TRACKDB_CLUSTER_KEY_SLOT_H_
