#!/usr/bin/env bash
# End-to-end: the doctor asks a running trackd, and reads a data dir when no
# trackd runs; both name bulk-load mode left on, and find nothing on a
# healthy store.
set -u
trackd="$PWD/service/trackd"
doctor="$PWD/tools/trackdb_doctor"
work="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }

start() {  # start NAME CONFIG_TEXT -> $pid, $port
  printf '%s\n' "$2" >"$work/$1.textproto"
  "$trackd" --config="$work/$1.textproto" --data_dir="$work/$1" --grpc_port=0 --resp_port=0 2>"$work/$1.log" &
  pid=$!
  for _ in $(seq 1 100); do grep -q ready "$work/$1.log" && break; sleep 0.1; done
  grep -q ready "$work/$1.log" || { cat "$work/$1.log"; fail "trackd $1 did not start"; }
  port=$(sed -n 's/.*serving gRPC .* on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/$1.log")
}
stop() { kill -TERM "$pid"; wait "$pid" || fail "trackd exited non-zero"; }

# A healthy store, asked over gRPC. Its budget leaves room for what ASan
# adds to the RSS (shadow memory, quarantine: 146 MiB at start under
# --config=asan), which the doctor would rightly call above a 128 MiB one.
start healthy 'storage { memory_budget_mb: 512 }'
"$doctor" --target="127.0.0.1:$port" --sample_seconds=0.2 >"$work/out" 2>&1
rc=$?
[ $rc -eq 0 ] || { cat "$work/out"; fail "healthy store: exit $rc"; }
grep -q "^no problems found" "$work/out" || { cat "$work/out"; fail "healthy: no verdict"; }
stop

# Bulk-load mode left on: named by the server...
start bulk 'storage { memory_budget_mb: 128 bulk_load: true }'
grep -q "WARNING: storage.bulk_load is on" "$work/bulk.log" || fail "no start-up warning for bulk_load"
"$doctor" --target="127.0.0.1:$port" --sample_seconds=0 --stats >"$work/out" 2>&1
rc=$?
[ $rc -eq 1 ] || { cat "$work/out"; fail "bulk-load on: exit $rc, want 1"; }
grep -q "^WARNING bulk_load_on: bulk-load mode is on" "$work/out" || { cat "$work/out"; fail "bulk-load on not named"; }
grep -q "^bulk_load:1" "$work/out" || { cat "$work/out"; fail "INFO lacks bulk_load:1"; }
stop
# ...and by the data dir alone once trackd is gone.
"$doctor" --data_dir="$work/bulk" >"$work/out" 2>&1
rc=$?
[ $rc -eq 1 ] || { cat "$work/out"; fail "read-only: exit $rc, want 1"; }
grep -q "^WARNING bulk_load_on: automatic compaction is disabled" "$work/out" || { cat "$work/out"; fail "read-only: bulk-load not named"; }

# Nobody to ask: a clear error, exit 2.
"$doctor" --target=127.0.0.1:1 --sample_seconds=0 >"$work/out" 2>&1
[ $? -eq 2 ] || fail "no server: want exit 2"
grep -q "cannot ask trackd" "$work/out" || { cat "$work/out"; fail "no server: unclear"; }

echo "PASS"
