#!/usr/bin/env bash
# The Redis commands that applications and Redis's own tests use beyond
# the data types, on trackd's RESP door against real redis-servers in one
# run: scripts (EVAL, EVALSHA), HyperLogLog (PFADD, PFCOUNT) and ZADD
# into a GEO key. (Bitmaps are left out: redis-benchmark's __rand_int__ is
# zero-padded, which no bit offset may be.) 50 clients, one command per
# call and pipelined 16 deep, new values (__rand_int__ from -r 100000).
# Prints a markdown table of requests/s, p50/p99 latency and trackd's ratio
# to redis-server without persistence and to redis-server with
# --appendonly yes --appendfsync everysec (the fair peer for a durable
# store).
#
#   bazel run --config=bench //bench:resp_depth_bench [-- REQUESTS]
#
# trackd runs on its shipped config and a fresh data dir; the three
# servers and redis-benchmark share the machine's 2 cores.
set -euo pipefail
requests="${1:-200000}"
source "$PWD/bench/resp_common.sh"
bench_servers resp-depth-bench 6394 6395
aof_port=6396
mkdir -p "$dir/aof"
redis-server --port "$aof_port" --save '' --appendonly yes \
  --appendfsync everysec --dir "$dir/aof" --daemonize no \
  --loglevel warning >"$dir/redis-aof.log" 2>&1 &
aof_pid=$!
trap 'kill -TERM $trackd_pid $redis_pid $aof_pid 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 1 50); do
  redis-cli -p "$aof_port" ping >/dev/null 2>&1 && break
  sleep 0.1
done

incr="return redis.call('incr', KEYS[1])"
sha=$(redis-cli -p "$redis_port" script load "$incr")
redis-cli -p "$trackd_port" script load "$incr" >/dev/null
redis-cli -p "$aof_port" script load "$incr" >/dev/null
for port in "$redis_port" "$aof_port" "$trackd_port"; do
  redis-cli -p "$port" geoadd geo 13.36 38.11 seed >/dev/null
done

# row LABEL PIPELINE ARGS...: one command against the three servers.
row() {
  local label=$1 pipeline=$2 r a t
  shift 2
  read -r -a r <<<"$(bench_once 50 "$redis_port" -n "$requests" -r 100000 -P "$pipeline" "$@")"
  read -r -a a <<<"$(bench_once 50 "$aof_port" -n "$requests" -r 100000 -P "$pipeline" "$@")"
  read -r -a t <<<"$(bench_once 50 "$trackd_port" -n "$requests" -r 100000 -P "$pipeline" "$@")"
  printf "| %-40s | %3s | %8s | %8s | %8s | %5s | %5s | %s/%s, %s/%s, %s/%s |\n" \
    "$label" "$pipeline" "${r[0]%.*}" "${a[0]%.*}" "${t[0]%.*}" \
    "$(ratio "${t[0]}" "${r[0]}")" "$(ratio "${t[0]}" "${a[0]}")" \
    "${r[1]}" "${r[2]}" "${a[1]}" "${a[2]}" "${t[1]}" "${t[2]}"
}

echo "| command (-c 50) | -P | Redis/s | Redis AOF/s | trackd/s | vs Redis | vs AOF | p50/p99 ms Redis, AOF, trackd |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
for p in 16 1; do
  row "EVAL incr of a key" "$p" EVAL "$incr" 1 "key:__rand_int__"
  row "EVALSHA incr of a key" "$p" EVALSHA "$sha" 1 "key:__rand_int__"
  row "PFADD new element" "$p" PFADD hll "e:__rand_int__"
  row "PFCOUNT" "$p" PFCOUNT hll
  row "ZADD into a GEO key, integer score" "$p" ZADD geo __rand_int__ "m:__rand_int__"
done
# The same 20,000 elements into a fresh HLL on both: the bytes must match.
seq -f 'el:%g' 1 20000 | xargs -n 1000 redis-cli -p "$redis_port" pfadd check >/dev/null
seq -f 'el:%g' 1 20000 | xargs -n 1000 redis-cli -p "$trackd_port" pfadd check >/dev/null
echo "PFCOUNT of 20,000: redis $(redis-cli -p "$redis_port" pfcount check)," \
  "trackd $(redis-cli -p "$trackd_port" pfcount check);" \
  "HLL bytes identical: $(cmp -s <(redis-cli -p "$redis_port" --no-raw get check) \
    <(redis-cli -p "$trackd_port" --no-raw get check) && echo yes || echo NO)" >&2
