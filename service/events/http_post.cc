#include "service/events/http_post.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace trackdb::service {
namespace {

// Connects to one of host's addresses with send/receive timeouts; -1 and
// *why on failure.
int Connect(const HttpUrl& url, absl::Duration timeout, std::string* why) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(url.host.c_str(), url.port.c_str(), &hints, &found);
      rc != 0) {
    *why = absl::StrCat("resolving ", url.host, ": ", gai_strerror(rc));
    return -1;
  }
  timeval tv = absl::ToTimeval(timeout);
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    // SO_SNDTIMEO bounds connect() too on Linux.
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      *why = absl::StrCat("connecting to ", url.host, ":", url.port, ": ",
                          std::strerror(errno));
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  return fd;
}

bool SendAll(int fd, absl::string_view data) {
  while (!data.empty()) {
    const ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// The status code of the answer's first line, or 0.
int ReadStatus(int fd) {
  std::string head;
  char buf[512];
  while (head.find("\r\n") == std::string::npos && head.size() < 8192) {
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    head.append(buf, static_cast<size_t>(n));
  }
  // "HTTP/1.1 204 No Content"
  absl::string_view line(head);
  line = line.substr(0, line.find("\r\n"));
  if (!absl::ConsumePrefix(&line, "HTTP/1.") || line.size() < 5) return 0;
  int code = 0;
  return absl::SimpleAtoi(line.substr(2, 3), &code) ? code : 0;
}

}  // namespace

absl::StatusOr<HttpUrl> ParseHttpUrl(absl::string_view url) {
  absl::string_view rest = url;
  if (!absl::ConsumePrefix(&rest, "http://")) {
    return absl::InvalidArgumentError(
        absl::StrCat("url must start with http:// (https is not served), got '",
                     url.substr(0, 64), "'"));
  }
  HttpUrl out;
  const size_t slash = rest.find('/');
  out.path =
      slash == absl::string_view::npos ? "/" : std::string(rest.substr(slash));
  absl::string_view authority = rest.substr(0, slash);
  const size_t colon = authority.rfind(':');
  out.port = "80";
  if (colon != absl::string_view::npos) {
    int port = 0;
    if (!absl::SimpleAtoi(authority.substr(colon + 1), &port) || port < 1 ||
        port > 65535) {
      return absl::InvalidArgumentError(
          absl::StrCat("url: bad port in '", url.substr(0, 64), "'"));
    }
    out.port = absl::StrCat(port);
    authority = authority.substr(0, colon);
  }
  if (authority.empty() ||
      authority.find_first_of(" @\r\n") != absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("url: bad host in '", url.substr(0, 64), "'"));
  }
  out.host = std::string(authority);
  return out;
}

absl::Status HttpPost(const HttpUrl& url, absl::string_view body,
                      absl::Duration timeout) {
  std::string why;
  const int fd = Connect(url, timeout, &why);
  if (fd < 0) return absl::UnavailableError(why);
  const std::string head = absl::StrCat(
      "POST ", url.path, " HTTP/1.1\r\nHost: ", url.host, ":", url.port,
      "\r\nContent-Type: application/json\r\nContent-Length: ", body.size(),
      "\r\nConnection: close\r\nUser-Agent: trackd\r\n\r\n");
  const bool sent = SendAll(fd, head) && SendAll(fd, body);
  const int code = sent ? ReadStatus(fd) : 0;
  close(fd);
  if (!sent) {
    return absl::UnavailableError(absl::StrCat("sending to ", url.host));
  }
  if (code < 200 || code > 299) {
    return absl::UnavailableError(
        code == 0 ? absl::StrCat("no HTTP answer from ", url.host)
                  : absl::StrCat(url.host, " answered ", code));
  }
  return absl::OkStatus();
}

}  // namespace trackdb::service
