#include "service/resp/protocol/request_parser.h"

#include <cstdint>
#include <cstring>

namespace trackdb::resp {
namespace {

// Redis's string2ll: an optional '-', digits, no '+', no spaces, no leading
// zeros (except "0" itself).
// Read digit by digit: every request's headers pass here, and a general
// parser's checks for signs and spaces cost more than the digits.
bool ParseLength(absl::string_view s, int64_t* out) {
  if (s == "0") {
    *out = 0;
    return true;
  }
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  if (s.empty() || s.size() > 19 || s[0] < '1' || s[0] > '9') return false;
  uint64_t value = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<uint64_t>(c - '0');  // 19 digits fit
  }
  const uint64_t limit = static_cast<uint64_t>(INT64_MAX) + (negative ? 1 : 0);
  if (value > limit) return false;
  *out =
      negative ? static_cast<int64_t>(0 - value) : static_cast<int64_t>(value);
  return true;
}

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

bool IsSpace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' ||
         c == '\f';
}

// The character a backslash escape inside "double quotes" stands for:
// \n, \r, \t, \b, \a, and any other character for itself.
char Unescape(char c) {
  switch (c) {
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    case 'b':
      return '\b';
    case 'a':
      return '\a';
    default:
      return c;
  }
}

// Where the argument being read stands: outside quotes, or inside "double"
// or 'single' ones.
enum class ArgQuote { kNone, kDouble, kSingle };

// What one character did to the argument being read: it goes on, it ended
// there, or the line is malformed.
enum class ArgStep { kMore, kEnd, kBad };

// line[p] inside "double quotes": a \xHH escape (p moves to its last
// digit), another backslash escape (p moves to the escaped character), the
// closing quote, or itself.
ArgStep DoubleQuotedStep(absl::string_view line, size_t* p,
                         std::string* current) {
  const size_t n = line.size();
  const size_t i = *p;
  if (i >= n) return ArgStep::kBad;
  if (line[i] == '\\' && i + 3 < n && line[i + 1] == 'x' &&
      IsHexDigit(line[i + 2]) && IsHexDigit(line[i + 3])) {
    current->push_back(
        static_cast<char>(HexValue(line[i + 2]) * 16 + HexValue(line[i + 3])));
    *p += 3;
  } else if (line[i] == '\\' && i + 1 < n) {
    ++*p;
    current->push_back(Unescape(line[*p]));
  } else if (line[i] == '"') {
    // A closing quote must be followed by a space or the end.
    if (i + 1 < n && !IsSpace(line[i + 1])) return ArgStep::kBad;
    return ArgStep::kEnd;
  } else {
    current->push_back(line[i]);
  }
  return ArgStep::kMore;
}

// line[p] inside 'single quotes': an escaped quote (p moves to it), the
// closing quote, or itself.
ArgStep SingleQuotedStep(absl::string_view line, size_t* p,
                         std::string* current) {
  const size_t n = line.size();
  const size_t i = *p;
  if (i >= n) return ArgStep::kBad;
  if (line[i] == '\\' && i + 1 < n && line[i + 1] == '\'') {
    ++*p;
    current->push_back('\'');
  } else if (line[i] == '\'') {
    if (i + 1 < n && !IsSpace(line[i + 1])) return ArgStep::kBad;
    return ArgStep::kEnd;
  } else {
    current->push_back(line[i]);
  }
  return ArgStep::kMore;
}

// line[p] outside quotes: the end of the line or a separator ends the
// argument, a quote opens `*quote`, anything else is itself.
ArgStep UnquotedStep(absl::string_view line, size_t p, std::string* current,
                     ArgQuote* quote) {
  if (p >= line.size()) return ArgStep::kEnd;
  switch (line[p]) {
    case ' ':
    case '\n':
    case '\r':
    case '\t':
    case '\0':
      return ArgStep::kEnd;
    case '"':
      *quote = ArgQuote::kDouble;
      break;
    case '\'':
      *quote = ArgQuote::kSingle;
      break;
    default:
      current->push_back(line[p]);
  }
  return ArgStep::kMore;
}

// One argument from line[*p] on, into `current`; `*p` ends past the
// character that ended it. False if the line is malformed.
bool ReadInlineArg(absl::string_view line, size_t* p, std::string* current) {
  const size_t n = line.size();
  ArgQuote quote = ArgQuote::kNone;
  while (true) {
    ArgStep step;
    switch (quote) {
      case ArgQuote::kDouble:
        step = DoubleQuotedStep(line, p, current);
        break;
      case ArgQuote::kSingle:
        step = SingleQuotedStep(line, p, current);
        break;
      default:
        step = UnquotedStep(line, *p, current, &quote);
    }
    if (step == ArgStep::kBad) return false;
    if (*p < n) ++*p;
    if (step == ArgStep::kEnd) return true;
  }
}

}  // namespace

bool SplitInlineArgs(absl::string_view line, std::vector<std::string>* args) {
  args->clear();
  size_t p = 0;
  const size_t n = line.size();
  while (true) {
    while (p < n && IsSpace(line[p])) ++p;
    if (p >= n) return true;
    std::string current;
    if (!ReadInlineArg(line, &p, &current)) return false;
    args->push_back(std::move(current));
  }
}

void RequestParser::Compact() {
  constexpr size_t kKeptBytes = 64 * 1024;
  if (pos_ > 0 && (pos_ == buffer_.size() || pos_ > kKeptBytes)) {
    buffer_.erase(0, pos_);
    pos_ = 0;
  }
  // A large request's buffer goes once it is consumed, as Redis shrinks an
  // idle client's query buffer: otherwise every connection that once sent
  // a 4 MiB argument keeps 4 MiB for as long as it stays open. Not while a
  // bulk argument is arriving: its room was reserved on purpose.
  if (bulk_len_ < 0 && buffer_.capacity() > kKeptBytes &&
      buffer_.capacity() > 4 * buffer_.size()) {
    std::string(buffer_).swap(buffer_);
  }
}

RequestParser::Result RequestParser::Next(const ParserLimits& limits,
                                          std::vector<std::string>* argv,
                                          std::string* error) {
  while (true) {
    Result r;
    if (multibulk_left_ > 0 ||
        (pos_ < buffer_.size() && buffer_[pos_] == '*')) {
      r = NextMultibulk(limits, argv, error);
    } else if (pos_ < buffer_.size()) {
      r = NextInline(limits, argv, error);
    } else {
      r = Result::kNeedMore;
    }
    Compact();
    // An empty request is skipped: look for the next one.
    if (r == Result::kCommand && argv->empty()) continue;
    return r;
  }
}

size_t RequestParser::FindLineEnd(char end) const {
  // Two memchr calls: find_first_of of two bytes tests each byte against
  // each, ~5x the instructions on every line of every request.
  const char* line = buffer_.data() + pos_;
  const void* at = std::memchr(line, end, buffer_.size() - pos_);
  if (at == nullptr) return std::string::npos;
  const size_t length = static_cast<const char*>(at) - line;
  if (std::memchr(line, '\0', length) != nullptr) return std::string::npos;
  return pos_ + length;
}

RequestParser::Result RequestParser::NextInline(const ParserLimits& limits,
                                                std::vector<std::string>* argv,
                                                std::string* error) {
  const size_t newline = FindLineEnd('\n');
  if (newline == std::string::npos) {
    if (buffered() > limits.max_inline_len) {
      *error = "Protocol error: too big inline request";
      return Result::kError;
    }
    return Result::kNeedMore;
  }
  absl::string_view line(buffer_.data() + pos_, newline - pos_);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  pos_ = newline + 1;
  if (!SplitInlineArgs(line, argv)) {
    *error = "Protocol error: unbalanced quotes in request";
    return Result::kError;
  }
  return Result::kCommand;
}

std::optional<RequestParser::Result> RequestParser::ReadMultibulkCount(
    const ParserLimits& limits, std::vector<std::string>* argv,
    std::string* error) {
  const size_t cr = FindLineEnd('\r');
  if (cr == std::string::npos) {
    if (buffered() > limits.max_inline_len) {
      *error = "Protocol error: too big mbulk count string";
      return Result::kError;
    }
    return Result::kNeedMore;
  }
  if (cr + 1 >= buffer_.size()) return Result::kNeedMore;  // want "\n"
  int64_t count = 0;
  if (!ParseLength(absl::string_view(buffer_).substr(pos_ + 1, cr - pos_ - 1),
                   &count) ||
      count > limits.max_multibulk_len) {
    *error = "Protocol error: invalid multibulk length";
    return Result::kError;
  }
  if (!limits.authenticated && count > 10) {
    *error = "Protocol error: unauthenticated multibulk length";
    return Result::kError;
  }
  pos_ = cr + 2;
  if (count <= 0) {
    argv->clear();
    return Result::kCommand;  // empty: skipped by Next
  }
  multibulk_left_ = count;
  partial_.clear();
  partial_.reserve(static_cast<size_t>(std::min<int64_t>(count, 1024)));
  bulk_len_ = -1;
  return std::nullopt;
}

std::optional<RequestParser::Result> RequestParser::ReadBulkLength(
    const ParserLimits& limits, std::string* error) {
  const size_t cr = FindLineEnd('\r');
  if (cr == std::string::npos) {
    if (buffered() > limits.max_inline_len) {
      *error = "Protocol error: too big bulk count string";
      return Result::kError;
    }
    return Result::kNeedMore;
  }
  if (cr + 1 >= buffer_.size()) return Result::kNeedMore;
  if (buffer_[pos_] != '$') {
    *error = std::string("Protocol error: expected '$', got '") +
             buffer_[pos_] + "'";
    return Result::kError;
  }
  int64_t len = 0;
  if (!ParseLength(absl::string_view(buffer_).substr(pos_ + 1, cr - pos_ - 1),
                   &len) ||
      len < 0 || len > limits.max_bulk_len) {
    *error = "Protocol error: invalid bulk length";
    return Result::kError;
  }
  if (!limits.authenticated && len > 16384) {
    *error = "Protocol error: unauthenticated bulk length";
    return Result::kError;
  }
  pos_ = cr + 2;
  bulk_len_ = len;
  return std::nullopt;
}

RequestParser::Result RequestParser::NextMultibulk(
    const ParserLimits& limits, std::vector<std::string>* argv,
    std::string* error) {
  if (multibulk_left_ == 0) {
    if (std::optional<Result> r = ReadMultibulkCount(limits, argv, error)) {
      return *r;
    }
  }
  while (multibulk_left_ > 0) {
    if (bulk_len_ < 0) {
      if (std::optional<Result> r = ReadBulkLength(limits, error)) return *r;
    }
    // The bulk and its "\r\n".
    if (buffered() < static_cast<size_t>(bulk_len_) + 2) {
      buffer_.reserve(pos_ + static_cast<size_t>(bulk_len_) + 2);
      return Result::kNeedMore;
    }
    partial_.emplace_back(buffer_.data() + pos_,
                          static_cast<size_t>(bulk_len_));
    pos_ += static_cast<size_t>(bulk_len_) + 2;
    bulk_len_ = -1;
    --multibulk_left_;
  }
  argv->swap(partial_);
  partial_.clear();
  return Result::kCommand;
}

}  // namespace trackdb::resp
