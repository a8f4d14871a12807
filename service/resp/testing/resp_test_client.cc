#include "service/resp/testing/resp_test_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "storage/store_test_util.h"

namespace trackdb::resp::testing {
namespace {

// Parses one value starting at `pos`; returns the end, or npos if
// incomplete.
size_t ParseValue(const std::string& b, size_t pos) {
  if (pos >= b.size()) return std::string::npos;
  const size_t eol = b.find("\r\n", pos);
  if (eol == std::string::npos) return std::string::npos;
  const char type = b[pos];
  const std::string head = b.substr(pos + 1, eol - pos - 1);
  size_t next = eol + 2;
  int64_t n = 0;
  switch (type) {
    case '+':
    case '-':
    case ':':
    case '_':
    case ',':
    case '#':
    case '(':
      return next;
    case '$':
    case '=':
    case '!':
      if (!absl::SimpleAtoi(head, &n)) return std::string::npos;
      if (n < 0) return next;
      if (b.size() < next + n + 2) return std::string::npos;
      return next + n + 2;
    case '*':
    case '~':
    case '>':
    case '%':
    case '|': {
      if (!absl::SimpleAtoi(head, &n)) return std::string::npos;
      if (n < 0) return next;
      const int64_t items = (type == '%' || type == '|') ? 2 * n : n;
      for (int64_t i = 0; i < items; ++i) {
        next = ParseValue(b, next);
        if (next == std::string::npos) return next;
      }
      // A RESP3 attribute precedes the real reply.
      if (type == '|') return ParseValue(b, next);
      return next;
    }
    default:
      return std::string::npos;
  }
}

}  // namespace

bool Eventually(const std::function<bool()>& done, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!done()) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return true;
}

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

size_t CompleteReplyLength(const std::string& bytes) {
  const size_t end = ParseValue(bytes, 0);
  return end == std::string::npos ? 0 : end;
}

std::string EncodeCommand(const std::vector<std::string>& argv) {
  std::string out = absl::StrCat("*", argv.size(), "\r\n");
  for (const std::string& a : argv) {
    absl::StrAppend(&out, "$", a.size(), "\r\n", a, "\r\n");
  }
  return out;
}

namespace {

// A connected socket to loopback `port`, or -1 when nothing accepts there.
int ConnectLoopback(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    return fd;
  }
  close(fd);
  return -1;
}

}  // namespace

RawClient::RawClient(int port) {
  for (int attempt = 0; attempt < 200; ++attempt) {
    fd_ = ConnectLoopback(port);
    if (fd_ >= 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ADD_FAILURE() << "cannot connect to port " << port;
  std::abort();
}

RawClient::~RawClient() {
  if (fd_ >= 0) close(fd_);
}

void RawClient::Send(const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n =
        send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;  // closed: the reply read reports it
    sent += static_cast<size_t>(n);
  }
}

std::optional<std::string> RawClient::ReadReply(int timeout_ms) {
  while (true) {
    if (const size_t len = CompleteReplyLength(pending_); len > 0) {
      std::string reply = pending_.substr(0, len);
      pending_.erase(0, len);
      return reply;
    }
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, timeout_ms) <= 0) return std::nullopt;
    char buf[65536];
    const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
    if (n <= 0) return std::nullopt;
    pending_.append(buf, static_cast<size_t>(n));
  }
}

std::string RawClient::Call(const std::vector<std::string>& argv) {
  Send(EncodeCommand(argv));
  return ReadReply().value_or("<no reply: connection closed or timed out>");
}

bool RawClient::Closed(int timeout_ms) {
  pollfd p{fd_, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return false;
  char c;
  return recv(fd_, &c, 1, MSG_PEEK) == 0;
}

namespace {

// Whether something accepts connections on loopback `port` now.
bool Accepts(int port) {
  const int fd = ConnectLoopback(port);
  if (fd < 0) return false;
  close(fd);
  return true;
}

// Starts `args` (argv[0] the binary) as a child process; its pid.
int Spawn(std::vector<std::string> args) {
  const int pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

}  // namespace

// The port FreePort found may be taken (as a client's local port) before
// redis-server binds it, and then redis-server exits: it is started again
// on another. A loaded machine (CI, a benchmark beside it) may take
// seconds to start it.
RedisServerProcess::RedisServerProcess(
    const std::vector<std::string>& extra_args) {
  const char* binary = "/usr/bin/redis-server";
  if (access(binary, X_OK) != 0) {
    ADD_FAILURE() << "redis-server is not installed: run "
                     "tools/setup/install_deps.sh (package redis-server)";
    std::abort();
  }
  constexpr int kStarts = 5;
  constexpr auto kStartWait = std::chrono::seconds(30);
  for (int start = 0; start < kStarts; ++start) {
    port_ = FreePort();
    std::vector<std::string> args = {
        binary,        "--port", absl::StrCat(port_),
        "--save",      "",       "--appendonly",
        "no",          "--bind", "127.0.0.1",
        "--daemonize", "no",     "--loglevel",
        "warning",     "--dir",  ::testing::TempDir()};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    pid_ = Spawn(std::move(args));
    const auto deadline = std::chrono::steady_clock::now() + kStartWait;
    while (std::chrono::steady_clock::now() < deadline) {
      if (Accepts(port_)) return;
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) break;  // it exited
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    if (waitpid(pid_, nullptr, WNOHANG) == 0) {
      ADD_FAILURE() << "redis-server on port " << port_
                    << " accepts no connection after 30 s";
      std::abort();
    }
    pid_ = -1;
  }
  ADD_FAILURE() << "redis-server exited at start " << kStarts << " times";
  std::abort();
}

RedisServerProcess::~RedisServerProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

TrackdbResp::TrackdbResp(v1::TrackdbConfig config)
    : config_(std::move(config)) {
  config_.mutable_server()->set_resp_bind_address("127.0.0.1");
  config_.mutable_server()->set_resp_port(0);
  if (!config_.server().has_resp_threads()) {
    config_.mutable_server()->set_resp_threads(2);
  }
  if (!config_.server().has_resp_max_multibulk_len()) {
    config_.mutable_server()->set_resp_max_multibulk_len(1024 * 1024);
  }
  if (config_.data_dir().empty()) {
    config_.set_data_dir(storage::testing::NewDataDir());
  }
  store_ = storage::testing::OpenStore(config_.data_dir());
  auto server = RespServer::Start(config_, store_.get());
  if (!server.ok()) {
    ADD_FAILURE() << server.status();
    std::abort();
  }
  server_ = *std::move(server);
}

TrackdbResp::~TrackdbResp() {
  server_->Shutdown();
  server_.reset();
  store_.reset();
}

Differential::Differential(v1::TrackdbConfig config,
                           const std::vector<std::string>& redis_args)
    : redis_(redis_args), trackdb_(std::move(config)) {
  redis_client_ = std::make_unique<RawClient>(redis_.port());
  trackdb_client_ = std::make_unique<RawClient>(trackdb_.port());
}

Differential::Replies Differential::Call(const std::vector<std::string>& argv) {
  return {redis_client_->Call(argv), trackdb_client_->Call(argv)};
}

std::vector<Differential::Replies> Differential::Pipeline(
    const std::vector<std::vector<std::string>>& calls) {
  std::string bytes;
  for (const auto& argv : calls) bytes += EncodeCommand(argv);
  redis_client_->Send(bytes);
  trackdb_client_->Send(bytes);
  std::vector<Replies> replies;
  for (size_t i = 0; i < calls.size(); ++i) {
    replies.push_back({redis_client_->ReadReply().value_or("<closed>"),
                       trackdb_client_->ReadReply().value_or("<closed>")});
  }
  return replies;
}

Differential::Replies Differential::SendRaw(const std::string& bytes) {
  redis_client_->Send(bytes);
  trackdb_client_->Send(bytes);
  return {redis_client_->ReadReply().value_or("<closed>"),
          trackdb_client_->ReadReply().value_or("<closed>")};
}

void ExpectWakesBlockedPop(Differential& diff,
                           const std::vector<std::string>& blocking_pop,
                           const std::vector<std::string>& waker) {
  RawClient redis(diff.redis_port());
  RawClient trackdb(diff.trackdb_server().port());
  const std::string pop = EncodeCommand(blocking_pop);
  redis.Send(pop);
  EXPECT_EQ(redis.ReadReply(200), std::nullopt);
  trackdb.Send(pop);
  EXPECT_EQ(trackdb.ReadReply(200), std::nullopt);
  const auto woken = std::chrono::steady_clock::now();
  EXPECT_SAME_REPLY(diff, waker);
  const std::optional<std::string> want = redis.ReadReply();
  ASSERT_TRUE(want.has_value());
  EXPECT_EQ(trackdb.ReadReply(), want);
  EXPECT_LT(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - woken)
          .count(),
      0.5);
}

}  // namespace trackdb::resp::testing
