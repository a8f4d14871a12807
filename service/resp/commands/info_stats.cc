#include "service/resp/commands/info_stats.h"

#include <sys/resource.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "service/metrics/call_metrics.h"

namespace trackdb::resp {
namespace {

// Every section INFO has, and whether "default" (and no argument) has it.
struct SectionName {
  const char* name;
  bool in_default;
};
constexpr SectionName kSections[] = {
    {"server", true},      {"clients", true},       {"memory", true},
    {"persistence", true}, {"stats", true},         {"replication", true},
    {"cpu", true},         {"modules", true},       {"commandstats", false},
    {"errorstats", true},  {"latencystats", false}, {"rocksdb", true},
    {"webhooks", true},    {"retention", true},     {"cluster", true},
    {"keyspace", true}};

std::string Seconds(const timeval& t) {
  return absl::StrFormat("%d.%06d", static_cast<int64_t>(t.tv_sec),
                         static_cast<int64_t>(t.tv_usec));
}

// The upper bound, in µs, of the bucket holding the `p` quantile of the
// calls that ran (rejected ones are recorded as taking no time, in the
// first bucket: they are left out, as Redis leaves them out).
double PercentileUs(const metrics::CallSnapshot& c, double p) {
  const uint64_t ran = c.calls - std::min(c.calls, c.rejected);
  const double want = p * static_cast<double>(ran);
  uint64_t seen = 0;
  for (size_t i = 0; i < c.buckets.size(); ++i) {
    seen += i == 0 ? c.buckets[0] - std::min(c.buckets[0], c.rejected)
                   : c.buckets[i];
    if (static_cast<double>(seen) >= want && seen > 0) {
      const size_t bound = std::min(i, metrics::kLatencyBounds.size() - 1);
      return metrics::kLatencyBounds[bound] * 1e6;
    }
  }
  return metrics::kLatencyBounds.back() * 1e6;
}

}  // namespace

std::set<std::string> InfoSectionsAsked(const std::vector<std::string>& argv) {
  std::set<std::string> out;
  bool defaults = argv.size() < 2, all = false;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string name = absl::AsciiStrToLower(argv[i]);
    if (name == "all" || name == "everything") {
      all = true;
    } else if (name == "default") {
      defaults = true;
    } else {
      out.insert(name);
    }
  }
  for (const SectionName& s : kSections) {
    if (all || (defaults && s.in_default)) out.insert(s.name);
  }
  return out;
}

std::string CpuInfoSection() {
  rusage self{}, children{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  return absl::StrCat("# CPU\r\nused_cpu_sys:", Seconds(self.ru_stime),
                      "\r\nused_cpu_user:", Seconds(self.ru_utime),
                      "\r\nused_cpu_sys_children:", Seconds(children.ru_stime),
                      "\r\nused_cpu_user_children:", Seconds(children.ru_utime),
                      "\r\n\r\n");
}

std::string ModulesInfoSection() { return "# Modules\r\n\r\n"; }

std::string CommandstatsInfoSection(const ServerState& server) {
  std::string out = "# Commandstats\r\n";
  for (const metrics::CallSnapshot& c : server.CallStatsSinceReset()) {
    // As Redis: calls and failed_calls count what ran, rejected_calls what
    // was refused before it could.
    const uint64_t ran = c.calls - std::min(c.calls, c.rejected);
    if (c.calls == 0) continue;
    const double usec = c.seconds * 1e6;
    absl::StrAppend(
        &out, "cmdstat_", c.name, ":calls=", ran,
        ",usec=", static_cast<int64_t>(usec),
        ",usec_per_call=", absl::StrFormat("%.2f", ran == 0 ? 0.0 : usec / ran),
        ",rejected_calls=", c.rejected,
        ",failed_calls=", c.errors - std::min(c.errors, c.rejected), "\r\n");
  }
  return out + "\r\n";
}

std::string ErrorstatsInfoSection(ServerState& server) {
  std::string out = "# Errorstats\r\n";
  for (const auto& [kind, count] : server.error_stats().Counts()) {
    absl::StrAppend(&out, "errorstat_", kind, ":count=", count, "\r\n");
  }
  return out + "\r\n";
}

std::string LatencystatsInfoSection(const ServerState& server) {
  std::string out = "# Latencystats\r\n";
  for (const metrics::CallSnapshot& c : server.CallStatsSinceReset()) {
    if (c.calls == c.rejected) continue;  // none ran
    absl::StrAppend(
        &out, "latency_percentiles_usec_", c.name, ":",
        absl::StrFormat("p50=%.3f,p99=%.3f,p99.9=%.3f", PercentileUs(c, 0.5),
                        PercentileUs(c, 0.99), PercentileUs(c, 0.999)),
        "\r\n");
  }
  return out + "\r\n";
}

}  // namespace trackdb::resp
