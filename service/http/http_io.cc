#include "service/http/http_io.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace trackdb::http {
namespace {

using Clock = std::chrono::steady_clock;

int64_t MsLeft(Clock::time_point deadline) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                               Clock::now())
      .count();
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = absl::ascii_tolower(c);
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

absl::Status ParseQuery(absl::string_view query, HttpRequest* request) {
  for (absl::string_view pair : absl::StrSplit(query, '&', absl::SkipEmpty())) {
    const size_t eq = pair.find('=');
    absl::StatusOr<std::string> name =
        PercentDecode(pair.substr(0, eq), /*plus_is_space=*/true);
    absl::StatusOr<std::string> value =
        PercentDecode(eq == absl::string_view::npos ? "" : pair.substr(eq + 1),
                      /*plus_is_space=*/true);
    if (!name.ok()) return name.status();
    if (!value.ok()) return value.status();
    request->query[*name] = *value;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Listener> Listen(const std::string& address, int port,
                                absl::string_view address_field,
                                absl::string_view what) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const std::string numeric = address == "localhost" ? "127.0.0.1" : address;
  if (inet_pton(AF_INET, numeric.c_str(), &addr.sin_addr) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(address_field, " \"", address,
                     "\" is not an IPv4 address or \"localhost\""));
  }
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::UnavailableError("cannot make a socket");
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(fd, 64) != 0) {
    const std::string why = std::strerror(errno);
    close(fd);
    return absl::UnavailableError(absl::StrCat("cannot serve ", what, " on ",
                                               address, ":", port, ": ", why));
  }
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return Listener{fd, ntohs(addr.sin_port)};
}

std::string ReadRequestHead(int fd, int timeout_ms, size_t max_bytes) {
  std::string head;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  char buf[2048];
  while (head.find("\r\n\r\n") == std::string::npos &&
         head.find("\n\n") == std::string::npos) {
    const int64_t left = MsLeft(deadline);
    if (left <= 0 || head.size() > max_bytes) return "";
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) return "";
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return "";
    head.append(buf, static_cast<size_t>(n));
  }
  return head;
}

absl::StatusOr<std::string> PercentDecode(absl::string_view text,
                                          bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+' && plus_is_space) {
      out += ' ';
    } else if (c != '%') {
      out += c;
    } else {
      const bool whole = i + 2 < text.size();
      const int hi = whole ? HexValue(text[i + 1]) : -1;
      const int lo = whole ? HexValue(text[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("bad %-escape at byte ", i, " of the request target"));
      }
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    }
  }
  return out;
}

absl::StatusOr<HttpRequest> ParseRequest(absl::string_view head) {
  std::vector<absl::string_view> lines = absl::StrSplit(head, '\n');
  const std::vector<absl::string_view> words = absl::StrSplit(
      absl::StripTrailingAsciiWhitespace(lines[0]), ' ', absl::SkipEmpty());
  if (words.size() != 3 || !absl::StartsWith(words[2], "HTTP/")) {
    return absl::InvalidArgumentError("not an HTTP request line");
  }
  HttpRequest request;
  request.method = std::string(words[0]);
  const absl::string_view target = words[1];
  const size_t q = target.find('?');
  absl::StatusOr<std::string> path =
      PercentDecode(target.substr(0, q), /*plus_is_space=*/false);
  if (!path.ok()) return path.status();
  request.path = *std::move(path);
  if (q != absl::string_view::npos) {
    if (absl::Status s = ParseQuery(target.substr(q + 1), &request); !s.ok()) {
      return s;
    }
  }
  for (size_t i = 1; i < lines.size(); ++i) {
    const absl::string_view line = absl::StripAsciiWhitespace(lines[i]);
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    request.header[absl::AsciiStrToLower(line.substr(0, colon))] =
        std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
  }
  return request;
}

bool WriteAll(int fd, absl::string_view data, int timeout_ms) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!data.empty()) {
    const int64_t left = MsLeft(deadline);
    if (left <= 0) return false;
    pollfd p{fd, POLLOUT, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) return false;
    const ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

const char* ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
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

std::string HttpResponse(const HttpAnswer& answer, absl::string_view method) {
  std::string out = absl::StrCat(
      "HTTP/1.1 ", answer.status, " ", ReasonPhrase(answer.status),
      "\r\nContent-Type: ", answer.content_type,
      "\r\nContent-Length: ", answer.body.size(), "\r\nConnection: close\r\n",
      answer.headers);
  if (answer.status == 405) out += "Allow: GET, HEAD\r\n";
  out += "\r\n";
  if (method != "HEAD") out += answer.body;
  return out;
}

}  // namespace trackdb::http
