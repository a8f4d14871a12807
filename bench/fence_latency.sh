#!/usr/bin/env bash
# Starts trackd (shipped defaults, fresh data dir) and measures fence event
# latency, from a write's acknowledgement to its event on a Watch stream,
# with bench/fence_latency: 10k points/s in calls of 10 points and 1k
# fences, then one point per call at the highest rate this box's unary
# AddPoint reaches (bench/README.md: ~6-7k calls/s) and half of it.
#
#   bazel run --config=bench //bench:fence_latency_bench [-- SECONDS]
set -euo pipefail
seconds="${1:-20}"
trackd="$PWD/service/trackd"
latency="$PWD/bench/fence_latency"
dir="${TMPDIR:-/tmp}/trackdb-fence-latency"
port=50561
rm -rf "$dir"
mkdir -p "$dir"
"$trackd" --data_dir="$dir/data" --grpc_port=$port --resp_port=0 2>"$dir/log" &
pid=$!
trap 'rc=$?; kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"; exit $rc' EXIT
for _ in $(seq 1 100); do grep -q ready "$dir/log" && break; sleep 0.1; done

run() {
  "$latency" --target=127.0.0.1:$port --seconds="$seconds" "$@"
}
run --collection=batch10 --rate=10000 --batch=10 --fences=1000
run --collection=batch10k --rate=10000 --batch=10 --fences=10000
run --collection=single5k --rate=5000 --batch=1 --connections=8 --fences=1000
run --collection=single2k --rate=2500 --batch=1 --connections=4 --fences=1000
