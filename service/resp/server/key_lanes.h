#ifndef TRACKDB_SERVICE_RESP_SERVER_KEY_LANES_H_
#define TRACKDB_SERVICE_RESP_SERVER_KEY_LANES_H_

// Hands the writes to one hot key from every event loop to one of them at
// a time, so that no loop waits for the key.
//
// A typed write (LPUSH, HSET, ZADD, ...) holds its key's storage stripe
// exclusively (storage/engine/entity_locks.h). When 50 clients pipeline writes
// to one key from connections spread over two loops, one loop runs its
// group while the other spins on the stripe (a quarter of trackd's CPU
// under redis-benchmark's hset and zpopmin) and serves nothing else: its
// clients' reads and replies wait, and its core is taken from the client
// processes on the machine. With lanes, a group whose lane is busy is
// queued instead and its connection suspended; the loop goes on serving
// its other connections. The lane's holder, when done, posts the queued
// groups to the loop of the first of them, which runs them one after the
// other and gives the lane on in turn: the key's writes stay one at a
// time, as the stripe requires, and the lane moves between the loops that
// have writes for it.
//
// A lane is chosen by hashing the key: two keys may share one, which
// costs them only their parallelism. A queued group runs after the groups
// queued before it on its lane (FIFO); a connection has at most one group
// queued, and serves nothing until it ran (as for a command on a worker),
// so its replies stay in order.
//
// The groups handed on together are served together where they can be
// (DispatchGroups: one transaction and one RocksDB write for all of them,
// where each would take its own), and only then resumed, so that no reply
// goes out before the write it reports. Under redis-benchmark's -c 50
// -P 16 on one key, a hand-over carries ~20 groups.
//
// Thread-safe. Not a storage lock: the stripe is still taken by every
// write, lanes only keep the loops from meeting at it.

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "service/resp/dispatch/command.h"

namespace trackdb::resp {

class KeyLanes {
 public:
  static constexpr size_t kLanes = 1024;

  // A group queued on a lane. `post` runs a function on the loop its
  // connection lives on; `run` serves the group (on whichever loop holds
  // the lane) and must then resume its connection through `post`. A task
  // may instead give its `group`, to be served with the tasks queued next
  // to it by the lanes' ServeGroups, and `resume`, run once it has been.
  struct Task {
    std::function<void(std::function<void()>)> post;
    std::function<void()> run;
    std::optional<PendingGroup> group;
    std::function<void()> resume;
  };
  // Serves consecutive queued groups, in order (DispatchGroups).
  using ServeGroups = std::function<void(absl::Span<const PendingGroup>)>;

  // Without `serve_groups` every task is served by its `run`.
  explicit KeyLanes(ServeGroups serve_groups = nullptr)
      : serve_groups_(std::move(serve_groups)) {}

  static size_t LaneOf(size_t key_hash) { return key_hash % kLanes; }

  // True: `lane` was free and is now the caller's, who serves its group at
  // once and then calls Leave(lane); `task` is left alone. False: the lane
  // is busy and `task` has been queued on it (moved from).
  bool EnterOrQueue(size_t lane, Task& task);

  // Gives `lane` back, or, when groups were queued on it meanwhile, hands
  // it with them to the loop of the first queued group.
  void Leave(size_t lane);

  // Groups queued on `lane` and not yet taken by a loop to run.
  size_t QueuedForTest(size_t lane);

 private:
  struct Lane {
    absl::Mutex mu;
    bool busy ABSL_GUARDED_BY(mu) = false;
    std::vector<Task> queued ABSL_GUARDED_BY(mu);
  };

  // Runs `tasks` (taken from `lane`, which this thread holds), then Leave.
  void RunQueued(size_t lane, std::vector<Task> tasks);
  // Serves tasks[begin, end), which all have a group, then resumes them.
  void ServeTogether(std::vector<Task>& tasks, size_t begin, size_t end);

  const ServeGroups serve_groups_;
  std::array<Lane, kLanes> lanes_;
};

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_SERVER_KEY_LANES_H_
