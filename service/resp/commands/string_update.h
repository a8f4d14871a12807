#ifndef TRACKDB_SERVICE_RESP_COMMANDS_STRING_UPDATE_H_
#define TRACKDB_SERVICE_RESP_COMMANDS_STRING_UPDATE_H_

// Atomic read-modify-writes of string keys, for the key and string command
// families.
//
// Every command that changes a string reads and writes it inside ONE
// TrackStore::UpdateStrings call (UpdateStringsFor below), so a command is
// atomic against every other string command, as in Redis. A key whose
// string is absent may still hold another type; commands find out with
// HoldsNonString (key_type.h) while they hold the string's lock.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "service/resp/dispatch/command.h"
#include "storage/format/kv_codec.h"

namespace trackdb::resp {

using storage::StringValue;
using StringSlots = std::vector<std::optional<StringValue>>;

// Runs `decide` inside one TrackStore::UpdateStrings over `names`: it gets
// their current values and may change them; returning true writes the
// changes (all in one batch), false writes nothing. A storage error, or an
// error `decide` returns, is replied as an internal error and false is
// returned; otherwise true (whether or not anything was written). `decide`
// must not write to ctx.reply: the caller replies once this returns true.
using DecideFn = std::function<absl::StatusOr<bool>(StringSlots& values)>;
bool UpdateStringsFor(CommandContext& ctx, absl::Span<const std::string> names,
                      int64_t now_ms, const DecideFn& decide);

// A reply decided inside UpdateStringsFor and sent once it has returned
// (so that a storage error can still be the only reply).
class DeferredReply {
 public:
  void Ok() { Set(kStatus, "OK"); }
  void Null() { Set(kNull, ""); }
  void Bulk(std::string s) { Set(kBulk, std::move(s)); }
  void Integer(int64_t v) {
    Set(kInteger, "");
    integer_ = v;
  }
  // As Reply::Error: a leading '-' keeps its own code, else "ERR ".
  void Error(std::string text) { Set(kError, std::move(text)); }
  void Send(Reply& reply) const;

 private:
  enum Kind { kNone, kStatus, kNull, kBulk, kInteger, kError };
  void Set(Kind kind, std::string text) {
    kind_ = kind;
    text_ = std::move(text);
  }
  Kind kind_ = kNone;
  std::string text_;
  int64_t integer_ = 0;
};

// For a name whose string is absent, inside UpdateStringsFor: whether it
// holds another type (a typed value or a GEO key), in which case `answer`
// becomes Redis's WRONGTYPE error.
absl::StatusOr<bool> AnswerWrongTypeIfGeo(storage::TrackStore& store,
                                          absl::string_view name,
                                          DeferredReply& answer);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_COMMANDS_STRING_UPDATE_H_
