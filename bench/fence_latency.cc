// Fence event latency on a running trackd: writers send moving points at a
// fixed rate over gRPC (AddPoints, --batch points per call, from
// --connections threads) into a collection with --fences circle fences,
// while one FenceService.Watch stream follows its event log. For each event
// the latency is from the moment the writer got the acknowledgement of the
// call holding its point to the moment the event came off the stream (0
// when the event came first). Reports the rate reached, events, and the
// latency's p50/p99/max.
//
//   fence_latency --target=127.0.0.1:50051 --rate=10000 --batch=10
//   --seconds=20
//
// bench/fence_latency.sh starts trackd and runs the table in
// bench/README.md ("Fence event latency").

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/grpcpp.h"
#include "trackdb/v1/fence.grpc.pb.h"
#include "trackdb/v1/track_service.grpc.pb.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "trackd's gRPC address");
ABSL_FLAG(int, rate, 10000, "points per second, all writers together");
ABSL_FLAG(int, batch, 10, "points per AddPoints call");
ABSL_FLAG(int, connections, 4, "writer threads, one channel each");
ABSL_FLAG(int, seconds, 20, "how long to write");
ABSL_FLAG(int, fences, 1000, "circle fences (300 m) over the 30 km city");
ABSL_FLAG(int, entities, 10000, "entities moving in the city");
ABSL_FLAG(std::string, collection, "latency", "collection to use");

namespace trackdb::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kLat = 39.9, kLon = 116.4, kHalf = 0.135;  // ~30 km

// When each point's call was acknowledged, by the point's loc_time (each
// point has its own: a shared counter).
class AckTimes {
 public:
  void Record(int64_t first, int n, Clock::time_point at) {
    absl::MutexLock l(&mu_);
    for (int i = 0; i < n; ++i) acks_[first + i] = at;
  }
  std::optional<Clock::time_point> Find(int64_t t) {
    absl::MutexLock l(&mu_);
    auto it = acks_.find(t);
    if (it == acks_.end()) return std::nullopt;
    return it->second;
  }

 private:
  absl::Mutex mu_;
  absl::flat_hash_map<int64_t, Clock::time_point> acks_;
};

std::atomic<int64_t> g_time{1763700000000};

void PutFences(v1::FenceService::Stub& fences) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> d(-kHalf, kHalf);
  for (int i = 0; i < absl::GetFlag(FLAGS_fences); ++i) {
    v1::PutFenceRequest req;
    v1::Fence* f = req.mutable_fence();
    f->set_collection(absl::GetFlag(FLAGS_collection));
    f->set_name(absl::StrCat("f", i));
    f->mutable_circle()->mutable_center()->set_latitude(kLat + d(rng));
    f->mutable_circle()->mutable_center()->set_longitude(kLon + d(rng));
    f->mutable_circle()->set_radius_m(300);
    grpc::ClientContext ctx;
    v1::PutFenceResponse resp;
    grpc::Status s = fences.PutFence(&ctx, req, &resp);
    if (!s.ok()) {
      std::fprintf(stderr, "PutFence: %s\n", s.error_message().c_str());
      std::exit(1);
    }
  }
}

// One writer: calls of `batch` points (entities jumping anywhere in the
// city, so that many points enter or leave a fence) at its share of rate.
int64_t Write(int id, Clock::time_point end, AckTimes* acks) {
  auto channel = grpc::CreateChannel(absl::GetFlag(FLAGS_target),
                                     grpc::InsecureChannelCredentials());
  auto stub = v1::TrackService::NewStub(channel);
  const int batch = absl::GetFlag(FLAGS_batch);
  const double calls_per_s = absl::GetFlag(FLAGS_rate) /
                             double(batch * absl::GetFlag(FLAGS_connections));
  const auto gap = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(1.0 / calls_per_s));
  std::mt19937_64 rng(id);
  std::uniform_real_distribution<double> d(-kHalf, kHalf);
  std::uniform_int_distribution<int> who(0, absl::GetFlag(FLAGS_entities) - 1);
  int64_t points = 0;
  // Behind schedule (trackd slower than the rate), calls go back to back
  // until the time is up: the rate reached is what trackd sustained.
  for (auto next = Clock::now(); Clock::now() < end; next += gap) {
    std::this_thread::sleep_until(next);
    v1::AddPointsRequest req;
    req.set_collection(absl::GetFlag(FLAGS_collection));
    const int64_t first = g_time.fetch_add(batch);
    for (int i = 0; i < batch; ++i) {
      v1::Point* p = req.add_points();
      p->set_entity_id(absl::StrCat("e", who(rng)));
      p->set_loc_time_ms(first + i);
      p->set_latitude(kLat + d(rng));
      p->set_longitude(kLon + d(rng));
    }
    grpc::ClientContext ctx;
    v1::AddPointsResponse resp;
    if (stub->AddPoints(&ctx, req, &resp).ok()) {
      acks->Record(first, batch, Clock::now());
      points += batch;
    }
  }
  return points;
}

double Percentile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(q * v.size()));
  std::nth_element(v.begin(), v.begin() + k, v.end());
  return v[k];
}

int Run() {
  auto channel = grpc::CreateChannel(absl::GetFlag(FLAGS_target),
                                     grpc::InsecureChannelCredentials());
  auto fences = v1::FenceService::NewStub(channel);
  PutFences(*fences);
  AckTimes acks;
  std::vector<double> latency_ms;
  grpc::ClientContext watch_ctx;
  v1::WatchRequest watch;
  watch.set_collection(absl::GetFlag(FLAGS_collection));
  auto stream = fences->Watch(&watch_ctx, watch);
  int64_t unmatched = 0, out_of_turn = 0;
  // ENTER and EXIT of one entity and fence must alternate, starting with
  // ENTER: a check that concurrent writers did not double an event.
  absl::flat_hash_map<std::string, bool> inside;
  std::thread reader([&] {
    v1::FenceEvent e;
    while (stream->Read(&e)) {
      const Clock::time_point got = Clock::now();
      bool& in = inside[absl::StrCat(e.point().entity_id(), "/", e.fence())];
      if ((e.kind() == v1::FENCE_EVENT_ENTER) == in) ++out_of_turn;
      in = e.kind() == v1::FENCE_EVENT_ENTER;
      // The writer records the ack after the call returns: wait for it.
      std::optional<Clock::time_point> ack;
      for (int i = 0; i < 1000 && !(ack = acks.Find(e.point().loc_time_ms()));
           ++i) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
      if (!ack) {
        ++unmatched;
        continue;
      }
      latency_ms.push_back(std::max(
          0.0, std::chrono::duration<double, std::milli>(got - *ack).count()));
    }
  });
  const auto start = Clock::now();
  const auto end = start + std::chrono::seconds(absl::GetFlag(FLAGS_seconds));
  std::vector<std::thread> writers;
  std::atomic<int64_t> points{0};
  for (int i = 0; i < absl::GetFlag(FLAGS_connections); ++i) {
    writers.emplace_back([&, i] { points += Write(i, end, &acks); });
  }
  for (auto& w : writers) w.join();
  const double secs =
      std::chrono::duration<double>(Clock::now() - start).count();
  std::this_thread::sleep_for(std::chrono::seconds(1));  // the last events
  watch_ctx.TryCancel();
  reader.join();
  std::printf(
      "fences %d, batch %d: %.0f points/s (asked %d), %zu events, "
      "ack->watch p50 %.2f ms, p99 %.2f ms, max %.2f ms, unmatched %lld, "
      "out of turn %lld\n",
      absl::GetFlag(FLAGS_fences), absl::GetFlag(FLAGS_batch),
      points.load() / secs, absl::GetFlag(FLAGS_rate), latency_ms.size(),
      Percentile(latency_ms, 0.5), Percentile(latency_ms, 0.99),
      Percentile(latency_ms, 1.0), static_cast<long long>(unmatched),
      static_cast<long long>(out_of_turn));
  return latency_ms.empty() || out_of_turn > 0 ? 1 : 0;
}

}  // namespace
}  // namespace trackdb::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return trackdb::bench::Run();
}
