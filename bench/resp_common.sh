# Sourced by the RESP benches (resp_bench.sh, connections_bench.sh): trackd
# and a real redis-server started side by side, the same data loaded into
# both, and one markdown row per client command with both servers' numbers.
# Run from the runfiles root (bazel run), where service/trackd is.
#
# The caller sets dir (scratch directory), trackd_port and redis_port, or
# has bench_servers set them.

# start_servers [REDIS-ARGS...]: trackd (the bench's own build, or
# $TRACKD) on its shipped config and a fresh data dir, redis-server without
# persistence; sets trackd_pid and redis_pid, and returns once both answer.
# The caller traps their exit.
start_servers() {
  "${TRACKD:-$PWD/service/trackd}" --config="$PWD/conf/trackdb.textproto" \
    --data_dir="$dir/data" --grpc_port=0 --resp_port="$trackd_port" \
    2>"$dir/trackd.log" &
  trackd_pid=$!
  redis-server --port "$redis_port" --save '' --appendonly no --dir "$dir" \
    --daemonize no --loglevel warning "$@" >"$dir/redis.log" 2>&1 &
  redis_pid=$!
  for _ in $(seq 1 100); do
    grep -q ready "$dir/trackd.log" &&
      redis-cli -p "$redis_port" ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  cat "$dir/trackd.log" "$dir/redis.log" >&2
  return 1
}

# bench_servers NAME TRACKD_PORT REDIS_PORT [REDIS-ARGS...]: a fresh
# scratch dir ${TMPDIR:-/tmp}/trackdb-NAME and the two servers
# (start_servers) on the given ports, both stopped and the dir removed when
# the bench exits.
bench_servers() {
  dir="${TMPDIR:-/tmp}/trackdb-$1"
  trackd_port=$2
  redis_port=$3
  shift 3
  rm -rf "$dir"
  mkdir -p "$dir"
  trap 'kill -TERM $trackd_pid $redis_pid 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
  start_servers "$@"
}

# write_geoadds SEED FILE:COUNT...: 1-member GEOADDs of fleet, members
# m:0000000.. at uniform random positions in a Beijing-sized box
# (116.0-116.8 E, 39.6-40.2 N), as RESP for `redis-cli --pipe`; the files
# in order from one random sequence, each starting again at m:0000000.
write_geoadds() {
  python3 - "$@" <<'PY'
import random, sys
random.seed(int(sys.argv[1]))
for spec in sys.argv[2:]:
    path, count = spec.rsplit(":", 1)
    with open(path, "w", newline="") as out:
        for m in range(int(count)):
            lon = "%.6f" % random.uniform(116.0, 116.8)
            lat = "%.6f" % random.uniform(39.6, 40.2)
            name = "m:%07d" % m
            out.write("*5\r\n$6\r\nGEOADD\r\n$5\r\nfleet\r\n$%d\r\n%s\r\n"
                      "$%d\r\n%s\r\n$%d\r\n%s\r\n"
                      % (len(lon), lon, len(lat), lat, len(name), name))
PY
}

ratio() { awk -v t="$1" -v r="$2" 'BEGIN { printf "%.2f", (r > 0 ? t / r : 0) }'; }

# bench_once CLIENTS PORT ARGS...: "rps p50 p99" of one redis-benchmark run.
bench_once() {
  local clients=$1 port=$2
  shift 2
  redis-benchmark -p "$port" -c "$clients" --csv "$@" 2>/dev/null |
    awk -F'","' 'NR == 2 { print $2, $5, $7 }'
}

# compare_row WIDTH CLIENTS LABEL ARGS...: one row, "| label | Redis/s |
# trackd/s | ratio | p50/p99 ms Redis, trackd |", the label padded to WIDTH.
compare_row() {
  local width=$1 clients=$2 label=$3 r t
  shift 3
  read -r -a r <<<"$(bench_once "$clients" "$redis_port" "$@")"
  read -r -a t <<<"$(bench_once "$clients" "$trackd_port" "$@")"
  printf "| %-${width}s | %9s | %9s | %5s | %5s/%-5s %5s/%-5s |\n" "$label" \
    "${r[0]%.*}" "${t[0]%.*}" "$(ratio "${t[0]}" "${r[0]}")" \
    "${r[1]}" "${r[2]}" "${t[1]}" "${t[2]}"
}
