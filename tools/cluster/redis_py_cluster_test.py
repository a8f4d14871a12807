#!/usr/bin/python3
"""redis-py's RedisCluster (Debian's python3-redis) against a 3-shard trackdb
cluster on loopback (start_cluster.sh), unchanged: it discovers the slots
from one node, routes each command to its shard, follows MOVED, pipelines
per shard, and writes and searches GEO keys as it would on Redis Cluster."""
import os
import sys

from redis.cluster import RedisCluster

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster_testlib import base_port, check, cluster, work_dir


def main():
    base = base_port()
    with cluster("start_cluster.sh", work_dir("pycluster"), 3, base):
        run(base)
    print("PASS")


def run(base):
    rc = RedisCluster(host="127.0.0.1", port=base + 1, decode_responses=True)
    check(len(rc.get_primaries()) == 3, "three primaries discovered")
    for i in range(100):
        check(rc.set("user:%d" % i, "v%d" % i), "SET user:%d" % i)
    check(all(rc.get("user:%d" % i) == "v%d" % i for i in range(100)), "GET back")
    sizes = [rc.dbsize(target_nodes=n) for n in rc.get_primaries()]
    check(sum(sizes) == 100 and min(sizes) > 10, "keys spread over shards: %s" % sizes)

    # A pipeline is split per shard and answered in order.
    pipe = rc.pipeline()
    for i in range(30):
        pipe.incr("counter:%d" % i)
    check(pipe.execute() == [1] * 30, "pipelined INCRs")

    # GEO keys: a collection is whole on its shard, searched there.
    for fleet in ("fleet:a", "fleet:b", "fleet:c", "fleet:d"):
        rc.geoadd(fleet, [116.40, 39.90, "car1", 116.41, 39.91, "car2", 13.0, 41.0, "far"])
        found = rc.geosearch(fleet, longitude=116.40, latitude=39.90, radius=5,
                             unit="km", sort="ASC")
        check(found == ["car1", "car2"], "GEOSEARCH %s: %s" % (fleet, found))
        check(rc.zcard(fleet) == 3, "ZCARD %s" % fleet)
    # Hash tags keep multi-key commands on one shard.
    check(rc.mset({"{t}a": "1", "{t}b": "2"}), "MSET with a hash tag")
    check(rc.mget("{t}a", "{t}b") == ["1", "2"], "MGET with a hash tag")
    # A movable-keys command routed by COMMAND GETKEYS.
    rc.zadd("{z}1", {"a": 1, "b": 2})
    rc.zadd("{z}2", {"b": 3})
    check(rc.zunionstore("{z}dst", ["{z}1", "{z}2"]) == 2, "ZUNIONSTORE")
    check(rc.zscore("{z}dst", "b") == 5.0, "ZUNIONSTORE's sum")
    rc.close()


if __name__ == "__main__":
    main()
