#!/usr/bin/env bash
# A job queue on trackd's RESP door against a real redis-server, in one
# run: CONSUMERS clients wait in BRPOP on one list while 4 producers LPUSH
# new items (one per call, -r), each item taken by one consumer. Prints,
# per server, items/s through the queue (the consumers' BRPOP calls
# completed per second, from their start: they wait 0.5 s before the
# producers begin), the consumers' p50/p99 (their wait included), and the
# producers' LPUSHes per second.
#
#   bazel run --config=bench //bench:resp_queue_bench [-- ITEMS [CONSUMERS]]
#
# TRACKD=binary runs another trackd build in place of the bench's own.
set -euo pipefail
items="${1:-200000}"
consumers="${2:-50}"
source "$PWD/bench/resp_common.sh"
bench_servers resp-queue-bench 6392 6393

# queue_once PORT: "consumed/s p50 p99 produced/s".
queue_once() {
  redis-benchmark -p "$1" -c "$consumers" -n "$items" --csv BRPOP q 10 \
    >"$dir/consumers.csv" 2>/dev/null &
  local consumers_pid=$!
  sleep 0.5
  redis-benchmark -p "$1" -c 4 -n "$items" -r 1000000 --csv \
    LPUSH q __rand_int__ >"$dir/producers.csv" 2>/dev/null
  wait "$consumers_pid"
  echo "$(awk -F'","' 'NR == 2 { print $2, $5, $7 }' "$dir/consumers.csv")" \
    "$(awk -F'","' 'NR == 2 { print $2 }' "$dir/producers.csv")"
}

echo "| $consumers consumers in BRPOP, 4 producers LPUSH, $items items | Redis | trackd | ratio |"
echo "|---|---:|---:|---:|"
read -r -a r <<<"$(queue_once "$redis_port")"
read -r -a t <<<"$(queue_once "$trackd_port")"
printf "| items/s consumed | %s | %s | %s |\n" "${r[0]%.*}" "${t[0]%.*}" \
  "$(ratio "${t[0]}" "${r[0]}")"
printf "| consumer p50/p99 ms | %s/%s | %s/%s | |\n" "${r[1]}" "${r[2]}" \
  "${t[1]}" "${t[2]}"
printf "| LPUSH/s | %s | %s | %s |\n" "${r[3]%.*}" "${t[3]%.*}" \
  "$(ratio "${t[3]}" "${r[3]}")"
echo "left in the list: Redis $(redis-cli -p "$redis_port" llen q)," \
  "trackd $(redis-cli -p "$trackd_port" llen q)"
