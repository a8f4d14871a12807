#!/bin/bash
# A small run of retention_bench: 200 entities x 300 fixes over two years,
# one kept; fails unless the expired history's disk space comes back.
set -euo pipefail
exec bench/retention_bench --entities=200 --points=300 --check \
  --dir="${TEST_TMPDIR}/retention"
