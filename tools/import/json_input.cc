#include "tools/import/json_input.h"

#include <cassert>
#include <cmath>
#include <cstdint>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "rapidjson/memorystream.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace trackdb::import {
namespace {

// One value, then stop: a line's trailing text and a FeatureCollection's
// next feature are the caller's to read. Numbers come as their text and are
// converted by NumberToValue: rapidjson 1.1.0's own conversion reads a zero
// significand with an exponent ("0e-35") as a tiny non-zero number.
constexpr unsigned kParseFlags =
    rapidjson::kParseStopWhenDoneFlag | rapidjson::kParseNumbersAsStringsFlag;

// Enough for the values of any ordinary row; more comes in further chunks,
// freed at the next parse.
constexpr size_t kFirstChunkBytes = size_t{16} << 10;

// rapidjson's input stream concept over an InputSource, byte by byte, so
// the source keeps counting lines for messages. '\0' is the end, as
// rapidjson's own streams have it.
class InputSourceStream {
 public:
  using Ch = char;

  explicit InputSourceStream(InputSource* in) : in_(in) {}

  Ch Peek() const {
    const int c = in_->Peek();
    return c < 0 ? '\0' : static_cast<Ch>(c);
  }
  Ch Take() {
    const int c = in_->Get();
    if (c < 0) return '\0';
    ++taken_;
    return static_cast<Ch>(c);
  }
  size_t Tell() const { return taken_; }

  // Only for in-situ parsing, which a stream cannot do.
  Ch* PutBegin() {
    assert(false);
    return nullptr;
  }
  void Put(Ch) { assert(false); }
  void Flush() { assert(false); }
  size_t PutEnd(Ch*) {
    assert(false);
    return 0;
  }

 private:
  InputSource* in_;
  size_t taken_ = 0;
};

// The value of a JSON number's text (already checked by the parser), typed
// as rapidjson types its own: an integer that fits 64 bits is an integer
// (Int/Uint/Int64/Uint64 flags as their range allows), anything else a
// correctly rounded double. False for a double beyond the finite range.
bool NumberToValue(absl::string_view text, rapidjson::Document* doc) {
  if (text.find_first_of(".eE") == absl::string_view::npos) {
    int64_t i = 0;
    if (absl::SimpleAtoi(text, &i)) return doc->Int64(i);
    uint64_t u = 0;
    if (absl::SimpleAtoi(text, &u)) return doc->Uint64(u);
  }
  double d = 0;
  if (!absl::SimpleAtod(text, &d) || std::isinf(d)) return false;
  return doc->Double(d);
}

// Passes a parser's events on to a document, but ends the parse (with
// kParseErrorTermination) below JsonDocument::kMaxDepth levels, so that a
// line of a million '[' is a bad row and not a stack overflow; and
// converts numbers (NumberToValue), ending the parse at one out of range.
class DepthLimit {
 public:
  explicit DepthLimit(rapidjson::Document* doc) : doc_(doc) {}

  // Whether the parse ended at a number beyond a double's range.
  bool number_out_of_range() const { return number_out_of_range_; }

  bool Null() { return doc_->Null(); }
  bool Bool(bool b) { return doc_->Bool(b); }
  bool Int(int i) { return doc_->Int(i); }
  bool Uint(unsigned u) { return doc_->Uint(u); }
  bool Int64(int64_t i) { return doc_->Int64(i); }
  bool Uint64(uint64_t u) { return doc_->Uint64(u); }
  bool Double(double d) { return doc_->Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    if (NumberToValue(absl::string_view(s, n), doc_)) return true;
    number_out_of_range_ = true;
    return false;
  }
  bool String(const char* s, rapidjson::SizeType n, bool copy) {
    return doc_->String(s, n, copy);
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) {
    return doc_->Key(s, n, copy);
  }
  bool StartObject() {
    return ++depth_ <= JsonDocument::kMaxDepth && doc_->StartObject();
  }
  bool EndObject(rapidjson::SizeType members) {
    --depth_;
    return doc_->EndObject(members);
  }
  bool StartArray() {
    return ++depth_ <= JsonDocument::kMaxDepth && doc_->StartArray();
  }
  bool EndArray(rapidjson::SizeType items) {
    --depth_;
    return doc_->EndArray(items);
  }

 private:
  rapidjson::Document* doc_;
  int depth_ = 0;
  bool number_out_of_range_ = false;
};

// A byte for "got ...": printable as itself, else in hex; -1 is `end`.
std::string ByteName(int c, absl::string_view end) {
  if (c < 0) return std::string(end);
  if (c >= 0x20 && c < 0x7f) return absl::StrCat("'", std::string(1, c), "'");
  return absl::StrFormat("byte 0x%02x", c);
}

// What a parse that failed with `code` expected to read instead, for the
// codes that name one; "valid JSON" for the rest.
const char* ExpectedText(rapidjson::ParseErrorCode code) {
  switch (code) {
    case rapidjson::kParseErrorDocumentEmpty:
    case rapidjson::kParseErrorValueInvalid:
      return "a JSON value";
    case rapidjson::kParseErrorObjectMissName:
      return "a member name in quotes";
    case rapidjson::kParseErrorObjectMissColon:
      return "':'";
    case rapidjson::kParseErrorObjectMissCommaOrCurlyBracket:
      return "',' or '}'";
    case rapidjson::kParseErrorArrayMissCommaOrSquareBracket:
      return "',' or ']'";
    case rapidjson::kParseErrorStringUnicodeEscapeInvalidHex:
      return "a hex digit in \\u escape";
    case rapidjson::kParseErrorStringUnicodeSurrogateInvalid:
      return "a low surrogate \\u escape";
    case rapidjson::kParseErrorStringMissQuotationMark:
      return "a closing '\"'";
    case rapidjson::kParseErrorNumberMissFraction:
      return "a digit after '.'";
    case rapidjson::kParseErrorNumberMissExponent:
      return "a digit in the exponent";
    default:
      return "valid JSON";
  }
}

// A parse error in the words of the readers' messages: what was expected
// and what came instead (`at`, -1 for `end`), or what is wrong.
std::string Describe(rapidjson::ParseErrorCode code, int at,
                     absl::string_view end) {
  switch (code) {
    case rapidjson::kParseErrorStringEscapeInvalid:
      // rapidjson's code for both; `at` is the control character, or the
      // backslash or letter of the escape.
      return at >= 0 && at < 0x20 ? "control character in a string (escape it)"
                                  : "bad escape in a string";
    case rapidjson::kParseErrorNumberTooBig:
      return "number out of range";
    case rapidjson::kParseErrorTermination:
      return absl::StrCat("JSON nested deeper than ", JsonDocument::kMaxDepth);
    default:
      return absl::StrCat("expected ", ExpectedText(code), ", got ",
                          ByteName(at, end));
  }
}

}  // namespace

JsonDocument::JsonDocument()
    : first_chunk_(new char[kFirstChunkBytes]),
      pool_(first_chunk_.get(), kFirstChunkBytes),
      doc_(&pool_) {}

template <typename Stream>
rapidjson::ParseResult JsonDocument::Parse(Stream& stream) {
  // The old value goes before the memory it lives in.
  doc_.SetNull();
  pool_.Clear();
  rapidjson::ParseResult result;
  auto generate = [&](rapidjson::Document& doc) {
    DepthLimit handler(&doc);
    result = reader_.Parse<kParseFlags>(stream, handler);
    if (handler.number_out_of_range()) {
      result.Set(rapidjson::kParseErrorNumberTooBig, result.Offset());
    }
    return !result.IsError();
  };
  doc_.Populate(generate);
  return result;
}

absl::Status JsonDocument::ParsePrefix(absl::string_view text, size_t* end) {
  rapidjson::MemoryStream stream(text.data(), text.size());
  const rapidjson::ParseResult result = Parse(stream);
  if (!result.IsError()) {
    *end = stream.Tell();
    return absl::OkStatus();
  }
  const size_t at = result.Offset();
  const int byte = at < text.size() ? static_cast<uint8_t>(text[at]) : -1;
  return absl::InvalidArgumentError(
      absl::StrCat("column ", at + 1, ": ",
                   Describe(result.Code(), byte, "the end of the text")));
}

absl::Status JsonDocument::ParseNext(InputSource* in) {
  InputSourceStream stream(in);
  const rapidjson::ParseResult result = Parse(stream);
  if (!result.IsError()) return absl::OkStatus();
  if (!in->status().ok()) return in->status();
  // The parser stops at the byte it could not take.
  return absl::InvalidArgumentError(absl::StrCat(
      "line ", in->next_byte_line(), ": ",
      Describe(result.Code(), in->Peek(), "the end of the input")));
}

const char* JsonTypeName(const rapidjson::Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "a boolean";
    case rapidjson::kNumberType:
      return "a number";
    case rapidjson::kStringType:
      return "a string";
    case rapidjson::kArrayType:
      return "an array";
    case rapidjson::kObjectType:
      return "an object";
  }
  return "?";
}

bool JsonAsText(const rapidjson::Value& v, std::string* out) {
  if (v.IsString()) {
    out->assign(v.GetString(), v.GetStringLength());
  } else if (v.IsBool()) {
    *out = v.GetBool() ? "true" : "false";
  } else if (v.IsInt64()) {
    *out = absl::StrCat(v.GetInt64());
  } else if (v.IsUint64()) {
    *out = absl::StrCat(v.GetUint64());
  } else if (v.IsNumber()) {
    *out = JsonToString(v);
  } else {
    return false;
  }
  return true;
}

const rapidjson::Value* JsonFind(const rapidjson::Value& object,
                                 absl::string_view key) {
  if (!object.IsObject()) return nullptr;
  for (auto it = object.MemberEnd(); it != object.MemberBegin();) {
    --it;
    if (JsonString(it->name) == key) return &it->value;
  }
  return nullptr;
}

std::string JsonToString(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

void SkipJsonWhitespace(InputSource* in) {
  for (int c = in->Peek(); c == ' ' || c == '\t' || c == '\n' || c == '\r';
       c = in->Peek()) {
    in->Get();
  }
}

bool ConsumeJson(InputSource* in, char c) {
  SkipJsonWhitespace(in);
  if (in->Peek() != static_cast<uint8_t>(c)) return false;
  in->Get();
  return true;
}

absl::Status JsonExpected(InputSource* in, absl::string_view what) {
  if (!in->status().ok()) return in->status();
  return absl::InvalidArgumentError(
      absl::StrCat("line ", in->next_byte_line(), ": expected ", what, ", got ",
                   ByteName(in->Peek(), "the end of the input")));
}

}  // namespace trackdb::import
