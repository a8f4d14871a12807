#!/usr/bin/env bash
# Bulk import (issue 5): generates POINTS points of ENTITIES vehicles as a
# T-Drive CSV (//bench:import_gen), then, back to back on this machine:
#   1. offline: trackdb_import --data_dir into a fresh data dir, shipped
#      config; reopen time as the tool measures it, and as the time trackd
#      takes from start to "ready" on the imported dir;
#   2. online: trackdb_import --target into trackd on the shipped config and
#      a fresh data dir, the tool's defaults (1000 points per AddPoints, 4
#      in flight);
# and prints points/s of both and their ratio. trackd, the importer and
# anything else running share the machine's cores.
#
#   bazel run --config=bench //bench:import_bench [-- POINTS ENTITIES [offline]]
#
# "offline" as the third argument skips the online run (for large POINTS).
set -euo pipefail
points="${1:-2000000}"
entities="${2:-20000}"
only="${3:-}"
gen="$PWD/bench/import_gen"
import="$PWD/tools/import/trackdb_import"
trackd="$PWD/service/trackd"
conf="$PWD/conf/trackdb.textproto"
dir="${TMPDIR:-/tmp}/trackdb-import-bench"
rm -rf "$dir"
mkdir -p "$dir"
pid=""
cleanup() {
  if [[ -n "$pid" ]]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT

# The summary line's points/s: "... in 2.03 s: 986442 points/s".
rate() { sed -n 's/.*imported .*: \([0-9]*\) points\/s$/\1/p' "$1"; }
TIMEFORMAT="%R s wall, %U s user, %S s sys"

echo "== generating $points points of $entities entities"
"$gen" --points="$points" --entities="$entities" >"$dir/points.csv"
ls -l "$dir/points.csv" | awk '{printf "   %.0f MiB of CSV\n", $5 / 1048576}'

echo "== offline: trackdb_import --data_dir (shipped config)"
{ time "$import" --config="$conf" --collection=bench --data_dir="$dir/offline" \
    --format=tdrive --progress=none "$dir/points.csv" 2>"$dir/offline.log"; } 2>"$dir/offline.time"
sed 's/^trackdb_import: /   /' "$dir/offline.log"
echo "   process: $(cat "$dir/offline.time")"
offline=$(rate "$dir/offline.log")
du -sh "$dir/offline" | awk '{print "   data dir: " $1}'

echo "== reopen: trackd from start to ready on the imported data dir"
start=$(date +%s.%N)
"$trackd" --config="$conf" --data_dir="$dir/offline" --grpc_port=0 2>"$dir/reopen.log" &
pid=$!
for _ in $(seq 1 600); do grep -q ready "$dir/reopen.log" && break; sleep 0.01; done
ready=$(date +%s.%N)
grep -q ready "$dir/reopen.log" || { cat "$dir/reopen.log"; exit 1; }
awk -v a="$start" -v b="$ready" 'BEGIN {printf "   %.2f s (process start, config, RocksDB open, gRPC up)\n", b - a}'
kill -TERM "$pid"; wait "$pid"; pid=""

if [[ "$only" == "offline" ]]; then exit 0; fi

echo "== online: trackdb_import --target (defaults) into trackd (shipped config)"
"$trackd" --config="$conf" --data_dir="$dir/online" --grpc_port=0 2>"$dir/trackd.log" &
pid=$!
for _ in $(seq 1 100); do grep -q ready "$dir/trackd.log" && break; sleep 0.1; done
port=$(sed -n 's/.*serving gRPC .* on 127.0.0.1:\([0-9]*\).*/\1/p' "$dir/trackd.log")
{ time "$import" --config="$conf" --collection=bench --target="127.0.0.1:$port" \
    --format=tdrive --progress=none "$dir/points.csv" 2>"$dir/online.log"; } 2>"$dir/online.time"
sed 's/^trackdb_import: /   /' "$dir/online.log"
echo "   importer process: $(cat "$dir/online.time")"
online=$(rate "$dir/online.log")

awk -v off="$offline" -v on="$online" \
  'BEGIN {printf "== offline %d points/s, online %d points/s: offline/online = %.1f\n", off, on, off / on}'
