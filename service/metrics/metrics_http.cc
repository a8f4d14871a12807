#include "service/metrics/metrics_http.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>


#include "absl/strings/str_cat.h"

namespace trackdb::metrics {
namespace {

constexpr size_t kMaxRequestBytes = 8192;
// Under a probe's usual 1 s timeout: a client that sends nothing delays
// the next one this long at most.
constexpr int kReadTimeoutMs = 500;
// A client that does not read its answer is left after this.
constexpr int kSendTimeoutMs = 2000;

}  // namespace

absl::StatusOr<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(
    const std::string& address, int port, HttpHandler handler) {
  absl::StatusOr<http::Listener> listener = http::Listen(
      address, port, "server.metrics_bind_address", "metrics");
  if (!listener.ok()) return listener.status();
  return std::unique_ptr<MetricsHttpServer>(new MetricsHttpServer(
      listener->fd, listener->port, std::move(handler)));
}

MetricsHttpServer::MetricsHttpServer(int fd, int port, HttpHandler handler)
    : listen_fd_(fd), port_(port), handler_(std::move(handler)) {
  thread_ = std::thread([this] { Serve(); });
}

MetricsHttpServer::~MetricsHttpServer() {
  stop_ = true;
  thread_.join();
  close(listen_fd_);
}

void MetricsHttpServer::Serve() {
  while (!stop_.load()) {
    // Wakes every 100 ms to see whether to stop.
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    const int connection = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection < 0) {
      // Out of descriptors, say: not a busy loop while it lasts.
      poll(nullptr, 0, 10);
      continue;
    }
    timeval send_timeout{kSendTimeoutMs / 1000, 0};
    setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &send_timeout,
               sizeof send_timeout);
    Answer(connection);
    close(connection);
  }
}

void MetricsHttpServer::Answer(int connection) {
  const std::string head =
      http::ReadRequestHead(connection, kReadTimeoutMs, kMaxRequestBytes);
  if (head.empty()) return;
  absl::StatusOr<http::HttpRequest> request = http::ParseRequest(head);
  HttpAnswer answer;
  std::string method = "GET";
  if (!request.ok()) {
    answer = {400, "text/plain; charset=utf-8",
              std::string(request.status().message()) + "\n"};
  } else if (request->method != "GET" && request->method != "HEAD") {
    answer = {405, "text/plain; charset=utf-8",
              "only GET and HEAD are served\n"};
  } else {
    method = request->method;
    answer = handler_(request->path);
  }
  http::WriteAll(connection, http::HttpResponse(answer, method),
                 kSendTimeoutMs);
}

}  // namespace trackdb::metrics
