#ifndef TRACKDB_STORAGE_FORMAT_DISK_ERROR_H_
#define TRACKDB_STORAGE_FORMAT_DISK_ERROR_H_

// Storage's errors from the disk: RocksDB could not write (or read) its
// files. A full disk is RESOURCE_EXHAUSTED, any other I/O error
// UNAVAILABLE; both carry a payload so that a door can tell them from
// other errors with those codes (e.g. a COPY too large for one batch) and
// answer as Redis answers its own disk errors. Once RocksDB has hit one in
// the background it refuses every write with it until it recovers (see
// storage/engine/store_events.h), while reads keep working.

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace trackdb::storage {

inline constexpr char kDiskErrorPayload[] = "trackdb/storage.disk_error";

inline absl::Status MarkDiskError(absl::Status s) {
  s.SetPayload(kDiskErrorPayload, absl::Cord("1"));
  return s;
}

inline bool IsDiskError(const absl::Status& s) {
  return s.GetPayload(kDiskErrorPayload).has_value();
}

// A write refused at once because RocksDB has stopped writes until its
// flushes or compactions catch up (a write stall), instead of blocking
// until then: RESOURCE_EXHAUSTED, marked so that a door can answer as it
// answers a busy server.
inline constexpr char kWriteStallPayload[] = "trackdb/storage.write_stall";

inline absl::Status WriteStallError(absl::string_view what) {
  absl::Status s = absl::ResourceExhaustedError(absl::StrCat(
      what,
      ": writes are stopped until RocksDB's flushes and compactions "
      "catch up (a write stall); retry later"));
  s.SetPayload(kWriteStallPayload, absl::Cord("1"));
  return s;
}

inline bool IsWriteStall(const absl::Status& s) {
  return s.GetPayload(kWriteStallPayload).has_value();
}

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_FORMAT_DISK_ERROR_H_
