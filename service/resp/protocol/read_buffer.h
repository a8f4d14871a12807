#ifndef TRACKDB_SERVICE_RESP_PROTOCOL_READ_BUFFER_H_
#define TRACKDB_SERVICE_RESP_PROTOCOL_READ_BUFFER_H_

// A connection's buffer for one socket read, sized to what the connection
// sends per read: an idle or one-request-at-a-time connection keeps the
// smallest size, a pipelining one grows it to hold its whole batch.
//
// Why: a read that fills its buffer leaves Asio's reactor unsure the
// socket is drained, so it tries one more read before waiting (EAGAIN, a
// wasted syscall), and the rest of the batch needs its own read: three
// recv calls per pipelined batch where one does. redis-benchmark -P 16's
// LPUSH batch is 576 bytes, HSET's ~1 KB. Redis's query buffer grows the
// same way (16 KiB reads, resized to the client's use).
//
// Invariant: kMinBytes <= size() <= kMaxBytes, a power of two times
// kMinBytes.

#include <cstddef>
#include <memory>

namespace trackdb::resp {

class ReadBuffer {
 public:
  static constexpr size_t kMinBytes = 512;
  static constexpr size_t kMaxBytes = 16 * 1024;

  ReadBuffer();

  char* data() { return data_.get(); }
  size_t size() const { return size_; }

  // After a read of `n` bytes into data(): a read that filled the buffer
  // doubles it for the next one, a read that took at most a quarter of
  // it halves it (one step per read, so a pipeline's occasional short
  // read does not undo its size). Contents are not kept.
  void Took(size_t n);

 private:
  void Resize(size_t size);

  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
};

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_PROTOCOL_READ_BUFFER_H_
