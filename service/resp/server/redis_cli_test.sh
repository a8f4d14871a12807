#!/usr/bin/env bash
# redis-cli (Debian's redis-tools 7.0) against trackd: one-shot commands,
# an interactive session on a pseudo-terminal (as a person types it), and
# --pipe mass insertion.
set -u
trackd="$PWD/service/trackd"
conf="$PWD/conf/trackdb.textproto"
work="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }
command -v redis-cli >/dev/null ||
  fail "redis-cli missing: run tools/setup/install_deps.sh (redis-tools)"

"$trackd" --config="$conf" --data_dir="$work/data" --grpc_port=0 --resp_port=0 \
  2>"$work/trackd.log" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
for _ in $(seq 1 100); do grep -q ready "$work/trackd.log" && break; sleep 0.1; done
port=$(sed -n 's/.*serving the Redis protocol on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/trackd.log")
[ -n "$port" ] || { cat "$work/trackd.log"; fail "no RESP port logged"; }
cli() { redis-cli -p "$port" "$@"; }

[ "$(cli PING)" = "PONG" ] || fail "PING"
[ "$(cli ECHO 'two words')" = "two words" ] || fail "ECHO"
[ "$(cli SET greeting hello)" = "OK" ] || fail "SET"
[ "$(cli GET greeting)" = "hello" ] || fail "GET"
[ "$(cli --raw CONFIG GET maxclients | tail -1)" = "10000" ] || fail "CONFIG GET"

# Interactive: redis-cli on a terminal shows its prompt and quotes strings.
# TERM=dumb: linenoise would otherwise wait for a cursor-position answer
# that script(1)'s terminal never sends.
session=$(printf 'SET k "a b"\nGET k\nGET missing\nSELECT 3\nPING\nquit\n' |
  TERM=dumb script -qec "redis-cli -p $port" /dev/null 2>&1)
echo "$session" | grep -q "127.0.0.1:$port> " || { echo "$session"; fail "no prompt"; }
echo "$session" | grep -q '"a b"' || { echo "$session"; fail "interactive GET"; }
echo "$session" | grep -q '(nil)' || { echo "$session"; fail "interactive nil"; }
echo "$session" | grep -q "127.0.0.1:$port\[3\]> " ||
  { echo "$session"; fail "SELECT not shown in the prompt"; }

# --pipe: 20000 SETs in Redis protocol, as redis-cli's mass insertion guide.
for i in $(seq 1 20000); do
  printf '*3\r\n$3\r\nSET\r\n$%d\r\nkey:%d\r\n$%d\r\nvalue:%d\r\n' \
    $((${#i} + 4)) "$i" $((${#i} + 6)) "$i"
done >"$work/mass.resp"
out=$(cli --pipe <"$work/mass.resp" 2>&1)
echo "$out" | grep -q "errors: 0, replies: 20000" || { echo "$out"; fail "--pipe"; }
[ "$(cli GET key:12345)" = "value:12345" ] || fail "value after --pipe"
[ "$(cli DBSIZE)" = "20002" ] || fail "DBSIZE after --pipe: $(cli DBSIZE)"
echo PASS
