#!/usr/bin/env bash
# Redis data types (hashes, sets, sorted sets, lists) on trackd's RESP door
# against a real redis-server, in one run: redis-benchmark's own tests
# (-t lpush,lpop,sadd,hset,zadd,zpopmin,lrange_100), 50 clients, pipelined
# 16 deep, each against both servers in turn; then GEOSEARCH of a plain
# sorted set of 200k geohash scores (one search per call). Prints markdown
# tables of requests/s, p50/p99 latency and the trackd/Redis ratio.
#
#   bazel run --config=bench //bench:resp_types_bench [-- REQUESTS [PIPELINE]]
#
# The shapes are redis-benchmark's: one key per test (mylist, myset,
# myhash, myzset), members element:__rand_int__ from -r 100000 (new
# members, not a repeated one), LPUSH/LPOP of one fixed value, LRANGE of
# the first 100 of a list that redis-benchmark fills first. Both servers
# start here (trackd on its shipped config and a fresh data dir,
# redis-server without persistence) and share the machine's 2 cores with
# redis-benchmark.
set -euo pipefail
requests="${1:-1000000}"
pipeline="${2:-16}"
source "$PWD/bench/resp_common.sh"
bench_servers resp-types-bench 6392 6393

# test_once PORT TEST: "rps p50 p99" of redis-benchmark's test TEST (its
# csv row named after the test, which for lrange_100 follows the LPUSH
# that fills the list).
test_once() {
  local row
  row=$(redis-benchmark -p "$1" -c 50 -P "$pipeline" -n "$requests" \
    -r 100000 --csv -t "$2" 2>/dev/null |
    awk -F'","' -v t="$2" 'NR > 1 {
        name = tolower(substr($1, 2)); sub(/ .*/, "", name)
        if (name == t || (t ~ /^lrange/ && name ~ /^lrange/)) print $2, $5, $7 }' |
    tail -1)
  echo "$row"
}

echo "| redis-benchmark -t, -P $pipeline, -c 50 | Redis/s | trackd/s | ratio | p50/p99 ms Redis, trackd |"
echo "|---|---:|---:|---:|---|"
for t in lpush lpop sadd hset zadd zpopmin lrange_100; do
  read -r -a r <<<"$(test_once "$redis_port" "$t")"
  read -r -a k <<<"$(test_once "$trackd_port" "$t")"
  printf "| %-10s | %9s | %9s | %5s | %5s/%-5s %5s/%-5s |\n" "$t" \
    "${r[0]%.*}" "${k[0]%.*}" "$(ratio "${k[0]}" "${r[0]}")" \
    "${r[1]}" "${r[2]}" "${k[1]}" "${k[2]}"
done
echo "trackd RSS $(awk '/VmRSS/ { print $2 / 1024 " MiB" }' /proc/$trackd_pid/status)," \
  "redis RSS $(awk '/VmRSS/ { print $2 / 1024 " MiB" }' /proc/$redis_pid/status)" >&2

# GEOSEARCH of a plain sorted set (what GEOSEARCHSTORE ... STOREDIST or a
# ZADD of geohash scores leaves): 200k members, GEOADDed to Redis and
# copied to trackd with ZADD at Redis's scores, so both hold the same
# sorted set; one search per call, 50 clients, the 10 nearest within
# 500 m of a point.
write_geoadds 20261127 "$dir/geo.resp:200000"
redis-cli -p "$redis_port" --pipe <"$dir/geo.resp" >/dev/null
redis-cli -p "$redis_port" --raw ZRANGE fleet 0 -1 WITHSCORES |
  awk 'NR % 2 == 1 { m = $0; next }
       { printf "*4\r\n$4\r\nZADD\r\n$5\r\nfleet\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n",
                length($0), $0, length(m), m }' |
  redis-cli -p "$trackd_port" --pipe >/dev/null
echo
echo "| plain sorted set, 200k members, -P 1 | Redis/s | trackd/s | ratio | p50/p99 ms Redis, trackd |"
echo "|---|---:|---:|---:|---|"
compare_row 36 50 "GEOSEARCH BYRADIUS 500 m ASC COUNT 10" -n 20000 \
  GEOSEARCH fleet FROMLONLAT 116.4 39.9 BYRADIUS 500 m ASC COUNT 10
