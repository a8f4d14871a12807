#include "service/resp/server/key_lanes.h"

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::resp {
namespace {

// Functions posted to it, run in order on one thread: an event loop.
class Loop {
 public:
  Loop() : thread_([this] { Run(); }) {}
  ~Loop() {
    {
      absl::MutexLock lock(&mu_);
      stop_ = true;
    }
    thread_.join();
  }
  void Post(std::function<void()> f) {
    absl::MutexLock lock(&mu_);
    queue_.push_back(std::move(f));
  }

 private:
  void Run() {
    for (;;) {
      std::function<void()> f;
      {
        absl::MutexLock lock(&mu_);
        mu_.Await(absl::Condition(
            +[](Loop* l) { return l->stop_ || !l->queue_.empty(); }, this));
        if (queue_.empty()) return;
        f = std::move(queue_.front());
        queue_.pop_front();
      }
      f();
    }
  }

  absl::Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

KeyLanes::Task Recorded(std::vector<int>* order, int id,
                        std::vector<std::function<void()>>* posted) {
  KeyLanes::Task task;
  task.post = [posted](std::function<void()> f) {
    posted->push_back(std::move(f));
  };
  task.run = [order, id] { order->push_back(id); };
  return task;
}

TEST(KeyLanesTest, BusyLaneQueuesAndHandsOverInOrder) {
  KeyLanes lanes;
  std::vector<int> order;
  std::vector<std::function<void()>> posted;
  KeyLanes::Task first = Recorded(&order, 1, &posted);
  ASSERT_TRUE(lanes.EnterOrQueue(7, first));
  // Another lane is free meanwhile.
  KeyLanes::Task other = Recorded(&order, 9, &posted);
  ASSERT_TRUE(lanes.EnterOrQueue(8, other));
  lanes.Leave(8);

  KeyLanes::Task second = Recorded(&order, 2, &posted);
  KeyLanes::Task third = Recorded(&order, 3, &posted);
  EXPECT_FALSE(lanes.EnterOrQueue(7, second));
  EXPECT_FALSE(lanes.EnterOrQueue(7, third));
  EXPECT_EQ(lanes.QueuedForTest(7), 2u);
  EXPECT_TRUE(order.empty());

  // The holder leaves: the queued groups go, as one batch, to the first
  // one's loop; the lane stays taken until they ran.
  lanes.Leave(7);
  ASSERT_EQ(posted.size(), 1u);
  EXPECT_EQ(lanes.QueuedForTest(7), 0u);
  KeyLanes::Task late = Recorded(&order, 4, &posted);
  EXPECT_FALSE(lanes.EnterOrQueue(7, late));

  std::function<void()> batch = std::move(posted[0]);
  batch();
  EXPECT_THAT(order, testing::ElementsAre(2, 3));
  // The group queued while the batch waited is handed on after it.
  ASSERT_EQ(posted.size(), 2u);
  posted[1]();
  EXPECT_THAT(order, testing::ElementsAre(2, 3, 4));

  KeyLanes::Task again = Recorded(&order, 5, &posted);
  EXPECT_TRUE(lanes.EnterOrQueue(7, again));
}

// A task with a group (its calls: one, {"id", <id>}), recording the ids
// of each run of groups it is served in, and its resumption.
KeyLanes::Task Grouped(const std::vector<std::vector<std::string>>* calls,
                       std::vector<std::string>* events,
                       std::vector<std::function<void()>>* posted) {
  KeyLanes::Task task;
  task.post = [posted](std::function<void()> f) {
    posted->push_back(std::move(f));
  };
  task.run = [events] { events->push_back("run alone"); };
  PendingGroup group;
  group.calls = *calls;
  task.group = group;
  const std::string id = (*calls)[0][1];
  task.resume = [events, id] { events->push_back("resume " + id); };
  return task;
}

TEST(KeyLanesTest, QueuedGroupsAreServedTogetherThenResumed) {
  std::vector<std::string> events;
  KeyLanes lanes([&events](absl::Span<const PendingGroup> groups) {
    std::string served = "serve";
    for (const PendingGroup& g : groups) served += " " + g.calls[0][1];
    events.push_back(served);
  });
  std::vector<std::function<void()>> posted;
  const std::vector<std::vector<std::string>> a = {{"id", "a"}},
                                              b = {{"id", "b"}},
                                              d = {{"id", "d"}},
                                              e = {{"id", "e"}};
  KeyLanes::Task holder = Grouped(&a, &events, &posted);
  ASSERT_TRUE(lanes.EnterOrQueue(3, holder));
  std::vector<int> order;
  KeyLanes::Task task_b = Grouped(&b, &events, &posted);
  KeyLanes::Task task_c = Recorded(&order, 3, &posted);  // no group
  KeyLanes::Task task_d = Grouped(&d, &events, &posted);
  KeyLanes::Task task_e = Grouped(&e, &events, &posted);
  for (KeyLanes::Task* t : {&task_b, &task_c, &task_d, &task_e}) {
    ASSERT_FALSE(lanes.EnterOrQueue(3, *t));
  }
  lanes.Leave(3);
  ASSERT_EQ(posted.size(), 1u);
  posted[0]();
  // b alone (c, which has no group, parts it from d and e), then d and e
  // in one call; each resumed only once served, never run alone.
  EXPECT_THAT(events, testing::ElementsAre("serve b", "resume b", "serve d e",
                                           "resume d", "resume e"));
  EXPECT_THAT(order, testing::ElementsAre(3));
}

TEST(KeyLanesTest, WithoutServeGroupsGroupedTasksRunAlone) {
  KeyLanes lanes;
  std::vector<std::string> events;
  std::vector<std::function<void()>> posted;
  const std::vector<std::vector<std::string>> a = {{"id", "a"}},
                                              b = {{"id", "b"}};
  KeyLanes::Task holder = Grouped(&a, &events, &posted);
  ASSERT_TRUE(lanes.EnterOrQueue(3, holder));
  KeyLanes::Task task_b = Grouped(&b, &events, &posted);
  ASSERT_FALSE(lanes.EnterOrQueue(3, task_b));
  lanes.Leave(3);
  ASSERT_EQ(posted.size(), 1u);
  posted[0]();
  EXPECT_THAT(events, testing::ElementsAre("run alone"));
}

// Connections on two loops each serve `kGroups` groups on one lane, one
// after another (a connection waits while its group is queued). Each
// group is a read-modify-write of a plain counter: lanes must run them one
// at a time and lose none.
TEST(KeyLanesTest, GroupsFromTwoLoopsRunOneAtATimeAndAllRun) {
  constexpr int kConnections = 16;
  constexpr int kGroups = 2000;
  KeyLanes lanes;
  constexpr size_t kLane = 3;
  int64_t counter = 0;  // guarded by the lane alone
  std::atomic<int> inside{0};
  std::atomic<int> overlaps{0};
  std::atomic<int> finished{0};
  auto serve_group = [&] {
    if (inside.fetch_add(1) != 0) overlaps.fetch_add(1);
    const int64_t seen = counter;
    std::this_thread::yield();
    counter = seen + 1;
    inside.fetch_sub(1);
  };
  {
    Loop loops[2];
    struct Conn {
      Loop* loop;
      int left;
    };
    std::vector<std::unique_ptr<Conn>> conns;
    std::function<void(Conn*)> step = [&](Conn* c) {
      if (c->left-- == 0) {
        finished.fetch_add(1);
        return;
      }
      KeyLanes::Task task;
      task.post = [c](std::function<void()> f) { c->loop->Post(std::move(f)); };
      task.run = [&, c] {
        serve_group();
        c->loop->Post([&, c] { step(c); });
      };
      if (!lanes.EnterOrQueue(kLane, task)) return;  // suspended
      serve_group();
      lanes.Leave(kLane);
      c->loop->Post([&, c] { step(c); });
    };
    for (int i = 0; i < kConnections; ++i) {
      conns.push_back(std::make_unique<Conn>(Conn{&loops[i % 2], kGroups}));
      Conn* c = conns.back().get();
      c->loop->Post([&, c] { step(c); });
    }
    for (int waited = 0; finished.load() < kConnections && waited < 60000;
         ++waited) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  EXPECT_EQ(finished.load(), kConnections);
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(counter, int64_t{kConnections} * kGroups);
}

}  // namespace
}  // namespace trackdb::resp
