#!/usr/bin/env bash
# A normal client's latency while 1,000 other connections are held: 960
# idle, 30 slowloris (a GEOADD dripped a byte a second), 10 that pipeline
# 32 GETs of a 1 MiB value and never read (bench/crowd.py). trackd and a real
# redis-server each get the same crowd and the same client, in one run;
# prints a markdown table of the client's requests/s and p50/p99.
#
#   bazel run --config=bench //bench:connections_bench [-- REQUESTS]
#
# The client is redis-benchmark -c 1 (one connection, one command at a
# time): GEOSEARCH COUNT 10 around a point of 100,000 members, GEOADD of a
# new member, GET. The crowd's non-readers cost a server memory: trackd
# holds about 1 MiB of replies for each (replies to a pipeline go out in
# pieces), Redis all it has produced (client-output-buffer-limit normal is
# 0: unlimited); both RSS are printed.
set -euo pipefail
requests="${1:-20000}"
source "$PWD/bench/resp_common.sh"
crowd="$PWD/bench/crowd.py"
dir="${TMPDIR:-/tmp}/trackdb-connections-bench"
trackd_port=6392
redis_port=6393
rm -rf "$dir"
mkdir -p "$dir"
ulimit -n 8192
crowd_pids=()
trap 'kill ${crowd_pids[*]} 2>/dev/null; kill -TERM $trackd_pid $redis_pid 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
start_servers --maxclients 4000
write_geoadds 11 "$dir/add.resp:100000"
big=$(head -c 1048576 /dev/zero | tr '\0' v)
for port in $redis_port $trackd_port; do
  redis-cli -p $port --pipe <"$dir/add.resp" >/dev/null
  redis-cli -p $port -x SET big <<<"$big" >/dev/null
done

row() { compare_row 40 1 "$@"; }  # row LABEL ARGS...: -c 1

table() {
  echo "| one client, $1 | Redis/s | trackd/s | ratio | p50/p99 ms Redis, trackd |"
  echo "|---|---:|---:|---:|---|"
  row "GEOSEARCH radius 1 km ASC COUNT 10" -n "$requests" \
    GEOSEARCH fleet FROMLONLAT 116.4 39.9 BYRADIUS 1 km ASC COUNT 10
  row "GEOADD 1 new member" -n "$requests" -r 100000000 \
    GEOADD probe 116.__rand_int__ 39.__rand_int__ p:__rand_int__
  row "GET (64-byte value)" -n "$requests" -r 1000000 -t get -d 64
}

table "no crowd"
rss_before="redis $(awk '/VmRSS/ { printf "%d", $2 / 1024 }' /proc/$redis_pid/status) MiB, trackd $(awk '/VmRSS/ { printf "%d", $2 / 1024 }' /proc/$trackd_pid/status) MiB"
for port in $redis_port $trackd_port; do
  mkfifo "$dir/hold-$port"
  python3 "$crowd" $port 960 30 10 32 <"$dir/hold-$port" >"$dir/crowd-$port.log" &
  crowd_pids+=($!)
  exec {fd}>"$dir/hold-$port"  # the crowd holds until this closes
  for _ in $(seq 1 300); do grep -q held "$dir/crowd-$port.log" && break; sleep 0.1; done
  grep -q "held 1000" "$dir/crowd-$port.log" || { cat "$dir/crowd-$port.log"; exit 1; }
done
sleep 3
echo
table "1,000 connections held (960 idle, 30 slowloris, 10 non-readers)"
echo
echo "RSS before the crowd: $rss_before; with it:" \
  "redis $(awk '/VmRSS/ { printf "%d", $2 / 1024 }' /proc/$redis_pid/status) MiB," \
  "trackd $(awk '/VmRSS/ { printf "%d", $2 / 1024 }' /proc/$trackd_pid/status) MiB"
echo "clients: redis $(redis-cli -p $redis_port info clients | grep -o 'connected_clients:[0-9]*')," \
  "trackd $(redis-cli -p $trackd_port info clients | grep -o 'connected_clients:[0-9]*')"
