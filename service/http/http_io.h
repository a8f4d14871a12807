#ifndef TRACKDB_SERVICE_HTTP_HTTP_IO_H_
#define TRACKDB_SERVICE_HTTP_HTTP_IO_H_

// HTTP/1.1 as trackd's own small servers speak it (the metrics port, the
// map page): a request's head read within a time and size, its line,
// query and headers parsed, and an answer written whole, one request per
// connection (Connection: close).

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace trackdb::http {

struct HttpAnswer {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  // More header lines, each ending in "\r\n" ("Cache-Control: no-cache\r\n").
  std::string headers;
};

struct HttpRequest {
  std::string method;                         // "GET"
  std::string path;                           // decoded, without the query
  std::map<std::string, std::string> query;   // decoded names and values
  std::map<std::string, std::string> header;  // names in lower case
};

struct Listener {
  int fd;    // listening, close-on-exec
  int port;  // the one asked, or the one given for port 0
};
// A TCP socket listening on address:port (an IPv4 address or
// "localhost"). INVALID_ARGUMENT naming `address_field` for an address
// that is not one; UNAVAILABLE "cannot serve <what> on ..." when it cannot
// listen there.
absl::StatusOr<Listener> Listen(const std::string& address, int port,
                                absl::string_view address_field,
                                absl::string_view what);

// The head (up to the blank line) read from `fd` within `timeout_ms`, or
// empty when the client sent none in that time or more than `max_bytes`.
std::string ReadRequestHead(int fd, int timeout_ms, size_t max_bytes);

// The request `head` names. INVALID_ARGUMENT saying why for one that is
// not HTTP (its line, or a %-escape that is not one).
absl::StatusOr<HttpRequest> ParseRequest(absl::string_view head);

// "%41b+c" -> "Ab c" (+ only with plus_is_space); INVALID_ARGUMENT for
// a bad escape.
absl::StatusOr<std::string> PercentDecode(absl::string_view text,
                                          bool plus_is_space);

// Sends all of `data`, giving up `timeout_ms` after it began. Whether it
// was all sent.
bool WriteAll(int fd, absl::string_view data, int timeout_ms);

// The status line, headers and (but for HEAD) body of `answer`.
std::string HttpResponse(const HttpAnswer& answer, absl::string_view method);
// "OK", "Not Found", ...
const char* ReasonPhrase(int status);

}  // namespace trackdb::http

#endif  // TRACKDB_SERVICE_HTTP_HTTP_IO_H_
