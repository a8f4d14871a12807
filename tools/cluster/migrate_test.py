#!/usr/bin/python3
"""A slot's migration between two trackdb masters, driven by
kvrocks-controller's migrate API (CLUSTERX MIGRATE, then CLUSTERX SETNODES)
on a managed cluster (start_managed_cluster.sh), while a client keeps
writing to the slot and following MOVED and TRYAGAIN as cluster clients
do: every acknowledged write is on the destination afterwards, GEO searches
of a moved collection answer as before, and the source keeps none of the
slot's keys."""
import json
import os
import sys
import threading
import time
import urllib.request

import redis

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster_testlib import (base_port, check, client, cluster, missing_keys,
                             work_dir)

WORK = work_dir("migrate")


def owner_port(port, slot):
    for first, last, master, *_ in client(port).execute_command("CLUSTER", "SLOTS"):
        if first <= slot <= last:
            return master[1]
    return None


def write(ports, key, value):
    """SET as a cluster client does: to the slot's owner, following MOVED,
    retrying TRYAGAIN. Whether it was acknowledged."""
    port = ports["at"]
    for _ in range(200):
        try:
            return client(port).set(key, value) is True
        except redis.ResponseError as e:
            text = str(e)
            if text.startswith("MOVED"):
                port = int(text.split()[2].split(":")[1])
                ports["at"] = port
            elif text.startswith("TRYAGAIN"):
                time.sleep(0.01)
            else:
                raise
    return False


def main():
    base = base_port()
    with cluster("start_managed_cluster.sh", WORK, 2, base):
        run(base)
    print("PASS")


def run(base):
    source, destination = base, base + 2  # the two masters
    r = client(source)
    tag = next(t for t in ("t%d" % i for i in range(1000))
               if r.cluster("KEYSLOT", "{%s}" % t) < 8192)
    slot = r.cluster("KEYSLOT", "{%s}" % tag)
    fleet = "fleet{%s}" % tag
    r.geoadd(fleet, [116.0, 40.0, "car0", 116.01, 40.01, "car1",
                     116.5, 40.5, "far"])
    r.hset("h{%s}" % tag, mapping={"a": "1"})
    before = r.geosearch(fleet, longitude=116, latitude=40, radius=5, unit="km",
                         sort="ASC")
    acked, stop, ports = [], threading.Event(), {"at": source}

    def writer():
        i = 0
        while not stop.is_set():
            key = "{%s}:%d" % (tag, i)
            if write(ports, key, str(i)):
                acked.append(key)
            i += 1

    t = threading.Thread(target=writer)
    t.start()
    time.sleep(0.5)
    api = "http://127.0.0.1:%d/api/v1/namespaces/trackdb/clusters/tdb/migrate" % (
        base + 202)
    body = json.dumps({"target": 1, "slot": str(slot), "slot_only": False})
    urllib.request.urlopen(urllib.request.Request(
        api, data=body.encode(), method="POST"), timeout=10)
    deadline = time.time() + 60
    while time.time() < deadline and owner_port(source, slot) != destination:
        time.sleep(0.2)
    check(owner_port(source, slot) == destination,
          "the controller gave slot %d to the destination" % slot)
    time.sleep(0.5)  # the writer follows MOVED
    stop.set()
    t.join()
    check(len(acked) > 100, "%d writes acknowledged during the migration" % len(acked))
    d = client(destination)
    lost = missing_keys(destination, acked)
    check(not lost, "no acknowledged write lost (%d lost)" % len(lost))
    check(d.geosearch(fleet, longitude=116, latitude=40, radius=5, unit="km",
                      sort="ASC") == before, "the moved GEO key searches as before")
    check(d.hgetall("h{%s}" % tag) == {"a": "1"}, "the moved hash")
    deadline = time.time() + 30
    while time.time() < deadline and r.keys("*{%s}*" % tag):
        time.sleep(0.2)
    check(not r.keys("*{%s}*" % tag), "the source keeps none of the slot's keys")
    info = r.execute_command("CLUSTER", "INFO")
    check("migrating_state:success" in info, "CLUSTER INFO says success")


if __name__ == "__main__":
    main()
