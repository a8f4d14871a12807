#ifndef TRACKDB_CLUSTER_CLUSTER_STATE_H_
#define TRACKDB_CLUSTER_CLUSTER_STATE_H_

// A node's place in its cluster: its id (CLUSTERX SETNODEID, or found in
// the topology by its own address), the topology and its version (CLUSTERX
// SETNODES). Persisted in a file of the node's data directory, not in the
// store: it is this node's, and a replica replicating the store must not
// take its primary's id. Written to a temporary file, synced, then renamed
// over the old one, so that a crash leaves one or the other whole.
//
// Versions, as Kvrocks has them: -1 until the first SETNODES; a SETNODES
// with a lower version than the current is refused ("Invalid cluster
// version"), the same version is a no-op, FORCE takes any version >= 0.
//
// Thread-safe: commands read an immutable view (one shared_ptr copy per
// command) while CLUSTERX replaces it.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "cluster/topology.h"

namespace trackdb::cluster {

struct ClusterView {
  int64_t version = -1;
  std::string my_id;  // empty until set or found
  std::optional<Topology> topology;
  int myself = -1;  // index of my_id in topology; -1 if it is not there
};

// What a node does with a command, given its keys.
struct Route {
  enum class Kind {
    kServe,      // no keys, or this node serves their slot
    kMoved,      // "MOVED <slot> <address>"
    kCrossSlot,  // keys in more than one slot
    kDown,       // the slot has no master
  };
  Kind kind = Kind::kServe;
  int slot = -1;
  std::string address;  // kMoved: "host:port"
};

// Where the command with `keys` goes in `view`: served here when this
// node is the slot's master, or the master's slave and `write` is false.
Route RouteKeys(const ClusterView& view,
                absl::Span<const absl::string_view> keys, bool write);

// The error line (without "-" and CRLF) a client gets for a route that is
// not kServe, in Redis's words.
std::string RouteError(const Route& route);

class ClusterState {
 public:
  // The state kept in `path` (none yet: an empty state); `my_host` and
  // `my_port` (the RESP address) let SETNODES find this node when no id
  // was set.
  static absl::StatusOr<std::unique_ptr<ClusterState>> Open(std::string path,
                                                            std::string my_host,
                                                            int my_port);

  std::shared_ptr<const ClusterView> view() const;
  absl::Status SetNodeId(absl::string_view id);
  absl::Status SetNodes(absl::string_view text, int64_t version, bool force);

  // The last migration of slots from this node (CLUSTERX MIGRATE), as
  // CLUSTER INFO reports it to the controller (Kvrocks's migrating_slot and
  // migrating_state: start, success or fail; none before the first), and
  // whether writes to those slots are held off (its last catch-up).
  struct Migration {
    int first = -1, last = -1;
    std::string state = "none";
    bool blocks_writes = false;
    bool Covers(int slot) const { return slot >= first && slot <= last; }
  };
  Migration migration() const;
  void SetMigration(Migration migration);
  // Every write in cluster mode runs holding this shared and checks
  // WritesHeldOff under it; a migration holds writes off holding it
  // exclusively, so that its final catch-up starts after every write that
  // got in.
  absl::Mutex& migration_gate() const { return migration_gate_; }
  // Whether a write to `slot` must wait for a migration (TRYAGAIN).
  bool WritesHeldOff(int slot) const;

 private:
  ClusterState(std::string path, std::string my_host, int my_port)
      : path_(std::move(path)),
        my_host_(std::move(my_host)),
        my_port_(my_port) {}
  absl::Status Load();
  absl::Status Save(const ClusterView& view) const;
  void Publish(ClusterView view);

  const std::string path_;
  const std::string my_host_;
  const int my_port_;
  absl::Mutex change_mu_;   // serialises changes (held across Save)
  mutable absl::Mutex mu_;  // guards view_ (held for a pointer copy)
  std::shared_ptr<const ClusterView> view_ ABSL_GUARDED_BY(mu_);
  Migration migration_ ABSL_GUARDED_BY(mu_);
  mutable absl::Mutex migration_gate_;
};

}  // namespace trackdb::cluster

#endif  // TRACKDB_CLUSTER_CLUSTER_STATE_H_
