#ifndef TRACKDB_SERVICE_REPLICATION_SLOT_MIGRATOR_H_
#define TRACKDB_SERVICE_REPLICATION_SLOT_MIGRATOR_H_

// A migration of slots from this master to another (Kvrocks's CLUSTERX
// MIGRATE, which kvrocks-controller sends), on its own thread:
//
//   1. the names of the slots are read from a snapshot and sent to the
//      destination (REPL.IMPORT, applied there as a replica applies its
//      primary's batches), then what this node's WAL holds after the
//      snapshot for those names, until the destination has caught up;
//   2. writes to the slots are held off (-TRYAGAIN; the migration gate,
//      cluster/cluster_state.h, lets every write that got in finish first),
//      the WAL up to the last of them is sent, and the state becomes
//      success: the controller
//      then gives the slots to the destination (CLUSTERX SETNODES), and
//      clients follow MOVED;
//   3. once this node's topology no longer gives it the slots, their names
//      are deleted here (the destination has them).
//
// Nothing acknowledged is lost: every write to the slots before step 2 is
// in the snapshot or the WAL sent, and none is taken during it. A failure
// (the destination unreachable, the WAL needed gone) ends in state fail,
// with writes allowed again and nothing deleted here.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "cluster/cluster_state.h"
#include "service/replication/replica_link.h"
#include "storage/track_store.h"

namespace trackdb::replication {

inline constexpr char kImportCommand[] = "REPL.IMPORT";

class RespClient;

class SlotMigrator {
 public:
  // Migrates slots [first, last] to the master at `destination` (its RESP
  // address and the credentials for it).
  SlotMigrator(storage::TrackStore* store, cluster::ClusterState* cluster,
               int first, int last, LinkOptions destination);
  ~SlotMigrator();  // stops, leaving state fail if it had not finished

  bool running() const { return !done_.load(); }

 private:
  void Run();
  absl::Status Copy();
  // Copy's two phases over `client`: the names `keep` takes from a
  // snapshot (`*next`: the sequence after it), then the WAL from `next`
  // until caught up with writes held off.
  absl::Status CopySnapshot(RespClient& client,
                            const std::function<bool(absl::string_view)>& keep,
                            uint64_t* next);
  absl::Status FollowWal(RespClient& client,
                         const std::function<bool(absl::string_view)>& keep,
                         uint64_t next);
  // Deletes the slots' names once the topology moved them away.
  void Release();
  void SetState(const char* state, bool blocks_writes);
  bool InSlots(absl::string_view name) const;

  storage::TrackStore* const store_;
  cluster::ClusterState* const cluster_;
  const int first_, last_;
  const LinkOptions destination_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace trackdb::replication

#endif  // TRACKDB_SERVICE_REPLICATION_SLOT_MIGRATOR_H_
