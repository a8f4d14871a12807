#!/usr/bin/env bash
# trackd's RESP front door against a real redis-server, in one run, on the
# same generated data and the same client commands, one operation per
# command: the shapes a fleet on Redis GEO runs. Prints a markdown table of
# requests/s, p50/p99 latency and the trackd/Redis ratio.
#
#   bazel run --config=bench //bench:resp_bench [-- REQUESTS]
#
# Both servers start here: trackd on its shipped config (default
# durability) with a fresh data dir, redis-server with --save "" and
# --appendonly no. The data: 1,000,000 members m:0000000.. at uniform random
# positions in a Beijing-sized box (116.0-116.8 E, 39.6-40.2 N), sent as
# 1-member GEOADDs through `redis-cli --pipe`; then every one of the first
# 100,000 members moves once (1-member GEOADDs, --pipe). Searches, SET and
# GET use redis-benchmark -c 50 (its csv gives p50/p99); redis-benchmark
# and the server share the machine's 2 cores.
set -euo pipefail
requests="${1:-200000}"
source "$PWD/bench/resp_common.sh"
bench_servers resp-bench 6390 6391
write_geoadds 7 "$dir/add.resp:1000000" "$dir/move.resp:100000"

# pipe_rate PORT FILE COMMANDS: commands/s of one `redis-cli --pipe`.
pipe_rate() {
  local start end
  start=$(date +%s.%N)
  redis-cli -p "$1" --pipe <"$2" >/dev/null
  end=$(date +%s.%N)
  awk -v n="$3" -v s="$start" -v e="$end" 'BEGIN { printf "%d", n / (e - s) }'
}

pipe_row() {  # pipe_row LABEL FILE COMMANDS
  local r t
  r=$(pipe_rate $redis_port "$2" "$3")
  t=$(pipe_rate $trackd_port "$2" "$3")
  printf '| %-46s | %9s | %9s | %5s | %-13s |\n' "$1" "$r" "$t" \
    "$(ratio "$t" "$r")" "(pipe)"
}

row() { compare_row 46 50 "$@"; }  # row LABEL ARGS...: -c 50

echo "| operation | Redis/s | trackd/s | ratio | p50/p99 ms Redis, trackd |"
echo "|---|---:|---:|---:|---|"
pipe_row "GEOADD 1 member, 1M new members, --pipe" "$dir/add.resp" 1000000
pipe_row "GEOADD 1 member, 100k members move, --pipe" "$dir/move.resp" 100000
echo "members: redis $(redis-cli -p $redis_port zcard fleet), trackd $(redis-cli -p $trackd_port zcard fleet)" >&2
# Settle: trackd's flushes and compactions of the load finish first.
sleep 10
row "GEOADD 1 new member per command, random position" -n "$requests" \
  -r 100000000 GEOADD probe 116.__rand_int__ 39.__rand_int__ p:__rand_int__
search="GEOSEARCH fleet FROMLONLAT 116.4 39.9"
row "GEOSEARCH radius 200 m ASC COUNT 10" -n "$requests" \
  $search BYRADIUS 200 m ASC COUNT 10
row "GEOSEARCH box 500x500 m" -n "$requests" $search BYBOX 500 500 m
# Random centres (116.0-117.0 E, 39.0-40.0 N; a third of them hit the
# data): no query repeats, so no cache warmed by repeats helps.
row "GEOSEARCH radius 200 m ASC COUNT 10, random centre" -n "$requests" \
  -r 1000000 GEOSEARCH fleet FROMLONLAT 116.__rand_int__ 39.__rand_int__ \
  BYRADIUS 200 m ASC COUNT 10
row "SET -d 64 -r 1000000 -P 1" -t set -d 64 -r 1000000 -n "$requests" -P 1
row "GET -d 64 -r 1000000 -P 1" -t get -d 64 -r 1000000 -n "$requests" -P 1
row "SET -d 64 -r 1000000 -P 16" -t set -d 64 -r 1000000 -n $((requests * 5)) -P 16
row "GET -d 64 -r 1000000 -P 16" -t get -d 64 -r 1000000 -n $((requests * 5)) -P 16
# redis-benchmark's -t set writes one fixed value; these write a new one.
row "SET new value -P 1" -n "$requests" -r 1000000 SET key:__rand_int__ v:__rand_int__
row "SET new value -P 16" -n $((requests * 5)) -r 1000000 -P 16 \
  SET key:__rand_int__ v:__rand_int__
echo "hits: radius $(redis-cli -p $trackd_port $search BYRADIUS 200 m | wc -l)," \
  "box $(redis-cli -p $trackd_port $search BYBOX 500 500 m | wc -l);" \
  "answers identical: $(cmp -s <(redis-cli -p $trackd_port $search BYBOX 500 500 m ASC WITHCOORD) \
    <(redis-cli -p $redis_port $search BYBOX 500 500 m ASC WITHCOORD) && echo yes || echo NO)" >&2
echo "trackd RSS $(awk '/VmRSS/ { print $2 / 1024 " MiB" }' /proc/$trackd_pid/status)," \
  "redis RSS $(awk '/VmRSS/ { print $2 / 1024 " MiB" }' /proc/$redis_pid/status)" >&2
