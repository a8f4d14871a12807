#ifndef TRACKDB_TOOLS_IMPORT_JSON_H_
#define TRACKDB_TOOLS_IMPORT_JSON_H_

// A small JSON (RFC 8259) parser for the NDJSON and GeoJSON inputs of
// trackdb_import. It parses one value at a time from a string or from an
// InputSource, so a GeoJSON FeatureCollection is read a feature at a time
// instead of as one document in memory. Numbers keep their literal text, so
// integer times are exact beyond 2^53.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/import/input_source.h"

namespace trackdb::import {

struct JsonValue {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };

  Type type = Type::kNull;
  bool boolean = false;
  double number = 0;
  std::string text;  // a string's value, or a number's literal text
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> members;  // in order

  // The member named `key` of an object (the last if repeated), or nullptr.
  const JsonValue* Find(absl::string_view key) const;
  // Compact JSON text, for messages and the reject file.
  std::string ToString() const;
};

const char* JsonTypeName(JsonValue::Type type);

class JsonParser {
 public:
  static constexpr int kMaxDepth = 64;

  explicit JsonParser(absl::string_view text);
  explicit JsonParser(InputSource* in);  // `in` must outlive the parser

  // Parses the next value. INVALID_ARGUMENT says where and what was
  // expected.
  absl::Status Parse(JsonValue* out);
  absl::Status ParseString(std::string* out);  // at '"'

  void SkipWhitespace();
  int Peek();  // the next byte, or -1 at the end
  // Consumes `c` (after whitespace) if it is next.
  bool Consume(char c);
  // INVALID_ARGUMENT: "line N: expected <what>, got <next byte>".
  absl::Status Expected(absl::string_view what);
  // The line of the next byte (1-based; lines of the input, or 1 for text).
  int64_t line() const;

 private:
  int Get();
  absl::Status ParseValue(JsonValue* out, int depth);
  absl::Status ParseNumber(JsonValue* out);
  absl::Status ParseLiteral(absl::string_view word);
  absl::Status ReadHex4(uint32_t* out);

  absl::string_view text_;
  size_t pos_ = 0;
  InputSource* in_ = nullptr;
};

}  // namespace trackdb::import

#endif  // TRACKDB_TOOLS_IMPORT_JSON_H_
