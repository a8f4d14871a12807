#include "service/replication/resp_client.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::replication {
namespace {

using ::testing::HasSubstr;
using Kind = RespValue::Kind;

// What the fake primary does once it has read a whole request.
struct Step {
  enum class Action { kReply, kStaySilent, kClose };
  Action action = Action::kReply;
  std::vector<std::string> chunks;  // kReply: each in a write of its own
};

Step Reply(std::vector<std::string> chunks) {
  return Step{Step::Action::kReply, std::move(chunks)};
}
Step Silent() { return Step{Step::Action::kStaySilent, {}}; }
Step Close() { return Step{Step::Action::kClose, {}}; }

// The length of the first whole multibulk request in `b`; 0 while it is
// incomplete.
size_t RequestLength(absl::string_view b) {
  size_t at = 0;
  auto header = [&](int64_t* n) {
    const size_t end = b.find("\r\n", at);
    if (end == absl::string_view::npos) return false;
    if (!absl::SimpleAtoi(b.substr(at + 1, end - at - 1), n)) return false;
    at = end + 2;
    return true;
  };
  int64_t count = 0;
  if (!header(&count)) return 0;
  for (int64_t i = 0; i < count; ++i) {
    int64_t len = 0;
    if (!header(&len) || b.size() < at + len + 2) return 0;
    at += len + 2;
  }
  return at;
}

// A primary on 127.0.0.1 that takes one connection and answers each request
// it reads with the next step; it closes the connection after the last.
class FakePrimary {
 public:
  explicit FakePrimary(std::vector<Step> steps) : steps_(std::move(steps)) {
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    EXPECT_EQ(bind(listener_, reinterpret_cast<sockaddr*>(&addr), len), 0);
    EXPECT_EQ(listen(listener_, 4), 0);
    getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }

  ~FakePrimary() {
    done_.Notify();
    thread_.join();
    close(listener_);
  }

  int port() const { return port_; }

  // Waits until `n` requests were read; false at the timeout.
  bool AwaitRequests(size_t n, absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    auto enough = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
      return requests_.size() >= n;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), timeout);
  }

  std::vector<std::string> requests() {
    absl::MutexLock lock(&mu_);
    return requests_;
  }

 private:
  // Waits for `fd` to be readable, in slices so that the destructor is
  // never kept waiting; false once it is under way.
  bool Readable(int fd) {
    pollfd p{fd, POLLIN, 0};
    while (!done_.HasBeenNotified()) {
      if (poll(&p, 1, 50) > 0) return true;
    }
    return false;
  }

  bool ReadRequest(int fd, std::string* in) {
    while (RequestLength(*in) == 0) {
      char buffer[4096];
      if (!Readable(fd)) return false;
      const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
      if (n <= 0) return false;
      in->append(buffer, static_cast<size_t>(n));
    }
    const size_t len = RequestLength(*in);
    absl::MutexLock lock(&mu_);
    requests_.push_back(in->substr(0, len));
    in->erase(0, len);
    return true;
  }

  void Answer(int fd, const Step& step) {
    for (size_t i = 0; i < step.chunks.size(); ++i) {
      // A pause between writes makes each piece arrive in a read of its
      // own: what the client must reassemble.
      if (i > 0) absl::SleepFor(absl::Milliseconds(20));
      const std::string& c = step.chunks[i];
      EXPECT_EQ(send(fd, c.data(), c.size(), MSG_NOSIGNAL),
                static_cast<ssize_t>(c.size()));
    }
  }

  void Serve() {
    if (!Readable(listener_)) return;
    const int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;
    std::string in;
    for (const Step& step : steps_) {
      if (!ReadRequest(fd, &in) || step.action == Step::Action::kClose) break;
      if (step.action == Step::Action::kStaySilent) {
        done_.WaitForNotification();
        break;
      }
      Answer(fd, step);
    }
    close(fd);
  }

  const std::vector<Step> steps_;
  int listener_ = -1;
  int port_ = 0;
  absl::Notification done_;
  absl::Mutex mu_;
  std::vector<std::string> requests_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

RespClient ConnectTo(const FakePrimary& primary) {
  absl::StatusOr<RespClient> client =
      RespClient::Connect("127.0.0.1", primary.port(), absl::Seconds(2));
  EXPECT_TRUE(client.ok()) << client.status();
  return *std::move(client);
}

// The reply to one call of `argv` from a primary answering `chunks`.
absl::StatusOr<RespValue> CallAgainst(std::vector<std::string> chunks,
                                      std::vector<std::string> argv = {
                                          "PING"}) {
  FakePrimary primary({Reply(std::move(chunks))});
  RespClient client = ConnectTo(primary);
  return client.Call(argv, absl::Seconds(5));
}

TEST(RespClientTest, SendsArgvAsAMultibulkRequest) {
  FakePrimary primary({Reply({"+OK\r\n"})});
  RespClient client = ConnectTo(primary);
  // A byte string with CRLF inside travels by its length, not its lines.
  ASSERT_TRUE(client.Call({"SET", "k", "a\r\nb", ""}, absl::Seconds(5)).ok());
  ASSERT_TRUE(primary.AwaitRequests(1, absl::Seconds(5)));
  EXPECT_THAT(primary.requests(),
              ::testing::ElementsAre(
                  "*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$4\r\na\r\nb\r\n$0\r\n\r\n"));
}

TEST(RespClientTest, ReadsASimpleString) {
  absl::StatusOr<RespValue> r = CallAgainst({"+PONG\r\n"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->kind, Kind::kSimple);
  EXPECT_EQ(r->text, "PONG");
  EXPECT_FALSE(r->is_error());
}

TEST(RespClientTest, AServerErrorIsAReplyNotAFailedStatus) {
  absl::StatusOr<RespValue> r = CallAgainst({"-ERR unknown command\r\n"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->kind, Kind::kError);
  EXPECT_TRUE(r->is_error());
  EXPECT_EQ(r->text, "ERR unknown command");
}

TEST(RespClientTest, ReadsIntegers) {
  absl::StatusOr<RespValue> r = CallAgainst({":-9007199254740993\r\n"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->kind, Kind::kInteger);
  EXPECT_EQ(r->integer, -9007199254740993LL);
}

TEST(RespClientTest, ReadsBulkStringsByLength) {
  absl::StatusOr<RespValue> r = CallAgainst({"$6\r\nab\r\ncd\r\n"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->kind, Kind::kBulk);
  EXPECT_EQ(r->text, "ab\r\ncd");
  EXPECT_FALSE(r->is_nil);

  absl::StatusOr<RespValue> empty = CallAgainst({"$0\r\n\r\n"});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->kind, Kind::kBulk);
  EXPECT_EQ(empty->text, "");
  EXPECT_FALSE(empty->is_nil);
}

TEST(RespClientTest, ReadsNullBulkAndNullArray) {
  absl::StatusOr<RespValue> bulk = CallAgainst({"$-1\r\n"});
  ASSERT_TRUE(bulk.ok()) << bulk.status();
  EXPECT_EQ(bulk->kind, Kind::kBulk);
  EXPECT_TRUE(bulk->is_nil);
  EXPECT_EQ(bulk->text, "");

  absl::StatusOr<RespValue> array = CallAgainst({"*-1\r\n"});
  ASSERT_TRUE(array.ok()) << array.status();
  EXPECT_EQ(array->kind, Kind::kArray);
  EXPECT_TRUE(array->is_nil);
  EXPECT_TRUE(array->elements.empty());
}

TEST(RespClientTest, ReadsNestedArrays) {
  // [1, ["a", [-E, nil], []], "x"]
  absl::StatusOr<RespValue> r = CallAgainst(
      {"*3\r\n:1\r\n*3\r\n$1\r\na\r\n*2\r\n-E\r\n$-1\r\n*0\r\n+x\r\n"});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->kind, Kind::kArray);
  ASSERT_EQ(r->elements.size(), 3u);
  EXPECT_EQ(r->elements[0].integer, 1);
  const RespValue& inner = r->elements[1];
  ASSERT_EQ(inner.kind, Kind::kArray);
  ASSERT_EQ(inner.elements.size(), 3u);
  EXPECT_EQ(inner.elements[0].text, "a");
  ASSERT_EQ(inner.elements[1].elements.size(), 2u);
  EXPECT_TRUE(inner.elements[1].elements[0].is_error());
  EXPECT_EQ(inner.elements[1].elements[0].text, "E");
  EXPECT_TRUE(inner.elements[1].elements[1].is_nil);
  EXPECT_EQ(inner.elements[2].kind, Kind::kArray);
  EXPECT_FALSE(inner.elements[2].is_nil);
  EXPECT_TRUE(inner.elements[2].elements.empty());
  EXPECT_EQ(r->elements[2].kind, Kind::kSimple);
  EXPECT_EQ(r->elements[2].text, "x");
}

TEST(RespClientTest, ReassemblesAReplySplitOverManyWrites) {
  // Split inside a header, inside a bulk payload and between CR and LF.
  absl::StatusOr<RespValue> r =
      CallAgainst({"*", "3\r\n$5\r\nhel", "lo\r", "\n:7", "\r\n$-", "1\r\n"});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->elements.size(), 3u);
  EXPECT_EQ(r->elements[0].text, "hello");
  EXPECT_EQ(r->elements[1].integer, 7);
  EXPECT_TRUE(r->elements[2].is_nil);
}

TEST(RespClientTest, CallsInTurnOnOneConnection) {
  FakePrimary primary({Reply({"$3\r\none\r\n"}), Reply({":2\r\n"})});
  RespClient client = ConnectTo(primary);
  absl::StatusOr<RespValue> first = client.Call({"GET", "a"}, absl::Seconds(5));
  absl::StatusOr<RespValue> second =
      client.Call({"INCR", "b"}, absl::Seconds(5));
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(first->text, "one");
  EXPECT_EQ(second->integer, 2);
  EXPECT_EQ(primary.requests().size(), 2u);
}

TEST(RespClientTest, AMalformedReplyIsDataLoss) {
  EXPECT_TRUE(absl::IsDataLoss(CallAgainst({"?what\r\n"}).status()));
  EXPECT_TRUE(absl::IsDataLoss(CallAgainst({":12x\r\n"}).status()));
  EXPECT_TRUE(absl::IsDataLoss(CallAgainst({"$-2\r\n"}).status()));
  EXPECT_TRUE(absl::IsDataLoss(CallAgainst({"\r\n"}).status()));
}

TEST(RespClientTest, ASilentPrimaryFailsAtTheDeadline) {
  FakePrimary primary({Silent()});
  RespClient client = ConnectTo(primary);
  const absl::Time start = absl::Now();
  absl::StatusOr<RespValue> r = client.Call({"PING"}, absl::Milliseconds(300));
  const absl::Duration took = absl::Now() - start;
  EXPECT_TRUE(absl::IsUnavailable(r.status())) << r.status();
  EXPECT_THAT(r.status().message(), HasSubstr("in time"));
  EXPECT_GE(took, absl::Milliseconds(290));
  EXPECT_LT(took, absl::Seconds(5));
  // The connection is unusable after a failed call.
  absl::StatusOr<RespValue> again = client.Call({"PING"}, absl::Seconds(5));
  EXPECT_TRUE(absl::IsUnavailable(again.status())) << again.status();
  EXPECT_THAT(again.status().message(), HasSubstr("closed"));
}

TEST(RespClientTest, CancelledEndsAWaitLongBeforeTheDeadline) {
  FakePrimary primary({Silent()});
  RespClient client = ConnectTo(primary);
  std::atomic<bool> cancelled{false};
  client.set_cancelled([&] { return cancelled.load(); });
  // Cancels once the primary has the request, so the call is waiting.
  std::thread canceller([&] {
    EXPECT_TRUE(primary.AwaitRequests(1, absl::Seconds(10)));
    cancelled.store(true);
  });
  const absl::Time start = absl::Now();
  absl::StatusOr<RespValue> r = client.Call({"PING"}, absl::Seconds(60));
  const absl::Duration took = absl::Now() - start;
  canceller.join();
  EXPECT_TRUE(absl::IsCancelled(r.status())) << r.status();
  EXPECT_LT(took, absl::Seconds(5));
}

TEST(RespClientTest, AClosedConnectionIsUnavailable) {
  FakePrimary primary({Close()});
  RespClient client = ConnectTo(primary);
  absl::StatusOr<RespValue> r = client.Call({"PING"}, absl::Seconds(5));
  EXPECT_TRUE(absl::IsUnavailable(r.status())) << r.status();
  EXPECT_THAT(r.status().message(), HasSubstr("closed the connection"));
}

TEST(RespClientTest, AConnectionClosedMidReplyIsUnavailable) {
  // The steps run out after the partial reply: the primary then closes.
  absl::StatusOr<RespValue> r = CallAgainst({"*2\r\n$10\r\nabc"});
  EXPECT_TRUE(absl::IsUnavailable(r.status())) << r.status();
}

TEST(RespClientTest, ConnectingToNoListenerIsUnavailable) {
  // A port bound without listen: connections to it are refused.
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), len), 0);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  absl::StatusOr<RespClient> client =
      RespClient::Connect("127.0.0.1", ntohs(addr.sin_port), absl::Seconds(2));
  close(fd);
  EXPECT_TRUE(absl::IsUnavailable(client.status())) << client.status();
}

}  // namespace
}  // namespace trackdb::replication
