// A load generator for a running trackd: C concurrent connections (one gRPC
// channel and one thread each, --depth unary calls in flight on each, via
// the async API) issue one kind of call for a fixed time; reports calls/s,
// points/s, p50/p99/p999 latency and the generator's own CPU per call.
// Positions fall in a 30 km x 30 km city around (39.9, 116.4).
//
//   grpc_load --target=127.0.0.1:50051 --mode=add_points --connections=8
//   --seconds=10
//
// Modes: preload (writes --entities entities once, 1000 per call),
// add_point, add_points (100 per call), stream (100 per message),
// radius (200 m, every hit), radius10 (200 m, page of 10), bounds
// (500 m x 500 m), get_latest (1 id), health (grpc.health.v1.Health/Check:
// a no-op unary call, the ceiling of any unary call on this server).
// bench/grpc_bench.sh runs them all.

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/arena.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "trackdb/v1/track_service.grpc.pb.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "trackd's gRPC address");
ABSL_FLAG(std::string, mode, "add_points", "what to call (see above)");
ABSL_FLAG(int, connections, 8, "concurrent connections, one thread each");
ABSL_FLAG(int, depth, 1, "unary calls in flight per connection");
ABSL_FLAG(int, seconds, 10, "how long to run");
ABSL_FLAG(int, entities, 1000000, "entity ids are drawn from [0, entities)");
ABSL_FLAG(std::string, collection, "bench", "collection to use");

namespace trackdb::bench {
namespace {

using Clock = std::chrono::steady_clock;
std::atomic<int64_t> g_time{1763700000000};

void RandomPoint(std::mt19937_64& rng, int entity, v1::Point* p) {
  std::uniform_real_distribution<double> d(-0.135, 0.135);
  p->set_entity_id(absl::StrCat("v", entity));
  p->set_loc_time_ms(g_time.fetch_add(1, std::memory_order_relaxed));
  p->set_latitude(39.9 + d(rng));
  p->set_longitude(116.4 + d(rng));
  p->set_speed_kmh(30);
}

struct Result {
  std::vector<double> latencies_us;
  int64_t points = 0;
  int64_t errors = 0;
};

// One asynchronous unary call in flight; its address is its queue tag.
class Call {
 public:
  virtual ~Call() = default;
  virtual int64_t Points() const = 0;
  grpc::ClientContext ctx;
  grpc::Status status;
  Clock::time_point t0;
};

template <typename Request, typename Response>
class TypedCall final : public Call {
 public:
  using Prepare = std::unique_ptr<grpc::ClientAsyncResponseReader<Response>> (
      v1::TrackService::Stub::*)(grpc::ClientContext*, const Request&,
                                 grpc::CompletionQueue*);
  void Start(Prepare prepare, v1::TrackService::Stub* stub,
             grpc::CompletionQueue* cq) {
    t0 = Clock::now();
    reader = (stub->*prepare)(&ctx, req, cq);
    reader->StartCall();
    reader->Finish(resp, &status, this);
  }
  int64_t Points() const override { return points(*resp); }

  Request req;
  // The response and all its hits live on one arena: parsing a search
  // response then costs no allocation per hit.
  google::protobuf::Arena arena;
  Response* resp = google::protobuf::Arena::CreateMessage<Response>(&arena);
  int64_t (*points)(const Response&) = nullptr;
  std::unique_ptr<grpc::ClientAsyncResponseReader<Response>> reader;
};

// grpc.health.v1.Health/Check through the generic stub: an empty
// HealthCheckRequest is zero bytes, and the reply is not parsed.
class HealthCall final : public Call {
 public:
  void Start(grpc::GenericStub* stub, grpc::CompletionQueue* cq) {
    t0 = Clock::now();
    grpc::Slice empty;
    const grpc::ByteBuffer request(&empty, 1);
    reader = stub->PrepareUnaryCall(&ctx, "/grpc.health.v1.Health/Check",
                                    request, cq);
    reader->StartCall();
    reader->Finish(&resp, &status, this);
  }
  int64_t Points() const override { return 0; }

  grpc::ByteBuffer resp;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> reader;
};

// A worker's random choices: entities, and offsets of a search's centre.
struct WorkerRandom {
  explicit WorkerRandom(int id, int entities)
      : rng(id * 104729 + 17), pick(0, entities - 1) {}
  std::mt19937_64 rng;
  std::uniform_int_distribution<int> pick;
  std::uniform_real_distribution<double> jitter{-0.13, 0.13};
};

// --mode=stream: one long stream per connection; latency = one message's
// Write.
void RunStream(v1::TrackService::Stub* stub, const std::string& collection,
               WorkerRandom& random, Clock::time_point end, Result* out) {
  grpc::ClientContext ctx;
  v1::StreamPointsResponse resp;
  auto writer = stub->StreamPoints(&ctx, &resp);
  v1::StreamPointsRequest req;
  req.set_collection(collection);
  while (Clock::now() < end) {
    req.clear_points();
    for (int i = 0; i < 100; ++i)
      RandomPoint(random.rng, random.pick(random.rng), req.add_points());
    const auto t0 = Clock::now();
    if (!writer->Write(req)) {
      ++out->errors;
      break;
    }
    out->latencies_us.push_back(
        std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    out->points += 100;
  }
  writer->WritesDone();
  if (!writer->Finish().ok()) ++out->errors;
}

// Starts one unary call of `mode` with random arguments on `cq`.
std::unique_ptr<Call> StartCall(const std::string& mode,
                                const std::string& collection,
                                WorkerRandom& random,
                                v1::TrackService::Stub* stub,
                                grpc::GenericStub* generic,
                                grpc::CompletionQueue* cq) {
  if (mode == "health") {
    auto c = std::make_unique<HealthCall>();
    c->Start(generic, cq);
    return c;
  }
  if (mode == "add_point") {
    auto c = std::make_unique<
        TypedCall<v1::AddPointRequest, v1::AddPointResponse>>();
    c->req.set_collection(collection);
    RandomPoint(random.rng, random.pick(random.rng), c->req.mutable_point());
    c->points = [](const v1::AddPointResponse&) { return int64_t{1}; };
    c->Start(&v1::TrackService::Stub::PrepareAsyncAddPoint, stub, cq);
    return c;
  }
  if (mode == "add_points") {
    auto c = std::make_unique<
        TypedCall<v1::AddPointsRequest, v1::AddPointsResponse>>();
    c->req.set_collection(collection);
    for (int i = 0; i < 100; ++i)
      RandomPoint(random.rng, random.pick(random.rng), c->req.add_points());
    c->points = [](const v1::AddPointsResponse&) { return int64_t{100}; };
    c->Start(&v1::TrackService::Stub::PrepareAsyncAddPoints, stub, cq);
    return c;
  }
  if (mode == "radius" || mode == "radius10") {
    auto c = std::make_unique<
        TypedCall<v1::SearchRadiusRequest, v1::SearchResponse>>();
    c->req.set_collection(collection);
    c->req.mutable_center()->set_latitude(39.9 + random.jitter(random.rng));
    c->req.mutable_center()->set_longitude(116.4 + random.jitter(random.rng));
    c->req.set_radius_m(200);
    c->req.mutable_filter()->set_ids_and_positions_only(true);
    c->req.mutable_filter()->set_page_size(mode == "radius" ? 1000 : 10);
    c->points = [](const v1::SearchResponse& r) {
      return int64_t{r.hits_size()};
    };
    c->Start(&v1::TrackService::Stub::PrepareAsyncSearchRadius, stub, cq);
    return c;
  }
  if (mode == "get_latest") {
    // The cheapest real call: one id's latest point, a block-cache hit.
    // Its rate is this machine's ceiling for unary calls of any kind.
    auto c = std::make_unique<
        TypedCall<v1::GetLatestRequest, v1::GetLatestResponse>>();
    c->req.set_collection(collection);
    c->req.add_entity_ids(absl::StrCat("v", random.pick(random.rng)));
    c->points = [](const v1::GetLatestResponse& r) {
      return int64_t{r.points_size()};
    };
    c->Start(&v1::TrackService::Stub::PrepareAsyncGetLatest, stub, cq);
    return c;
  }
  if (mode == "bounds") {
    // 500 m x 500 m: 0.0045 degrees of latitude, 0.00587 of longitude.
    auto c = std::make_unique<
        TypedCall<v1::SearchBoundsRequest, v1::SearchResponse>>();
    const double lat = 39.9 + random.jitter(random.rng),
                 lon = 116.4 + random.jitter(random.rng);
    c->req.set_collection(collection);
    c->req.mutable_south_west()->set_latitude(lat - 0.00225);
    c->req.mutable_south_west()->set_longitude(lon - 0.002935);
    c->req.mutable_north_east()->set_latitude(lat + 0.00225);
    c->req.mutable_north_east()->set_longitude(lon + 0.002935);
    c->req.mutable_filter()->set_ids_and_positions_only(true);
    c->req.mutable_filter()->set_page_size(1000);
    c->points = [](const v1::SearchResponse& r) {
      return int64_t{r.hits_size()};
    };
    c->Start(&v1::TrackService::Stub::PrepareAsyncSearchBounds, stub, cq);
    return c;
  }
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  std::exit(2);
}

// Unary calls: asynchronous, on this connection's own completion queue,
// keeping --depth calls in flight until `end`. This thread polls the queue
// itself, so a completed call costs the client no thread handoff (a
// blocking stub costs one wake-up per call, about as much CPU as trackd's
// side).
void RunUnaryCalls(v1::TrackService::Stub* stub, grpc::GenericStub* generic,
                   const std::string& mode, const std::string& collection,
                   WorkerRandom& random, Clock::time_point end, Result* out) {
  grpc::CompletionQueue cq;
  auto start_call = [&] {
    return StartCall(mode, collection, random, stub, generic, &cq);
  };
  const int depth = std::max(1, absl::GetFlag(FLAGS_depth));
  int in_flight = 0;
  for (; in_flight < depth; ++in_flight) start_call().release();
  void* tag;
  bool ok;
  while (in_flight > 0 && cq.Next(&tag, &ok)) {
    std::unique_ptr<Call> call(static_cast<Call*>(tag));
    --in_flight;
    if (!call->status.ok()) {
      if (++out->errors == 1) {
        std::fprintf(stderr, "error: %s\n",
                     call->status.error_message().c_str());
      }
    } else {
      out->latencies_us.push_back(
          std::chrono::duration<double, std::micro>(Clock::now() - call->t0)
              .count());
      out->points += call->Points();
    }
    if (Clock::now() < end) {
      start_call().release();  // owned by the queue until it completes
      ++in_flight;
    }
  }
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
}

void Worker(int id, Clock::time_point end, Result* out) {
  grpc::ChannelArguments args;
  args.SetInt("trackdb.connection", id);  // a distinct arg: its own connection
  auto channel = grpc::CreateCustomChannel(
      absl::GetFlag(FLAGS_target), grpc::InsecureChannelCredentials(), args);
  auto stub = v1::TrackService::NewStub(channel);
  const std::string mode = absl::GetFlag(FLAGS_mode);
  const std::string collection = absl::GetFlag(FLAGS_collection);
  WorkerRandom random(id, absl::GetFlag(FLAGS_entities));
  if (mode == "stream") {
    return RunStream(stub.get(), collection, random, end, out);
  }
  grpc::GenericStub generic(channel);
  RunUnaryCalls(stub.get(), &generic, mode, collection, random, end, out);
}

int Preload() {
  auto stub = v1::TrackService::NewStub(grpc::CreateChannel(
      absl::GetFlag(FLAGS_target), grpc::InsecureChannelCredentials()));
  std::mt19937_64 rng(1);
  const int entities = absl::GetFlag(FLAGS_entities);
  const auto t0 = Clock::now();
  for (int start = 0; start < entities; start += 1000) {
    v1::AddPointsRequest req;
    req.set_collection(absl::GetFlag(FLAGS_collection));
    for (int e = start; e < std::min(entities, start + 1000); ++e) {
      RandomPoint(rng, e, req.add_points());
    }
    v1::AddPointsResponse resp;
    grpc::ClientContext ctx;
    grpc::Status s = stub->AddPoints(&ctx, req, &resp);
    if (!s.ok()) {
      std::fprintf(stderr, "preload: %s\n", s.error_message().c_str());
      return 1;
    }
  }
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("preload: %d entities in %.1f s (%.0f points/s)\n", entities,
              secs, entities / secs);
  return 0;
}

double CpuSeconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec +
         (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

int Run() {
  if (absl::GetFlag(FLAGS_mode) == "preload") return Preload();
  const double cpu0 = CpuSeconds();
  const int n = absl::GetFlag(FLAGS_connections);
  const auto start = Clock::now();
  const auto end = start + std::chrono::seconds(absl::GetFlag(FLAGS_seconds));
  std::vector<Result> results(n);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) threads.emplace_back(Worker, i, end, &results[i]);
  for (auto& t : threads) t.join();
  const double secs =
      std::chrono::duration<double>(Clock::now() - start).count();
  const double cpu = CpuSeconds() - cpu0;
  Result all;
  for (auto& r : results) {
    all.latencies_us.insert(all.latencies_us.end(), r.latencies_us.begin(),
                            r.latencies_us.end());
    all.points += r.points;
    all.errors += r.errors;
  }
  std::sort(all.latencies_us.begin(), all.latencies_us.end());
  auto pct = [&](double q) {
    if (all.latencies_us.empty()) return 0.0;
    return all.latencies_us[std::min(
        all.latencies_us.size() - 1,
        static_cast<size_t>(q * all.latencies_us.size()))];
  };
  const bool search = absl::GetFlag(FLAGS_mode) == "radius" ||
                      absl::GetFlag(FLAGS_mode) == "radius10" ||
                      absl::GetFlag(FLAGS_mode) == "bounds";
  std::printf(
      "%-10s connections=%d calls/s=%.0f %s=%.0f p50=%.0fus p99=%.0fus "
      "p999=%.0fus errors=%lld client_cpu/call=%.0fus calls=%zu\n",
      absl::GetFlag(FLAGS_mode).c_str(), n, all.latencies_us.size() / secs,
      search ? "hits/call" : "points/s",
      search ? (all.latencies_us.empty()
                    ? 0
                    : all.points / double(all.latencies_us.size()))
             : all.points / secs,
      pct(0.5), pct(0.99), pct(0.999), static_cast<long long>(all.errors),
      all.latencies_us.empty() ? 0.0 : cpu * 1e6 / all.latencies_us.size(),
      all.latencies_us.size());
  return all.errors == 0 ? 0 : 1;
}

}  // namespace
}  // namespace trackdb::bench

int main(int argc, char** argv) {
  // As in trackd (service/trackd.cc): Debian's Abseil keeps absl::Mutex's
  // deadlock detector on, a global lock taken on each gRPC-internal Lock().
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  absl::ParseCommandLine(argc, argv);
  return trackdb::bench::Run();
}
