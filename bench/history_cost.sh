#!/usr/bin/env bash
# What trackdb's history costs on disk per fix, against the same fixes as
# CSV, gzip -9 and xz -9, for two data sets, back to back in one run:
#
#   ais        real AIS vessel tracks from PyPI's tracktable-data 1.7.3.1
#              (python_example_data/US_coastal_2020_06_30.traj and
#              NYHarbor_2020_12_first_week.traj), converted by
#              bench/traj_to_csv.py into one CSV (which says what .traj is
#              and which rows it drops). These two files carry no point
#              properties (no speed, no heading): their fixes are vessel,
#              time, lon, lat, 5 decimals;
#   synthetic  2,000 vehicles x 1,000 fixes at 1 Hz with speed, driving
#              through a city (generated below).
#
# For each: an offline import (trackdb_import --data_dir, shipped config)
# into a fresh data dir. The import ends with a compaction of the
# collection's points and latest column families (storage/import/
# sst_import.h step 5) and reopens the store, so what is measured is the
# compacted store; the script checks that no level-0 file is left in them
# (ldb manifest_dump, read-only). Then the .sst files' total per fix, split
# by column family (sst_dump --show_properties, Debian's rocksdb-tools;
# `points` holds the history cells' keys too, counted apart as keys),
# the import rate the importer reports, and the read rate: trackd on the
# imported dir and trackdb_export reading every entity's whole track
# through GetTrack (CSV to /dev/null).
#
#   bazel run --config=bench //bench:history_cost
#
# The download is cached in ${XDG_CACHE_HOME:-$HOME/.cache}/trackdb-bench
# (never in the tree); everything else goes to a temp dir removed on exit.
# The CSVs are written sorted by entity then time, the order trackdb keeps
# history in and the one that favours gzip and xz: they are compared at
# their best. trackd, the tools and whatever else runs share the cores, so
# the rates move with the machine's load; the sizes do not.
set -euo pipefail

import="$PWD/tools/import/trackdb_import"
export_tool="$PWD/tools/export/trackdb_export"
trackd="$PWD/service/trackd"
conf="$PWD/conf/trackdb.textproto"
for tool in sst_dump ldb xz gzip unzip python3; do
  command -v "$tool" >/dev/null || { echo "history_cost: needs $tool (sst_dump, ldb: apt-get install rocksdb-tools)" >&2; exit 2; }
done

source "$PWD/bench/ais_data.sh"

dir="$(mktemp -d "${TMPDIR:-/tmp}/trackdb-history-cost.XXXXXX")"
pid=""
cleanup() {
  if [[ -n "$pid" ]]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # so that an interrupted run cleans up too

# --- the data ----------------------------------------------------------------

# A city's fleet: each vehicle starts somewhere in a 30 km x 30 km square
# around (39.9, 116.4) and drives at 1 Hz: speed eases towards a target
# (15-50 km/h, re-chosen every 30 s or so) at most 5 km/h a second (~1.4 m/s^2),
# stops for 15-45 s at about one light in two minutes, heading wanders a
# degree or two a second and turns 90 degrees over 5 s about once a minute.
# Each fix is the true position plus up to ~1 m of GPS noise, so a parked
# car's fixes differ in the last digits, as real receivers' do. Printed
# with 6 decimals (0.1 m) and speed with 1. Rows grouped by vehicle, time
# ordered. mawk's rand() is repeatable for a given srand(seed).
generate_fleet() {
  awk -v vehicles="$1" -v fixes="$2" -v seed=4 'BEGIN {
    srand(seed); pi = atan2(0, -1); m_per_deg = 111320
    t0 = 1704096000  # 2024-01-01 08:00:00 UTC
    print "entity,time,lat,lon,speed"
    for (v = 1; v <= vehicles; v++) {
      lat = 39.9 + (rand() - 0.5) * 0.27; lon = 116.4 + (rand() - 0.5) * 0.35
      heading = rand() * 360; speed = 0; target = 15 + rand() * 35
      stop_left = 0; turn_left = 0  # seconds left of a stop, of a turn
      for (i = 0; i < fixes; i++) {
        if (rand() < 1 / 30) target = 15 + rand() * 35
        if (stop_left == 0 && speed > 10 && rand() < 1 / 120) stop_left = 15 + int(rand() * 31)
        want = target
        if (stop_left > 0) { want = 0; if (speed == 0) stop_left-- }
        if (speed < want) speed = (want - speed > 5) ? speed + 5 : want
        else speed = (speed - want > 5) ? speed - 5 : want
        if (turn_left == 0 && speed > 5 && rand() < 1 / 60) { turn_left = 5; turn = (rand() < 0.5) ? 18 : -18 }
        if (turn_left > 0) { heading += turn; turn_left-- }
        else if (speed > 0) heading += (rand() - 0.5) * 3
        heading = (heading + 360) % 360
        d = speed / 3.6  # metres this second
        lat += d * cos(heading * pi / 180) / m_per_deg
        lon += d * sin(heading * pi / 180) / (m_per_deg * cos(lat * pi / 180))
        noise_lat = (rand() - 0.5) * 2 / m_per_deg
        noise_lon = (rand() - 0.5) * 2 / (m_per_deg * cos(lat * pi / 180))
        printf "car-%04d,%s,%.6f,%.6f,%.1f\n", v, strftime("%Y-%m-%d %H:%M:%S", t0 + i, 1),
          lat + noise_lat, lon + noise_lon, speed
      }
    }
  }'
}

# --- measuring one data set --------------------------------------------------

rows=()    # the main table's rows
detail=()  # the column-family and read table's rows

# The .sst files of a data dir by column family (named in each file's
# properties): "name bytes entries" lines.
sst_by_cf() {
  local f
  for f in "$1"/*.sst; do
    [[ -e "$f" ]] || continue
    sst_dump --file="$f" --show_properties 2>/dev/null | awk -v size="$(stat -c %s "$f")" '
      /^ *column family name: / { cf = $NF }
      /^ *# entries: / { entries = $NF }
      END { print cf, size, entries }'
  done | awk '{bytes[$1] += $2; keys[$1] += $3} END {for (cf in bytes) print cf, bytes[cf], keys[cf]}' | sort
}

# Bytes of column family $2 in sst_by_cf's lines $1 (0 if it has none).
cf_bytes() { awk -v cf="$2" '$1 == cf {print $2; f = 1} END {if (!f) print 0}' <<<"$1"; }

# Level-0 files of the points and latest column families, from the MANIFEST
# (read as a file: the store is not opened). 0 when the import compacted.
level0_files() {
  local manifest
  manifest="$(ls "$1"/MANIFEST-* | tail -1)"
  ldb manifest_dump --path="$manifest" 2>/dev/null | awk '
    /^--------------- Column family/ { cf = $0; sub(/.*Column family "/, "", cf); sub(/".*/, "", cf) }
    /^--- level / { level = $3 }
    /^ *[0-9]+:[0-9]+\[/ && level == 0 && (cf == "points" || cf == "latest") { n++ }
    END { print n + 0 }'
}

# Waits for trackd's "ready" line in $1; prints its gRPC port.
wait_ready() {
  local _
  for _ in $(seq 1 600); do grep -q ready "$1" && break; sleep 0.1; done
  grep -q ready "$1" || { cat "$1" >&2; echo "history_cost: trackd did not start" >&2; exit 1; }
  sed -n 's/.*serving gRPC .* on 127.0.0.1:\([0-9]*\).*/\1/p' "$1" | head -1
}

measure() {
  local name="$1" csv="$2" db="$dir/db-$1" log="$dir/import-$1.log"
  echo "== $name: offline import of $(($(wc -l <"$csv") - 1)) rows ($(($(stat -c %s "$csv") / 1048576)) MiB of CSV)"
  # --skip_bad_rows: a row the importer rejects is counted and shown, not
  # fatal (the converter already dropped the ones it knows of).
  "$import" --config="$conf" --collection="$name" --data_dir="$db" --format=csv \
    --skip_bad_rows --reject_file="$dir/$name.rejects" --progress=none "$csv" 2>"$log" ||
    { cat "$log" >&2; exit 1; }
  sed 's/^trackdb_import: /   /' "$log"
  if [[ -s "$dir/$name.rejects" ]]; then echo "   first rejected rows:"; head -6 "$dir/$name.rejects" | sed 's/^/     /'; fi
  local fixes rate
  fixes="$(sed -n 's/.*imported \([0-9]*\) points from .*/\1/p' "$log")"
  rate="$(sed -n 's/.*imported .*: \([0-9]*\) points\/s$/\1/p' "$log")"

  local l0
  l0="$(level0_files "$db")"
  [[ "$l0" == 0 ]] || echo "   WARNING: $l0 level-0 files left in points/latest: not fully compacted"

  local by_cf total
  by_cf="$(sst_by_cf "$db")"
  total="$(awk '{s += $2} END {print s + 0}' <<<"$by_cf")"
  # A points key is a fix or a history cell (storage/format/keys.h): its
  # keys beyond the fixes are the space-time index's.
  echo "   .sst files: $total bytes, level-0 files in points/latest: $l0; by column family:"
  awk -v n="$fixes" '{printf "     %-8s %10d bytes  %6.2f B/fix  %9d keys\n", $1, $2, $2 / n, $3}' <<<"$by_cf"
  echo "   whole data dir (WAL, MANIFEST, LOG, OPTIONS too): $(du -sb "$db" | cut -f1) bytes"

  echo "   compressing the CSV (gzip -9, xz -9 single-threaded)"
  local csv_bytes gz_bytes xz_bytes
  csv_bytes="$(stat -c %s "$csv")"
  gz_bytes="$(gzip -9 -c "$csv" | wc -c)"
  xz_bytes="$(xz -9 -T1 -c "$csv" | wc -c)"

  # Reading back: trackd on the imported dir, every entity's whole track
  # through GetTrack (trackdb_export lists the entities, then pages each
  # track, 1000 fixes a call), written as CSV to /dev/null.
  echo "   reading every track back through GetTrack (trackdb_export)"
  "$trackd" --config="$conf" --data_dir="$db" --grpc_port=0 --resp_port=0 2>"$dir/trackd-$name.log" &
  pid=$!
  local port start end read_fixes
  port="$(wait_ready "$dir/trackd-$name.log")"
  start="$(date +%s.%N)"
  "$export_tool" --target="127.0.0.1:$port" --collection="$name" --format=csv \
    --out=/dev/null --progress=none 2>"$dir/export-$name.log" ||
    { cat "$dir/export-$name.log" >&2; exit 1; }
  end="$(date +%s.%N)"
  kill -TERM "$pid"; wait "$pid" || true; pid=""
  sed 's/^trackdb_export: /   /' "$dir/export-$name.log"
  read_fixes="$(sed -n 's/.* entities, \([0-9]*\) fixes in .*/\1/p' "$dir/export-$name.log")"
  [[ "$read_fixes" == "$fixes" ]] || echo "   WARNING: read $read_fixes fixes back, imported $fixes"

  rows+=("$(awk -v d="$name" -v n="$fixes" -v t="$total" -v c="$csv_bytes" -v g="$gz_bytes" \
    -v x="$xz_bytes" -v r="$rate" 'BEGIN {
      printf "| %s | %d | %.2f | %.2f | %.2f | %.2f | %d |", d, n, t / n, c / n, g / n, x / n, r }')")
  local points chunks latest
  points="$(cf_bytes "$by_cf" points)"
  chunks="$(cf_bytes "$by_cf" chunks)"
  latest="$(cf_bytes "$by_cf" latest)"
  detail+=("$(awk -v d="$name" -v n="$fixes" -v p="$points" -v k="$chunks" -v l="$latest" \
    -v t="$total" -v rf="$read_fixes" -v s="$start" -v e="$end" 'BEGIN {
      printf "| %s | %.2f | %.2f | %.2f | %.2f | %d |", d, p / n, k / n, l / n, (t - p - k - l) / n, rf / (e - s) }')")
}

# --- the run -----------------------------------------------------------------

ais_csv "$dir" "$dir/ais.csv"

echo "== generating the synthetic fleet: 2000 vehicles x 1000 fixes at 1 Hz"
generate_fleet 2000 1000 >"$dir/synthetic.csv"

measure ais "$dir/ais.csv"
measure synthetic "$dir/synthetic.csv"

echo
echo "| data | fixes | trackdb B/fix | CSV B/fix | gzip -9 B/fix | xz -9 B/fix | import fixes/s |"
echo "|---|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
echo
echo "| data | points CF B/fix | chunks CF B/fix | latest CF B/fix | other CFs B/fix | GetTrack fixes/s (trackdb_export) |"
echo "|---|---:|---:|---:|---:|---:|"
printf '%s\n' "${detail[@]}"
