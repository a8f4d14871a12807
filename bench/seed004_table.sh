#!/usr/bin/env bash
# Seed 004's table and the throughput plot, in one go:
#   bazel run --config=bench //bench:seed004_table [-- SECONDS_PER_CONFIG]
# Writes bench/results/seed004_throughput.{csv,png} in the workspace.
set -euo pipefail
seconds="${1:-60}"
out="${BUILD_WORKSPACE_DIRECTORY:-$PWD}/bench/results"
mkdir -p "$out"
"$PWD/bench/seed004_bench" --seconds="$seconds" --csv="$out/seed004_throughput.csv"
gnuplot -e "csv='$out/seed004_throughput.csv'; png='$out/seed004_throughput.png'" \
  "$PWD/bench/seed004_plot.gp"
echo "plot: $out/seed004_throughput.png"
