#!/usr/bin/env bash
# Lists product functions over 80 lines or 15 branches (cyclomatic
# complexity), as lizard counts them; exits 1 when it lists any. lizard
# comes from PyPI at a pinned version, into a virtualenv of its own under
# /var/tmp/trackdb-tools (made once).
#   tools/dev/complexity.sh            # product code (tests and bench left out)
#   tools/dev/complexity.sh --tests    # tests too
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
venv=/var/tmp/trackdb-tools/lizard-1.24.3
if [[ ! -x "$venv/bin/lizard" ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q lizard==1.24.3
fi
exclude=(-x './third_party/*' -x './bazel-*' -x './bench/*')
if [[ "${1:-}" != "--tests" ]]; then
  exclude+=(-x '*_test.cc' -x '*test_util*' -x './service/resp/testing/*' -x './fuzz/*')
fi
"$venv/bin/lizard" -l cpp -C 15 -L 80 -a 99 -w "${exclude[@]}" .
