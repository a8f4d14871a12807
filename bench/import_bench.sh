#!/usr/bin/env bash
# Bulk import: generates POINTS points of ENTITIES vehicles as a
# T-Drive CSV (//bench:import_gen), then, back to back on this machine:
#   1. offline: trackdb_import --data_dir into a fresh data dir, shipped
#      config; reopen time as the tool measures it, and as the time trackd
#      takes from start to "ready" on the imported dir; then the same file
#      again into that dir (idempotent; ingestion overlaps everything, so
#      the final compaction has work to do);
#   2. online: trackdb_import --target into trackd on the shipped config and
#      a fresh data dir, the tool's defaults (1000 points per AddPoints, 4
#      in flight);
# and prints points/s of both and their ratio, by wall time and by CPU
# time (the importer's, plus trackd's for the online run: on a shared,
# loaded machine wall time mostly measures the neighbours, CPU time much
# less). trackd, the importer and anything else running share the cores.
#
#   bazel run --config=bench //bench:import_bench [-- POINTS ENTITIES [offline|all] [FORMAT]]
#
# "offline" as the third argument skips the online run (for large POINTS);
# "all" runs both.
# FORMAT is tdrive (the default), ndjson or geojson: the same points
# rewritten as NDJSON lines (entity_id, loc_time_ms, latitude, longitude)
# or as one GeoJSON FeatureCollection (id, ISO 8601 time), to measure the
# JSON readers. TRACKDB_IMPORT=path runs another trackdb_import build
# (e.g. a saved copy of the previous code) for a before/after comparison.
set -euo pipefail
points="${1:-2000000}"
entities="${2:-20000}"
only="${3:-}"
format="${4:-tdrive}"
gen="$PWD/bench/import_gen"
import="${TRACKDB_IMPORT:-$PWD/tools/import/trackdb_import}"
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
TIMEFORMAT="%R %U %S"
# "wall user sys" of a `time` output file, as text; and user + sys.
describe() { awk '{printf "%.2f s wall, %.2f s user, %.2f s sys", $1, $2, $3}' "$1"; }
cpu_of() { awk '{printf "%.3f", $2 + $3}' "$1"; }
# CPU seconds a process has used so far.
proc_cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.3f", ($14 + $15) / hz}' "/proc/$1/stat"; }

# T-Drive CSV rows ("id,YYYY-MM-DD HH:MM:SS,lon,lat", UTC) as NDJSON or
# GeoJSON; Unix ms computed with days_from_civil (mawk has no mktime).
to_json() {
  awk -F, -v format="$1" '
    function unix_ms(t,   y, m, d, era, yoe, doy) {
      y = substr(t, 1, 4) + 0; m = substr(t, 6, 2) + 0; d = substr(t, 9, 2) + 0
      y -= (m <= 2); era = int(y / 400); yoe = y - era * 400
      doy = int((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1
      return ((era * 146097 + yoe * 365 + int(yoe / 4) - int(yoe / 100) + doy - 719468) * 86400 + \
              substr(t, 12, 2) * 3600 + substr(t, 15, 2) * 60 + substr(t, 18, 2)) * 1000
    }
    BEGIN { if (format == "geojson") print "{\"type\": \"FeatureCollection\", \"features\": [" }
    format == "ndjson" {
      printf "{\"entity_id\": \"%s\", \"loc_time_ms\": %.0f, \"latitude\": %s, \"longitude\": %s}\n", $1, unix_ms($2), $4, $3
    }
    format == "geojson" {
      printf "%s{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [%s, %s]}, \"properties\": {\"id\": \"%s\", \"time\": \"%sT%sZ\"}}\n", (NR > 1 ? "," : ""), $3, $4, $1, substr($2, 1, 10), substr($2, 12)
    }
    END { if (format == "geojson") print "]}" }'
}

echo "== generating $points points of $entities entities ($format)"
case "$format" in
  tdrive) "$gen" --points="$points" --entities="$entities" >"$dir/points.$format" ;;
  ndjson | geojson) "$gen" --points="$points" --entities="$entities" | to_json "$format" >"$dir/points.$format" ;;
  *) echo "unknown format $format (tdrive, ndjson or geojson)" >&2; exit 2 ;;
esac
ls -l "$dir/points.$format" | awk -v f="$format" '{printf "   %.0f MiB of %s\n", $5 / 1048576, f}'

echo "== offline: trackdb_import --data_dir (shipped config)"
{ time "$import" --config="$conf" --collection=bench --data_dir="$dir/offline" \
    --format="$format" --progress=none "$dir/points.$format" 2>"$dir/offline.log"; } 2>"$dir/offline.time"
sed 's/^trackdb_import: /   /' "$dir/offline.log"
echo "   process: $(describe "$dir/offline.time")"
offline=$(rate "$dir/offline.log")
offline_cpu=$(awk -v n="$points" -v c="$(cpu_of "$dir/offline.time")" 'BEGIN {printf "%d", n / c}')
du -sh "$dir/offline" | awk '{print "   data dir: " $1}'

echo "== reopen: trackd from start to ready on the imported data dir"
start=$(date +%s.%N)
"$trackd" --config="$conf" --data_dir="$dir/offline" --grpc_port=0 --resp_port=0 2>"$dir/reopen.log" &
pid=$!
for _ in $(seq 1 600); do grep -q ready "$dir/reopen.log" && break; sleep 0.01; done
ready=$(date +%s.%N)
grep -q ready "$dir/reopen.log" || { cat "$dir/reopen.log"; exit 1; }
awk -v a="$start" -v b="$ready" 'BEGIN {printf "   %.2f s (process start, config, RocksDB open, gRPC up)\n", b - a}'
kill -TERM "$pid"; wait "$pid"; pid=""

echo "== offline again, same file into the same dir (every key overlaps: ingestion"
echo "   goes to L0 and the compaction rewrites the collection)"
{ time "$import" --config="$conf" --collection=bench --data_dir="$dir/offline" \
    --format="$format" --progress=none "$dir/points.$format" 2>"$dir/again.log"; } 2>"$dir/again.time"
sed 's/^trackdb_import: /   /' "$dir/again.log"
echo "   process: $(describe "$dir/again.time")"
du -sh "$dir/offline" | awk '{print "   data dir: " $1 " (same contents)"}'

echo "== offline: $offline_cpu points per CPU-second"
if [[ "$only" == "offline" ]]; then exit 0; fi

echo "== online: trackdb_import --target (defaults) into trackd (shipped config)"
"$trackd" --config="$conf" --data_dir="$dir/online" --grpc_port=0 --resp_port=0 2>"$dir/trackd.log" &
pid=$!
for _ in $(seq 1 100); do grep -q ready "$dir/trackd.log" && break; sleep 0.1; done
port=$(sed -n 's/.*serving gRPC .* on 127.0.0.1:\([0-9]*\).*/\1/p' "$dir/trackd.log")
trackd_before=$(proc_cpu "$pid")
{ time "$import" --config="$conf" --collection=bench --target="127.0.0.1:$port" \
    --format="$format" --progress=none "$dir/points.$format" 2>"$dir/online.log"; } 2>"$dir/online.time"
sed 's/^trackdb_import: /   /' "$dir/online.log"
trackd_cpu=$(awk -v a="$trackd_before" -v b="$(proc_cpu "$pid")" 'BEGIN {printf "%.3f", b - a}')
echo "   importer process: $(describe "$dir/online.time"); trackd: $trackd_cpu s CPU"
online=$(rate "$dir/online.log")
online_cpu=$(awk -v n="$points" -v a="$(cpu_of "$dir/online.time")" -v b="$trackd_cpu" 'BEGIN {printf "%d", n / (a + b)}')

awk -v off="$offline" -v on="$online" \
  'BEGIN {printf "== wall time: offline %d points/s, online %d points/s: offline/online = %.1f\n", off, on, off / on}'
awk -v off="$offline_cpu" -v on="$online_cpu" \
  'BEGIN {printf "== CPU time: offline %d points per CPU-second, online %d: offline/online = %.1f\n", off, on, off / on}'
