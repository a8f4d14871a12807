#ifndef TRACKDB_SERVICE_RESP_DISPATCH_COMMAND_KEYS_H_
#define TRACKDB_SERVICE_RESP_DISPATCH_COMMAND_KEYS_H_

// The keys of a call, as Redis Cluster routes by them: the command's
// first_key..last_key every key_step (COMMAND INFO's positions), and for
// the commands flagged "movablekeys" the keys their arguments name
// (ZUNIONSTORE's numkeys, GEORADIUS's STORE key, ...). nullopt for a call
// whose arguments cannot say (a numkeys that is not a positive number or
// counts more keys than there are): the command, run, replies its error.

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "service/resp/dispatch/command.h"

namespace trackdb::resp {

std::optional<std::vector<absl::string_view>> CommandKeys(
    const CommandSpec& spec, const std::vector<std::string>& argv);

// In cluster mode, the error (as Reply::Error takes it) that sends the
// call elsewhere: MOVED, CROSSSLOT or CLUSTERDOWN (cluster::RouteKeys);
// empty when this node serves it.
inline constexpr char kTryAgain[] =
    "-TRYAGAIN Can't write to a slot being migrated";

std::string ClusterRefusal(const cluster::ClusterState& cluster,
                           const CommandSpec& spec,
                           const std::vector<std::string>& argv);

// The same for EXEC of the transaction `queued`, as Redis Cluster checks
// EXEC: every key of every queued call must hash to one slot this node
// serves, a write if any queued call writes. Queued calls whose command
// `commands` does not know are skipped (they abort EXEC anyway).
std::string TransactionClusterRefusal(
    const cluster::ClusterState& cluster, const CommandTable& commands,
    const std::vector<std::vector<std::string>>& queued);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_DISPATCH_COMMAND_KEYS_H_
