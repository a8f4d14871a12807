#!/usr/bin/env bash
# The map page with 100k live entities at 1k updates/s, in headless
# Chromium (bench/map_page_bench.py says what it measures). Real AIS
# fixes (bench/ais_data.sh). Usage, from the workspace:
#   bench/map_page_bench.sh [path/to/trackd]
# ENTITIES, RATE and SECONDS_OF_UPDATES change the load.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
trackd="${1:-bazel-bin/service/trackd}"
source bench/ais_data.sh
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
ais_csv "$work" "$work/ais.csv"
echo "== $(wc -l <"$work/ais.csv") AIS fixes"
resp_port=$((20000 + RANDOM % 10000))
http_port=$((resp_port + 1))
"$trackd" --data_dir="$work/data" --resp_port="$resp_port" --grpc_port=0 \
  --http_port="$http_port" 2>"$work/trackd.log" &
pid=$!
for _ in $(seq 100); do grep -q "trackd: ready" "$work/trackd.log" && break; sleep 0.1; done
/usr/bin/python3 bench/map_page_bench.py "$resp_port" "$http_port" "$work/ais.csv"
