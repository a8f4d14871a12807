#ifndef TRACKDB_CLUSTER_TOPOLOGY_H_
#define TRACKDB_CLUSTER_TOPOLOGY_H_

// A cluster's topology as an outside controller sets it (Kvrocks's CLUSTERX
// SETNODES, which kvrocks-controller sends to every node): nodes don't
// gossip, each holds the whole map. The text is one line per node, lines
// separated by '\n', fields by ' ':
//
//   <id> <host> <port> master - <slot|start-end> [<slot|start-end> ...]
//   <id> <host> <port> slave <master id>
//
// Invariants Parse enforces, with Kvrocks's messages: an id is 40 bytes;
// a port fits 16 bits; a master's fourth field is "-", a slave's a 40-byte
// id and nothing after it ("replica" is taken for "slave"); a slot is in
// [0, 16384) and a range's start is below its end; no slot has two
// masters. A master may own no slot. Slots no master owns are unserved
// (CLUSTERDOWN).

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cluster/key_slot.h"

namespace trackdb::cluster {

inline constexpr size_t kNodeIdLength = 40;

struct Node {
  std::string id;
  std::string host;
  int port = 0;  // the node's RESP port
  bool master = true;
  std::string master_id;  // a slave's master; empty for a master
};

// A run of consecutive slots with one owner.
struct SlotRun {
  int first = 0, last = 0;
  int owner = -1;  // index into Topology::nodes()
};

class Topology {
 public:
  Topology() { slot_owner_.fill(-1); }
  static absl::StatusOr<Topology> Parse(absl::string_view text);

  // In the order the text gave them.
  const std::vector<Node>& nodes() const { return nodes_; }
  // The index of the node with `id`; -1 if none.
  int Find(absl::string_view id) const;
  // The index of the master serving `slot`; -1 if none.
  int Owner(int slot) const { return slot_owner_[slot]; }
  // The owned slots as maximal runs, in slot order.
  std::vector<SlotRun> Runs() const;
  // The indexes of the slaves of node `master`, in the text's order.
  std::vector<int> ReplicasOf(int master) const;
  // Masters that own at least one slot (CLUSTER INFO's cluster_size).
  int Size() const;
  int AssignedSlots() const;
  // The text Parse reads back to an equal topology.
  std::string ToText() const;

 private:
  std::vector<Node> nodes_;
  std::array<int, kSlots> slot_owner_;
};

}  // namespace trackdb::cluster

#endif  // TRACKDB_CLUSTER_TOPOLOGY_H_
