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
trackd="$PWD/service/trackd"
conf="$PWD/conf/trackdb.textproto"
dir="${TMPDIR:-/tmp}/trackdb-resp-bench"
trackd_port=6390
redis_port=6391
rm -rf "$dir"
mkdir -p "$dir"
"$trackd" --config="$conf" --data_dir="$dir/data" --grpc_port=0 \
  --resp_port=$trackd_port 2>"$dir/trackd.log" &
trackd_pid=$!
redis-server --port $redis_port --save '' --appendonly no --dir "$dir" \
  --daemonize no --loglevel warning >"$dir/redis.log" 2>&1 &
redis_pid=$!
trap 'kill -TERM $trackd_pid $redis_pid 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 1 100); do
  grep -q ready "$dir/trackd.log" && redis-cli -p $redis_port ping >/dev/null 2>&1 && break
  sleep 0.1
done

python3 - "$dir" <<'PY'
import random, sys
random.seed(7)
def write(path, members):
    with open(path, "w", newline="") as out:
        for m in members:
            lon = "%.6f" % random.uniform(116.0, 116.8)
            lat = "%.6f" % random.uniform(39.6, 40.2)
            name = "m:%07d" % m
            out.write("*5\r\n$6\r\nGEOADD\r\n$5\r\nfleet\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n"
                      % (len(lon), lon, len(lat), lat, len(name), name))
write(sys.argv[1] + "/add.resp", range(1_000_000))
write(sys.argv[1] + "/move.resp", range(100_000))
PY

ratio() { awk -v t="$1" -v r="$2" 'BEGIN { printf "%.2f", (r > 0 ? t / r : 0) }'; }

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

# bench PORT ARGS...: "rps p50 p99" of one redis-benchmark -c 50 run.
bench() {
  local port=$1
  shift
  redis-benchmark -p "$port" -c 50 --csv "$@" 2>/dev/null |
    awk -F'","' 'NR == 2 { print $2, $5, $7 }'
}

row() {  # row LABEL ARGS...
  local label=$1 r t
  shift
  read -r -a r <<<"$(bench $redis_port "$@")"
  read -r -a t <<<"$(bench $trackd_port "$@")"
  printf '| %-46s | %9s | %9s | %5s | %5s/%-5s %5s/%-5s |\n' "$label" \
    "${r[0]%.*}" "${t[0]%.*}" "$(ratio "${t[0]}" "${r[0]}")" \
    "${r[1]}" "${r[2]}" "${t[1]}" "${t[2]}"
}

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
