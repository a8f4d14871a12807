#!/usr/bin/env bash
# The long crash run: tools/crash/long_run.sh KILLS (default 200), half per
# durability mode, niced; the same rounds as //tools/crash:crash_test
# (tools/crash/crash_run.sh), which does 10. Run from the repo root. The
# test's runfiles are copied first, so that rebuilding during the run does
# not change the trackd or the script under test.
set -eu
kills="${1:-200}"
bazel build //tools/crash:crash_test
copy="$(mktemp -d)"
cp -rL bazel-bin/tools/crash/crash_test.runfiles/trackdb "$copy/"
cd "$copy/trackdb"
echo "trackd: $(git -C "$OLDPWD" rev-parse HEAD), copied to $copy"
exec nice -n 10 bash tools/crash/crash_run.sh "$kills"
