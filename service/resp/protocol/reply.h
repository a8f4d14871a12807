#ifndef TRACKDB_SERVICE_RESP_PROTOCOL_REPLY_H_
#define TRACKDB_SERVICE_RESP_PROTOCOL_REPLY_H_

// Builds replies in RESP2 or RESP3 (chosen per connection by HELLO), the
// way Redis 7 encodes each kind: in RESP2 a null is "$-1" (or "*-1" for a
// null array), a map is a flat array and a double is a bulk string; RESP3
// has "_", "%" and ",". Replies are appended to one buffer so that a
// pipeline's replies go out in one write.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace trackdb::resp {

class Reply {
 public:
  explicit Reply(std::string* out, int protocol = 2)
      : out_(out), protocol_(protocol) {}

  int protocol() const { return protocol_; }
  // Errors replied so far: Error()s, and Encoded() replies that are one.
  uint64_t errors() const { return errors_; }
  // Bytes in the buffer, and whether the reply that starts at `at` (an
  // earlier size()) is an error.
  size_t size() const { return out_->size(); }
  bool ErrorAt(size_t at) const {
    return out_->size() > at && (*out_)[at] == '-';
  }
  void set_protocol(int p) { protocol_ = p; }

  void Status(absl::string_view s);  // +OK
  void Ok() { Status("OK"); }
  // As Redis's addReplyError: "ERR " is prefixed unless `text` starts with
  // '-' and its own code ("-WRONGTYPE ...", "-NOAUTH ...").
  void Error(absl::string_view text);
  void Integer(int64_t v);
  void Bulk(absl::string_view s);
  void Null();       // RESP2 "$-1"
  void NullArray();  // RESP2 "*-1"
  void Array(size_t n);
  // An array of status lines: what Redis's HELP subcommands reply.
  void StatusLines(absl::Span<const char* const> lines);
  void Map(size_t pairs);
  void Set(size_t n);
  // A double as Redis's addReplyDouble: "%.17g" (inf as "inf").
  void Double(double v);
  // A double already formatted as `text`: a bulk string in RESP2, a RESP3
  // double ("," text) in RESP3, as Redis's addReplyHumanLongDouble (GEOPOS,
  // WITHCOORD).
  void DoubleText(absl::string_view text);
  // A bulk string in RESP2, a verbatim "txt" string in RESP3 (INFO).
  void Verbatim(absl::string_view s);
  void Bool(bool b);  // RESP2 integer 1/0
  // Replies already encoded (by another Reply of the same protocol); one
  // that starts as an error counts as one.
  void Encoded(absl::string_view replies) {
    if (!replies.empty() && replies[0] == '-') {
      ++errors_;
      NoteErrorKind(replies.substr(1));
    }
    out_->append(replies.data(), replies.size());
  }
  // The same for replies whose errors' kinds were already taken where
  // they were written (a Dispatch into a scratch Reply).
  void EncodedNoted(absl::string_view replies) {
    if (!replies.empty() && replies[0] == '-') ++errors_;
    out_->append(replies.data(), replies.size());
  }
  // The kinds ("ERR", "WRONGTYPE": the word after '-') of the errors
  // replied since the last call, for INFO errorstats.
  std::vector<std::string> TakeErrorKinds() {
    return std::exchange(error_kinds_, {});
  }

  // Drops what was replied after `at` (an earlier size()): CLIENT REPLY
  // OFF and SKIP. The errors among it still count (they happened).
  void Truncate(size_t at) {
    if (at < out_->size()) out_->resize(at);
  }

  // Bytes already in the buffer: lets a command reserve a slot for an array
  // length it learns only later (DeferredArray).
  size_t DeferredArray();
  void SetDeferredArray(size_t slot, size_t n);

 private:
  void Header(char type, int64_t n);
  void NoteErrorKind(absl::string_view line);
  std::string* out_;
  int protocol_;
  uint64_t errors_ = 0;
  std::vector<std::string> error_kinds_;
};

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_PROTOCOL_REPLY_H_
