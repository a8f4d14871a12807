#!/usr/bin/env bash
# Nothing acknowledged is lost when trackd is killed (-9) in the middle of
# pipelined writes: four clients pipeline GEOADDs (new members and moves of
# their own members, one step east per move) and SETs, recording each reply
# as it arrives; trackd is killed at a random moment, restarted on the same
# data dir, and every acknowledged write must be there: each acknowledged
# SET (each of a new key) with its value, each acknowledged member at its
# last acknowledged step or a later one (a write whose reply was lost may
# land). Three kills per durability mode: DURABILITY_WAL_SYNC (fsync
# before the reply) and the default DURABILITY_WAL (written to the OS before
# the reply, which a process kill cannot lose). The client is
# kill_durability_client.py.
set -u
trackd="$PWD/service/trackd"
client="$PWD/service/resp/kill_durability_client.py"
conf="$PWD/conf/trackdb.textproto"
work="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }
pid=""
trap '[ -n "$pid" ] && kill -9 $pid 2>/dev/null; wait 2>/dev/null' EXIT

start() {  # start CONF DATA: starts trackd, sets pid and port
  "$trackd" --config="$1" --data_dir="$2" --grpc_port=0 --resp_port=0 \
    2>"$work/trackd.log" &
  pid=$!
  for _ in $(seq 1 200); do grep -q ready "$work/trackd.log" && break; sleep 0.1; done
  port=$(sed -n 's/.*serving the Redis protocol on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/trackd.log")
  [ -n "$port" ] || { cat "$work/trackd.log"; fail "trackd did not start"; }
}

for mode in DURABILITY_WAL_SYNC DURABILITY_WAL; do
  sed "s/durability: DURABILITY_WAL\b/durability: $mode/" "$conf" >"$work/$mode.textproto"
  grep -q "durability: $mode" "$work/$mode.textproto" || fail "could not set $mode"
  data="$work/data-$mode"
  rm -rf "$data" "$work/acked-$mode"
  for round in 1 2 3; do
    start "$work/$mode.textproto" "$data"
    python3 "$client" write "$port" "$pid" "$round" "$work/acked-$mode" ||
      fail "$mode round $round: writer"
    wait "$pid" 2>/dev/null
    pid=""
    start "$work/$mode.textproto" "$data"
    python3 "$client" check "$port" "$work/acked-$mode" ||
      fail "$mode round $round: acknowledged writes lost"
    kill -TERM "$pid"
    wait "$pid" 2>/dev/null
    pid=""
  done
done
echo PASS
