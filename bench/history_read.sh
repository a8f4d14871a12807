#!/usr/bin/env bash
# GetTrack, GetPositionAt and SearchHistory from raw keys against the same
# history in chunks (bench/history_read_bench.cc says how), on real AIS
# vessel tracks (bench/ais_data.sh) and then on a 1 Hz synthetic fleet,
# back to back in one run.
#
#   bazel run --config=bench //bench:history_read
set -euo pipefail
bench="$PWD/bench/history_read_bench"
source "$PWD/bench/ais_data.sh"
dir="$(mktemp -d "${TMPDIR:-/tmp}/trackdb-history-read.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM

ais_csv "$dir" "$dir/ais.csv"
echo "== AIS tracks"
"$bench" --csv="$dir/ais.csv" --dir="$dir/stores" "$@"
echo "== synthetic fleet: 1000 vehicles x 2000 fixes at 1 Hz"
"$bench" --entities=1000 --fixes=2000 --interval_ms=1000 --dir="$dir/stores" "$@"
