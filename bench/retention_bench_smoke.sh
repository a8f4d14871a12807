#!/bin/bash
# Small runs of retention_bench: 200 entities x 300 fixes over two years,
# one year kept, then the newest 75 fixes per entity kept; each fails
# unless the removed history's disk space comes back.
set -euo pipefail
bench/retention_bench --entities=200 --points=300 --check \
  --dir="${TEST_TMPDIR}/by_age"
bench/retention_bench --entities=200 --points=300 --max_points=75 --check \
  --dir="${TEST_TMPDIR}/by_count"
