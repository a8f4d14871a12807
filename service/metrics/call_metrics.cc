#include "service/metrics/call_metrics.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace trackdb::metrics {

namespace {

std::atomic<uint64_t> next_id{1};

// This thread's shard: threads take them in turn.
size_t ThreadShard(size_t shards) {
  static std::atomic<size_t> next{0};
  thread_local const size_t shard = next.fetch_add(1) % shards;
  return shard;
}

}  // namespace

CallMetrics::CallMetrics() : id_(next_id.fetch_add(1)) {}

CallMetrics::Counts& CallMetrics::ForLocked(absl::string_view name) {
  absl::MutexLock l(&mu_);
  std::unique_ptr<Counts>& slot = names_[name];
  if (!slot) slot = std::make_unique<Counts>();
  return *slot;
}

CallMetrics::Counts& CallMetrics::For(absl::string_view name) {
  // The names this thread has recorded, of the CallMetrics it recorded
  // into last (a thread records into one or two: its door's).
  struct Cache {
    uint64_t owner = 0;
    absl::flat_hash_map<std::string, Counts*> names;
  };
  thread_local Cache cache;
  if (cache.owner != id_) {
    cache.owner = id_;
    cache.names.clear();
  }
  auto it = cache.names.find(name);
  if (it != cache.names.end()) return *it->second;
  Counts& counts = ForLocked(name);
  cache.names.emplace(name, &counts);
  return counts;
}

void CallMetrics::Record(absl::string_view name, int64_t nanos, bool failed,
                         bool rejected) {
  Shard& c = For(name).shards[ThreadShard(kShards)];
  const int64_t positive = std::max<int64_t>(nanos, 0);
  const double seconds = static_cast<double>(positive) / 1e9;
  const size_t bucket =
      std::lower_bound(kLatencyBounds.begin(), kLatencyBounds.end(), seconds) -
      kLatencyBounds.begin();
  c.calls.fetch_add(1, std::memory_order_relaxed);
  if (failed || rejected) c.errors.fetch_add(1, std::memory_order_relaxed);
  if (rejected) c.rejected.fetch_add(1, std::memory_order_relaxed);
  c.nanos.fetch_add(static_cast<uint64_t>(positive), std::memory_order_relaxed);
  c.buckets[bucket].fetch_add(1, std::memory_order_relaxed);
}

std::vector<CallSnapshot> CallMetrics::Snapshot() const {
  std::vector<CallSnapshot> out;
  {
    absl::ReaderMutexLock l(&mu_);
    out.reserve(names_.size());
    for (const auto& [name, c] : names_) {
      CallSnapshot s;
      s.name = name;
      uint64_t in_buckets = 0, calls = 0, nanos = 0;
      for (const Shard& shard : c->shards) {
        // Buckets first: a call recorded meanwhile then shows in `calls`
        // at least as much as in the buckets, never less.
        for (size_t i = 0; i < s.buckets.size(); ++i) {
          const uint64_t n = shard.buckets[i].load(std::memory_order_relaxed);
          s.buckets[i] += n;
          in_buckets += n;
        }
        calls += shard.calls.load(std::memory_order_relaxed);
        s.errors += shard.errors.load(std::memory_order_relaxed);
        s.rejected += shard.rejected.load(std::memory_order_relaxed);
        nanos += shard.nanos.load(std::memory_order_relaxed);
      }
      s.calls = std::max(in_buckets, calls);
      s.seconds = static_cast<double>(nanos) / 1e9;
      out.push_back(std::move(s));
    }
  }
  std::sort(out.begin(), out.end(),
            [](const CallSnapshot& a, const CallSnapshot& b) {
              return a.name < b.name;
            });
  return out;
}

void CallMetrics::Write(absl::string_view prefix, absl::string_view label,
                        absl::string_view what, PrometheusText& out) const {
  const std::vector<CallSnapshot> calls = Snapshot();
  const std::string total = absl::StrCat(prefix, "s_total");
  out.Family(total, "counter", absl::StrCat(what, "s served, by ", label));
  for (const CallSnapshot& c : calls) {
    out.Sample(total, {{std::string(label), c.name}},
               static_cast<double>(c.calls));
  }
  const std::string errors = absl::StrCat(prefix, "_errors_total");
  out.Family(errors, "counter",
             absl::StrCat(what, "s answered with an error, by ", label));
  for (const CallSnapshot& c : calls) {
    out.Sample(errors, {{std::string(label), c.name}},
               static_cast<double>(c.errors));
  }
  const std::string duration = absl::StrCat(prefix, "_duration_seconds");
  out.Family(duration, "histogram",
             absl::StrCat("How long each ", what, " took, by ", label));
  for (const CallSnapshot& c : calls) {
    out.Histogram(duration, {{std::string(label), c.name}}, kLatencyBounds,
                  c.buckets, c.seconds);
  }
}

}  // namespace trackdb::metrics
