#!/usr/bin/env bash
# What a replica costs a primary's writes, on this machine, in one run:
# redis-benchmark, 50 clients, one command per request, new keys (-r), as
# cluster_bench.sh runs them:
#   - SET of a 64-byte value;
#   - GEOADD of a new member at a new position.
# Each against:
#   - Redis alone, and Redis with a replica (redis-server --replicaof:
#     asynchronous; Redis has no synchronous acknowledgement but WAIT);
#   - trackd alone, with a replica (REPLICAOF: asynchronous), and with a
#     replica under replication.sync_replicas: 1 (each reply waits until
#     the replica applied the write).
# Prints a markdown table: requests/s, p50/p99 ms, and the ratio to Redis
# with a replica. Every process shares the machine's cores.
#
#   bazel run --config=bench //bench:replication_bench [-- REQUESTS]
set -euo pipefail
requests="${1:-200000}"
dir="${TMPDIR:-/tmp}/trackdb-replication-bench"
port=7650
rm -rf "$dir"
mkdir -p "$dir"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

stop_all() {
  cleanup
  pids=()
}

wait_port() { until redis-cli -p "$1" ping >/dev/null 2>&1; do sleep 0.1; done; }

redis() {  # redis PORT [ARGS...]
  local p=$1
  shift
  redis-server --port "$p" --save '' --appendonly no --dir "$dir" \
    --loglevel warning "$@" >"$dir/redis-$p.log" 2>&1 &
  pids+=($!)
  wait_port "$p"
}

trackd() {  # trackd PORT CONFIG_TEXT
  local p=$1
  printf '%s\n' "$2" >"$dir/trackd-$p.textproto"
  rm -rf "$dir/data-$p"
  service/trackd --config="$dir/trackd-$p.textproto" --data_dir="$dir/data-$p" \
    --resp_port="$p" --grpc_port=$((p + 100)) 2>"$dir/trackd-$p.log" &
  pids+=($!)
  wait_port "$p"
}

wait_link() {  # wait_link REPLICA_PORT
  until redis-cli -p "$1" INFO replication | grep -q 'master_link_status:up'; do
    sleep 0.1
  done
}

run() {  # run ARGS...: "rps p50 p99"
  redis-benchmark -p "$port" -c 50 -n "$requests" --csv "$@" 2>/dev/null |
    awk -F'","' '/^"/ && !/"test"/ { print $2, $5, $7 }' | tail -1
}

geoadd=(GEOADD fleet '116.__rand_int__' '39.__rand_int__' 'm:__rand_int__')
declare -A result
measure() {  # measure LABEL
  result["$1 SET"]=$(run -t set -d 64 -r 1000000)
  result["$1 GEOADD"]=$(run -r 1000000 "${geoadd[@]}")
}

redis "$port"
measure "Redis alone"
redis $((port + 1)) --replicaof 127.0.0.1 "$port"
wait_link $((port + 1))
measure "Redis + replica"
stop_all

trackd "$port" ""
measure "trackd alone"
trackd $((port + 1)) "replication { replicaof: \"127.0.0.1 $port\" }"
wait_link $((port + 1))
measure "trackd + replica"
stop_all

trackd "$port" "replication { sync_replicas: 1 sync_timeout_ms: 5000 }"
trackd $((port + 1)) "replication { replicaof: \"127.0.0.1 $port\" }"
wait_link $((port + 1))
measure "trackd + replica, sync acks"
stop_all

echo "| setup | command | req/s | p50 ms | p99 ms | ratio to Redis + replica |"
echo "|---|---|---:|---:|---:|---:|"
for setup in "Redis alone" "Redis + replica" "trackd alone" "trackd + replica" \
  "trackd + replica, sync acks"; do
  for command in SET GEOADD; do
    read -r -a r <<<"${result["$setup $command"]}"
    read -r -a base <<<"${result["Redis + replica $command"]}"
    printf "| %s | %s | %s | %s | %s | %s |\n" "$setup" "$command" "${r[0]%.*}" \
      "${r[1]}" "${r[2]}" \
      "$(awk -v t="${r[0]}" -v b="${base[0]}" 'BEGIN { printf "%.2f", (b > 0 ? t / b : 0) }')"
  done
done
