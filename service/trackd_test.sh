#!/usr/bin/env bash
# End-to-end: trackd starts on the shipped config with a fresh data dir, logs
# its effective options, answers PING over RESP, refuses a second start on the same data dir, refuses
# a broken config, and exits 0 on SIGTERM.
set -u
trackd="$PWD/service/trackd"
conf="$PWD/conf/trackdb.textproto"
work="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }

wait_for() {  # wait_for FILE PATTERN
  for _ in $(seq 1 100); do
    grep -q "$2" "$1" && return 0
    sleep 0.1
  done
  echo "--- $1:"; cat "$1"
  fail "timed out waiting for '$2' in $1"
}

"$trackd" --config="$conf" --data_dir="$work/data" --grpc_port=0 --resp_port=0 2>"$work/first.log" &
first=$!
wait_for "$work/first.log" "ready"
grep -q "serving gRPC .* on 127.0.0.1:[1-9]" "$work/first.log" || fail "gRPC port not logged"
grep -q "rocksdb cf latest: write_buffer_size=8MiB" "$work/first.log" ||
  fail "effective options not logged"
[ -f "$work/data/CURRENT" ] || fail "no RocksDB in the data dir"

# The Redis front door answers on the port it logged.
resp_port=$(sed -n 's/.*serving the Redis protocol on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/first.log")
[ -n "$resp_port" ] || fail "RESP port not logged"
exec 3<>"/dev/tcp/127.0.0.1/$resp_port" || fail "cannot connect to RESP"
printf 'PING\r\n' >&3
IFS= read -r -t 5 pong <&3
[ "$pong" = $'+PONG\r' ] || fail "RESP PING answered '$pong'"
exec 3>&-

# A second trackd on the same data dir must fail at once with a clear message.
"$trackd" --config="$conf" --data_dir="$work/data" --grpc_port=0 --resp_port=0 2>"$work/second.log"
[ $? -ne 0 ] || fail "second trackd on the same data dir did not fail"
grep -q "in use by another process" "$work/second.log" ||
  { cat "$work/second.log"; fail "second start's message is unclear"; }

kill -TERM "$first"
wait "$first"
rc=$?
[ $rc -eq 0 ] || fail "trackd exited $rc on SIGTERM"
grep -q "closed cleanly" "$work/first.log" || fail "no clean close logged"

# resp_call PORT WORDS...: one RESP request on a new connection; its reply's
# first line (empty when the server closed the connection without one).
resp_call() {
  local port=$1 reply=
  shift
  exec 4<>"/dev/tcp/127.0.0.1/$port" || fail "cannot connect to RESP"
  local request="*$#"$'\r\n'
  for word in "$@"; do request+="\$${#word}"$'\r\n'"$word"$'\r\n'; done
  printf '%s' "$request" >&4
  IFS= read -r -t 10 reply <&4 || true
  exec 4>&-
  printf '%s' "${reply%$'\r'}"
}

# SHUTDOWN from a Redis client stops trackd as SIGTERM does, keeping what it
# acknowledged.
"$trackd" --config="$conf" --data_dir="$work/data" --grpc_port=0 --resp_port=0 2>"$work/stop.log" &
stopped=$!
wait_for "$work/stop.log" "ready"
resp_port=$(sed -n 's/.*serving the Redis protocol on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/stop.log")
[ "$(resp_call "$resp_port" SET kept yes)" = "+OK" ] || fail "SET before SHUTDOWN"
[ "$(resp_call "$resp_port" SHUTDOWN ABORT)" = "-ERR No shutdown in progress." ] ||
  fail "SHUTDOWN ABORT without a shutdown"
[ -z "$(resp_call "$resp_port" SHUTDOWN)" ] || fail "SHUTDOWN replied"
wait "$stopped"
rc=$?
[ $rc -eq 0 ] || fail "trackd exited $rc on SHUTDOWN"
grep -q "received SHUTDOWN" "$work/stop.log" || fail "SHUTDOWN not logged"
grep -q "closed cleanly" "$work/stop.log" || fail "no clean close after SHUTDOWN"
"$trackd" --config="$conf" --data_dir="$work/data" --grpc_port=0 --resp_port=0 2>"$work/again.log" &
again=$!
wait_for "$work/again.log" "ready"
resp_port=$(sed -n 's/.*serving the Redis protocol on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/again.log")
[ "$(resp_call "$resp_port" GET kept)" = '$3' ] || fail "SET lost across SHUTDOWN"
kill -TERM "$again"
wait "$again"

# A typo in the config stops trackd with the line and the field.
printf 'storage {\n  write_bufer_size_mb: 8\n}\n' >"$work/bad.textproto"
"$trackd" --config="$work/bad.textproto" --data_dir="$work/data" 2>"$work/bad.log"
[ $? -ne 0 ] || fail "trackd started on a broken config"
grep -q "bad.textproto:2:.*write_bufer_size_mb" "$work/bad.log" ||
  { cat "$work/bad.log"; fail "config error does not name line and field"; }

# Two webhooks of one name would share a stored offset: refused.
printf 'server {\n  fence_webhooks { name: "ops" url: "http://127.0.0.1:1/a" collection: "fleet" }\n  fence_webhooks { name: "ops" url: "http://127.0.0.1:1/b" collection: "buses" }\n}\n' >"$work/hooks.textproto"
"$trackd" --config="$work/hooks.textproto" --data_dir="$work/hooks" --grpc_port=0 --resp_port=0 2>"$work/hooks.log"
[ $? -ne 0 ] || fail "trackd started with a webhook name used twice"
grep -q 'fence_webhooks.name "ops" is used twice' "$work/hooks.log" ||
  { cat "$work/hooks.log"; fail "duplicate webhook name not named"; }

# Memory knobs that fit neither each other nor the budget start, loudly.
printf 'storage {\n  memory_budget_mb: 256\n  write_buffer_size_mb: 256\n  db_write_buffer_size_mb: 1024\n  max_write_buffer_number: 6\n}\n' >"$work/big.textproto"
"$trackd" --config="$work/big.textproto" --data_dir="$work/big" --grpc_port=0 --resp_port=0 2>"$work/big.log" &
big=$!
wait_for "$work/big.log" "ready"
grep -q "WARNING: write_buffer_size_mb x max_write_buffer_number x column families = 256 x 6 x 7 = 10752 MiB" "$work/big.log" ||
  { cat "$work/big.log"; fail "memtables far above the budget not warned about"; }
grep -q "WARNING: storage.db_write_buffer_size_mb + storage.block_cache_size_mb = 1024 + 24 = 1048 MiB exceeds RocksDB's share (192 MiB)" "$work/big.log" ||
  { cat "$work/big.log"; fail "memory over the budget not warned about"; }
kill -TERM "$big"
wait "$big"

echo "PASS"
