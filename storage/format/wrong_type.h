#ifndef TRACKDB_STORAGE_FORMAT_WRONG_TYPE_H_
#define TRACKDB_STORAGE_FORMAT_WRONG_TYPE_H_

// A name holds one type at a time: a string, a GEO key (a collection), or a
// hash, set, sorted set or list (storage/format/typed_values.h). A write
// that would give a name a second type is refused with this status, which
// the RESP door answers with Redis's own WRONGTYPE error and the gRPC door
// as FAILED_PRECONDITION.

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace trackdb::storage {

inline constexpr absl::string_view kWrongTypeMessage =
    "WRONGTYPE Operation against a key holding the wrong kind of value";

inline absl::Status WrongTypeError(absl::string_view name,
                                   absl::string_view holds) {
  return absl::FailedPreconditionError(
      absl::StrCat(kWrongTypeMessage, " ('", name, "' holds ", holds, ")"));
}

inline bool IsWrongType(const absl::Status& s) {
  return s.code() == absl::StatusCode::kFailedPrecondition &&
         absl::StartsWith(s.message(), kWrongTypeMessage);
}

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_FORMAT_WRONG_TYPE_H_
