#!/usr/bin/python3
"""Failover of a trackdb cluster by Apache kvrocks-controller (over etcd),
with synchronous acknowledgement (replication.sync_replicas: 1), on real
processes: start_managed_cluster.sh, two shards of a master and a replica.

- kill -9 of a master while four clients write to it: the controller
  promotes its replica, which holds every write that was answered OK;
- the killed node, restarted, is made the new master's replica by the
  controller and ends holding exactly what the new master holds;
- a SIGSTOPped master, failed over, cannot acknowledge a write once it
  resumes: the write is refused or never answered OK, and the controller
  makes it the new master's replica, without that write.
"""
import os
import signal
import subprocess
import sys
import threading
import time

import redis

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster_testlib import (base_port, check, client, cluster, missing_keys,
                             pause, work_dir)

WORK = work_dir("failover")
CONF = os.path.join(WORK, "trackdb.textproto")


def role(port):
    try:
        return client(port).execute_command("ROLE")[0]
    except redis.RedisError:
        return None


def wait_until(what, predicate, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    check(False, "timed out: " + what)


def synced(primary, replica):
    try:
        p = client(primary).info("replication")
        r = client(replica).info("replication")
    except redis.RedisError:
        return False
    return (r.get("master_link_status") == "up" and
            r.get("slave_repl_offset") == p.get("master_repl_offset"))


def tag_in(port, low, high):
    """A hash tag whose slot is in [low, high]."""
    r = client(port)
    for i in range(1000):
        tag = "t%d" % i
        if low <= r.cluster("KEYSLOT", "{%s}" % tag) <= high:
            return tag
    raise RuntimeError("no tag")


def writer(port, tag, acked, stop, number):
    r = client(port)
    i = 0
    while not stop.is_set():
        key = "{%s}:%d:%d" % (tag, number, i)
        try:
            if r.set(key, str(i)) is True:
                acked.append(key)
        except redis.RedisError:
            time.sleep(0.05)
        i += 1


def write_config():
    os.makedirs(WORK, exist_ok=True)
    with open(CONF, "w") as f:
        f.write("replication { sync_replicas: 1 sync_timeout_ms: 1000 }\n")


def kill9_loses_nothing(base, pids):
    m0, r0 = base, base + 1
    wait_until("shard 0's replica in sync", lambda: synced(m0, r0))
    tag = tag_in(m0, 0, 8191)
    acked, stop = [], threading.Event()
    threads = [threading.Thread(target=writer, args=(m0, tag, acked, stop, n))
               for n in range(4)]
    for t in threads:
        t.start()
    time.sleep(1.5)
    os.kill(pids[1], signal.SIGKILL)
    stop.set()
    for t in threads:
        t.join()
    check(len(acked) > 100, "%d writes acknowledged before kill -9" % len(acked))
    wait_until("the controller promotes the replica", lambda: role(r0) == "master")
    check(True, "the replica is master now")
    lost = missing_keys(r0, acked)
    check(not lost, "no acknowledged write lost (%d lost)" % len(lost))
    # The killed node comes back and the controller makes it a replica.
    log = open(os.path.join(WORK, "node-0-again.log"), "w")
    again = subprocess.Popen(
        [os.path.abspath("service/trackd"), "--config=" + CONF,
         "--data_dir=%s/node-0" % WORK, "--resp_port=%d" % m0,
         "--grpc_port=%d" % (m0 + 100), "--cluster_enabled=true"],
        stdout=log, stderr=log)
    with open(os.path.join(WORK, "pids"), "a") as f:
        f.write("%d\n" % again.pid)
    wait_until("the old master follows the new one",
               lambda: role(m0) == "slave" and synced(r0, m0))
    check(client(m0).execute_command("REPL.DIGEST") ==
          client(r0).execute_command("REPL.DIGEST"),
          "the old master holds what the new one holds")


def stopped_master_cannot_acknowledge(base, pids):
    m1, r1 = base + 2, base + 3
    wait_until("shard 1's replica in sync", lambda: synced(m1, r1))
    tag = tag_in(m1, 8192, 16383)
    pause(pids[3])
    wait_until("the controller promotes shard 1's replica",
               lambda: role(r1) == "master")
    os.kill(pids[3], signal.SIGCONT)
    key = "{%s}:after-failover" % tag
    try:
        answer = client(m1).set(key, "lost")
    except redis.RedisError as e:
        answer = "error: %s" % e
    check(answer is not True, "the resumed old master does not acknowledge: %s"
          % answer)
    wait_until("the old master follows the new one",
               lambda: role(m1) == "slave" and synced(r1, m1))
    check(client(r1).get(key) is None, "the new master never had that write")
    check(client(m1).execute_command("REPL.DIGEST") ==
          client(r1).execute_command("REPL.DIGEST"),
          "the old master holds what the new one holds")


def main():
    base = base_port()
    write_config()
    with cluster("start_managed_cluster.sh", WORK, 2, base, CONF):
        with open(os.path.join(WORK, "pids")) as f:
            pids = [int(line) for line in f if line.strip()]
        try:
            kill9_loses_nothing(base, pids)
            stopped_master_cannot_acknowledge(base, pids)
        finally:
            for pid in pids:  # none may stay stopped
                try:
                    os.kill(pid, signal.SIGCONT)
                except OSError:
                    pass
    print("PASS")


if __name__ == "__main__":
    main()
