// Fences through the store: FenceStore, evaluation of every
// AddPoints in its batch, the event log's offsets across reopening, and
// the store's events against the pure detector run over each entity's
// whole sequence (fence/detector.h's rules, evaluated the way
// fence_eval.cc says: per call, per entity in time order).

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "fence/detector.h"
#include "fence/fence_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/format/keys.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::OpenStore;
using testing::Point;

constexpr double kLat = 40.0, kLon = 116.0;
constexpr double kIn = 40.0, kOut = 40.01;  // a 500 m circle at kLat, kLon

v1::Fence Depot() {
  v1::Fence f = fence::testing::CircleFence(kLat, kLon, 500);
  f.clear_detect();
  f.add_detect(v1::FENCE_EVENT_ENTER);
  f.add_detect(v1::FENCE_EVENT_EXIT);
  return f;
}

// "<entity> <fence> <kind>[ late]" per event, in log order.
std::vector<std::string> Events(TrackStore& store, uint64_t from = 1) {
  auto page = store.fences().ReadEvents("fleet", from, 10000);
  EXPECT_TRUE(page.ok()) << page.status();
  std::vector<std::string> out;
  for (const FenceEventRecord& e : page->events) {
    out.push_back(absl::StrCat(e.point.entity, " ", e.fence, " ",
                               v1::FenceEventKind_Name(e.kind).substr(12),
                               e.late ? " late" : ""));
  }
  return out;
}

TEST(FenceStoreTest, EveryAddPointsIsEvaluatedAndLogged) {
  auto store = OpenStore(testing::NewDataDir());
  ASSERT_EQ(*store->fences().Put(Depot()), true);
  ASSERT_TRUE(store
                  ->AddPoints("fleet", {Point("t1", 1000, kOut, kLon),
                                        Point("t2", 1000, kIn, kLon)})
                  .ok());
  ASSERT_TRUE(store->AddPoints("fleet", {Point("t1", 2000, kIn, kLon)}).ok());
  ASSERT_TRUE(store->AddPoints("fleet", {Point("t2", 2000, kOut, kLon)}).ok());
  EXPECT_THAT(Events(*store),
              ElementsAre("t2 depot ENTER", "t1 depot ENTER", "t2 depot EXIT"));
  EXPECT_THAT(*store->fences().Members("fleet", "depot"), ElementsAre("t1"));
  auto page = store->fences().ReadEvents("fleet", 1, 2);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->events.size(), 2u);
  EXPECT_EQ(page->events[0].offset, 1u);
  EXPECT_EQ(page->events[1].offset, 2u);
  EXPECT_EQ(page->next_offset, 3u);
  EXPECT_THAT(Events(*store, page->next_offset), ElementsAre("t2 depot EXIT"));
  // Another collection sees nothing of it.
  ASSERT_TRUE(store->AddPoints("other", {Point("t3", 1000, kIn, kLon)}).ok());
  auto other = store->fences().ReadEvents("other", 1, 10);
  ASSERT_TRUE(other.ok());
  EXPECT_THAT(other->events, IsEmpty());
}

TEST(FenceStoreTest, PointsOfOneCallAreEvaluatedInTimeOrder) {
  auto store = OpenStore(testing::NewDataDir());
  ASSERT_TRUE(store->fences().Put(Depot()).ok());
  // Sent newest first: in time order they enter at 2000 and leave at 3000.
  ASSERT_TRUE(store
                  ->AddPoints("fleet", {Point("t1", 3000, kOut, kLon),
                                        Point("t1", 2000, kIn, kLon),
                                        Point("t1", 1000, kOut, kLon)})
                  .ok());
  EXPECT_THAT(Events(*store), ElementsAre("t1 depot ENTER", "t1 depot EXIT"));
  // Older than the latest (3000): late, dropped.
  ASSERT_TRUE(store->AddPoints("fleet", {Point("t1", 2500, kIn, kLon)}).ok());
  EXPECT_EQ(Events(*store).size(), 2u);
}

TEST(FenceStoreTest, StatesAndOffsetsSurviveReopening) {
  const std::string dir = testing::NewDataDir();
  {
    auto store = OpenStore(dir);
    v1::Fence f = Depot();
    f.set_debounce_fixes(2);
    ASSERT_TRUE(store->fences().Put(f).ok());
    ASSERT_TRUE(store
                    ->AddPoints("fleet", {Point("t1", 1000, kIn, kLon),
                                          Point("t1", 2000, kIn, kLon)})
                    .ok());
    ASSERT_TRUE(
        store->AddPoints("fleet", {Point("t1", 3000, kOut, kLon)}).ok());
    EXPECT_THAT(Events(*store), ElementsAre("t1 depot ENTER"));
    ASSERT_TRUE(store->Close().ok());
  }
  auto store = OpenStore(dir);
  EXPECT_EQ(store->fences().List("fleet")->size(), 1u);
  // One fix outside is pending from before the restart: this one exits.
  ASSERT_TRUE(store->AddPoints("fleet", {Point("t1", 4000, kOut, kLon)}).ok());
  auto page = store->fences().ReadEvents("fleet", 1, 10);
  ASSERT_EQ(page->events.size(), 2u);
  EXPECT_EQ(page->events[1].offset, 2u);
  EXPECT_EQ(page->events[1].kind, v1::FENCE_EVENT_EXIT);
  EXPECT_EQ(page->events[1].point.loc_time_ms, 4000);
}

// A store whose fence logs keep at most `max_events` events no older than
// `max_age_s` (0: no limit).
std::unique_ptr<TrackStore> OpenWithRetention(const std::string& dir,
                                              uint64_t max_age_s,
                                              uint64_t max_events) {
  v1::StorageConfig config;
  config.set_fence_log_max_age_s(max_age_s);
  config.set_fence_log_max_events(max_events);
  auto store = TrackStore::Open(dir, config);
  EXPECT_TRUE(store.ok()) << store.status();
  return *std::move(store);
}

// Moves t1 in and out of the depot: `n` events, ENTER first.
void CrossTheDepot(TrackStore& store, int n, int64_t* t) {
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(store
                    .AddPoints("fleet", {Point("t1", *t += 1000,
                                               i % 2 ? kOut : kIn, kLon)})
                    .ok());
  }
}

std::vector<uint64_t> Offsets(TrackStore& store) {
  auto page = store.fences().ReadEvents("fleet", 1, 1000);
  EXPECT_TRUE(page.ok()) << page.status();
  std::vector<uint64_t> out;
  for (const FenceEventRecord& e : page->events) out.push_back(e.offset);
  return out;
}

TEST(FenceStoreTest, RetentionKeepsTheNewestEventsAndNeverReusesOffsets) {
  const std::string dir = testing::NewDataDir();
  int64_t t = 0;
  {
    auto store = OpenWithRetention(dir, 0, 3);
    ASSERT_TRUE(store->fences().Put(Depot()).ok());
    CrossTheDepot(*store, 10, &t);
    EXPECT_EQ(*store->fences().TrimLogs(absl::Now()), 7u);
    EXPECT_THAT(Offsets(*store), ElementsAre(8, 9, 10));
    EXPECT_EQ(*store->fences().TrimLogs(absl::Now()), 0u);
    ASSERT_TRUE(store->Close().ok());
  }
  auto store = OpenWithRetention(dir, 0, 3);
  EXPECT_THAT(Offsets(*store), ElementsAre(8, 9, 10));
  CrossTheDepot(*store, 1, &t);
  EXPECT_THAT(Offsets(*store), ElementsAre(8, 9, 10, 11));
  auto page = store->fences().ReadEvents("fleet", 2, 10);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->events.front().offset, 8u)
      << "a read from an offset no longer kept starts at the oldest kept";
}

TEST(FenceStoreTest, RetentionByAgeMayEmptyTheLogButOffsetsGoOn) {
  const std::string dir = testing::NewDataDir();
  int64_t t = 0;
  const absl::Time now = absl::Now();
  {
    auto store = OpenWithRetention(dir, 60, 0);
    ASSERT_TRUE(store->fences().Put(Depot()).ok());
    CrossTheDepot(*store, 4, &t);
    EXPECT_EQ(*store->fences().TrimLogs(now + absl::Seconds(30)), 0u);
    EXPECT_THAT(Offsets(*store), ElementsAre(1, 2, 3, 4));
    EXPECT_EQ(*store->fences().TrimLogs(now + absl::Minutes(2)), 4u);
    EXPECT_THAT(Offsets(*store), IsEmpty());
    ASSERT_TRUE(store->Close().ok());
  }
  auto store = OpenWithRetention(dir, 60, 0);
  EXPECT_EQ(store->fences().LogEnd("fleet"), 5u);
  CrossTheDepot(*store, 1, &t);
  EXPECT_THAT(Offsets(*store), ElementsAre(5));
  EXPECT_EQ(*store->fences().TrimLogs(now), 0u) << "young enough";
}

TEST(FenceStoreTest, ReplacingOrDeletingAFenceDropsItsStates) {
  auto store = OpenStore(testing::NewDataDir());
  ASSERT_TRUE(store->fences().Put(Depot()).ok());
  ASSERT_TRUE(store->AddPoints("fleet", {Point("t1", 1000, kIn, kLon)}).ok());
  EXPECT_THAT(*store->fences().Members("fleet", "depot"), ElementsAre("t1"));
  EXPECT_EQ(*store->fences().Put(Depot()), false);  // replaced: all outside
  EXPECT_THAT(*store->fences().Members("fleet", "depot"), IsEmpty());
  ASSERT_TRUE(store->AddPoints("fleet", {Point("t1", 2000, kIn, kLon)}).ok());
  EXPECT_THAT(Events(*store), ElementsAre("t1 depot ENTER", "t1 depot ENTER"));
  EXPECT_EQ(*store->fences().Delete("fleet", "depot"), true);
  EXPECT_EQ(*store->fences().Delete("fleet", "depot"), false);
  EXPECT_THAT(testing::ReadRaw(*store, ColumnFamily::kFences,
                               FencesPrefix("fleet", kFenceStateTag)),
              IsEmpty());
  EXPECT_FALSE(store->fences().Get("fleet", "depot")->has_value());
  ASSERT_TRUE(store->AddPoints("fleet", {Point("t1", 3000, kOut, kLon)}).ok());
  EXPECT_EQ(Events(*store).size(), 2u);
}

TEST(FenceStoreTest, ADeletedEntityComesBackOutside) {
  auto store = OpenStore(testing::NewDataDir());
  ASSERT_TRUE(store->fences().Put(Depot()).ok());
  ASSERT_TRUE(store->AddPoints("fleet", {Point("t1", 1000, kIn, kLon)}).ok());
  ASSERT_TRUE(*store->DeleteEntity("fleet", "t1"));
  EXPECT_THAT(*store->fences().Members("fleet", "depot"), IsEmpty());
  ASSERT_TRUE(store->AddPoints("fleet", {Point("t1", 500, kIn, kLon)}).ok());
  ASSERT_TRUE(store->AddPoints("fleet", {Point("t2", 500, kIn, kLon)}).ok());
  ASSERT_TRUE(store->DeleteCollection("fleet").ok());
  EXPECT_THAT(*store->fences().Members("fleet", "depot"), IsEmpty());
  EXPECT_EQ(store->fences().List("fleet")->size(), 1u);  // fences stay
  EXPECT_THAT(Events(*store), ElementsAre("t1 depot ENTER", "t1 depot ENTER",
                                          "t2 depot ENTER"));
}

TEST(FenceStoreTest, ABadFenceNamesItsFieldAndWritesNothing) {
  auto store = OpenStore(testing::NewDataDir());
  v1::Fence f = Depot();
  f.mutable_circle()->set_radius_m(-1);
  auto put = store->fences().Put(f);
  EXPECT_EQ(put.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(put.status().message(), HasSubstr("circle.radius_m"));
  EXPECT_THAT(testing::ReadRaw(*store, ColumnFamily::kFences), IsEmpty());
}

// A collection name may be any bytes (a RESP database's names start with
// 0xff); a fence name must be UTF-8, as every proto3 string.
TEST(FenceStoreTest, FencesOfACollectionWhoseNameIsNotUtf8) {
  const std::string dir = testing::NewDataDir();
  const std::string binary(
      "\xff\x01"
      "fleet",
      7);
  v1::Fence f = Depot();
  f.set_collection(binary);
  {
    auto store = OpenStore(dir);
    ASSERT_TRUE(store->fences().Put(f).ok());
    ASSERT_TRUE(store->AddPoints(binary, {Point("t1", 1000, kIn, kLon)}).ok());
    ASSERT_TRUE(store->Close().ok());
  }
  auto store = OpenStore(dir);
  auto got = store->fences().Get(binary, "depot");
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->collection(), binary);
  EXPECT_EQ(store->fences().List(binary)->size(), 1u);
  EXPECT_THAT(*store->fences().Members(binary, "depot"), ElementsAre("t1"));
  ASSERT_TRUE(store->AddPoints(binary, {Point("t1", 2000, kOut, kLon)}).ok());
  EXPECT_EQ(store->fences().ReadEvents(binary, 1, 10)->events.size(), 2u);

  f.set_name("\xff");
  auto put = store->fences().Put(f);
  EXPECT_EQ(put.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(put.status().message(), HasSubstr("name must be UTF-8"));
}

// Two points of an entity at one time: the latest point is the one written
// last, and the fence follows it; the same point again is not a new fix.
TEST(FenceStoreTest, APointAsOldAsTheLatestMovesItOrRepeatsIt) {
  auto store = OpenStore(testing::NewDataDir());
  v1::Fence f = Depot();
  f.add_detect(v1::FENCE_EVENT_INSIDE);
  ASSERT_TRUE(store->fences().Put(f).ok());
  ASSERT_TRUE(store->AddPoints("fleet", {Point("t1", 1000, kIn, kLon)}).ok());
  ASSERT_TRUE(store->AddPoints("fleet", {Point("t1", 1000, kIn, kLon)}).ok());
  ASSERT_TRUE(store->AddPoints("fleet", {Point("t1", 1000, kOut, kLon)}).ok());
  EXPECT_THAT(Events(*store), ElementsAre("t1 depot ENTER", "t1 depot INSIDE",
                                          "t1 depot EXIT"));
  EXPECT_THAT(*store->fences().Members("fleet", "depot"), IsEmpty());
  EXPECT_EQ(store->GetLatest("fleet", "t1")->value().lat, kOut);
}

TEST(FenceStoreTest, AWaiterWakesWhenAnEventIsLogged) {
  auto store = OpenStore(testing::NewDataDir());
  ASSERT_TRUE(store->fences().Put(Depot()).ok());
  EXPECT_FALSE(store->fences().WaitForEvents("fleet", 1,
                                         absl::Now() + absl::Milliseconds(20)));
  std::thread writer([&] {
    absl::SleepFor(absl::Milliseconds(50));
    ASSERT_TRUE(store->AddPoints("fleet", {Point("t1", 1000, kIn, kLon)}).ok());
  });
  EXPECT_TRUE(
      store->fences().WaitForEvents("fleet", 1, absl::Now() + absl::Seconds(30)));
  writer.join();
  EXPECT_THAT(Events(*store), ElementsAre("t1 depot ENTER"));
}

// A follower of every log waits on one clock: an event in any collection
// moves it, and LogEnds then shows which log grew.
TEST(FenceStoreTest, OneClockForEveryCollectionsLog) {
  auto store = OpenStore(testing::NewDataDir());
  v1::Fence other = Depot();
  other.set_collection("buses");
  ASSERT_TRUE(store->fences().Put(Depot()).ok());
  ASSERT_TRUE(store->fences().Put(other).ok());
  const uint64_t seen = store->fences().LogTicks();
  EXPECT_FALSE(
      store->fences().WaitForLogTick(seen, absl::Now() + absl::Milliseconds(20)));
  std::thread writer([&] {
    absl::SleepFor(absl::Milliseconds(50));
    ASSERT_TRUE(store->AddPoints("buses", {Point("b1", 1000, kIn, kLon)}).ok());
  });
  EXPECT_TRUE(
      store->fences().WaitForLogTick(seen, absl::Now() + absl::Seconds(30)));
  writer.join();
  EXPECT_GT(store->fences().LogTicks(), seen);
  auto ends = store->fences().LogEnds();
  std::sort(ends.begin(), ends.end());
  EXPECT_THAT(ends, ElementsAre(std::make_pair(std::string("buses"), 2u),
                                std::make_pair(std::string("fleet"), 1u)));
}

// Writers of different entities commit events concurrently, out of offset
// order; a reader that follows the log (read up to what is readable, wait,
// go on from next_offset) must still see every event exactly once.
TEST(FenceStoreTest, AFollowingReaderMissesNothingWritersCommitOutOfOrder) {
  auto store = OpenStore(testing::NewDataDir());
  ASSERT_TRUE(store->fences().Put(Depot()).ok());
  constexpr int kWriters = 4, kRounds = 150;  // each round: ENTER, EXIT
  constexpr uint64_t kEvents = kWriters * kRounds * 2;
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&store, w] {
      const std::string entity = absl::StrCat("t", w);
      for (int i = 0; i < kRounds; ++i) {
        const int64_t t = 1000 + 2000 * i;
        ASSERT_TRUE(
            store->AddPoints("fleet", {Point(entity, t, kIn, kLon)}).ok());
        ASSERT_TRUE(
            store->AddPoints("fleet", {Point(entity, t + 1000, kOut, kLon)})
                .ok());
      }
    });
  }
  std::vector<uint64_t> seen;
  std::map<std::string, int> per_entity;
  uint64_t next = 1;
  const absl::Time give_up = absl::Now() + absl::Seconds(120);
  while (seen.size() < kEvents && absl::Now() < give_up) {
    auto page = store->fences().ReadEvents("fleet", next, 7);
    ASSERT_TRUE(page.ok()) << page.status();
    for (const FenceEventRecord& e : page->events) {
      seen.push_back(e.offset);
      ++per_entity[e.point.entity];
    }
    next = page->next_offset;
    if (page->events.empty()) {
      store->fences().WaitForEvents("fleet", next,
                                absl::Now() + absl::Milliseconds(100));
    }
  }
  for (std::thread& t : writers) t.join();
  ASSERT_EQ(seen.size(), kEvents);
  for (size_t i = 0; i < seen.size(); ++i) {
    ASSERT_EQ(seen[i], i + 1) << "offsets are dense here: no batch failed";
  }
  for (int w = 0; w < kWriters; ++w) {
    EXPECT_EQ(per_entity[absl::StrCat("t", w)], kRounds * 2);
  }
  auto rest = store->fences().ReadEvents("fleet", next, 100);
  ASSERT_TRUE(rest.ok());
  EXPECT_THAT(rest->events, IsEmpty());
}

// --- The store against the pure detector ---

struct Scenario {
  std::vector<v1::Fence> fences;
  // Calls, each a batch of points (several entities, any order).
  std::vector<std::vector<model::TrackPoint>> calls;
};

// Fixes of four entities wandering around the fences, with boundary
// jitter, inaccurate fixes, late ones and jumps far from every fence (so
// that an EXIT comes from outside the fence index's cells); every
// (entity, time) once.
Scenario RandomScenario(uint32_t seed) {
  std::mt19937 rng(seed);
  Scenario s;
  v1::Fence circle = fence::testing::CircleFence(kLat, kLon, 500);
  circle.set_name("circle");
  circle.set_debounce_fixes(2);
  circle.set_dwell_ms(60000);
  circle.set_max_accuracy_m(60);
  v1::Fence rect = fence::testing::RectFence(40.003, 116.0, 40.008, 116.006);
  rect.set_name("rect");
  rect.set_late_points(v1::LATE_POINTS_REPORT);
  rect.set_entity_glob("t[12]");
  v1::Fence poly = fence::testing::PolygonFence(
      {{{39.995, 115.995}, {40.006, 115.998}, {39.998, 116.007}},
       {{39.999, 115.999}, {40.0, 116.0}, {39.999, 116.001}}});
  poly.set_name("poly");
  poly.set_debounce_ms(20000);
  for (v1::Fence* f : {&circle, &rect, &poly}) {
    fence::testing::DetectEverything(f);
    if (f != &circle) f->set_dwell_ms(45000);
    // Only the rect reports OUTSIDE, so the others are evaluated only near
    // their area and where an entity has a state.
    if (f != &rect) {
      f->clear_detect();
      for (auto kind :
           {v1::FENCE_EVENT_ENTER, v1::FENCE_EVENT_EXIT, v1::FENCE_EVENT_INSIDE,
            v1::FENCE_EVENT_CROSS, v1::FENCE_EVENT_DWELL}) {
        f->add_detect(kind);
      }
    }
    s.fences.push_back(*f);
  }
  std::uniform_real_distribution<double> step(-0.002, 0.002);
  std::uniform_int_distribution<int> pct(0, 99), gap(1, 30), batch(1, 6);
  std::map<std::string, std::tuple<double, double, int64_t>> at;
  std::map<std::string, std::set<int64_t>> used;
  for (const char* e : {"t1", "t2", "t3", "t4"}) at[e] = {kLat, kLon, 1000};
  std::vector<model::TrackPoint> call;
  for (int i = 0; i < 1500; ++i) {
    const std::string e = absl::StrCat("t", 1 + pct(rng) % 4);
    auto& [lat, lon, t] = at[e];
    lat += step(rng) + (kLat + 0.002 - lat) * 0.1;
    lon += step(rng) + (kLon + 0.002 - lon) * 0.1;
    if (pct(rng) < 4) {  // far out of every fence's covering, and back
      lat += pct(rng) < 50 ? 0.05 : -0.05;
    }
    int64_t when = (t += gap(rng) * 1000);
    if (pct(rng) < 8) when -= gap(rng) * 3000 + 17;  // late
    if (!used[e].insert(when).second) continue;
    model::TrackPoint p = Point(e, when, lat, lon);
    if (pct(rng) < 60) p.accuracy_m = 5 + pct(rng);
    call.push_back(p);
    if (static_cast<int>(call.size()) >= batch(rng)) {
      std::shuffle(call.begin(), call.end(), rng);
      s.calls.push_back(std::move(call));
      call.clear();
    }
  }
  if (!call.empty()) s.calls.push_back(call);
  return s;
}

// "<entity> <fence> <t> <hit>" for every event the rules give, per call
// and entity (first appearance order), points by time, fences by name.
std::multiset<std::string> ReferenceEvents(const Scenario& s) {
  std::vector<fence::Fence> fences;
  for (const v1::Fence& f : s.fences)
    fences.push_back(fence::testing::Compile(f));
  std::map<std::pair<std::string, std::string>, fence::EntityFenceState> state;
  std::map<std::string, fence::PriorFix> prior;
  std::multiset<std::string> out;
  for (std::vector<model::TrackPoint> call : s.calls) {
    std::stable_sort(call.begin(), call.end(),
                     [](const auto& a, const auto& b) {
                       return a.loc_time_ms < b.loc_time_ms;
                     });
    for (const model::TrackPoint& p : call) {
      std::optional<fence::PriorFix> before;
      if (prior.count(p.entity)) before = prior[p.entity];
      for (const fence::Fence& f : fences) {
        if (!f.Applies(p.entity)) continue;
        for (const std::string& hit : fence::testing::Describe(
                 fence::Evaluate(f, p, before, &state[{p.entity, f.name}]))) {
          out.insert(absl::StrCat(p.entity, " ", f.name, " ", p.loc_time_ms,
                                  " ", hit));
        }
      }
      if (!before || p.loc_time_ms > before->loc_time_ms) {
        prior[p.entity] = {p.loc_time_ms, p.lat, p.lon};
      }
    }
  }
  return out;
}

TEST(FenceStoreTest, AgreesWithTheDetectorOverWholeSequences) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    const Scenario s = RandomScenario(seed);
    const std::string dir = testing::NewDataDir();
    auto store = OpenStore(dir);
    for (const v1::Fence& f : s.fences) ASSERT_TRUE(store->fences().Put(f).ok());
    for (size_t i = 0; i < s.calls.size(); ++i) {
      ASSERT_TRUE(store->AddPoints("fleet", s.calls[i]).ok());
      if (i == s.calls.size() / 2) {  // the second half after a reopen
        ASSERT_TRUE(store->Close().ok());
        store = OpenStore(dir);
      }
    }
    std::multiset<std::string> got;
    std::map<std::string, int> kinds;
    uint64_t last = 0;
    auto page = store->fences().ReadEvents("fleet", 1, 1 << 20);
    ASSERT_TRUE(page.ok()) << page.status();
    for (const FenceEventRecord& e : page->events) {
      ASSERT_GT(e.offset, last);
      last = e.offset;
      std::string hit =
          fence::testing::Describe(fence::FenceHit{e.kind, e.late, e.dwell_ms});
      ++kinds[hit.substr(0, hit.find(' '))];
      got.insert(absl::StrCat(e.point.entity, " ", e.fence, " ",
                              e.point.loc_time_ms, " ", hit));
    }
    EXPECT_EQ(got, ReferenceEvents(s)) << "seed " << seed;
    // The walk must reach every rule, or agreeing proves little.
    for (const char* kind : {"ENTER", "EXIT", "CROSS", "DWELL", "late"}) {
      EXPECT_GT(kinds[kind], 3) << kind << ", seed " << seed;
    }
  }
}

}  // namespace
}  // namespace trackdb::storage
