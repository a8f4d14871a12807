#ifndef TRACKDB_SERVICE_RESP_COMMON_H_
#define TRACKDB_SERVICE_RESP_COMMON_H_

// Helpers shared by command families: Redis's standard error texts, and
// key types.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "service/resp/command.h"

namespace trackdb::resp {

inline constexpr char kWrongTypeError[] =
    "-WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr char kNotIntegerError[] =
    "value is not an integer or out of range";
inline constexpr char kNotFloatError[] = "value is not a valid float";
inline constexpr char kSyntaxError[] = "syntax error";

enum class KeyType { kNone, kString, kGeo };
// What the key `name` holds. A string wins if both exist (a race between
// SET and GEOADD on a new key, documented in the README).
absl::StatusOr<KeyType> TypeOf(storage::TrackStore& store,
                               absl::string_view name, int64_t now_ms);
const char* TypeName(KeyType t);  // Redis's TYPE words: string, zset, none

std::string ToLower(absl::string_view s);
bool EqualsIgnoreCase(absl::string_view a, absl::string_view b);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_COMMON_H_
