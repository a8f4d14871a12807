#!/usr/bin/env bash
# redis-benchmark against trackd's RESP front door and against a real
# redis-server 7.0, back to back on this machine, same commands, same
# client settings. Prints each run's requests/s and the trackd/Redis ratio.
#
#   bazel run --config=bench //bench:resp_bench [-- REQUESTS]
#
# SET/GET with -P 1 and -P 16 over 100k random keys, then GEOSEARCH 200 m
# radius and 500 m x 500 m box from a random member, over 1M members in a
# 30 km x 30 km city (both servers preloaded with the same GEOADDs through
# redis-cli --pipe). redis-benchmark shares the 2 cores with the server.
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

# rps NAME PORT ARGS...: requests/s of one redis-benchmark run.
rps() {
  local port=$1
  shift
  redis-benchmark -p "$port" -c 50 --csv "$@" 2>/dev/null |
    awk -F'","' 'NR > 1 { gsub(/"/, "", $2); print $2; exit }'
}

row() {  # row LABEL ARGS...
  local label=$1
  shift
  local r t
  r=$(rps $redis_port "$@")
  t=$(rps $trackd_port "$@")
  printf '| %-34s | %12s | %12s | %5.2f |\n' "$label" "$t" "$r" \
    "$(awk -v t="$t" -v r="$r" 'BEGIN { print (r > 0 ? t / r : 0) }')"
}

echo "| run | trackd req/s | redis req/s | trackd/redis |"
echo "|---|---:|---:|---:|"
row "SET -P 1" -t set -n "$requests" -r 100000 -P 1
row "GET -P 1" -t get -n "$requests" -r 100000 -P 1
row "SET -P 16" -t set -n $((requests * 5)) -r 100000 -P 16
row "GET -P 16" -t get -n $((requests * 5)) -r 100000 -P 16
# redis-benchmark's SET writes the same value each time, and trackd skips
# rewriting an unchanged value: these rows write a new value every time.
row "SET new value -P 1" -n "$requests" -r 100000 SET key:__rand_int__ v:__rand_int__
row "SET new value -P 16" -n $((requests * 5)) -r 100000 -P 16 \
  SET key:__rand_int__ v:__rand_int__

# 1M members named m:%012d (redis-benchmark's __rand_int__ form), 100 per
# GEOADD, the same bytes to both servers.
python3 - "$dir/geo.resp" <<'PY'
import random, sys
random.seed(7)
out = open(sys.argv[1], "w", newline="")
def cmd(args):
    out.write("*%d\r\n" % len(args))
    for a in args:
        out.write("$%d\r\n%s\r\n" % (len(a), a))
n, batch = 1_000_000, 100
for start in range(0, n, batch):
    args = ["GEOADD", "fleet"]
    for i in range(start, start + batch):
        args += ["%.6f" % random.uniform(116.25, 116.60),
                 "%.6f" % random.uniform(39.75, 40.02), "m:%012d" % i]
    cmd(args)
PY
for port in $redis_port $trackd_port; do
  start=$(date +%s.%N)
  redis-cli -p $port --pipe <"$dir/geo.resp" >/dev/null
  echo "preload on port $port: $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s, $(redis-cli -p $port zcard fleet) members" >&2
done
row "GEOSEARCH 200 m radius, 1M" -n $((requests / 10)) -r 1000000 \
  GEOSEARCH fleet FROMMEMBER m:__rand_int__ BYRADIUS 200 m
row "GEOSEARCH 500x500 m box, 1M" -n $((requests / 10)) -r 1000000 \
  GEOSEARCH fleet FROMMEMBER m:__rand_int__ BYBOX 500 500 m
echo "hits per query (one sample): radius $(redis-cli -p $trackd_port geosearch fleet frommember m:000000000042 byradius 200 m | wc -l)," \
  "box $(redis-cli -p $trackd_port geosearch fleet frommember m:000000000042 bybox 500 500 m | wc -l)" >&2
