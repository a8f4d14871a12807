#!/usr/bin/env bash
# Runs trackdb's AddPoints benchmark and RocksDB's db_bench fillrandom with
# 4-key batches (a point's 3 Puts + 1 Delete) back to back, on the same
# machine, same disk, so the two can be compared as a ratio.
#
#   bazel run --config=bench //bench:storage_vs_db_bench
set -euo pipefail
bench="$PWD/bench/add_points_bench"
scratch="${TMPDIR:-/tmp}/trackdb-db-bench"

echo "== trackdb AddPoints (defaults from conf/trackdb.textproto)"
"$bench" --benchmark_counters_tabular=true

echo
echo "== db_bench fillrandom --batch_size=4 (RocksDB defaults, WAL on)"
rm -rf "$scratch"
db_bench --benchmarks=fillrandom --batch_size=4 --num=4000000 \
  --key_size=24 --value_size=64 --compression_type=lz4 --threads=1 \
  --db="$scratch" --disable_wal=false 2>&1 | grep -E "^fillrandom|^RocksDB|^Entries|^Keys|^Values"
rm -rf "$scratch"
