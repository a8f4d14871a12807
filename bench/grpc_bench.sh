#!/usr/bin/env bash
# Starts trackd (shipped defaults, fresh data dir), preloads 1M entities in a
# city, then drives each call kind with grpc_load for a fixed time. trackd
# and the load generator share this machine's cores.
#
#   bazel run --config=bench //bench:grpc_bench [-- CONNECTIONS SECONDS]
set -euo pipefail
connections="${1:-8}"
seconds="${2:-10}"
trackd="$PWD/service/trackd"
load="$PWD/bench/grpc_load"
# TRACKD_CONF: another config file for trackd (an A/B of a setting).
conf="${TRACKD_CONF:-$PWD/conf/trackdb.textproto}"
dir="${TMPDIR:-/tmp}/trackdb-grpc-bench"
port=50551
rm -rf "$dir"
"$trackd" --config="$conf" --data_dir="$dir/data" --grpc_port=$port --resp_port=0 2>"$dir.log" &
pid=$!
trap 'rc=$?; kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"; exit $rc' EXIT
for _ in $(seq 1 100); do grep -q ready "$dir.log" && break; sleep 0.1; done

# Waits until trackd used under 5% of a core for 2 s in a row: background
# flushes and compactions of the preload have finished.
wait_idle() {
  local hz prev now quiet=0
  hz=$(getconf CLK_TCK)
  prev=$(awk '{print $14 + $15}' /proc/$pid/stat)
  for _ in $(seq 1 600); do
    sleep 1
    now=$(awk '{print $14 + $15}' /proc/$pid/stat)
    if (( (now - prev) * 100 < 5 * hz )); then quiet=$((quiet + 1)); else quiet=0; fi
    prev=$now
    (( quiet >= 2 )) && return 0
  done
}

target="127.0.0.1:$port"
"$load" --target=$target --mode=preload --entities=1000000
start=$(date +%s)
wait_idle
echo "background work after preload settled in $(( $(date +%s) - start )) s"
# trackd's CPU time (user + system) in microseconds.
trackd_cpu_us() {
  awk -v hz="$(getconf CLK_TCK)" '{printf "%d", ($14 + $15) * 1000000 / hz}' \
    /proc/$pid/stat
}

# Searches first, on the settled 1M-entity index; then the no-op call (the
# ceiling of any unary call here) and the cheapest real one; then the write
# loads. Each line ends with trackd's CPU per call; grpc_load reports its
# own.
declare -A rate
for mode in radius radius10 bounds health get_latest add_point add_points stream; do
  before=$(trackd_cpu_us)
  line=$("$load" --target=$target --mode=$mode --connections="$connections" \
    --seconds="$seconds" --entities=1000000)
  used=$(( $(trackd_cpu_us) - before ))
  calls=$(sed -n 's/.* calls=\([0-9]*\).*/\1/p' <<<"$line")
  rate[$mode]=$(sed -n 's/.* calls\/s=\([0-9]*\).*/\1/p' <<<"$line")
  if [ "$mode" = add_points ]; then rate[add_points_pts]=$(sed -n 's/.* points\/s=\([0-9]*\).*/\1/p' <<<"$line"); fi
  echo "$line trackd_cpu/call=$(( used / (calls + 1) ))us"
done
kill -TERM $pid; wait $pid 2>/dev/null || true
# The storage-only rate of the same shape (100 moving points per call, no
# gRPC), on this machine now: add_points_bench's best of 1 and 4 threads.
storage_pts=$("$PWD/bench/add_points_bench" --benchmark_filter='BM_AddPoints/100/' \
    --benchmark_min_time=3 --benchmark_format=csv 2>/dev/null |
  awk -F, '/^name,/ { for (i = 1; i <= NF; i++) if ($i == "items_per_second") col = i }
           /BM_AddPoints/ { if ($col + 0 > best) best = $col + 0 }
           END { printf "%d", best }')
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
echo "no-op Health/Check: ${rate[health]} calls/s"
echo "AddPoint (1 moving point) / no-op: $(ratio "${rate[add_point]}" "${rate[health]}")"
echo "SearchRadius 200 m page 10 / no-op: $(ratio "${rate[radius10]}" "${rate[health]}")"
echo "AddPoints (100 moving) ${rate[add_points_pts]} points/s / storage-only ${storage_pts} points/s:" \
  "$(ratio "${rate[add_points_pts]}" "$storage_pts")"
