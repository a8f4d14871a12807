#ifndef TRACKDB_SERVICE_RESP_RESP_SERVER_H_
#define TRACKDB_SERVICE_RESP_RESP_SERVER_H_

// The Redis-protocol front door: an Asio event loop (epoll underneath) run
// by server.resp_threads threads. A connection costs a socket and a small
// state until it sends something: no thread, no read buffer while idle.
// Each connection parses everything one read brought (pipelining), runs the
// commands in order, and sends all their replies in one write. A command
// waiting on RocksDB holds only the loop thread running it; the other
// threads go on parsing and serving other connections.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "storage/track_store.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::resp {

class RespServer {
 public:
  // Binds server.resp_bind_address:resp_port (0 picks a free port) and
  // starts serving `store`, which must outlive the server.
  static absl::StatusOr<std::unique_ptr<RespServer>> Start(
      const v1::TrackdbConfig& config, storage::TrackStore* store);
  ~RespServer();  // Shutdown()s

  int port() const;
  // Stops accepting, closes every connection, joins the threads.
  void Shutdown();

  class Impl;

 private:
  explicit RespServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_RESP_SERVER_H_
