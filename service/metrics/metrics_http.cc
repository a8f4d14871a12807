#include "service/metrics/metrics_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace trackdb::metrics {
namespace {

constexpr size_t kMaxRequestBytes = 8192;
// Under a probe's usual 1 s timeout: a client that sends nothing delays
// the next one this long at most.
constexpr int kReadTimeoutMs = 500;
// A client that does not read its answer is left after this.
constexpr int kSendTimeoutMs = 2000;

const char* Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

// The request's head (up to the blank line), or empty when the client
// sent none within the time and size allowed.
std::string ReadHead(int fd) {
  std::string head;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(kReadTimeoutMs);
  char buf[2048];
  while (head.find("\r\n\r\n") == std::string::npos &&
         head.find("\n\n") == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0 || head.size() > kMaxRequestBytes) return "";
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) return "";
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return "";
    head.append(buf, static_cast<size_t>(n));
  }
  return head;
}

// Sends `data`, giving up kSendTimeoutMs after it began (the socket's
// send timeout bounds each send; a client that reads a little at a time
// would otherwise stretch it).
void WriteAll(int fd, absl::string_view data) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(kSendTimeoutMs);
  while (!data.empty() && std::chrono::steady_clock::now() < deadline) {
    const ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return;
    data.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace

std::string HttpResponse(const HttpAnswer& answer, absl::string_view method) {
  std::string out = absl::StrCat(
      "HTTP/1.1 ", answer.status, " ", Reason(answer.status),
      "\r\nContent-Type: ", answer.content_type,
      "\r\nContent-Length: ", answer.body.size(), "\r\nConnection: close\r\n");
  if (answer.status == 405) out += "Allow: GET, HEAD\r\n";
  out += "\r\n";
  if (method != "HEAD") out += answer.body;
  return out;
}

absl::StatusOr<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(
    const std::string& address, int port, HttpHandler handler) {
  const std::string where = absl::StrCat(address, ":", port);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const std::string numeric = address == "localhost" ? "127.0.0.1" : address;
  if (inet_pton(AF_INET, numeric.c_str(), &addr.sin_addr) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("server.metrics_bind_address \"", address,
                     "\" is not an IPv4 address or \"localhost\""));
  }
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::UnavailableError("cannot make a socket");
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(fd, 16) != 0) {
    const std::string why = std::strerror(errno);
    close(fd);
    return absl::UnavailableError(
        absl::StrCat("cannot serve metrics on ", where, ": ", why));
  }
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return std::unique_ptr<MetricsHttpServer>(
      new MetricsHttpServer(fd, ntohs(addr.sin_port), std::move(handler)));
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
  const std::string head = ReadHead(connection);
  if (head.empty()) return;
  const std::string line = head.substr(0, head.find_first_of("\r\n"));
  const std::vector<absl::string_view> words =
      absl::StrSplit(line, ' ', absl::SkipEmpty());
  if (words.size() != 3 || !absl::StartsWith(words[2], "HTTP/")) {
    return WriteAll(connection, HttpResponse({400, "text/plain; charset=utf-8",
                                              "not an HTTP request line\n"},
                                             "GET"));
  }
  if (words[0] != "GET" && words[0] != "HEAD") {
    return WriteAll(connection, HttpResponse({405, "text/plain; charset=utf-8",
                                              "only GET and HEAD are served\n"},
                                             "GET"));
  }
  absl::string_view path = words[1];
  path = path.substr(0, path.find('?'));
  WriteAll(connection, HttpResponse(handler_(path), words[0]));
}

}  // namespace trackdb::metrics
