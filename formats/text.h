#ifndef TRACKDB_FORMATS_TEXT_H_
#define TRACKDB_FORMATS_TEXT_H_

// The pieces every export format writes: numbers that read back exactly,
// times as ISO 8601, and names (which may hold any bytes) made safe for
// JSON, XML and CSV.

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace trackdb::formats {

// The shortest decimal that reads back as `v` (finite values only).
std::string Number(double v);
// UTC with milliseconds: "2025-11-21T04:40:00.000Z".
std::string IsoTime(int64_t unix_ms);
// `s` as UTF-8: each byte that is not part of a valid sequence becomes
// U+FFFD, so that text formats stay valid whatever a name holds.
std::string ValidUtf8(absl::string_view s);
// A JSON string literal, quotes included.
std::string JsonString(absl::string_view s);
// Text for an XML element or attribute value: escaped, and the characters
// XML 1.0 cannot hold at all (most control characters) as U+FFFD.
std::string XmlText(absl::string_view s);
// A CSV field (RFC 4180): quoted when it holds a comma, quote or newline.
std::string CsvField(absl::string_view s);

}  // namespace trackdb::formats

#endif  // TRACKDB_FORMATS_TEXT_H_
