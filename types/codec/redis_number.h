#ifndef TRACKDB_TYPES_CODEC_REDIS_NUMBER_H_
#define TRACKDB_TYPES_CODEC_REDIS_NUMBER_H_

// Redis's number arguments: which strings Redis 7.0 accepts as an integer
// or a float, and how it prints a long double. One parser for floats; its
// entry points differ only where Redis's own functions do, each named for
// the Redis function it mirrors.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace trackdb::types {

// Redis's string2ll: strict decimal, no spaces or '+', fits int64.
bool ParseInt64(absl::string_view s, int64_t* out);

// Redis's parseScanCursorOrReply (SCAN, HSCAN, SSCAN, ZSCAN): strtoul in
// base 10 over the argument (so "+5" and "" are valid, "-1" wraps), no
// leading space, no trailing bytes, no overflow.
bool ParseScanCursor(const std::string& arg, uint64_t* cursor);

// Redis's memtoull (a memory config value, CONFIG SET proto-max-bulk-len):
// decimal digits, possibly none, then a unit: none or "b" (bytes), "k",
// "m", "g" (powers of 1000), "kb", "mb", "gb" (of 1024), any case. False
// if it is not one; a value over 2^63-1 is `*out` = nullopt (out of range).
bool ParseRedisMemory(absl::string_view s, std::optional<int64_t>* out);

// Redis's string2d (getDoubleFromObject): the whole argument is a strtod
// number (decimal, hex "0x10", "inf", "infinity"); no leading space, not
// NaN, no overflow to +-inf and no underflow to 0 (a denormal is fine).
bool ParseRedisDouble(absl::string_view s, double* out);

// Redis's string2ld (getLongDoubleFromObject, INCRBYFLOAT): as
// ParseRedisDouble, in long double precision, and shorter than 5 KiB.
bool ParseRedisLongDouble(absl::string_view s, long double* out);

// A sorted-set score bound's number, as Redis's zslParseRange reads it
// after the optional '(': strtod over the argument as a C string, so it
// stops at a NUL byte, skips leading spaces, reads "" as 0 and an overflow
// as +-inf; only trailing bytes and NaN are refused.
bool ParseZsetScoreBound(absl::string_view s, double* out);

// Redis's ld2string in human mode (INCRBYFLOAT): "%.17Lf" with trailing
// zeros (and a trailing '.') removed.
std::string FormatLongDouble(long double v);

}  // namespace trackdb::types

#endif  // TRACKDB_TYPES_CODEC_REDIS_NUMBER_H_
