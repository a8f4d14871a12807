#!/usr/bin/env bash
# Soak: trackd with a small memory budget under sustained ingest plus radius
# queries; samples trackd's RSS (VmRSS, /proc/<pid>/status) every second and
# reports max RSS / budget. trackd and the load share this machine's cores.
#
#   bazel run --config=bench //bench:soak [-- BUDGET_MB SECONDS ENTITIES]
#
# Writes the RSS series (seconds, rss_mb) and its plot to
# bench/results/soak_rss.{csv,png} in the workspace, and ends with the
# doctor's view of the store (stats and findings).
set -euo pipefail
budget="${1:-256}"
seconds="${2:-180}"
entities="${3:-300000}"
trackd="$PWD/service/trackd"
load="$PWD/bench/grpc_load"
doctor="$PWD/tools/trackdb_doctor"
dir="${TMPDIR:-/tmp}/trackdb-soak"
results="${BUILD_WORKSPACE_DIRECTORY:-$PWD}/bench/results"
mkdir -p "$results"
csv="$results/soak_rss.csv"
port=50651
rm -rf "$dir"
mkdir -p "$dir"
# Everything else at trackdb's defaults, derived from the budget.
printf 'storage {\n  memory_budget_mb: %d\n}\n' "$budget" >"$dir/soak.textproto"
"$trackd" --config="$dir/soak.textproto" --data_dir="$dir/data" --grpc_port=$port --resp_port=0 2>"$dir/trackd.log" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 1 100); do grep -q ready "$dir/trackd.log" && break; sleep 0.1; done
grep "rocksdb db:" "$dir/trackd.log" || true

rss_mb() { awk '/^VmRSS:/ {printf "%.1f", $2 / 1024}' /proc/$pid/status; }
target="127.0.0.1:$port"
"$load" --target=$target --mode=preload --entities="$entities"

echo "seconds,rss_mb" >"$csv"
start=$(date +%s.%N)
"$load" --target=$target --mode=add_points --connections=4 --seconds="$seconds" \
  --entities="$entities" >"$dir/ingest.out" &
ingest=$!
"$load" --target=$target --mode=radius --connections=2 --seconds="$seconds" \
  --entities="$entities" >"$dir/radius.out" &
queries=$!
max=0
while kill -0 $ingest 2>/dev/null || kill -0 $queries 2>/dev/null; do
  now=$(rss_mb)
  t=$(awk -v s="$start" -v n="$(date +%s.%N)" 'BEGIN {printf "%.1f", n - s}')
  echo "$t,$now" >>"$csv"
  max=$(awk -v a="$max" -v b="$now" 'BEGIN {print (b > a) ? b : a}')
  sleep 1
done
wait $ingest $queries || true
cat "$dir/ingest.out" "$dir/radius.out"
echo
"$doctor" --target=$target --sample_seconds=1 --stats || true
echo
awk -v m="$max" -v b="$budget" 'BEGIN {
  printf "soak: memory_budget_mb=%d, max RSS %.1f MiB = %.3f x budget\n", b, m, m / b }'
gnuplot -e "set terminal pngcairo size 1000,500 noenhanced; set output '$results/soak_rss.png';
  set datafile separator ','; set key bottom right; set grid;
  set xlabel 'seconds of ingest + radius queries'; set ylabel 'MiB';
  set yrange [0:*];
  plot '$csv' every ::1 using 1:2 with lines lw 2 title 'trackd RSS',
       $budget with lines dt 2 lw 2 title 'memory_budget_mb',
       $budget * 1.1 with lines dt 3 title '1.1 x budget'" || true
echo "RSS series: $csv (plot: $results/soak_rss.png)"
