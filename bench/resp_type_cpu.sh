#!/usr/bin/env bash
# What one redis-benchmark test costs trackd: rate, latency and trackd's
# CPU per call, for comparing two builds of trackd run alternately (the
# machine's noise moves Redis's and trackd's rates alike; a build's CPU per
# call moves less). A fresh trackd on the shipped config for each run.
#
#   bench/resp_type_cpu.sh TRACKD_BINARY TEST [REQUESTS] [PIPELINE] [PRE_TEST]
#
# e.g. after `bazel build --config=bench //service:trackd` and copying
# bazel-bin/service/trackd aside for each build:
#   for b in /tmp/trackd.a /tmp/trackd.b /tmp/trackd.a /tmp/trackd.b; do
#     bench/resp_type_cpu.sh $b lpop 1000000 16 lpush; done
# PRE_TEST runs first, unmeasured (lpop needs lpush's list, zpopmin zadd's
# set). Options as resp_types_bench.sh: -c 50, -r 100000. Prints
# redis-benchmark's CSV row (test, rps, avg, min, p50, p95, p99, max ms),
# then cpu_us/call. TRACKD_CONFIG overrides the config (e.g. one loop).
set -euo pipefail
binary="$1"
test_name="$2"
requests="${3:-1000000}"
pipeline="${4:-16}"
pre="${5:-}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
config="${TRACKD_CONFIG:-$here/conf/trackdb.textproto}"
port=6392
dir="$(mktemp -d)"
"$binary" --config="$config" --data_dir="$dir/data" --grpc_port=0 \
  --resp_port="$port" 2>"$dir/trackd.log" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 200); do
  grep -q ready "$dir/trackd.log" && break
  sleep 0.1
done
bench() {
  redis-benchmark -p "$port" -c 50 -P "$pipeline" -n "$requests" -r 100000 \
    --csv -t "$1" 2>/dev/null | tail -1
}
[ -n "$pre" ] && bench "$pre" >/dev/null
ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
before=$(ticks)
row=$(bench "$test_name")
after=$(ticks)
hz=$(getconf CLK_TCK)
echo "$row cpu_us/call=$(awk -v a="$before" -v b="$after" -v n="$requests" \
  -v hz="$hz" 'BEGIN { printf "%.2f", (b - a) * 1e6 / hz / n }')"
