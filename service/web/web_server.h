#ifndef TRACKDB_SERVICE_WEB_WEB_SERVER_H_
#define TRACKDB_SERVICE_WEB_WEB_SERVER_H_

// The map page's HTTP server: GET and HEAD, one request per connection,
// a thread per connection, at most kMaxConnections at once (more are
// answered 503 at once). An answer is either whole or a stream of
// server-sent events that runs until the client leaves or the server
// stops. A client that sends no head within 5 s, or does not take an
// answer within 10 s, is closed.

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "service/http/http_io.h"

namespace trackdb::web {

// Where a streamed answer goes.
class EventStream {
 public:
  virtual ~EventStream() = default;
  // Sends `data` now; false once the client is gone or the server stops.
  virtual bool Send(absl::string_view data) = 0;
  // The server is stopping: the stream should end.
  virtual bool stopping() const = 0;
};

struct WebAnswer {
  http::HttpAnswer answer;
  // Set: after answer's status line and headers (no length), this runs
  // with the connection until it returns.
  std::function<void(EventStream&)> stream;
};

using WebHandler = std::function<WebAnswer(const http::HttpRequest&)>;

class WebServer {
 public:
  static constexpr int kMaxConnections = 64;

  // Listens on address:port (0: a free one) and serves `handler`, called
  // on each connection's thread.
  static absl::StatusOr<std::unique_ptr<WebServer>> Start(
      const std::string& address, int port, WebHandler handler);
  // Stops: ends open streams, closes connections, joins every thread.
  ~WebServer();

  int port() const { return port_; }
  // Connections being served now.
  int connections() const;

 private:
  WebServer(int fd, int port, WebHandler handler);
  void Accept();
  void Answer(int connection);

  // Shared with each connection's thread, which may still be unlocking
  // `mu` when the server is gone.
  struct Connections {
    mutable absl::Mutex mu;
    std::set<int> open ABSL_GUARDED_BY(mu);  // being served
  };

  const int listen_fd_;
  const int port_;
  const WebHandler handler_;
  std::atomic<bool> stop_{false};
  const std::shared_ptr<Connections> connections_ =
      std::make_shared<Connections>();
  std::thread accept_thread_;
};

}  // namespace trackdb::web

#endif  // TRACKDB_SERVICE_WEB_WEB_SERVER_H_
