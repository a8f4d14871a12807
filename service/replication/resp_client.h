#ifndef TRACKDB_SERVICE_REPLICATION_RESP_CLIENT_H_
#define TRACKDB_SERVICE_REPLICATION_RESP_CLIENT_H_

// A blocking RESP2 client, for a replica talking to its primary: one
// connection, one call at a time, every read and write bounded by a
// timeout.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace trackdb::replication {

// One reply: a simple string (+), an error (-), an integer (:), a bulk
// string ($, nil when is_nil) or an array (*).
struct RespValue {
  enum class Kind { kSimple, kError, kInteger, kBulk, kArray };
  Kind kind = Kind::kSimple;
  std::string text;  // simple, error, bulk
  int64_t integer = 0;
  bool is_nil = false;
  std::vector<RespValue> elements;

  bool is_error() const { return kind == Kind::kError; }
};

class RespClient {
 public:
  // UNAVAILABLE when it cannot connect within `timeout`.
  static absl::StatusOr<RespClient> Connect(const std::string& host, int port,
                                            absl::Duration timeout);
  RespClient(RespClient&& other) noexcept;
  RespClient& operator=(RespClient&&) = delete;
  RespClient(const RespClient&) = delete;
  ~RespClient();

  // Makes every wait also end, CANCELLED, soon after `cancelled` says so
  // (a link being stopped must not wait out a silent primary).
  void set_cancelled(std::function<bool()> cancelled) {
    cancelled_ = std::move(cancelled);
  }

  // Sends `argv` and reads its reply; a server's error is a reply, not a
  // failed status. UNAVAILABLE when the connection fails or `timeout`
  // passes (the connection is then unusable).
  absl::StatusOr<RespValue> Call(const std::vector<std::string>& argv,
                                 absl::Duration timeout);

 private:
  explicit RespClient(int fd) : fd_(fd) {}
  absl::Status Fill(absl::Time deadline);
  absl::StatusOr<std::string> Line(absl::Time deadline);
  absl::StatusOr<RespValue> Read(absl::Time deadline, int depth);
  // The rest of a bulk string or an array whose header's text after the
  // type is `body`, into `v`; false when `body` is no length or count.
  absl::StatusOr<bool> ReadBulk(absl::string_view body, absl::Time deadline,
                                RespValue* v);
  absl::StatusOr<bool> ReadArray(absl::string_view body, absl::Time deadline,
                                 int depth, RespValue* v);

  int fd_ = -1;
  std::function<bool()> cancelled_;
  std::string in_;
  size_t at_ = 0;
};

}  // namespace trackdb::replication

#endif  // TRACKDB_SERVICE_REPLICATION_RESP_CLIENT_H_
