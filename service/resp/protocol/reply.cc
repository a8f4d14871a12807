#include "service/resp/protocol/reply.h"

#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"

namespace trackdb::resp {
namespace {

constexpr char kDeferredMarker[] = "*\x00\x00\x00\x00\x00\x00\x00\x00\x00\r\n";
constexpr size_t kDeferredBytes = sizeof(kDeferredMarker) - 1;

}  // namespace

void Reply::Header(char type, int64_t n) {
  out_->push_back(type);
  absl::StrAppend(out_, n, "\r\n");
}

void Reply::Status(absl::string_view s) {
  absl::StrAppend(out_, "+", s, "\r\n");
}

void Reply::NoteErrorKind(absl::string_view line) {
  error_kinds_.emplace_back(line.substr(0, line.find_first_of(" \r\n")));
}

void Reply::Error(absl::string_view text) {
  ++errors_;
  out_->push_back('-');
  if (!text.empty() && text[0] == '-') {
    text.remove_prefix(1);
    NoteErrorKind(text);
  } else {
    out_->append("ERR ");
    error_kinds_.emplace_back("ERR");
  }
  // Redis replaces newlines so that an error stays one line.
  for (char c : text) out_->push_back(c == '\r' || c == '\n' ? ' ' : c);
  out_->append("\r\n");
}

void Reply::Integer(int64_t v) { Header(':', v); }

void Reply::Bulk(absl::string_view s) {
  Header('$', static_cast<int64_t>(s.size()));
  out_->append(s.data(), s.size());
  out_->append("\r\n");
}

void Reply::Null() { out_->append(protocol_ >= 3 ? "_\r\n" : "$-1\r\n"); }
void Reply::NullArray() { out_->append(protocol_ >= 3 ? "_\r\n" : "*-1\r\n"); }
void Reply::Array(size_t n) { Header('*', static_cast<int64_t>(n)); }
void Reply::StatusLines(absl::Span<const char* const> lines) {
  Array(lines.size());
  for (const char* line : lines) Status(line);
}
void Reply::Map(size_t pairs) {
  if (protocol_ >= 3) {
    Header('%', static_cast<int64_t>(pairs));
  } else {
    Header('*', static_cast<int64_t>(2 * pairs));
  }
}
void Reply::Set(size_t n) {
  Header(protocol_ >= 3 ? '~' : '*', static_cast<int64_t>(n));
}

void Reply::Double(double v) {
  char buf[64];
  int len;
  if (std::isinf(v)) {
    len = std::snprintf(buf, sizeof(buf), "%s", v > 0 ? "inf" : "-inf");
  } else {
    len = std::snprintf(buf, sizeof(buf), "%.17g", v);
  }
  if (protocol_ >= 3) {
    absl::StrAppend(out_, ",", absl::string_view(buf, len), "\r\n");
  } else {
    Bulk(absl::string_view(buf, len));
  }
}

void Reply::DoubleText(absl::string_view text) {
  if (protocol_ >= 3) {
    absl::StrAppend(out_, ",", text, "\r\n");
  } else {
    Bulk(text);
  }
}

void Reply::Verbatim(absl::string_view s) {
  if (protocol_ >= 3) {
    Header('=', static_cast<int64_t>(s.size() + 4));
    absl::StrAppend(out_, "txt:", s, "\r\n");
  } else {
    Bulk(s);
  }
}

void Reply::Bool(bool b) {
  if (protocol_ >= 3) {
    out_->append(b ? "#t\r\n" : "#f\r\n");
  } else {
    Integer(b ? 1 : 0);
  }
}

size_t Reply::DeferredArray() {
  const size_t slot = out_->size();
  out_->append(kDeferredMarker, kDeferredBytes);
  return slot;
}

void Reply::SetDeferredArray(size_t slot, size_t n) {
  const std::string header = absl::StrCat("*", n, "\r\n");
  out_->replace(slot, kDeferredBytes, header);
}

}  // namespace trackdb::resp
