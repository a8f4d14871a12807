#!/usr/bin/env bash
# Starts a trackdb cluster of SHARDS shards, a master and a replica each, on
# loopback, managed by Apache kvrocks-controller over etcd as Kvrocks
# clusters are: the controller gives every node its id and the topology
# (CLUSTERX SETNODEID, SETNODES), probes the nodes every second, and when a
# master stops answering three probes promotes its replica (the one whose
# INFO `sequence` is highest) and gives every node the new topology. A node
# the topology names a slave follows its master (README, "Replication").
#
#   tools/cluster/start_managed_cluster.sh DIR SHARDS [FIRST_RESP_PORT]
#
# Node k (0-based; shard k/2, the master when k is even) serves RESP on
# FIRST_RESP_PORT + k (default 7000 + k) and gRPC on FIRST_RESP_PORT + 100 +
# k, keeps its data in DIR/node-k and logs to DIR/node-k.log. etcd listens
# on FIRST_RESP_PORT + 200 (peers + 201), the controller's HTTP API on
# FIRST_RESP_PORT + 202 (namespace trackdb, cluster tdb). DIR/pids lists
# every process: tools/cluster/stop_cluster.sh DIR stops them. TRACKD,
# TRACKD_CONFIG and CONTROLLER (kvctl-server, default where
# tools/cluster/install_controller.sh builds it) name the binaries.
set -euo pipefail
dir="$1"
shards="$2"
first_port="${3:-7000}"
trackd="${TRACKD:-bazel-bin/service/trackd}"
config="${TRACKD_CONFIG:-conf/trackdb.textproto}"
controller="${CONTROLLER:-/var/tmp/trackdb-tools/kvrocks-controller/kvctl-server}"
etcd_port=$((first_port + 200))
api_port=$((first_port + 202))
api="http://127.0.0.1:$api_port/api/v1"
nodes=$((2 * shards))
[ -x "$controller" ] || {
  echo "no kvrocks-controller at $controller: run tools/cluster/install_controller.sh" >&2
  exit 1
}
mkdir -p "$dir"
: >"$dir/pids"

wait_for() {  # wait_for WHAT COMMAND...: up to 30 s
  local what="$1"
  shift
  for _ in $(seq 1 300); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "timed out waiting for $what" >&2
  exit 1
}

etcd --name tdb --data-dir "$dir/etcd" \
  --listen-client-urls "http://127.0.0.1:$etcd_port" \
  --advertise-client-urls "http://127.0.0.1:$etcd_port" \
  --listen-peer-urls "http://127.0.0.1:$((etcd_port + 1))" \
  --initial-advertise-peer-urls "http://127.0.0.1:$((etcd_port + 1))" \
  --initial-cluster "tdb=http://127.0.0.1:$((etcd_port + 1))" \
  >"$dir/etcd.log" 2>&1 &
echo $! >>"$dir/pids"

for ((k = 0; k < nodes; k++)); do
  port=$((first_port + k))
  "$trackd" --config="$config" --data_dir="$dir/node-$k" \
    --resp_port="$port" --grpc_port=$((first_port + 100 + k)) \
    --cluster_enabled=true 2>"$dir/node-$k.log" &
  echo $! >>"$dir/pids"
done

cat >"$dir/controller.yaml" <<EOF
addr: "127.0.0.1:$api_port"
storage_type: etcd
etcd:
  addrs: ["127.0.0.1:$etcd_port"]
controller:
  failover:
    ping_interval_seconds: 1
    max_ping_count: 3
EOF
wait_for etcd curl -sf "http://127.0.0.1:$etcd_port/health"
"$controller" -c "$dir/controller.yaml" >"$dir/controller.log" 2>&1 &
echo $! >>"$dir/pids"
for ((k = 0; k < nodes; k++)); do
  wait_for "node $k" grep -q ready "$dir/node-$k.log"
done
# The API answers once this controller has seen a leader.
wait_for "the controller" curl -sf "$api/namespaces"

addresses=""
for ((k = 0; k < nodes; k++)); do
  addresses="$addresses${addresses:+,}\"127.0.0.1:$((first_port + k))\""
done
curl -sf -X POST "$api/namespaces" -d '{"namespace":"trackdb"}' >/dev/null
curl -sf -X POST "$api/namespaces/trackdb/clusters" \
  -d "{\"name\":\"tdb\",\"nodes\":[$addresses],\"replicas\":2}" >"$dir/cluster.json"

# The controller gives each node the topology on its next probe.
for ((k = 0; k < nodes; k++)); do
  wait_for "node $k's topology" \
    bash -c "[ \"\$(redis-cli -p $((first_port + k)) CLUSTERX VERSION)\" -ge 1 ]"
done
echo "trackdb cluster managed by kvrocks-controller: $shards shards," \
  "masters and replicas on 127.0.0.1:$first_port..$((first_port + nodes - 1))," \
  "controller API $api"
