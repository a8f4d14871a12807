#!/usr/bin/env bash
# A 3-shard trackdb cluster on loopback (start_cluster.sh), driven by
# redis-cli -c as a Redis Cluster user would: keys land on the shard that
# owns their slot, any node redirects to it (MOVED), and GEO keys,
# collections whole on one shard, are written and searched through any
# node.
set -u
trackd="$PWD/service/trackd"
work="${TEST_TMPDIR:-$(mktemp -d)}/cluster"
fail() { echo "FAIL: $*"; exit 1; }

# Three free consecutive RESP ports (and their gRPC ports, 100 above).
first_port=$(python3 - <<'PY'
import random, socket
for _ in range(200):
    base = random.randint(20000, 30000)
    try:
        socks = []
        for p in [base, base + 1, base + 2, base + 100, base + 101, base + 102]:
            s = socket.socket(); s.bind(("127.0.0.1", p)); socks.append(s)
        print(base)
        break
    except OSError:
        pass
    finally:
        for s in socks: s.close()
PY
)
TRACKD="$trackd" TRACKD_CONFIG="$PWD/conf/trackdb.textproto" \
  tools/cluster/start_cluster.sh "$work" 3 "$first_port" || fail "cluster did not start"
trap 'tools/cluster/stop_cluster.sh "$work"' EXIT
p0=$first_port p1=$((first_port + 1)) p2=$((first_port + 2))

# Strings through one node reach every shard.
for i in $(seq 1 60); do
  [ "$(redis-cli -c -p "$p0" SET "key:$i" "value $i")" = OK ] || fail "SET key:$i"
done
for i in $(seq 1 60); do
  [ "$(redis-cli -c -p "$p2" GET "key:$i")" = "value $i" ] || fail "GET key:$i via $p2"
done
for p in "$p0" "$p1" "$p2"; do
  n=$(redis-cli -p "$p" DBSIZE)
  [ "$n" -gt 5 ] || fail "node $p holds $n keys: the keys did not spread"
done
total=$(( $(redis-cli -p "$p0" DBSIZE) + $(redis-cli -p "$p1" DBSIZE) + $(redis-cli -p "$p2" DBSIZE) ))
[ "$total" = 60 ] || fail "60 keys written, $total stored"

# Without -c a node answers MOVED to the owner, as Redis Cluster does.
slot=$(redis-cli -p "$p0" CLUSTER KEYSLOT foo)
[ "$slot" = 12182 ] || fail "KEYSLOT foo = $slot"
moved=$(redis-cli -p "$p0" GET foo)
[ "$moved" = "MOVED 12182 127.0.0.1:$p2" ] || fail "GET foo on node 0: '$moved'"

# GEO keys: each collection lives whole on its slot's shard.
for fleet in beijing rome lima; do
  redis-cli -c -p "$p1" GEOADD "$fleet" 116.40 39.90 car1 116.41 39.91 car2 \
    13.0 41.0 far >/dev/null || fail "GEOADD $fleet"
  got=$(redis-cli -c -p "$p0" GEOSEARCH "$fleet" FROMLONLAT 116.40 39.90 \
    BYRADIUS 5 km ASC | tr '\n' ' ')
  [ "$got" = "car1 car2 " ] || fail "GEOSEARCH $fleet: '$got'"
done
# A multi-key command over two shards is refused; hash tags keep it on one.
cross=$(redis-cli -c -p "$p0" MSET a 1 b 2)
[[ "$cross" == CROSSSLOT* ]] || fail "MSET a b: '$cross'"
[ "$(redis-cli -c -p "$p0" MSET '{t}a' 1 '{t}b' 2)" = OK ] || fail "MSET {t}a {t}b"
info=$(redis-cli -p "$p1" CLUSTER INFO | tr -d '\r')
grep -q "cluster_state:ok" <<<"$info" || fail "CLUSTER INFO: $info"
grep -q "cluster_size:3" <<<"$info" || fail "CLUSTER INFO: $info"
# Each node tells its gRPC port (start_cluster.sh: RESP port + 100), which
# is how a node will find a peer's gRPC door.
grpc=$(redis-cli -p "$p1" INFO server | tr -d '\r' | sed -n 's/^grpc_port://p')
[ "$grpc" = $((p1 + 100)) ] || fail "INFO server grpc_port: '$grpc'"
echo PASS
