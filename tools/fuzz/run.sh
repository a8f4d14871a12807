#!/usr/bin/env bash
# Builds the libFuzzer targets (//fuzz, clang-14 with ASan and UBSan,
# --config=fuzz) and runs each, one after the other.
#
#   tools/fuzz/run.sh [LIMIT] [FUZZER...]
#
# LIMIT is seconds per fuzzer ("30", the default) or runs per fuzzer
# ("10000000runs"). FUZZER names (resp_parser_fuzz, ...) pick some; the
# default is all. Each starts from its committed corpus
# (fuzz/corpus/<name>) and keeps what it finds in
# $FUZZ_WORK/<name>/corpus (default /tmp/trackdb-fuzz); a crash's input is
# saved there as crash-* (add it to fuzz/corpus/<name> with the fix).
# Extra libFuzzer flags go in $FUZZ_FLAGS (e.g. "-jobs=2 -workers=2").
#
# Prints one line per fuzzer, "PASSED <name>: <runs> runs in <s> s" or
# "FAILED <name>: ...", and exits non-zero if any failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

limit="${1:-30}"
shift || true
all=$(sed -n 's/^ *name = "\([a-z_]*_fuzz\)",$/\1/p' fuzz/BUILD)
fuzzers=("$@")
[[ ${#fuzzers[@]} -eq 0 ]] && mapfile -t fuzzers <<<"$all"
work="${FUZZ_WORK:-/tmp/trackdb-fuzz}"

if [[ "$limit" == *runs ]]; then
  limit_flag="-runs=${limit%runs}"
else
  limit_flag="-max_total_time=${limit}"
fi

targets=()
for f in "${fuzzers[@]}"; do targets+=("//fuzz:${f}_fuzzer"); done
# The gold linker warns for every ASan symbol it cannot export: noise.
if ! bazel build --config=fuzz "${targets[@]}" 2>&1 |
    grep -v "Cannot export local symbol"; then
  echo "FAILED fuzz build"
  exit 1
fi

export UBSAN_OPTIONS="print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$PWD/tools/fuzz/lsan.supp"

bin=$(bazel info --config=fuzz bazel-bin 2>/dev/null)/fuzz

failed=0
for f in "${fuzzers[@]}"; do
  dir="$work/$f"
  mkdir -p "$dir/corpus"
  log="$dir/log"
  start=$(date +%s)
  # -rss_limit_mb: a request may make the server hold a few hundred MiB
  # (ASan doubles it); more than 2.5 GiB is a finding. -timeout: one input
  # takes milliseconds, but the scratch store's periodic close flushes
  # RocksDB, which took 37 s once on a machine at load 20.
  # shellcheck disable=SC2086
  "$bin/${f}_fuzzer" "$limit_flag" -rss_limit_mb=2560 \
    -timeout=60 -print_final_stats=1 -artifact_prefix="$dir/" \
    ${FUZZ_FLAGS:-} "$dir/corpus" "fuzz/corpus/$f" >"$log" 2>&1
  rc=$?
  secs=$(($(date +%s) - start))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  corpus=$(find "$dir/corpus" "fuzz/corpus/$f" -type f | wc -l)
  if [[ $rc -eq 0 ]]; then
    echo "PASSED $f: ${runs:-?} runs in ${secs} s, corpus ${corpus} files"
  else
    failed=1
    echo "FAILED $f (exit $rc) after ${secs} s: see $log"
    grep -E "^(==[0-9]+==ERROR|SUMMARY|.*FUZZ_CHECK|.*runtime error)" "$log" |
      head -5
  fi
done
exit "$failed"
