#!/usr/bin/env bash
# Starts a trackdb cluster of SHARDS masters on loopback, each trackd with
# its own data dir and ports, in Redis Cluster mode, and gives every node
# the topology as a controller would (CLUSTERX SETNODEID, SETNODES): the
# 16384 slots split evenly, in order. Masters only, and no controller:
# start_managed_cluster.sh starts replicas and kvrocks-controller too.
#
#   tools/cluster/start_cluster.sh DIR SHARDS [FIRST_RESP_PORT]
#
# Node i (0-based) serves RESP on FIRST_RESP_PORT + i (default 7000 + i)
# and gRPC on FIRST_RESP_PORT + 100 + i, keeps its data in DIR/node-i, and
# logs to DIR/node-i.log. DIR/pids lists the processes
# (tools/cluster/stop_cluster.sh DIR stops them) and DIR/nodes the
# topology. TRACKD and TRACKD_CONFIG name the binary and config (default:
# bazel-bin/service/trackd and conf/trackdb.textproto).
set -euo pipefail
dir="$1"
shards="$2"
first_port="${3:-7000}"
trackd="${TRACKD:-bazel-bin/service/trackd}"
config="${TRACKD_CONFIG:-conf/trackdb.textproto}"
mkdir -p "$dir"
: >"$dir/pids"
: >"$dir/nodes"

node_id() { printf '%s' "trackdb-node-$1-$first_port" | sha1sum | cut -c1-40; }

for ((i = 0; i < shards; i++)); do
  port=$((first_port + i))
  "$trackd" --config="$config" --data_dir="$dir/node-$i" \
    --resp_port="$port" --grpc_port=$((first_port + 100 + i)) \
    --cluster_enabled=true 2>"$dir/node-$i.log" &
  echo $! >>"$dir/pids"
  first=$((16384 * i / shards))
  last=$((16384 * (i + 1) / shards - 1))
  echo "$(node_id "$i") 127.0.0.1 $port master - $first-$last" >>"$dir/nodes"
done

for ((i = 0; i < shards; i++)); do
  for _ in $(seq 1 100); do
    grep -q ready "$dir/node-$i.log" && break
    sleep 0.1
  done
  grep -q ready "$dir/node-$i.log" || {
    cat "$dir/node-$i.log" >&2
    exit 1
  }
done

# The version: seconds since the epoch, so that a restarted cluster's
# topology is newer than the one its nodes kept.
version=$(date +%s)
for ((i = 0; i < shards; i++)); do
  port=$((first_port + i))
  redis-cli -p "$port" CLUSTERX SETNODEID "$(node_id "$i")" >/dev/null
  reply=$(redis-cli -p "$port" CLUSTERX SETNODES "$(cat "$dir/nodes")" "$version")
  [ "$reply" = OK ] || {
    echo "node $i: CLUSTERX SETNODES: $reply" >&2
    exit 1
  }
done
echo "trackdb cluster: $shards shards on 127.0.0.1:$first_port..$((first_port + shards - 1))"
