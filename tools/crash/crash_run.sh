#!/usr/bin/env bash
# The crash test: KILLS (first argument, default 10) SIGKILLs of trackd in
# the middle of writes on both doors, half with durability
# DURABILITY_WAL_SYNC (fsync before the reply), half with the default
# DURABILITY_WAL (written to the OS before the reply, which a process kill
# cannot lose): zero acknowledged writes may be lost in either. Each round
# crash_client.py writes until it kills trackd, trackd restarts on the same
# data dir and crash_client.py checks it (see crash_client.py for what);
# the restarted trackd serves the next round. Every ROUNDS_PER_DIR rounds
# (default 10) a mode starts a fresh data dir, so checks stay short in long
# runs, and the last trackd of each data dir is stopped cleanly, restarted
# and checked once more, and its chunks counted (ldb, from rocksdb-tools):
# the history folder runs every 300 ms here, so kills land amid folds.
# Prints one line per round and a summary.
# Run from the runfiles root (bazel test does; tools/crash/long_run.sh too).
set -u
kills="${1:-10}"
per_dir="${ROUNDS_PER_DIR:-10}"
root="$PWD"
trackd="$root/service/trackd"
client="$root/tools/crash/crash_client.py"
conf="$root/conf/trackdb.textproto"
# Debian's python3, whose python3-grpcio and python3-protobuf the client
# needs (a python3 earlier on PATH may be another build without them).
python=/usr/bin/python3
export PYTHONPATH="$root/tools/crash${PYTHONPATH:+:$PYTHONPATH}"
work="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }
pid=""
trap '[ -n "$pid" ] && kill -9 $pid 2>/dev/null; wait 2>/dev/null' EXIT

start() {  # start CONF DATA: starts trackd, sets pid, grpc_port, resp_port
  # Emptied here, not by trackd's redirection, which runs in the child
  # after the loop below may already have read the previous trackd's log.
  : >"$work/trackd.log"
  # The history folder runs every 300 ms on entities with 4 raw fixes, so
  # that kills land before, during and after folds.
  "$trackd" --config="$1" --data_dir="$2" --grpc_port=0 --resp_port=0 \
    --history_fold_interval_ms=300 --history_fold_min_fixes=4 \
    2>"$work/trackd.log" &
  pid=$!
  # Replaying the WAL of a big round on a busy machine can take a while.
  for _ in $(seq 1 1200); do
    grep -q ready "$work/trackd.log" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  resp_port=$(sed -n 's/.*serving the Redis protocol on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/trackd.log")
  grpc_port=$(sed -n 's/.*serving gRPC.* on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/trackd.log")
  if [ -z "$resp_port" ] || [ -z "$grpc_port" ]; then
    cat "$work/trackd.log"
    kill -0 "$pid" 2>/dev/null && fail "trackd not ready after 120 s"
    wait "$pid"
    fail "trackd exited with status $? before it was ready"
  fi
}

checked=0
chunks=0   # history chunks found after the rounds (the folds ran)
watched=0  # fence events a Watch saw before a kill (crash_fences.py)
check() {  # check STATE LABEL: runs the checks, adds up what was checked
  out=$("$python" "$client" check "$1" "$grpc_port" "$resp_port") ||
    { echo "$out"; cat "$work/trackd.log"; fail "$2: acknowledged writes lost"; }
  echo "$2: $out"
  n=$(echo "$out" | sed -n 's/checked \([0-9]*\) acknowledged RESP writes, \([0-9]*\) .*/\1 + \2/p')
  checked=$((checked + n))
  w=$(echo "$out" | sed -n 's/.*(\([0-9]*\) watched before the kill).*/\1/p')
  watched=$((watched + ${w:-0}))
}

began=$(date +%s)
done_kills=0
for mode in DURABILITY_WAL_SYNC DURABILITY_WAL; do
  sed "s/durability: DURABILITY_WAL\b/durability: $mode/" "$conf" >"$work/$mode.textproto"
  grep -q "durability: $mode" "$work/$mode.textproto" || fail "could not set $mode"
  mode_kills=$((kills / 2))
  [ "$mode" = DURABILITY_WAL ] && mode_kills=$((kills - kills / 2))
  round=0
  while [ "$round" -lt "$mode_kills" ]; do
    data="$work/data-$mode-$round"
    state="$work/state-$mode-$round.json"
    rm -rf "$data" "$state"
    start "$work/$mode.textproto" "$data"
    for _ in $(seq 1 "$per_dir"); do
      [ "$round" -lt "$mode_kills" ] || break
      round=$((round + 1))
      "$python" "$client" write "$state" "$grpc_port" "$resp_port" "$pid" "$round" ||
        fail "$mode round $round: writer"
      { wait "$pid"; } 2>/dev/null  # (bash reports the kill otherwise)
      pid=""
      done_kills=$((done_kills + 1))
      start "$work/$mode.textproto" "$data"
      check "$state" "$mode kill $round"
    done
    kill -TERM "$pid"
    wait "$pid" || fail "$mode: trackd did not stop cleanly"
    pid=""
    start "$work/$mode.textproto" "$data"
    check "$state" "$mode clean restart"
    kill -TERM "$pid"
    wait "$pid" 2>/dev/null
    pid=""
    # What was checked came partly from chunks: the folds ran.
    n=$(ldb --db="$data" --column_family=chunks --hex scan 2>&1 | grep -c '^0x') ||
      fail "$mode: no history chunk in $data (ldb: $(ldb --db="$data" --column_family=chunks --hex scan 2>&1 | tail -1))"
    chunks=$((chunks + n))
    rm -rf "$data"
  done
done
# The resume check needs a watcher that saw events before some kill.
[ "$watched" -gt 0 ] || fail "no fence event was watched before a kill"
echo "PASS: $done_kills kills, $checked acknowledged writes checked, 0 lost," \
  "$watched fence events watched across kills, $chunks history chunks," \
  "$(($(date +%s) - began)) s"
