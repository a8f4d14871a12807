#ifndef TRACKDB_SERVICE_REPLICATION_REPLICA_LINK_H_
#define TRACKDB_SERVICE_REPLICATION_REPLICA_LINK_H_

// A replica's link to its primary (REPLICAOF host port): one thread that
// connects to the primary's RESP door, authenticates, and keeps the store
// equal to the primary's (storage/replication/replication.h has the rules):
//
//   REPL.PULL <replid> <next> <port> <wait-ms> <max-bytes>
//       the primary's WAL batches from `next` on (waiting up to wait-ms
//       for one), as a flat array of (sequence, count, portable batch);
//       -FULLSYNC when the primary cannot continue that history from there.
//       Each pull also tells the primary what this replica has applied
//       (next - 1) and on which port it serves (INFO replication, WAIT,
//       synchronous acknowledgement).
//   REPL.SNAPSHOT BEGIN     a snapshot on the connection: [replid, sequence]
//   REPL.SNAPSHOT NEXT <max-bytes>
//       its next keys as a flat array of (column family, key, value);
//       empty when all were sent.
//
// A lost connection is retried every second; a pull resumes from the mark,
// so nothing is applied twice or skipped.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "service/replication/apply_gate.h"
#include "storage/track_store.h"

namespace trackdb::replication {

inline constexpr char kFullSyncError[] = "FULLSYNC";

struct LinkOptions {
  std::string host;
  int port = 0;
  std::string user;        // empty: AUTH <password> only
  std::string password;    // empty: no AUTH
  int listening_port = 0;  // this node's RESP port, told to the primary
};

// What INFO replication reports of the link.
struct LinkStatus {
  bool up = false;  // connected and in sync (the last pull answered)
  bool sync_in_progress = false;
  int64_t last_io_ms = 0;  // Unix ms of the last reply from the primary
  uint64_t applied = 0;    // the primary's sequence applied (its offset)
  uint64_t full_syncs = 0;
  uint64_t partial_pulls = 0;
  std::string last_error;
};

class ReplicaLink {
 public:
  // Starts following the primary; the store must already be a replica
  // (storage::SetReplica).
  ReplicaLink(storage::TrackStore* store, LinkOptions options);
  // Stops the thread (a pull in flight is abandoned, nothing half
  // applied); the store stays a replica. Once it has begun, nothing more
  // from the primary is applied (ApplyGate).
  ~ReplicaLink();

  const LinkOptions& options() const { return options_; }
  LinkStatus status() const;

 private:
  void Run();
  // One connection's life: sync, then pull until it fails or Stop.
  absl::Status Follow();
  absl::Status FullSync(class RespClient& client);
  absl::Status PullOnce(class RespClient& client, const std::string& replid,
                        uint64_t next);
  void Update(const std::function<void(LinkStatus*)>& change);
  bool stopping() const { return stopping_.load(); }

  storage::TrackStore* const store_;
  const LinkOptions options_;
  std::atomic<bool> stopping_{false};
  ApplyGate applies_;
  mutable absl::Mutex mu_;
  LinkStatus status_ ABSL_GUARDED_BY(mu_);
  absl::CondVar wake_;
  std::thread thread_;
};

}  // namespace trackdb::replication

#endif  // TRACKDB_SERVICE_REPLICATION_REPLICA_LINK_H_
