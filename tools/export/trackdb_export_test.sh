#!/usr/bin/env bash
# End-to-end: points written to a running trackd over the Redis protocol
# come out of trackdb_export as GeoJSON (parsed by Python's json), GPX and
# CSV, each format chosen by the output's extension; bad flags exit 1, an
# unreachable server 2.
set -u
trackd="$PWD/service/trackd"
export_tool="$PWD/tools/export/trackdb_export"
work="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }

printf 'storage { memory_budget_mb: 128 }\n' >"$work/trackd.textproto"
"$trackd" --config="$work/trackd.textproto" --data_dir="$work/data" --grpc_port=0 --resp_port=0 2>"$work/trackd.log" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid' EXIT
for _ in $(seq 1 100); do grep -q ready "$work/trackd.log" && break; sleep 0.1; done
grep -q ready "$work/trackd.log" || { cat "$work/trackd.log"; fail "trackd did not start"; }
grpc=$(sed -n 's/.*serving gRPC .* on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/trackd.log")
resp=$(sed -n 's/.*serving the Redis protocol on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/trackd.log")
[ -n "$grpc" ] && [ -n "$resp" ] || { cat "$work/trackd.log"; fail "no ports in the log"; }

# Three members, each written twice (two fixes of history each).
exec 3<>"/dev/tcp/127.0.0.1/$resp"
for round in 0 1; do
  for m in a b c; do
    lon="116.4$round"
    printf '*5\r\n$6\r\nGEOADD\r\n$5\r\nfleet\r\n$%d\r\n%s\r\n$4\r\n39.9\r\n$1\r\n%s\r\n' \
      "${#lon}" "$lon" "$m" >&3
    read -r reply <&3
    sleep 0.002  # a new millisecond: GEOADD stamps the server's clock
  done
done
exec 3>&-

run() { "$export_tool" --target="127.0.0.1:$grpc" --collection=fleet --progress=none "$@"; }

run --out="$work/all.geojson" 2>"$work/err" || { cat "$work/err"; fail "geojson export"; }
grep -q "3 entities, 6 fixes" "$work/err" || { cat "$work/err"; fail "no summary"; }
python3 - "$work/all.geojson" <<'PY' || fail "geojson content"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["type"] == "FeatureCollection", doc
lines = [f for f in doc["features"] if f["geometry"]["type"] == "LineString"]
assert len(lines) == 3, doc
for f in lines:
    assert len(f["geometry"]["coordinates"]) == 2, f
    assert f["properties"]["fixes"] == 2, f
PY

run --entity=b --out="$work/b.gpx" 2>"$work/err" || { cat "$work/err"; fail "gpx export"; }
[ "$(grep -c '<trkpt ' "$work/b.gpx")" -eq 2 ] || { cat "$work/b.gpx"; fail "gpx: want 2 trkpt"; }
grep -q '<name>b</name>' "$work/b.gpx" || fail "gpx: no track name"

run --radius=39.9,116.41,2000 --positions --out="$work/near.csv" 2>"$work/err" || { cat "$work/err"; fail "csv export"; }
[ "$(wc -l <"$work/near.csv")" -eq 4 ] || { cat "$work/near.csv"; fail "csv: want a header and 3 rows"; }
head -1 "$work/near.csv" | grep -q '^entity_id,loc_time_ms,time,latitude,longitude' || fail "csv header"

run --positions >/dev/null 2>"$work/err"; [ $? -eq 1 ] || fail "--positions without an area: want exit 1"
grep -q "needs an area" "$work/err" || { cat "$work/err"; fail "unclear flag error"; }
"$export_tool" --target=127.0.0.1:1 --collection=fleet --progress=none >/dev/null 2>"$work/err"
[ $? -eq 2 ] || { cat "$work/err"; fail "no server: want exit 2"; }

echo "PASS"
