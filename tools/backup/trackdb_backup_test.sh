#!/usr/bin/env bash
# End-to-end backups: trackd takes SETs from a client while BGSAVE runs;
# trackdb_backup restores the backup into a new data dir, and a trackd on it
# serves every SET acknowledged before BGSAVE began. A backup with a flipped
# byte, and a target dir that holds something, are refused clearly.
set -u
trackd="$PWD/service/trackd"
tool="$PWD/tools/backup/trackdb_backup"
conf="$PWD/conf/trackdb.textproto"
work="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done' EXIT

wait_for() {  # wait_for FILE PATTERN
  for _ in $(seq 1 200); do
    grep -q "$2" "$1" && return 0
    sleep 0.1
  done
  echo "--- $1:"; cat "$1"
  fail "timed out waiting for '$2' in $1"
}

start() {  # start DATA_DIR LOG: sets $pid and $port
  "$trackd" --config="$conf" --data_dir="$1" --grpc_port=0 --resp_port=0 2>"$2" &
  pid=$!
  pids+=("$pid")
  wait_for "$2" "ready"
  port=$(sed -n 's/.*serving the Redis protocol on 127.0.0.1:\([0-9]*\).*/\1/p' "$2")
  [ -n "$port" ] || fail "RESP port not logged in $2"
}

start "$work/data" "$work/primary.log"
primary=$pid
# The writer: one SET per call, each acknowledged one appended to acked.
(
  for i in $(seq 1 100000); do
    [ "$(redis-cli -p "$port" SET "k$i" "v$i")" = "OK" ] || exit 1
    echo "$i" >>"$work/acked"
  done
) &
writer=$!
pids+=("$writer")
for _ in $(seq 1 100); do [ -s "$work/acked" ] && break; sleep 0.05; done
sleep 0.5
before=$(tail -n 1 "$work/acked")
[ "$(redis-cli -p "$port" BGSAVE)" = "Background saving started" ] ||
  fail "BGSAVE did not start"
for _ in $(seq 1 300); do
  redis-cli -p "$port" INFO persistence | grep -q "rdb_bgsave_in_progress:0" && break
  sleep 0.1
done
redis-cli -p "$port" INFO persistence | grep -q "rdb_last_bgsave_status:ok" ||
  fail "BGSAVE did not succeed: $(redis-cli -p "$port" INFO persistence)"
sleep 0.3
kill "$writer"
wait "$writer" 2>/dev/null
kill -TERM "$primary"
wait "$primary" || fail "trackd did not stop cleanly"
[ "$before" -gt 0 ] || fail "nothing written before the backup"

"$tool" list --backup_dir="$work/data.backup" >"$work/list" || fail "list failed"
grep -q "^backup 1 " "$work/list" || { cat "$work/list"; fail "backup 1 not listed"; }

"$tool" restore --backup_dir="$work/data.backup" --to="$work/restored" >"$work/restore.out" ||
  fail "restore failed: $(cat "$work/restore.out")"
start "$work/restored" "$work/restored.log"
keys=()
for i in $(seq 1 "$before"); do keys+=("k$i"); done
got=$(redis-cli -p "$port" --raw MGET "${keys[@]}" | grep -c '^v')
[ "$got" -eq "$before" ] ||
  fail "restored store holds $got of the $before SETs acknowledged before BGSAVE"
kill -TERM "$pid"
wait "$pid"

# A target that holds something is refused.
"$tool" restore --backup_dir="$work/data.backup" --to="$work/restored" 2>"$work/over.err" &&
  fail "restored over a data dir"
grep -q "not an empty directory" "$work/over.err" || { cat "$work/over.err"; fail "unclear refusal"; }

# A flipped byte in one of the backup's files is refused, naming the backup.
cp -r "$work/data.backup" "$work/bad.backup"
sst=$(find "$work/bad.backup" -name '*.sst' | head -n 1)
[ -n "$sst" ] || fail "no table file in the backup"
printf '\x5a' | dd of="$sst" bs=1 seek=20 conv=notrunc 2>/dev/null
"$tool" restore --backup_dir="$work/bad.backup" --to="$work/from-bad" 2>"$work/bad.err" &&
  fail "restored a corrupt backup"
grep -q "backup 1 .*corrupt" "$work/bad.err" || { cat "$work/bad.err"; fail "corruption not named"; }

echo "PASS: $before SETs acknowledged before BGSAVE, all restored"
