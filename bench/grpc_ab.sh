#!/usr/bin/env bash
# A/B of two trackd builds under the same load: each build preloads 1M
# entities into a data dir of its own (an older build refuses a dir a newer
# one wrote), then trackd restarts alternately from OLD and NEW on its dir
# and runs the same grpc_load modes against each, ROUNDS times.
#
#   bazel run --config=bench //bench:grpc_ab -- OLD_TRACKD NEW_TRACKD \
#     [ROUNDS] [SECONDS] [MODES]
#
# e.g. OLD_TRACKD built from an older commit in a scratch checkout. Prints
# one grpc_load line per run with trackd's CPU per call appended.
set -euo pipefail
old="$1"
new="$2"
rounds="${3:-2}"
seconds="${4:-8}"
modes="${5:-radius get_latest add_point}"
load="$PWD/bench/grpc_load"
conf="$PWD/conf/trackdb.textproto"
base="${TMPDIR:-/tmp}/trackdb-grpc-ab-sep"
port=50552
pid=
rm -rf "$base"; mkdir -p "$base"
trap 'if [[ -n $pid ]]; then kill -TERM $pid 2>/dev/null || true; fi; wait 2>/dev/null || true; rm -rf "$base"' EXIT

start() {  # start BINARY WHICH
  "$1" --config="$conf" --data_dir="$base/$2/data" --grpc_port=$port 2>"$base/$2.log" &
  pid=$!
  for _ in $(seq 1 300); do grep -q ready "$base/$2.log" && return 0; sleep 0.2; done
  echo "trackd $1 did not start" >&2; cat "$base/$2.log" >&2
  exit 1
}
stop() {
  kill -TERM "$pid"
  wait "$pid" || true
  pid=
}
trackd_cpu_us() {
  awk -v hz="$(getconf CLK_TCK)" '{printf "%d", ($14 + $15) * 1000000 / hz}' \
    /proc/$pid/stat
}

for which in old new; do
  if [[ $which == old ]]; then start "$old" old; else start "$new" new; fi
  echo "$which $("$load" --target=127.0.0.1:$port --mode=preload --entities=1000000)"
  stop
done
for round in $(seq 1 "$rounds"); do
  for which in old new; do
    if [[ $which == old ]]; then start "$old" old; else start "$new" new; fi
    sleep 2
    for mode in $modes; do
      before=$(trackd_cpu_us)
      line=$("$load" --target=127.0.0.1:$port --mode=$mode --connections=8 \
        --seconds="$seconds" --entities=1000000)
      used=$(($(trackd_cpu_us) - before))
      calls=$(sed -n 's/.* calls=\([0-9]*\).*/\1/p' <<<"$line")
      echo "$which round $round: $line trackd_cpu/call=$((used / (calls + 1)))us"
    done
    stop
  done
done
