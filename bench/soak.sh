#!/usr/bin/env bash
# Soak: trackd with a small memory budget under sustained ingest plus radius
# queries; samples trackd's RSS (VmRSS, /proc/<pid>/status) every second and
# reports max RSS / budget. trackd and the load share this machine's cores.
#
#   bazel run --config=bench //bench:soak [-- BUDGET_MB SECONDS ENTITIES]
#
# Writes the RSS series to $TMPDIR/trackdb-soak-rss.csv (seconds, rss_mb)
# and ends with the doctor's view of the store (stats and findings).
set -euo pipefail
budget="${1:-256}"
seconds="${2:-180}"
entities="${3:-300000}"
trackd="$PWD/service/trackd"
load="$PWD/bench/grpc_load"
doctor="$PWD/tools/trackdb_doctor"
dir="${TMPDIR:-/tmp}/trackdb-soak"
csv="${TMPDIR:-/tmp}/trackdb-soak-rss.csv"
port=50651
rm -rf "$dir"
mkdir -p "$dir"
# Everything else at trackdb's defaults, derived from the budget.
printf 'storage {\n  memory_budget_mb: %d\n}\n' "$budget" >"$dir/soak.textproto"
"$trackd" --config="$dir/soak.textproto" --data_dir="$dir/data" --grpc_port=$port 2>"$dir/trackd.log" &
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
echo "RSS series: $csv"
