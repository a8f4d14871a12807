#ifndef TRACKDB_SERVICE_EVENTS_HTTP_POST_H_
#define TRACKDB_SERVICE_EVENTS_HTTP_POST_H_

// A minimal HTTP/1.1 client for webhooks: one POST per connection
// (Connection: close), plain http only.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace trackdb::service {

struct HttpUrl {
  std::string host;
  std::string port;  // "80" unless given
  std::string path;  // "/" unless given
};

// http://host[:port][/path]; INVALID_ARGUMENT saying what is wrong
// otherwise (https included: not served).
absl::StatusOr<HttpUrl> ParseHttpUrl(absl::string_view url);

// POSTs `body` as application/json. OK when the server answers 2xx;
// UNAVAILABLE saying why otherwise (no connection, another status, no
// answer within `timeout` for each of connect, send and receive).
absl::Status HttpPost(const HttpUrl& url, absl::string_view body,
                      absl::Duration timeout);

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_EVENTS_HTTP_POST_H_
