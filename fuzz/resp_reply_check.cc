#include "fuzz/resp_reply_check.h"

#include <cstdint>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace trackdb::fuzz {
namespace {

// Deeper nesting than any command replies with means a runaway header.
constexpr int kMaxDepth = 16;

class ReplyReader {
 public:
  explicit ReplyReader(absl::string_view in) : in_(in) {}

  bool AtEnd() const { return pos_ == in_.size(); }

  bool Reply(int depth, std::string* why) {
    if (depth > kMaxDepth) return Fail("nested too deep", why);
    if (AtEnd()) return Fail("a reply is missing", why);
    const char type = in_[pos_++];
    absl::string_view line;
    if (!Line(&line)) return Fail("a header line without CRLF", why);
    switch (type) {
      case '+':
      case '-':
        return true;  // Line() already refused CR and LF inside
      case ':':
      case '(':
        return IsInteger(line) || Fail(absl::StrCat("integer ", line), why);
      case ',':
        return !line.empty() || Fail("an empty double", why);
      case '#':
        return line == "t" || line == "f" || Fail("a bad boolean", why);
      case '_':
        return line.empty() || Fail("text after a null", why);
      case '$':
      case '=':
      case '!':
        return Bulk(line, why);
      case '*':
      case '~':
      case '>':
      case '%':
        return Aggregate(type, line, depth, why);
      default:
        return Fail(
            absl::StrCat("unknown reply type '", std::string(1, type), "'"),
            why);
    }
  }

 private:
  bool Fail(const std::string& what, std::string* why) {
    *why = absl::StrCat(what, " at byte ", pos_);
    return false;
  }

  // The rest of a header line; CR or LF inside it is malformed.
  bool Line(absl::string_view* line) {
    const size_t end = in_.find("\r\n", pos_);
    if (end == absl::string_view::npos) return false;
    *line = in_.substr(pos_, end - pos_);
    pos_ = end + 2;
    return line->find_first_of("\r\n") == absl::string_view::npos;
  }

  static bool IsInteger(absl::string_view s) {
    int64_t v;
    return absl::SimpleAtoi(s, &v) && !s.empty() && s[0] != '+';
  }

  bool Bulk(absl::string_view line, std::string* why) {
    int64_t n;
    if (!absl::SimpleAtoi(line, &n)) return Fail("a bad bulk length", why);
    if (n == -1) return true;  // RESP2's null
    if (n < 0 || static_cast<uint64_t>(n) + 2 > in_.size() - pos_ ||
        in_.substr(pos_ + n, 2) != "\r\n") {
      return Fail(absl::StrCat("a bulk of ", n, " bytes overruns"), why);
    }
    pos_ += n + 2;
    return true;
  }

  bool Aggregate(char type, absl::string_view line, int depth,
                 std::string* why) {
    int64_t n;
    if (!absl::SimpleAtoi(line, &n)) return Fail("a bad aggregate length", why);
    if (n == -1 && type == '*') return true;  // RESP2's null array
    if (n < 0) return Fail("a negative aggregate length", why);
    const int64_t items = type == '%' ? 2 * n : n;
    for (int64_t i = 0; i < items; ++i) {
      if (!Reply(depth + 1, why)) return false;
    }
    return true;
  }

  absl::string_view in_;
  size_t pos_ = 0;
};

}  // namespace

int CountReplies(absl::string_view bytes, std::string* why) {
  ReplyReader reader(bytes);
  int n = 0;
  while (!reader.AtEnd()) {
    if (!reader.Reply(0, why)) return -1;
    ++n;
  }
  return n;
}

}  // namespace trackdb::fuzz
