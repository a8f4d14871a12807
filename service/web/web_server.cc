#include "service/web/web_server.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <utility>

#include "absl/strings/str_cat.h"

namespace trackdb::web {
namespace {

constexpr size_t kMaxRequestBytes = 8192;
constexpr int kReadTimeoutMs = 5000;
constexpr int kSendTimeoutMs = 10000;

class SocketStream final : public EventStream {
 public:
  SocketStream(int fd, const std::atomic<bool>* stop) : fd_(fd), stop_(stop) {}
  bool Send(absl::string_view data) override {
    if (stopping() || failed_) return false;
    failed_ = !http::WriteAll(fd_, data, kSendTimeoutMs);
    return !failed_;
  }
  // Also once the client has closed its side: a stream with nothing to
  // send for a while would otherwise hold its thread until it next sends.
  bool stopping() const override {
    if (stop_->load() || failed_) return true;
    pollfd p{fd_, POLLRDHUP, 0};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
  }

 private:
  const int fd_;
  const std::atomic<bool>* const stop_;
  bool failed_ = false;
};

void Reply(int fd, const http::HttpAnswer& answer, absl::string_view method) {
  http::WriteAll(fd, http::HttpResponse(answer, method), kSendTimeoutMs);
}

}  // namespace

absl::StatusOr<std::unique_ptr<WebServer>> WebServer::Start(
    const std::string& address, int port, WebHandler handler) {
  absl::StatusOr<http::Listener> listener =
      http::Listen(address, port, "server.http_bind_address", "the map page");
  if (!listener.ok()) return listener.status();
  return std::unique_ptr<WebServer>(
      new WebServer(listener->fd, listener->port, std::move(handler)));
}

WebServer::WebServer(int fd, int port, WebHandler handler)
    : listen_fd_(fd), port_(port), handler_(std::move(handler)) {
  accept_thread_ = std::thread([this] { Accept(); });
}

WebServer::~WebServer() {
  stop_.store(true);
  accept_thread_.join();
  Connections& c = *connections_;
  absl::MutexLock l(&c.mu);
  // Wakes a connection blocked reading or writing; a stream sees stop_.
  for (int fd : c.open) shutdown(fd, SHUT_RDWR);
  c.mu.Await(absl::Condition(
      +[](std::set<int>* open) { return open->empty(); }, &c.open));
  close(listen_fd_);
}

int WebServer::connections() const {
  absl::MutexLock l(&connections_->mu);
  return static_cast<int>(connections_->open.size());
}

void WebServer::Accept() {
  while (!stop_.load()) {
    // Wakes every 100 ms to see whether to stop.
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      poll(nullptr, 0, 10);  // out of descriptors: not a busy loop
      continue;
    }
    timeval send_timeout{kSendTimeoutMs / 1000, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);
    bool full;
    {
      absl::MutexLock l(&connections_->mu);
      full = connections_->open.size() >= static_cast<size_t>(kMaxConnections);
      if (!full) connections_->open.insert(fd);
    }
    if (full) {  // answered outside the lock: a slow reader holds no one
      Reply(fd,
            {503, "text/plain; charset=utf-8",
             absl::StrCat("more than ", kMaxConnections,
                          " connections to the map page\n")},
            "GET");
      close(fd);
      continue;
    }
    std::thread([this, fd, c = connections_] {
      Answer(fd);  // the last use of `this`: the server waits for it
      absl::MutexLock l(&c->mu);
      c->open.erase(fd);
      close(fd);
    }).detach();
  }
}

void WebServer::Answer(int connection) {
  const std::string head =
      http::ReadRequestHead(connection, kReadTimeoutMs, kMaxRequestBytes);
  if (head.empty()) return;
  absl::StatusOr<http::HttpRequest> request = http::ParseRequest(head);
  if (!request.ok()) {
    return Reply(connection,
                 {400, "text/plain; charset=utf-8",
                  std::string(request.status().message()) + "\n"},
                 "GET");
  }
  if (request->method != "GET" && request->method != "HEAD") {
    return Reply(
        connection,
        {405, "text/plain; charset=utf-8", "only GET and HEAD are served\n"},
        "GET");
  }
  WebAnswer answer = handler_(*request);
  if (!answer.stream || request->method == "HEAD") {
    return Reply(connection, answer.answer, request->method);
  }
  const std::string head_out =
      absl::StrCat("HTTP/1.1 ", answer.answer.status, " ",
                   http::ReasonPhrase(answer.answer.status),
                   "\r\nContent-Type: ", answer.answer.content_type,
                   "\r\nCache-Control: no-cache\r\nConnection: close\r\n",
                   answer.answer.headers, "\r\n");
  SocketStream stream(connection, &stop_);
  if (stream.Send(head_out)) answer.stream(stream);
}

}  // namespace trackdb::web
