#!/usr/bin/env bash
# End-to-end: the trackdb_import binary's flags, exit codes and messages;
# offline import from gzip on stdin; a bad row; a data dir held by a
# running trackd; and an online import into that trackd.
set -u
import="$PWD/tools/import/trackdb_import"
trackd="$PWD/service/trackd"
conf="$PWD/conf/trackdb.textproto"
work="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }

expect() {  # expect RC FILE PATTERN: the last command's status and output
  [ "$rc" -eq "$1" ] || { cat "$2"; fail "exit status $rc, expected $1"; }
  grep -q -- "$3" "$2" || { cat "$2"; fail "no '$3' in $2"; }
}

printf '1,2008-02-02 15:36:08,116.51172,39.92123\n1,2008-02-02 15:46:08,116.51135,39.93883\n2,2008-02-02 13:33:52,116.36422,39.88781\n2,2008-02-02 13:37:16,116.37481,39.88782\n' >"$work/taxis.txt"
gzip -c "$work/taxis.txt" >"$work/taxis.txt.gz"

# Flags: no collection, or both modes, is a usage error (2).
"$import" --data_dir="$work/data" "$work/taxis.txt" 2>"$work/out"; rc=$?
expect 2 "$work/out" "collection must not be empty"
"$import" --collection=taxis --data_dir="$work/data" --target=x:1 "$work/taxis.txt" 2>"$work/out"; rc=$?
expect 2 "$work/out" "exactly one of --data_dir"
"$import" --collection=taxis --data_dir="$work/data" "$work/taxis.txt" 2>"$work/out"; rc=$?
expect 1 "$work/out" "cannot tell the format of .*taxis.txt"

# Offline, gzip through stdin, T-Drive's Beijing times.
"$import" --config="$conf" --collection=taxis --data_dir="$work/data" --format=tdrive \
  --utc_offset=+08:00 --progress=plain - <"$work/taxis.txt.gz" 2>"$work/out"; rc=$?
expect 0 "$work/out" "imported 4 points from 1 file(s)"
expect 0 "$work/out" "offline: 4 distinct points of 2 entities"
expect 0 "$work/out" "reopen after the import: [0-9.]* s"
expect 0 "$work/out" "trackdb_import: compacting"

# A bad row stops the import with the file, line and reason.
printf '3,2008-02-02 13:33:52,116.36422,39.88781\n3,2008-02-02 13:37:16,116.3,99.5\n' >"$work/bad.txt"
"$import" --collection=taxis --data_dir="$work/data" --format=tdrive --progress=none "$work/bad.txt" 2>"$work/out"; rc=$?
expect 1 "$work/out" "bad.txt:2: point.latitude must be a number in \[-90, 90\], got 99.5"
# ... or is skipped and written to the reject file.
"$import" --collection=taxis --data_dir="$work/data" --format=tdrive --progress=none \
  --skip_bad_rows --reject_file="$work/rejects" "$work/bad.txt" 2>"$work/out"; rc=$?
expect 0 "$work/out" "skipped 1 bad rows; the first 1 are in $work/rejects"
grep -q "^3,2008-02-02 13:37:16,116.3,99.5$" "$work/rejects" || fail "reject file lacks the row"

# A data dir held by a running trackd is refused; online import goes to it.
"$trackd" --config="$conf" --data_dir="$work/data" --grpc_port=0 --resp_port=0 2>"$work/trackd.log" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
for _ in $(seq 1 100); do grep -q ready "$work/trackd.log" && break; sleep 0.1; done
port=$(sed -n 's/.*serving gRPC .* on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/trackd.log")
[ -n "$port" ] || { cat "$work/trackd.log"; fail "no port in the trackd log"; }
"$import" --collection=taxis --data_dir="$work/data" --format=tdrive "$work/taxis.txt" 2>"$work/out"; rc=$?
expect 1 "$work/out" "in use by another process"
"$import" --collection=online --target=127.0.0.1:$port --format=tdrive \
  --batch_points=3 --progress=none "$work/taxis.txt" "$work/taxis.txt.gz" 2>"$work/out"; rc=$?
expect 0 "$work/out" "online: 8 points stored by trackd in 3 AddPoints calls"
kill -TERM $pid
wait $pid || fail "trackd did not stop cleanly"
trap - EXIT
echo "PASS"
