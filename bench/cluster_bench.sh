#!/usr/bin/env bash
# Write throughput of a trackdb cluster with 1, 2 and 3 shards on this
# machine, against a Redis Cluster with as many masters, in one run:
# redis-benchmark --cluster (each client on a shard's node, keys tagged for
# it; a plain run for one shard), 50 clients, one command per request:
#   - SET of a 64-byte value, keys from -r 1000000;
#   - GEOADD of a new member at a new position into the shard's fleet
#     (GEOADD fleet:{tag} 116.<rand> 39.<rand> m:<rand>).
# Prints a markdown table: requests/s, p50/p99 and the trackdb/Redis ratio
# per shard count. Every server shares the machine's cores with
# redis-benchmark. Replicas (and so synchronous acknowledgement) are not
# part of it: replication is not built yet.
#
#   bazel run --config=bench //bench:cluster_bench [-- REQUESTS]
set -euo pipefail
requests="${1:-200000}"
dir="${TMPDIR:-/tmp}/trackdb-cluster-bench"
trackd_base=7600
redis_base=7800  # clear of trackd gRPC ports (RESP + 100)
rm -rf "$dir"
mkdir -p "$dir"
redis_pids=()
cleanup() {
  tools/cluster/stop_cluster.sh "$dir/trackdb" 2>/dev/null || true
  for p in "${redis_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

# start_redis_cluster N: N redis-server masters on redis_base.., the slots
# split evenly as start_cluster.sh splits them, joined by CLUSTER MEET.
start_redis_cluster() {
  local n=$1 i port
  redis_pids=()
  for ((i = 0; i < n; i++)); do
    port=$((redis_base + i))
    redis-server --port "$port" --cluster-enabled yes \
      --cluster-config-file "$dir/redis-nodes-$n-$i.conf" --save '' \
      --appendonly no --dir "$dir" --daemonize no --loglevel warning \
      >"$dir/redis-$i.log" 2>&1 &
    redis_pids+=($!)
  done
  for ((i = 0; i < n; i++)); do
    port=$((redis_base + i))
    until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.1; done
    redis-cli -p "$port" CLUSTER ADDSLOTSRANGE $((16384 * i / n)) \
      $((16384 * (i + 1) / n - 1)) >/dev/null
    redis-cli -p "$port" CLUSTER MEET 127.0.0.1 "$redis_base" >/dev/null
  done
  for ((i = 0; i < n; i++)); do
    until redis-cli -p $((redis_base + i)) CLUSTER INFO | grep -q 'cluster_state:ok' &&
      [ "$(redis-cli -p $((redis_base + i)) CLUSTER NODES | wc -l)" = "$n" ]; do
      sleep 0.2
    done
  done
}

stop_redis_cluster() {
  for p in "${redis_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait "${redis_pids[@]}" 2>/dev/null || true
  redis_pids=()
}

# run PORT ARGS...: "rps p50 p99" of one redis-benchmark run, with
# --cluster from two shards on (redis-benchmark refuses a one-node cluster;
# a lone node serves every slot anyway).
run() {
  local port=$1 cluster=()
  shift
  [ "$shards" -gt 1 ] && cluster=(--cluster)
  redis-benchmark "${cluster[@]}" -p "$port" -c 50 -n "$requests" --csv "$@" \
    2>/dev/null | awk -F'","' '/^"/ && !/"test"/ { print $2, $5, $7 }' | tail -1
}

row() {  # row LABEL SHARDS REDIS... TRACKDB...
  local label=$1 shards=$2 r t
  read -r -a r <<<"$3"
  read -r -a t <<<"$4"
  printf "| %-7s | %d | %9s | %9s | %5s | %5s/%-5s %5s/%-5s |\n" "$label" \
    "$shards" "${r[0]%.*}" "${t[0]%.*}" \
    "$(awk -v t="${t[0]}" -v r="${r[0]}" 'BEGIN { printf "%.2f", (r > 0 ? t / r : 0) }')" \
    "${r[1]}" "${r[2]}" "${t[1]}" "${t[2]}"
}

echo "| command | shards | Redis/s | trackd/s | ratio | p50/p99 ms Redis, trackd |"
echo "|---|---:|---:|---:|---:|---|"
geoadd=(GEOADD 'fleet:{tag}' '116.__rand_int__' '39.__rand_int__' 'm:__rand_int__')
for shards in 1 2 3; do
  rm -rf "$dir/trackdb"
  TRACKD="$PWD/service/trackd" TRACKD_CONFIG="$PWD/conf/trackdb.textproto" \
    tools/cluster/start_cluster.sh "$dir/trackdb" "$shards" "$trackd_base" >/dev/null
  start_redis_cluster "$shards"
  row SET "$shards" "$(run "$redis_base" -t set -d 64 -r 1000000)" \
    "$(run "$trackd_base" -t set -d 64 -r 1000000)"
  row GEOADD "$shards" "$(run "$redis_base" -r 1000000 "${geoadd[@]}")" \
    "$(run "$trackd_base" -r 1000000 "${geoadd[@]}")"
  tools/cluster/stop_cluster.sh "$dir/trackdb"
  stop_redis_cluster
done
