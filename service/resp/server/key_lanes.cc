#include "service/resp/server/key_lanes.h"

#include <memory>
#include <utility>

namespace trackdb::resp {

bool KeyLanes::EnterOrQueue(size_t lane, Task& task) {
  Lane& l = lanes_[lane];
  absl::MutexLock lock(&l.mu);
  if (!l.busy) {
    l.busy = true;
    return true;
  }
  l.queued.push_back(std::move(task));
  return false;
}

void KeyLanes::Leave(size_t lane) {
  Lane& l = lanes_[lane];
  std::vector<Task> tasks;
  {
    absl::MutexLock lock(&l.mu);
    if (l.queued.empty()) {
      l.busy = false;
      return;
    }
    // The lane stays busy: it passes, with every group queued so far, to
    // the first group's loop. Groups queued from now on wait for the next
    // hand-over, so a loop runs a bounded batch between its own handlers.
    tasks.swap(l.queued);
  }
  auto batch = std::make_shared<std::vector<Task>>(std::move(tasks));
  auto post = batch->front().post;
  post([this, lane, batch] { RunQueued(lane, std::move(*batch)); });
}

void KeyLanes::RunQueued(size_t lane, std::vector<Task> tasks) {
  size_t i = 0;
  while (i < tasks.size()) {
    size_t end = i;
    while (serve_groups_ && end < tasks.size() && tasks[end].group) ++end;
    if (end > i) {
      ServeTogether(tasks, i, end);
      i = end;
    } else {
      tasks[i++].run();
    }
  }
  Leave(lane);
}

void KeyLanes::ServeTogether(std::vector<Task>& tasks, size_t begin,
                             size_t end) {
  std::vector<PendingGroup> groups;
  groups.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) groups.push_back(*tasks[i].group);
  serve_groups_(groups);
  for (size_t i = begin; i < end; ++i) tasks[i].resume();
}

size_t KeyLanes::QueuedForTest(size_t lane) {
  Lane& l = lanes_[lane];
  absl::MutexLock lock(&l.mu);
  return l.queued.size();
}

}  // namespace trackdb::resp
