#!/usr/bin/python3
"""Replication between real trackd processes on loopback, driven with
redis-py (Debian's python3-redis) as a Redis user would:

- a replica equals its primary after writes of every kind (strings with
  expiry, GEO keys and their expiry, hashes, sets, sorted sets, lists,
  fences and their events, retention, renames, copies, deletes): the
  stores' digests (REPL.DIGEST) and reads agree;
- a replica refuses writes with READONLY and serves reads;
- a paused replica (SIGSTOP) catches up from the WAL, without a full sync;
- a restarted replica resumes from its mark, without a full sync;
- a WAL purged past what a replica needs forces a full sync;
- REPLICAOF on a node holding other data brings it to exact equality;
- WAIT counts the replicas that have the client's writes;
- with synchronous acknowledgement, writes are refused without replicas,
  an unacknowledged write is never answered OK, and after kill -9 of the
  primary the replica holds every write that was answered OK.
"""
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time

import redis

sys.path.insert(0, os.path.abspath("tools/cluster"))
from cluster_testlib import check, pause, work_dir

TRACKD = os.path.abspath("service/trackd")
WORK = work_dir("repl")


def free_port():
    while True:
        port = random.randint(20000, 30000)
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
            s2 = socket.socket()
            s2.bind(("127.0.0.1", port + 100))
            s2.close()
            return port
        except OSError:
            pass
        finally:
            s.close()


class Node:
    """One trackd: its own data dir, RESP port and gRPC port (RESP + 100)."""

    def __init__(self, name, conf=""):
        self.dir = os.path.join(WORK, name)
        os.makedirs(self.dir, exist_ok=True)
        self.conf = os.path.join(self.dir, "trackdb.textproto")
        with open(self.conf, "w") as f:
            f.write(conf)
        self.port = free_port()
        self.proc = None
        self.start()

    def start(self):
        log = open(os.path.join(self.dir, "log"), "a")
        self.proc = subprocess.Popen(
            [TRACKD, "--config=" + self.conf, "--data_dir=" + self.dir + "/data",
             "--resp_port=%d" % self.port, "--grpc_port=%d" % (self.port + 100)],
            stdout=log, stderr=log)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                if self.client().ping():
                    return
            except redis.ConnectionError:
                time.sleep(0.1)
        raise RuntimeError("trackd did not start: " + self.dir)

    def client(self):
        return redis.Redis(port=self.port, decode_responses=True,
                           socket_timeout=20)

    def info(self):
        return self.client().info("replication")

    def stop(self, sig=signal.SIGTERM):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(30)

    def digest(self):
        return self.client().execute_command("REPL.DIGEST")


def wait_synced(primary, replica, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        want = primary.info()["master_repl_offset"]
        got = replica.info().get("slave_repl_offset", -1)
        if got == want and replica.info()["master_link_status"] == "up":
            return
        time.sleep(0.05)
    raise RuntimeError("replica did not catch up: %s vs %s" %
                       (replica.info(), primary.info()))


def write_every_kind(r, round_no):
    p = "r%d:" % round_no
    r.set(p + "s", "v%d" % round_no)
    r.set(p + "ttl", "x", ex=3600)
    r.geoadd("fleet", [116.0 + round_no * 0.001, 40.0, "car%d" % round_no,
                       116.001, 40.001 + round_no * 0.0001, "bus"])
    r.geoadd(p + "geo", [10.0, 20.0, "a", 10.1, 20.1, "b"])
    r.expire(p + "geo", 3600)
    r.hset(p + "h", mapping={"f1": "1", "f2": "2"})
    r.sadd(p + "set", "m1", "m2", "m3")
    r.zadd(p + "z", {"a": 1, "b": 2.5})
    r.rpush(p + "list", "x", "y", "z")
    r.lpop(p + "list")
    r.execute_command("FENCE.SET", "fleet", "depot%d" % (round_no % 2),
                      "CIRCLE", 116.0, 40.0, 500, "m")
    r.geoadd("fleet", [116.0, 40.0, "walker", 117.0, 41.0, "runner"])
    r.execute_command("TRACK.SETRETENTION", "fleet", 86400000 + round_no)
    r.copy("fleet", p + "fleetcopy")
    r.rename(p + "s", p + "s2")
    r.delete(p + "set")
    r.hdel(p + "h", "f1")


READS = {
    "KEYS": lambda r: sorted(r.keys("*")),
    "GEOSEARCH": lambda r: r.geosearch("fleet", longitude=116, latitude=40,
                                       radius=100, unit="km", sort="ASC",
                                       withcoord=True),
    "FENCE.LIST": lambda r: r.execute_command("FENCE.LIST", "fleet"),
    "FENCE.EVENTS": lambda r: r.execute_command("FENCE.EVENTS", "fleet", 0),
    "HGETALL": lambda r: r.hgetall("r0:h"),
    "ZRANGE": lambda r: r.zrange("r0:z", 0, -1, withscores=True),
    "LRANGE": lambda r: r.lrange("r0:list", 0, -1),
    "GET": lambda r: r.get("r0:s2"),
    "TTL": lambda r: r.ttl("r0:geo") > 3000,
    "TRACK.GETRETENTION": lambda r: r.execute_command("TRACK.GETRETENTION",
                                                      "fleet"),
}


def same_reads(a, b, what):
    ra, rb = a.client(), b.client()
    for name, read in READS.items():
        check(read(ra) == read(rb), "%s: %s agrees" % (what, name))
    check(a.digest() == b.digest(), what + ": digests equal")


def test_follow_pause_restart(primary, replica):
    rp, rr = primary.client(), replica.client()
    write_every_kind(rp, 0)
    check(rp.execute_command("WAIT", 1, 100) == 0,
          "WAIT without replicas answers 0 at its timeout")
    # More WAITs without a timeout than the server has workers: they hold
    # no thread, so the replica's pulls still run and answer them.
    waits = []
    def wait_forever():
        waits.append(primary.client().execute_command("WAIT", 1, 0))
    waiting = [threading.Thread(target=wait_forever) for _ in range(8)]
    for t in waiting:
        t.start()
    time.sleep(0.3)
    check(rr.replicaof("127.0.0.1", primary.port), "REPLICAOF answers OK")
    for t in waiting:
        t.join(30)
    check(waits == [1] * 8, "eight WAIT 1 0 answered once the replica came")
    wait_synced(primary, replica)
    same_reads(primary, replica, "after the full sync")
    check(replica.info()["role"] == "slave", "INFO says role:slave")
    check(primary.info()["connected_slaves"] == 1, "the primary counts it")
    try:
        rr.set("x", "1")
        check(False, "a write on a replica is refused")
    except redis.exceptions.ReadOnlyError as e:
        check(True, "READONLY (redis-py's ReadOnlyError): " + str(e))
    for round_no in range(1, 4):
        write_every_kind(rp, round_no)
    check(rp.execute_command("WAIT", 1, 5000) == 1, "WAIT 1 counts the replica")
    wait_synced(primary, replica)
    same_reads(primary, replica, "after writes of every kind")

    pause(replica.proc.pid)
    for round_no in range(4, 6):
        write_every_kind(rp, round_no)
    replica.proc.send_signal(signal.SIGCONT)
    wait_synced(primary, replica)
    same_reads(primary, replica, "after a pause")
    check(replica.info()["trackdb_full_syncs"] == 1, "a pause needs no full sync")

    replica.stop()
    write_every_kind(rp, 6)
    # Restarted as the primary's replica, it resumes from its mark.
    with open(replica.conf, "w") as f:
        f.write('replication { replicaof: "127.0.0.1 %d" }\n' % primary.port)
    replica.start()
    check(rr.replicaof("127.0.0.1", primary.port), "REPLICAOF after restart")
    wait_synced(primary, replica)
    same_reads(primary, replica, "after a restart")
    check(replica.info()["trackdb_full_syncs"] == 0,
          "a restarted replica resumes from its mark")


def test_replicaof_over_other_data(primary, replica):
    rp, rr = primary.client(), replica.client()
    check(rr.replicaof("no", "one"), "REPLICAOF NO ONE")
    rr.set("only-on-replica", "1")
    rr.geoadd("fleet", [1.0, 1.0, "stray"])
    rp.delete("r0:s2", "r1:h")
    rp.set("after-promotion", "1")
    check(rr.replicaof("127.0.0.1", primary.port), "REPLICAOF again")
    wait_synced(primary, replica)
    same_reads(primary, replica, "REPLICAOF over other data")
    check(rr.get("only-on-replica") is None, "the replica's own key is gone")
    check(rr.exists("r0:s2") == 0, "a key deleted meanwhile is gone")
    check(replica.info()["trackdb_full_syncs"] == 1, "it took a full sync")


def test_purged_wal(tmp_conf):
    primary = Node("purge-primary", tmp_conf)
    replica = Node("purge-replica")
    try:
        rp, rr = primary.client(), replica.client()
        rp.set("k", "v")
        rr.replicaof("127.0.0.1", primary.port)
        wait_synced(primary, replica)
        pause(replica.proc.pid)
        blob = "x" * 4000
        for i in range(6000):
            # Small memtables stall writes while flushes catch up (BUSY):
            # a client retries.
            while True:
                try:
                    rp.set("big:%d" % i, blob)
                    break
                except redis.exceptions.BusyLoadingError:
                    time.sleep(0.05)
                except redis.ResponseError as e:
                    if not str(e).startswith("BUSY"):
                        raise
                    time.sleep(0.05)
        time.sleep(2)  # flushes and the WAL's purge run in the background
        wal = [f for f in os.listdir(primary.dir + "/data") if f.endswith(".log")]
        replica.proc.send_signal(signal.SIGCONT)
        wait_synced(primary, replica, timeout=60)
        check(replica.info()["trackdb_full_syncs"] == 2,
              "a purged WAL forces a full sync (WAL files left: %s)" % wal)
        check(primary.digest() == replica.digest(), "equal after it")
    finally:
        replica.stop()
        primary.stop()


def writer(node, acked, stop):
    r = node.client()
    i = 0
    while not stop.is_set():
        try:
            if r.set("acked:%d" % i, str(i)):
                acked.append(i)
        except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError):
            time.sleep(0.01)
            r = node.client()
        i += 1


def test_sync_acks():
    primary = Node("sync-primary",
                   "replication { sync_replicas: 1 sync_timeout_ms: 500 }\n")
    replica = Node("sync-replica")
    rp, rr = primary.client(), replica.client()
    try:
        try:
            rp.set("a", "1")
            check(False, "a write without replicas is refused")
        except redis.ResponseError as e:
            check(str(e).startswith("NOREPLICAS"), "NOREPLICAS: " + str(e))
        rr.replicaof("127.0.0.1", primary.port)
        wait_synced(primary, replica)
        check(rp.set("a", "2"), "a write with a replica is acknowledged")
        check(rr.get("a") == "2", "and the replica has it when it is")
        pause(replica.proc.pid)
        try:
            rp.set("a", "3")
            check(False, "an unacknowledged write is not answered OK")
        except (redis.ConnectionError, redis.TimeoutError):
            check(True, "an unacknowledged write closes the connection")
        replica.proc.send_signal(signal.SIGCONT)
        wait_synced(primary, replica)
        acked, stop = [], threading.Event()
        threads = [threading.Thread(target=writer, args=(primary, acked, stop))
                   for _ in range(4)]
        for t in threads:
            t.start()
        time.sleep(1.5)
        primary.proc.send_signal(signal.SIGKILL)
        primary.proc.wait()
        stop.set()
        for t in threads:
            t.join()
        check(len(acked) > 100, "%d writes acknowledged before kill -9" % len(acked))
        pipe = rr.pipeline(transaction=False)
        for i in acked:
            pipe.get("acked:%d" % i)
        values = pipe.execute()
        lost = [i for i, v in zip(acked, values) if v != str(i)]
        check(not lost, "no acknowledged write lost (%d lost)" % len(lost))
    finally:
        replica.stop()
        primary.stop()


def set_topology(nodes, text, version):
    for n in nodes:
        check(n.client().execute_command("CLUSTERX", "SETNODES", text, version)
              in ("OK", b"OK", True), "CLUSTERX SETNODES v%d on %d" % (version, n.port))


def test_topology_drives_replication():
    a = Node("cluster-a", "server { cluster_enabled: true }\n")
    b = Node("cluster-b", "server { cluster_enabled: true }\n")
    ida, idb = "a" * 40, "b" * 40
    try:
        for n, i in ((a, ida), (b, idb)):
            n.client().execute_command("CLUSTERX", "SETNODEID", i)
        set_topology([a, b], "%s 127.0.0.1 %d master - 0-16383\n"
                     "%s 127.0.0.1 %d slave %s" % (ida, a.port, idb, b.port, ida), 1)
        a.client().geoadd("fleet", [116.0, 40.0, "car1"])
        a.client().set("k", "1")
        wait_synced(a, b)
        check(b.client().get("k") == "1", "the slave the topology names follows")
        check(b.client().geopos("fleet", "car1")[0] is not None,
              "and serves its master's reads")
        try:
            b.client().set("k", "2")
            check(False, "a write on the slave is refused")
        except redis.ResponseError as e:
            check(str(e).startswith("MOVED"), "a write on the slave: " + str(e))
        # A failover as the controller makes it: the slave becomes master and
        # the old master its slave.
        set_topology([a, b], "%s 127.0.0.1 %d master - 0-16383\n"
                     "%s 127.0.0.1 %d slave %s" % (idb, b.port, ida, a.port, idb), 2)
        check(b.client().set("k", "3"), "the promoted node takes writes")
        wait_synced(b, a)
        check(a.client().get("k") == "3", "the old master follows the new one")
        check(a.digest() == b.digest(), "and holds what it holds")
    finally:
        a.stop()
        b.stop()


def main():
    primary = Node("primary")
    replica = Node("replica")
    try:
        test_follow_pause_restart(primary, replica)
        test_replicaof_over_other_data(primary, replica)
    finally:
        replica.stop()
        primary.stop()
    test_purged_wal("storage { wal_retention_s: 0 wal_retention_mb: 0 "
                    "write_buffer_size_mb: 1 "
                    "rocksdb_db_options: \"max_total_wal_size=2097152\" }\n")
    test_sync_acks()
    test_topology_drives_replication()
    print("PASS")


if __name__ == "__main__":
    main()
