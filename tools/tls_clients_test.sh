#!/usr/bin/env bash
# trackdb_doctor and trackdb_import's online mode against a trackd whose
# gRPC door has TLS with client certificates required and users: the
# --tls_* and --user flags and TRACKDB_PASSWORD (service/grpc/client_channel.h).
set -u
# Under --config=asan: a leak in libcares, not ours (see the file).
export LSAN_OPTIONS="suppressions=$PWD/tools/lsan_cares.supp"
trackd="$PWD/service/trackd"
doctor="$PWD/tools/trackdb_doctor"
import="$PWD/tools/import/trackdb_import"
work="${TEST_TMPDIR:-$(mktemp -d)}"
pki="$work/pki"
fail() { echo "FAIL: $*"; exit 1; }
"$PWD/service/testdata/make_test_certs.sh" "$pki" || fail "making certificates"

cat >"$work/trackd.textproto" <<CONF
server {
  grpc_port: 0 resp_port: 0 grpc_tls: true tls_auth_clients: "yes"
  tls_cert_file: "$pki/server.crt" tls_key_file: "$pki/server.key"
  tls_ca_cert_file: "$pki/ca.crt"
  users { name: "viewer" password: "viewer-pw" role: USER_ROLE_READ_ONLY }
  users { name: "loader" password: "loader-pw" role: USER_ROLE_READ_WRITE }
}
CONF
"$trackd" --config="$work/trackd.textproto" --data_dir="$work/data" 2>"$work/trackd.log" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
for _ in $(seq 1 100); do grep -q ready "$work/trackd.log" && break; sleep 0.1; done
port=$(sed -n 's/.*serving gRPC .* on 127.0.0.1:\([0-9]*\) over TLS.*/\1/p' "$work/trackd.log")
[ -n "$port" ] || { cat "$work/trackd.log"; fail "no TLS gRPC port logged"; }
tls=(--target="localhost:$port" --tls_ca_file="$pki/ca.crt"
     --tls_cert_file="$pki/client.crt" --tls_key_file="$pki/client.key")

printf '1,2008-02-02 15:36:08,116.51172,39.92123\n2,2008-02-02 13:33:52,116.36422,39.88781\n' >"$work/taxis.txt"
imp() { "$import" --collection=taxis --format=tdrive --progress=none "$@" "$work/taxis.txt" 2>&1; }
out=$(TRACKDB_PASSWORD=loader-pw imp "${tls[@]}" --user=loader)
echo "$out" | grep -q "online: 2 points stored by trackd" || fail "import as loader: $out"
out=$(TRACKDB_PASSWORD=viewer-pw imp "${tls[@]}" --user=viewer)
echo "$out" | grep -q "PERMISSION_DENIED\|no permission" || fail "import as viewer: $out"
out=$(TRACKDB_PASSWORD=wrong imp "${tls[@]}" --user=loader)
echo "$out" | grep -qi "invalid username-password" || fail "import with a wrong password: $out"
out=$(TRACKDB_PASSWORD=loader-pw imp --target="localhost:$port" --user=loader)
echo "$out" | grep -q "online: 2 points stored" && fail "plaintext import to a TLS port: $out"

out=$(TRACKDB_PASSWORD=viewer-pw "$doctor" "${tls[@]}" --user=viewer --sample_seconds=0 2>&1)
rc=$?
[ $rc -le 1 ] || fail "doctor as viewer (rc $rc): $out"
out=$("$doctor" "${tls[@]}" --sample_seconds=0 2>&1)
[ $? -eq 2 ] && echo "$out" | grep -q "credentials required" || fail "doctor without a user: $out"
echo PASS
