#!/bin/bash
# A small run of history_search_bench: 200 vehicles, 100k fixes, then ten
# times the history; fails unless the same searches return the same rows
# and read (history cells and fixes) less than twice as much.
set -euo pipefail
bench/history_search_bench --entities=200 --small_points=100000 \
  --large_points=1000000 --queries=100 --check \
  --dir="${TEST_TMPDIR}/history"
