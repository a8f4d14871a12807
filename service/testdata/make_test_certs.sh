#!/usr/bin/env bash
# Makes a throwaway PKI for TLS tests in directory $1: ca.{crt,key}, a
# server certificate for localhost and 127.0.0.1 (server.{crt,key}), a
# client certificate signed by the CA (client.{crt,key}) and one signed by
# another CA the server does not trust (stranger.{crt,key}). Keys are made
# at test time and never committed.
set -eu
dir="$1"
mkdir -p "$dir"
cd "$dir"
ossl() { openssl "$@" 2>/dev/null; }
newkey() { ossl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out "$1"; }

make_ca() {  # name subject
  newkey "$1.key"
  ossl req -x509 -new -key "$1.key" -subj "/CN=$2" -days 2 -out "$1.crt"
}
sign() {  # name subject ca extensions
  newkey "$1.key"
  ossl req -new -key "$1.key" -subj "/CN=$2" -out "$1.csr"
  printf '%s\n' "$4" >"$1.ext"
  ossl x509 -req -in "$1.csr" -CA "$3.crt" -CAkey "$3.key" -CAcreateserial \
    -days 2 -extfile "$1.ext" -out "$1.crt"
  rm -f "$1.csr" "$1.ext"
}

make_ca ca "trackdb test CA"
make_ca other_ca "untrusted test CA"
sign server localhost ca \
  "subjectAltName=DNS:localhost,IP:127.0.0.1
extendedKeyUsage=serverAuth"
sign client "trackdb test client" ca "extendedKeyUsage=clientAuth"
sign stranger "stranger" other_ca "extendedKeyUsage=clientAuth"
