#include "service/metrics/call_metrics.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace trackdb::metrics {

CallMetrics::Counts& CallMetrics::For(absl::string_view name) {
  {
    absl::ReaderMutexLock l(&mu_);
    auto it = names_.find(name);
    if (it != names_.end()) return *it->second;
  }
  absl::MutexLock l(&mu_);
  std::unique_ptr<Counts>& slot = names_[name];
  if (!slot) slot = std::make_unique<Counts>();
  return *slot;
}

void CallMetrics::Record(absl::string_view name, int64_t nanos, bool failed) {
  Counts& c = For(name);
  const double seconds = static_cast<double>(std::max<int64_t>(nanos, 0)) / 1e9;
  const size_t bucket =
      std::lower_bound(kLatencyBounds.begin(), kLatencyBounds.end(), seconds) -
      kLatencyBounds.begin();
  c.calls.fetch_add(1, std::memory_order_relaxed);
  if (failed) c.errors.fetch_add(1, std::memory_order_relaxed);
  c.nanos.fetch_add(static_cast<uint64_t>(std::max<int64_t>(nanos, 0)),
                    std::memory_order_relaxed);
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
      // Buckets first: a call recorded meanwhile then shows in `calls` at
      // least as much as in the buckets, never less.
      uint64_t in_buckets = 0;
      for (size_t i = 0; i < s.buckets.size(); ++i) {
        s.buckets[i] = c->buckets[i].load(std::memory_order_relaxed);
        in_buckets += s.buckets[i];
      }
      s.calls = std::max(in_buckets, c->calls.load(std::memory_order_relaxed));
      s.errors = c->errors.load(std::memory_order_relaxed);
      s.seconds =
          static_cast<double>(c->nanos.load(std::memory_order_relaxed)) / 1e9;
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
