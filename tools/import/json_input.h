#ifndef TRACKDB_TOOLS_IMPORT_JSON_INPUT_H_
#define TRACKDB_TOOLS_IMPORT_JSON_INPUT_H_

// JSON values for trackdb_import's NDJSON and GeoJSON readers, parsed by
// rapidjson (json_readers.h says why rapidjson) one value at a time: from a
// line, or from an InputSource, so a GeoJSON FeatureCollection is read a
// feature at a time instead of as one document in memory. Parse errors are
// reworded from rapidjson's codes into "expected ..., got ...", with the
// column of the line or the line of the input.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "rapidjson/document.h"
#include "rapidjson/reader.h"
#include "tools/import/input_source.h"

namespace trackdb::import {

// Holds the last value parsed. Parsing again reuses its memory: rapidjson's
// pool allocator frees nothing until it is cleared, which happens here
// before each parse.
class JsonDocument {
 public:
  // Deeper nesting is an error, not a deep recursion in the parser.
  static constexpr int kMaxDepth = 64;

  JsonDocument();
  JsonDocument(const JsonDocument&) = delete;
  JsonDocument& operator=(const JsonDocument&) = delete;

  // Parses the value at the start of `text` (after whitespace); *end is the
  // offset just after it, where the caller may check for more text.
  // INVALID_ARGUMENT "column N: expected ..., got ...".
  absl::Status ParsePrefix(absl::string_view text, size_t* end);
  // Parses the next value of `in`, which is left just after it.
  // INVALID_ARGUMENT "line N: ...", or `in`'s own error.
  absl::Status ParseNext(InputSource* in);

  // The value last parsed (null after an error). Valid until the next parse.
  const rapidjson::Value& value() const { return doc_; }

 private:
  template <typename Stream>
  rapidjson::ParseResult Parse(Stream& stream);

  std::unique_ptr<char[]> first_chunk_;  // holds the values of most rows
  rapidjson::MemoryPoolAllocator<> pool_;
  rapidjson::Document doc_;
  rapidjson::Reader reader_;
};

// "null", "a boolean", "a number", "a string", "an array" or "an object".
const char* JsonTypeName(const rapidjson::Value& v);

// A value where a string is wanted: strings as they are, integers in
// decimal, other numbers in their shortest exact form (1.50 is "1.5"),
// booleans as true or false. False for null, arrays and objects.
bool JsonAsText(const rapidjson::Value& v, std::string* out);

// The member named `key` of an object, the last if repeated (as the JSON
// RFC's "last one wins" parsers do), or nullptr.
const rapidjson::Value* JsonFind(const rapidjson::Value& object,
                                 absl::string_view key);

inline absl::string_view JsonString(const rapidjson::Value& v) {
  return absl::string_view(v.GetString(), v.GetStringLength());
}

// Compact JSON text, for messages and the reject file.
std::string JsonToString(const rapidjson::Value& v);

// For the structure around values that a reader walks itself (a GeoJSON
// FeatureCollection's members and features array).
void SkipJsonWhitespace(InputSource* in);
// Consumes `c`, after whitespace, if it is next.
bool ConsumeJson(InputSource* in, char c);
// INVALID_ARGUMENT "line N: expected <what>, got <the next byte>", or
// `in`'s own error.
absl::Status JsonExpected(InputSource* in, absl::string_view what);

}  // namespace trackdb::import

#endif  // TRACKDB_TOOLS_IMPORT_JSON_INPUT_H_
