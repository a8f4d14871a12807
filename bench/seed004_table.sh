#!/usr/bin/env bash
# Seed 004's table and the throughput plot, in one go:
#   bazel run --config=bench //bench:seed004_table [-- SECONDS ROUNDS]
# SECONDS of ingest per configuration and round (default 40); ROUNDS over
# all configurations, interleaved (default 3; each row is the median).
# Writes bench/results/seed004_throughput.{csv,png} in the workspace.
set -euo pipefail
seconds="${1:-40}"
rounds="${2:-3}"
out="${BUILD_WORKSPACE_DIRECTORY:-$PWD}/bench/results"
mkdir -p "$out"
"$PWD/bench/seed004_bench" --seconds="$seconds" --rounds="$rounds" \
  --csv="$out/seed004_throughput.csv" | tee "$out/seed004_table.md"
gnuplot -e "csv='$out/seed004_throughput.csv'; png='$out/seed004_throughput.png'" \
  "$PWD/bench/seed004_plot.gp"
echo "plot: $out/seed004_throughput.png"
