#include "tools/import/json.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace trackdb::import {
namespace {

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

void AppendQuoted(absl::string_view s, std::string* out) {
  out->push_back('"');
  for (char c : s) {
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (static_cast<uint8_t>(c) < 0x20) {
          absl::StrAppendFormat(out, "\\u%04x", c);
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

void AppendJson(const JsonValue& v, std::string* out) {
  switch (v.type) {
    case JsonValue::Type::kNull:
      out->append("null");
      return;
    case JsonValue::Type::kBool:
      out->append(v.boolean ? "true" : "false");
      return;
    case JsonValue::Type::kNumber:
      out->append(v.text);
      return;
    case JsonValue::Type::kString:
      AppendQuoted(v.text, out);
      return;
    case JsonValue::Type::kArray:
      out->push_back('[');
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i > 0) out->push_back(',');
        AppendJson(v.items[i], out);
      }
      out->push_back(']');
      return;
    case JsonValue::Type::kObject:
      out->push_back('{');
      for (size_t i = 0; i < v.members.size(); ++i) {
        if (i > 0) out->push_back(',');
        AppendQuoted(v.members[i].first, out);
        out->push_back(':');
        AppendJson(v.members[i].second, out);
      }
      out->push_back('}');
      return;
  }
}

bool IsDigit(int c) { return c >= '0' && c <= '9'; }

}  // namespace

const char* JsonTypeName(JsonValue::Type type) {
  switch (type) {
    case JsonValue::Type::kNull:
      return "null";
    case JsonValue::Type::kBool:
      return "a boolean";
    case JsonValue::Type::kNumber:
      return "a number";
    case JsonValue::Type::kString:
      return "a string";
    case JsonValue::Type::kArray:
      return "an array";
    case JsonValue::Type::kObject:
      return "an object";
  }
  return "?";
}

const JsonValue* JsonValue::Find(absl::string_view key) const {
  for (auto it = members.rbegin(); it != members.rend(); ++it) {
    if (it->first == key) return &it->second;
  }
  return nullptr;
}

std::string JsonValue::ToString() const {
  std::string out;
  AppendJson(*this, &out);
  return out;
}

JsonParser::JsonParser(absl::string_view text) : text_(text) {}
JsonParser::JsonParser(InputSource* in) : in_(in) {}

int JsonParser::Peek() {
  if (in_ != nullptr) return in_->Peek();
  return pos_ < text_.size() ? static_cast<uint8_t>(text_[pos_]) : -1;
}

int JsonParser::Get() {
  if (in_ != nullptr) return in_->Get();
  return pos_ < text_.size() ? static_cast<uint8_t>(text_[pos_++]) : -1;
}

int64_t JsonParser::line() const {
  return in_ == nullptr ? 1 : in_->next_byte_line();
}

void JsonParser::SkipWhitespace() {
  for (int c = Peek(); c == ' ' || c == '\t' || c == '\n' || c == '\r';
       c = Peek()) {
    Get();
  }
}

bool JsonParser::Consume(char c) {
  SkipWhitespace();
  if (Peek() != static_cast<uint8_t>(c)) return false;
  Get();
  return true;
}

absl::Status JsonParser::Expected(absl::string_view what) {
  if (in_ != nullptr && !in_->status().ok()) return in_->status();
  const int c = Peek();
  std::string got =
      c < 0 ? "the end of the input"
            : (c >= 0x20 && c < 0x7f ? absl::StrCat("'", std::string(1, c), "'")
                                     : absl::StrFormat("byte 0x%02x", c));
  return absl::InvalidArgumentError(
      absl::StrCat("line ", line(), ": expected ", what, ", got ", got));
}

absl::Status JsonParser::Parse(JsonValue* out) { return ParseValue(out, 0); }

absl::Status JsonParser::ParseValue(JsonValue* out, int depth) {
  if (depth > kMaxDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat("line ", line(), ": JSON nested deeper than ", kMaxDepth));
  }
  SkipWhitespace();
  *out = JsonValue();
  const int c = Peek();
  switch (c) {
    case '{': {
      Get();
      out->type = JsonValue::Type::kObject;
      if (Consume('}')) return absl::OkStatus();
      do {
        SkipWhitespace();
        if (Peek() != '"') return Expected("a member name in quotes");
        std::string key;
        if (absl::Status s = ParseString(&key); !s.ok()) return s;
        if (!Consume(':')) return Expected("':'");
        out->members.emplace_back(std::move(key), JsonValue());
        if (absl::Status s = ParseValue(&out->members.back().second, depth + 1);
            !s.ok()) {
          return s;
        }
      } while (Consume(','));
      if (!Consume('}')) return Expected("',' or '}'");
      return absl::OkStatus();
    }
    case '[': {
      Get();
      out->type = JsonValue::Type::kArray;
      if (Consume(']')) return absl::OkStatus();
      do {
        out->items.emplace_back();
        if (absl::Status s = ParseValue(&out->items.back(), depth + 1);
            !s.ok()) {
          return s;
        }
      } while (Consume(','));
      if (!Consume(']')) return Expected("',' or ']'");
      return absl::OkStatus();
    }
    case '"':
      out->type = JsonValue::Type::kString;
      return ParseString(&out->text);
    case 't':
      out->type = JsonValue::Type::kBool;
      out->boolean = true;
      return ParseLiteral("true");
    case 'f':
      out->type = JsonValue::Type::kBool;
      return ParseLiteral("false");
    case 'n':
      return ParseLiteral("null");
    default:
      if (c == '-' || IsDigit(c)) return ParseNumber(out);
      return Expected("a JSON value");
  }
}

absl::Status JsonParser::ParseLiteral(absl::string_view word) {
  for (char w : word) {
    if (Peek() != static_cast<uint8_t>(w)) {
      return Expected(absl::StrCat("'", word, "'"));
    }
    Get();
  }
  return absl::OkStatus();
}

absl::Status JsonParser::ParseNumber(JsonValue* out) {
  out->type = JsonValue::Type::kNumber;
  std::string& t = out->text;
  if (Peek() == '-') t.push_back(static_cast<char>(Get()));
  if (Peek() == '0') {
    t.push_back(static_cast<char>(Get()));
  } else if (IsDigit(Peek())) {
    while (IsDigit(Peek())) t.push_back(static_cast<char>(Get()));
  } else {
    return Expected("a digit");
  }
  if (Peek() == '.') {
    t.push_back(static_cast<char>(Get()));
    if (!IsDigit(Peek())) return Expected("a digit after '.'");
    while (IsDigit(Peek())) t.push_back(static_cast<char>(Get()));
  }
  if (Peek() == 'e' || Peek() == 'E') {
    t.push_back(static_cast<char>(Get()));
    if (Peek() == '+' || Peek() == '-') t.push_back(static_cast<char>(Get()));
    if (!IsDigit(Peek())) return Expected("a digit in the exponent");
    while (IsDigit(Peek())) t.push_back(static_cast<char>(Get()));
  }
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), out->number);
  if (ec != std::errc() || !std::isfinite(out->number)) {
    return absl::InvalidArgumentError(
        absl::StrCat("line ", line(), ": number ", t, " is out of range"));
  }
  return absl::OkStatus();
}

absl::Status JsonParser::ReadHex4(uint32_t* out) {
  *out = 0;
  for (int i = 0; i < 4; ++i) {
    const int c = Peek();
    uint32_t digit;
    if (IsDigit(c)) {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return Expected("a hex digit in \\u escape");
    }
    Get();
    *out = *out * 16 + digit;
  }
  return absl::OkStatus();
}

absl::Status JsonParser::ParseString(std::string* out) {
  out->clear();
  if (Get() != '"') return Expected("'\"'");
  while (true) {
    const int c = Get();
    if (c < 0) return Expected("a closing '\"'");
    if (c == '"') return absl::OkStatus();
    if (c < 0x20) {
      return absl::InvalidArgumentError(absl::StrCat(
          "line ", line(), ": control character in a string (escape it)"));
    }
    if (c != '\\') {
      out->push_back(static_cast<char>(c));
      continue;
    }
    const int e = Get();
    switch (e) {
      case '"':
      case '\\':
      case '/':
        out->push_back(static_cast<char>(e));
        break;
      case 'b':
        out->push_back('\b');
        break;
      case 'f':
        out->push_back('\f');
        break;
      case 'n':
        out->push_back('\n');
        break;
      case 'r':
        out->push_back('\r');
        break;
      case 't':
        out->push_back('\t');
        break;
      case 'u': {
        uint32_t cp;
        if (absl::Status s = ReadHex4(&cp); !s.ok()) return s;
        if (cp >= 0xd800 && cp < 0xdc00) {
          // A high surrogate must be followed by a low one.
          uint32_t low;
          if (Get() != '\\' || Get() != 'u') {
            return Expected("a low surrogate \\u escape");
          }
          if (absl::Status s = ReadHex4(&low); !s.ok()) return s;
          if (low < 0xdc00 || low > 0xdfff) {
            return Expected("a low surrogate \\u escape");
          }
          cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        } else if (cp >= 0xdc00 && cp <= 0xdfff) {
          return absl::InvalidArgumentError(
              absl::StrCat("line ", line(), ": lone low surrogate"));
        }
        AppendUtf8(cp, out);
        break;
      }
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("line ", line(), ": bad escape in a string"));
    }
  }
}

}  // namespace trackdb::import
