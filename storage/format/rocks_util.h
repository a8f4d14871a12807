#ifndef TRACKDB_STORAGE_FORMAT_ROCKS_UTIL_H_
#define TRACKDB_STORAGE_FORMAT_ROCKS_UTIL_H_

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"
#include "storage/format/disk_error.h"

namespace trackdb::storage {

// A RocksDB status as an absl::Status; `what` says what trackdb was doing.
// Disk errors are storage/format/disk_error.h's: RESOURCE_EXHAUSTED for a full
// disk, UNAVAILABLE for other I/O errors.
inline absl::Status FromRocks(const rocksdb::Status& s,
                              absl::string_view what) {
  if (s.ok()) return absl::OkStatus();
  if (s.IsNoSpace()) {
    return MarkDiskError(absl::ResourceExhaustedError(
        absl::StrCat(what, ": no space left on device (", s.ToString(), ")")));
  }
  if (s.IsIOError()) {
    return MarkDiskError(absl::UnavailableError(
        absl::StrCat(what, ": disk I/O error (", s.ToString(), ")")));
  }
  return absl::InternalError(absl::StrCat(what, ": ", s.ToString()));
}

// Debian's Abseil has its own string_view type, so Slice::ToStringView()
// does not convert; this does.
inline absl::string_view SliceView(const rocksdb::Slice& s) {
  return absl::string_view(s.data(), s.size());
}

inline rocksdb::Slice ToSlice(absl::string_view s) {
  return rocksdb::Slice(s.data(), s.size());
}

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_FORMAT_ROCKS_UTIL_H_
