#ifndef TRACKDB_SERVICE_RESP_PROTOCOL_REQUEST_PARSER_H_
#define TRACKDB_SERVICE_RESP_PROTOCOL_REQUEST_PARSER_H_

// Splits a connection's input into commands, as Redis 7's networking.c does:
// RESP multibulk requests ("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n") and inline ones
// ("GET k\r\n", with Redis's quoting rules, as typed into telnet). Many
// commands may arrive in one read (pipelining) and one command may span
// many reads; the parser keeps the unconsumed tail.
//
// On malformed input it reports Redis's exact protocol error text; the
// server then replies "-ERR <text>" and closes the connection, as Redis does.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace trackdb::resp {

struct ParserLimits {
  int64_t max_bulk_len = 512LL * 1024 * 1024;  // proto-max-bulk-len
  int64_t max_multibulk_len = 1024LL * 1024;   // Redis's INT_MAX; ours lower
  size_t max_inline_len = 64 * 1024;           // PROTO_INLINE_MAX_SIZE
  // Before AUTH, Redis allows only small requests.
  bool authenticated = true;
};

class RequestParser {
 public:
  enum class Result { kCommand, kNeedMore, kError };

  // Appends bytes read from the connection.
  void Feed(absl::string_view bytes) {
    buffer_.append(bytes.data(), bytes.size());
  }

  // Takes the next complete command into `argv` (kCommand), or says more
  // input is needed, or sets `error` to Redis's protocol error text. Empty
  // inline lines and "*0" requests are skipped, as Redis skips them.
  Result Next(const ParserLimits& limits, std::vector<std::string>* argv,
              std::string* error);

  // Bytes received but not yet consumed as commands.
  size_t buffered() const { return buffer_.size() - pos_; }
  // Bytes the parser holds, consumed or not.
  size_t held_bytes() const { return buffer_.capacity(); }

 private:
  // Where the line starting at pos_ ends (its `end` byte), or npos if that
  // is not in the buffer. Redis finds it with strchr over its NUL-terminated
  // buffer, so a NUL before it hides it: such a request stays incomplete
  // (until it outgrows max_inline_len) rather than being an error.
  size_t FindLineEnd(char end) const;
  Result NextInline(const ParserLimits& limits, std::vector<std::string>* argv,
                    std::string* error);
  Result NextMultibulk(const ParserLimits& limits,
                       std::vector<std::string>* argv, std::string* error);
  // NextMultibulk's header lines, "*<count>\r\n" and "$<len>\r\n": each
  // consumes its line and returns nullopt to go on, or returns what Next
  // returns (more input needed, an error, or an empty request).
  std::optional<Result> ReadMultibulkCount(const ParserLimits& limits,
                                           std::vector<std::string>* argv,
                                           std::string* error);
  std::optional<Result> ReadBulkLength(const ParserLimits& limits,
                                       std::string* error);
  void Compact();

  std::string buffer_;
  size_t pos_ = 0;  // start of unconsumed input
  // A multibulk request in progress.
  int64_t multibulk_left_ = 0;
  int64_t bulk_len_ = -1;
  std::vector<std::string> partial_;
};

// Redis's sdssplitargs: splits an inline command line into arguments,
// honouring "double quotes" with \xHH and \n-style escapes and 'single
// quotes'. false on unbalanced quotes.
bool SplitInlineArgs(absl::string_view line, std::vector<std::string>* args);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_PROTOCOL_REQUEST_PARSER_H_
