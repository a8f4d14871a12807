#!/usr/bin/env bash
# TLS and users on the RESP door with redis-cli (Debian's redis-tools 7.0,
# built with TLS): a throwaway CA and certificates made at test time, Redis's
# tls-port beside the plain port, client certificates optional and required,
# a plaintext client on the TLS port, users' rights, passwords kept out of
# the log, and protected mode refusing to start.
set -u
trackd="$PWD/service/trackd"
make_certs="$PWD/service/testdata/make_test_certs.sh"
work="${TEST_TMPDIR:-$(mktemp -d)}"
pki="$work/pki"
fail() { echo "FAIL: $*"; exit 1; }
command -v redis-cli >/dev/null ||
  fail "redis-cli missing: run tools/setup/install_deps.sh (redis-tools)"
redis-cli --help 2>&1 | grep -q -- --tls || fail "redis-cli without TLS"
command -v openssl >/dev/null || fail "openssl missing (package openssl)"
"$make_certs" "$pki" || fail "making test certificates"

pid=
stop() { [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; pid=; }
trap stop EXIT
# start NAME SERVER_FIELDS: trackd on free ports with those server fields.
start() {
  cat >"$work/$1.textproto" <<CONF
server {
  grpc_port: 0 resp_port: 0 resp_tls_port: 0
  tls_cert_file: "$pki/server.crt" tls_key_file: "$pki/server.key"
  tls_ca_cert_file: "$pki/ca.crt"
  users { name: "alice" password: "alice-secret-pw" role: USER_ROLE_READ_ONLY }
  users { name: "bob" password: "bob-secret-pw" role: USER_ROLE_READ_WRITE }
  $2
}
CONF
  log="$work/$1.log"
  "$trackd" --config="$work/$1.textproto" --data_dir="$work/$1.data" 2>"$log" &
  pid=$!
  for _ in $(seq 1 100); do grep -q ready "$log" && break; sleep 0.1; done
  grep -q ready "$log" || { cat "$log"; fail "$1: trackd did not start"; }
  port=$(sed -n 's/.*serving the Redis protocol on 127.0.0.1:\([0-9]*\).*/\1/p' "$log")
  tls_port=$(sed -n 's/.*Redis protocol over TLS on 127.0.0.1:\([0-9]*\).*/\1/p' "$log")
  [ -n "$tls_port" ] || { cat "$log"; fail "$1: no TLS port logged"; }
}
tls() { redis-cli --tls --cacert "$pki/ca.crt" -p "$tls_port" --no-auth-warning "$@" 2>&1; }
bob() { tls --user bob --pass bob-secret-pw "$@"; }

# 1. Client certificates optional: redis-cli --tls --cacert, as Redis.
start optional 'tls_auth_clients: "optional"'
[ "$(bob PING)" = "PONG" ] || fail "TLS PING: $(bob PING)"
[ "$(bob SET greeting hello)" = "OK" ] || fail "TLS SET"
[ "$(bob GET greeting)" = "hello" ] || fail "TLS GET"
[ "$(bob GEOADD fleet 13.361389 38.115556 car)" = "1" ] || fail "TLS GEOADD"
[ "$(bob GEOSEARCH fleet FROMLONLAT 13.36 38.11 BYRADIUS 5 km ASC)" = "car" ] ||
  fail "TLS GEOSEARCH"
[ "$(tls --user alice --pass alice-secret-pw ACL WHOAMI)" = "alice" ] || fail "WHOAMI"
out=$(tls --user alice --pass alice-secret-pw SET greeting bye)
[ "$out" = "NOPERM this user has no permissions to run the 'set' command" ] ||
  fail "read-only SET: $out"
out=$(tls --user alice --pass wrong GET greeting)
echo "$out" | grep -q "WRONGPASS invalid username-password pair" || fail "bad pass: $out"
echo "$out" | grep -q "NOAUTH" || fail "bad pass still served: $out"
# --pipe over TLS: requests far larger than one read, many per record.
for i in $(seq 1 5000); do
  printf '*3\r\n$3\r\nSET\r\n$%d\r\nkey:%d\r\n$%d\r\nvalue:%d\r\n' \
    $((${#i} + 4)) "$i" $((${#i} + 6)) "$i"
done >"$work/mass.resp"
big=$(head -c 300000 /dev/zero | tr '\0' x)
printf '*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$300000\r\n%s\r\n' "$big" >>"$work/mass.resp"
out=$(bob --pipe <"$work/mass.resp")
echo "$out" | grep -q "errors: 0, replies: 5001" || fail "--pipe over TLS: $out"
[ "$(bob GET key:4321)" = "value:4321" ] || fail "value after --pipe"
[ "$(bob STRLEN big)" = "300000" ] || fail "300 KB value over TLS"
[ "$(bob --cert "$pki/client.crt" --key "$pki/client.key" PING)" = "PONG" ] ||
  fail "PING with a client certificate"
out=$(bob --cert "$pki/stranger.crt" --key "$pki/stranger.key" PING)
[ "$out" != "PONG" ] || fail "a certificate from an untrusted CA was accepted"
# The plain port keeps working beside the TLS one.
[ "$(redis-cli -p "$port" --user bob --pass bob-secret-pw --no-auth-warning GET greeting)" = "hello" ] ||
  fail "plain port"
# Plaintext on the TLS port is refused (the handshake fails, the connection
# closes) and harms nothing.
out=$(timeout 5 redis-cli -p "$tls_port" PING 2>&1)
[ "$out" != "PONG" ] || fail "plaintext PING answered on the TLS port"
exec 3<>"/dev/tcp/127.0.0.1/$tls_port" || fail "connect"
printf '*1\r\n$4\r\nPING\r\n' >&3
reply=$(timeout 2 cat <&3 | head -c 200 | tr -d '\0')
exec 3>&-
case "$reply" in *PONG*) fail "plaintext RESP answered on the TLS port";; esac
head -c 100000 /dev/urandom | timeout 5 bash -c "cat >/dev/tcp/127.0.0.1/$tls_port" 2>/dev/null
[ "$(bob PING)" = "PONG" ] || fail "TLS after plaintext clients"
kill -0 "$pid" || fail "trackd died"
# Passwords never reach the log.
grep -q "secret-pw" "$log" && fail "a password is in the log"
grep -q "(redacted)" "$log" || fail "config dump without its redacted passwords"
stop

# 2. Client certificates required; TLS only (no plain port).
start required 'tls_auth_clients: "yes" resp_tls_only: true'
[ -z "$port" ] || fail "plain port served with resp_tls_only: $port"
out=$(bob PING)
[ "$out" != "PONG" ] || fail "no client certificate was accepted"
out=$(bob --cert "$pki/stranger.crt" --key "$pki/stranger.key" PING)
[ "$out" != "PONG" ] || fail "an untrusted client certificate was accepted"
out=$(bob --cert "$pki/client.crt" --key "$pki/client.key" GET greeting)
[ "$out" = "" ] || fail "GET with client certificate: $out"
[ "$(bob --cert "$pki/client.crt" --key "$pki/client.key" PING)" = "PONG" ] ||
  fail "PING with the client certificate"
stop

# 3. Protected mode: a non-loopback bind without auth does not start.
cat >"$work/open.textproto" <<'CONF'
server { grpc_port: 0 resp_port: 0 resp_bind_address: "0.0.0.0" }
CONF
if timeout 20 "$trackd" --config="$work/open.textproto" \
    --data_dir="$work/open.data" 2>"$work/open.log"; then
  fail "started in protected mode without auth"
fi
grep -q 'server.resp_bind_address "0.0.0.0" is not a loopback address' "$work/open.log" ||
  { cat "$work/open.log"; fail "protected mode's error"; }
grep -q 'server.protected_mode: "no"' "$work/open.log" || fail "no way out named"
cat >"$work/open.textproto" <<'CONF'
server { grpc_port: 0 resp_port: 0 resp_bind_address: "0.0.0.0"
         protected_mode: "no" }
CONF
"$trackd" --config="$work/open.textproto" --data_dir="$work/open.data" \
  2>"$work/open.log" &
pid=$!
for _ in $(seq 1 100); do grep -q ready "$work/open.log" && break; sleep 0.1; done
grep -q ready "$work/open.log" || { cat "$work/open.log"; fail "protected_mode no"; }
stop
echo PASS
