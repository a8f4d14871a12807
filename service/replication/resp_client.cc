#include "service/replication/resp_client.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace trackdb::replication {
namespace {

// Bounds a reply's nesting and sizes: a primary's replies are arrays of
// bulk strings, a few MiB at most.
constexpr int kMaxDepth = 4;
constexpr int64_t kMaxBulkBytes = 512LL << 20;
constexpr int64_t kMaxElements = 16 << 20;

absl::Status Unavailable(absl::string_view what) {
  return absl::UnavailableError(absl::StrCat(
      what, errno != 0 ? ": " : "", errno != 0 ? std::strerror(errno) : ""));
}

int MillisLeft(absl::Time deadline) {
  const int64_t ms = absl::ToInt64Milliseconds(deadline - absl::Now());
  return ms <= 0 ? 0 : static_cast<int>(std::min<int64_t>(ms, 1 << 30));
}

}  // namespace

absl::StatusOr<RespClient> RespClient::Connect(const std::string& host,
                                               int port,
                                               absl::Duration timeout) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = absl::StrCat(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
      rc != 0) {
    return absl::UnavailableError(
        absl::StrCat("resolving ", host, ": ", gai_strerror(rc)));
  }
  timeval tv = absl::ToTimeval(timeout);
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));  // connect too
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0)
    return Unavailable(absl::StrCat("connecting to ", host, ":", port));
  return RespClient(fd);
}

RespClient::RespClient(RespClient&& other) noexcept
    : fd_(other.fd_),
      cancelled_(std::move(other.cancelled_)),
      in_(std::move(other.in_)),
      at_(other.at_) {
  other.fd_ = -1;
}

RespClient::~RespClient() {
  if (fd_ >= 0) close(fd_);
}

absl::StatusOr<RespValue> RespClient::Call(const std::vector<std::string>& argv,
                                           absl::Duration timeout) {
  if (fd_ < 0) return absl::UnavailableError("connection closed");
  std::string out = absl::StrCat("*", argv.size(), "\r\n");
  for (const std::string& a : argv) {
    absl::StrAppend(&out, "$", a.size(), "\r\n", a, "\r\n");
  }
  absl::string_view rest = out;
  while (!rest.empty()) {
    errno = 0;
    const ssize_t n = send(fd_, rest.data(), rest.size(), MSG_NOSIGNAL);
    if (n <= 0) return Unavailable("sending to the primary");
    rest.remove_prefix(static_cast<size_t>(n));
  }
  absl::StatusOr<RespValue> reply = Read(absl::Now() + timeout, 0);
  if (!reply.ok()) {
    close(fd_);
    fd_ = -1;
  }
  // What a reply read leaves behind is the start of none (one call at a
  // time), so the buffer restarts.
  in_.erase(0, at_);
  at_ = 0;
  return reply;
}

absl::Status RespClient::Fill(absl::Time deadline) {
  pollfd p{fd_, POLLIN, 0};
  int ready = 0;
  // In slices, so that a cancellation is seen within one.
  while (ready == 0) {
    if (cancelled_ && cancelled_()) return absl::CancelledError("stopped");
    const int left = MillisLeft(deadline);
    if (left == 0) {
      return absl::UnavailableError("the primary did not answer in time");
    }
    errno = 0;
    ready = poll(&p, 1, std::min(left, 100));
  }
  if (ready < 0) return Unavailable("waiting for the primary");
  char buffer[1 << 16];
  const ssize_t n = recv(fd_, buffer, sizeof(buffer), 0);
  if (n == 0)
    return absl::UnavailableError("the primary closed the connection");
  if (n < 0) return Unavailable("reading from the primary");
  in_.append(buffer, static_cast<size_t>(n));
  return absl::OkStatus();
}

absl::StatusOr<std::string> RespClient::Line(absl::Time deadline) {
  while (true) {
    const size_t end = in_.find("\r\n", at_);
    if (end != std::string::npos) {
      std::string line = in_.substr(at_, end - at_);
      at_ = end + 2;
      return line;
    }
    if (absl::Status s = Fill(deadline); !s.ok()) return s;
  }
}

absl::StatusOr<RespValue> RespClient::Read(absl::Time deadline, int depth) {
  absl::StatusOr<std::string> line = Line(deadline);
  if (!line.ok()) return line.status();
  if (line->empty() || depth > kMaxDepth) {
    return absl::DataLossError("malformed reply from the primary");
  }
  RespValue v;
  const char type = (*line)[0];
  const absl::string_view body = absl::string_view(*line).substr(1);
  switch (type) {
    case '+':
      v.text = std::string(body);
      return v;
    case '-':
      v.kind = RespValue::Kind::kError;
      v.text = std::string(body);
      return v;
    case ':':
      v.kind = RespValue::Kind::kInteger;
      if (!absl::SimpleAtoi(body, &v.integer)) break;
      return v;
    case '$': {
      v.kind = RespValue::Kind::kBulk;
      absl::StatusOr<bool> read = ReadBulk(body, deadline, &v);
      if (!read.ok()) return read.status();
      if (!*read) break;
      return v;
    }
    case '*': {
      v.kind = RespValue::Kind::kArray;
      absl::StatusOr<bool> read = ReadArray(body, deadline, depth, &v);
      if (!read.ok()) return read.status();
      if (!*read) break;
      return v;
    }
  }
  return absl::DataLossError(
      absl::StrCat("malformed reply from the primary: ", line->substr(0, 64)));
}

absl::StatusOr<bool> RespClient::ReadBulk(absl::string_view body,
                                          absl::Time deadline, RespValue* v) {
  int64_t n = 0;
  if (!absl::SimpleAtoi(body, &n) || n < -1 || n > kMaxBulkBytes) return false;
  if (n == -1) {
    v->is_nil = true;
    return true;
  }
  while (in_.size() - at_ < static_cast<size_t>(n) + 2) {
    if (absl::Status s = Fill(deadline); !s.ok()) return s;
  }
  v->text = in_.substr(at_, static_cast<size_t>(n));
  at_ += static_cast<size_t>(n) + 2;
  return true;
}

absl::StatusOr<bool> RespClient::ReadArray(absl::string_view body,
                                           absl::Time deadline, int depth,
                                           RespValue* v) {
  int64_t n = 0;
  if (!absl::SimpleAtoi(body, &n) || n < -1 || n > kMaxElements) return false;
  v->is_nil = n == -1;
  for (int64_t i = 0; i < n; ++i) {
    absl::StatusOr<RespValue> e = Read(deadline, depth + 1);
    if (!e.ok()) return e.status();
    v->elements.push_back(*std::move(e));
  }
  return true;
}

}  // namespace trackdb::replication
