#ifndef TRACKDB_SERVICE_METRICS_METRICS_HTTP_H_
#define TRACKDB_SERVICE_METRICS_METRICS_HTTP_H_

// The metrics port's HTTP server: GET (or HEAD) of a path, answered by a
// handler, one request per connection (Connection: close), one connection
// at a time on one thread. Scrapers and probes send one small request and
// read the answer: a request line and headers of up to 8 KiB, read within
// 0.5 s, or the connection is closed unanswered; an answer the client does
// not take within 2 s is abandoned. So no client holds the port (or
// trackd's stop) for longer than that.

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "service/http/http_io.h"

namespace trackdb::metrics {

using http::HttpAnswer;

// The path without its query ("/metrics" of "/metrics?x=1").
using HttpHandler = std::function<HttpAnswer(absl::string_view path)>;

class MetricsHttpServer {
 public:
  // Listens on address:port (port 0: a free one) and serves `handler`,
  // which is called on the server's thread. UNAVAILABLE naming the address
  // when it cannot listen there.
  static absl::StatusOr<std::unique_ptr<MetricsHttpServer>> Start(
      const std::string& address, int port, HttpHandler handler);
  ~MetricsHttpServer();  // stops and joins the thread

  int port() const { return port_; }

 private:
  MetricsHttpServer(int fd, int port, HttpHandler handler);
  void Serve();
  void Answer(int connection);

  const int listen_fd_;
  const int port_;
  const HttpHandler handler_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace trackdb::metrics

#endif  // TRACKDB_SERVICE_METRICS_METRICS_HTTP_H_
