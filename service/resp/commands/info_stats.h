#ifndef TRACKDB_SERVICE_RESP_COMMANDS_INFO_STATS_H_
#define TRACKDB_SERVICE_RESP_COMMANDS_INFO_STATS_H_

// INFO's section grammar and the sections about the process and its calls
// (server_commands.cc has the others):
//   - INFO [section ...]: the union of the sections named, in INFO's own
//     order; "default" (and no argument) is every section but commandstats
//     and latencystats, "all" and "everything" are every one; a name INFO
//     has not adds nothing (Redis 7.0).
//   - cpu: getrusage's times, as Redis prints them.
//   - modules: empty (trackdb loads no modules).
//   - commandstats: each command's calls, time, rejected and failed calls
//     from the metrics port's counters (call_metrics.h), counted from the
//     last CONFIG RESETSTAT.
//   - errorstats: error replies by kind (error_stats.h).
//   - latencystats: p50, p99 and p99.9 of each command, as the upper bound
//     of the latency bucket they fall in (50 µs to 10 s), not Redis's
//     HDR histogram's finer value.

#include <set>
#include <string>
#include <vector>

#include "service/resp/dispatch/command.h"

namespace trackdb::resp {

// The sections `argv[1..]` ask, lower-case.
std::set<std::string> InfoSectionsAsked(const std::vector<std::string>& argv);

std::string CpuInfoSection();
std::string ModulesInfoSection();
std::string CommandstatsInfoSection(const ServerState& server);
std::string ErrorstatsInfoSection(ServerState& server);
std::string LatencystatsInfoSection(const ServerState& server);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_COMMANDS_INFO_STATS_H_
