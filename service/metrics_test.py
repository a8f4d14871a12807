#!/usr/bin/python3
"""trackd's metrics port (--metrics_port), as Prometheus and a load balancer
use it:

- /metrics parses with Prometheus's own parser (Debian's
  python3-prometheus-client), and every family named in the text has
  samples of the type it declares;
- each counter moves when its event happens: RESP commands and their errors
  and latency, gRPC calls and their errors, points ingested, entities,
  index scans and history searches, fence events;
- /healthz and /readyz answer 200 on a primary; a replica is ready while
  its link to the primary is in sync and answers 503 once the primary is
  gone; an unknown path is 404;
- trackd refuses to start when the metrics port is taken, naming it.
"""
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import grpc
import redis
from prometheus_client.parser import text_string_to_metric_families

HERE = os.path.dirname(os.path.abspath(__file__))
TRACKD = os.path.join(HERE, "trackd")
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools", "crash"))
from trackdb.v1 import track_service_pb2 as pb  # noqa: E402
from trackdb.v1 import track_service_pb2_grpc as pb_grpc  # noqa: E402
sys.path.insert(0, HERE)
from test_support import fail, free_port  # noqa: E402

WORK = os.environ.get("TEST_TMPDIR", "/tmp")




class Node:
    def __init__(self, name, extra_args=()):
        self.dir = os.path.join(WORK, name)
        os.makedirs(self.dir, exist_ok=True)
        self.resp, self.grpc, self.metrics = free_port(), free_port(), free_port()
        self.log = open(os.path.join(self.dir, "log"), "w+")
        config = os.path.join(self.dir, "trackd.textproto")
        with open(config, "w") as f:
            f.write("")
        self.proc = subprocess.Popen(
            [TRACKD, "--config=" + config, "--data_dir=" + self.dir + "/data",
             "--resp_port=%d" % self.resp, "--grpc_port=%d" % self.grpc,
             "--metrics_port=%d" % self.metrics] + list(extra_args),
            stderr=self.log)

    def wait_ready(self):
        """Waits as a load balancer does: until /readyz answers 200. The
        log's own lines name /readyz long before the store is open."""
        for _ in range(600):
            if self.proc.poll() is not None:
                fail("trackd exited: " + self.log_text())
            try:
                if self.get("/readyz")[0] == 200:
                    return self
            except OSError:
                pass  # the metrics port is not open yet
            time.sleep(0.1)
        fail("trackd did not become ready: " + self.log_text())

    def log_text(self):
        self.log.seek(0)
        return self.log.read()

    def get(self, path):
        """(status, body) of GET path on the metrics port."""
        url = "http://127.0.0.1:%d%s" % (self.metrics, path)
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


def scrape(node):
    """{(name, labels...): value} of every sample, checking the text parses
    and each sample belongs to a family of the type it declares."""
    status, text = node.get("/metrics")
    if status != 200:
        fail("/metrics answered %d: %s" % (status, text))
    samples = {}
    for family in text_string_to_metric_families(text):
        if family.type not in ("counter", "gauge", "histogram"):
            fail("family %s has type %s" % (family.name, family.type))
        for s in family.samples:
            key = (s.name,) + tuple(sorted(s.labels.items()))
            samples[key] = s.value
    return samples


def value(samples, name, **labels):
    return samples.get((name,) + tuple(sorted(labels.items())), 0)


def expect_moved(before, after, name, by, **labels):
    moved = value(after, name, **labels) - value(before, name, **labels)
    if moved != by:
        fail("%s%s moved by %s, expected %s" % (name, labels, moved, by))


def check_resp_counters(node):
    r = redis.Redis(port=node.resp)
    before = scrape(node)
    r.set("k", "v")
    r.set("k", "w")
    try:
        r.incr("k")  # INCRBY k 1 of "w": an error reply
    except redis.ResponseError:
        pass
    r.geoadd("fleet", (13.361389, 38.115556, "palermo"))
    r.geoadd("fleet", (15.087269, 37.502669, "catania"))
    r.geosearch("fleet", longitude=15, latitude=37, radius=200, unit="km",
                count=10)
    after = scrape(node)
    expect_moved(before, after, "trackdb_resp_commands_total", 2, command="set")
    expect_moved(before, after, "trackdb_resp_command_errors_total", 0,
                 command="set")
    expect_moved(before, after, "trackdb_resp_command_errors_total", 1,
                 command="incrby")
    expect_moved(before, after, "trackdb_resp_command_duration_seconds_count",
                 2, command="set")
    expect_moved(before, after, "trackdb_resp_command_duration_seconds_bucket",
                 2, command="set", le="+Inf")
    expect_moved(before, after, "trackdb_points_ingested_total", 2)
    expect_moved(before, after, "trackdb_entities", 2)
    expect_moved(before, after, "trackdb_resp_commands_total", 1,
                 command="geosearch")
    if value(after, "trackdb_index_scans_total") <= \
            value(before, "trackdb_index_scans_total"):
        fail("GEOSEARCH scanned no index")
    if value(after, "trackdb_resp_connected_clients") < 1:
        fail("no connected client counted")
    print("RESP counters move")


def check_pipelines_and_refusals(node):
    """Each call of a pipelined run counts under its own name, with its own
    error; so does one typed command alone, and a refused call."""
    r = redis.Redis(port=node.resp)
    r.set("plain", "v")
    before = scrape(node)
    p = r.pipeline(transaction=False)
    p.hset("h", "f", 1)
    p.hget("h", "f")
    p.sadd("s", "m")
    p.lpush("l", "x")
    p.hset("h", "g", 2)
    p.hincrby("h", "f", 1)
    p.hset("plain", "f", 1)  # WRONGTYPE
    p.execute(raise_on_error=False)
    p = r.pipeline(transaction=False)
    p.geoadd("pipefleet", (13.36, 38.11, "a"))
    p.execute_command("GEOADD", "pipefleet", 200, 38.11, "b")  # bad longitude
    p.geoadd("pipefleet", (13.37, 38.12, "c"))
    p.execute(raise_on_error=False)
    try:
        r.hset("plain", "f", 1)  # alone: WRONGTYPE
    except redis.ResponseError:
        pass
    try:
        r.execute_command("GET")  # wrong arity: refused
    except redis.ResponseError:
        pass
    after = scrape(node)
    for command, calls, errors in (("hset", 4, 2), ("hget", 1, 0),
                                   ("sadd", 1, 0), ("lpush", 1, 0),
                                   ("hincrby", 1, 0), ("geoadd", 3, 1),
                                   ("get", 1, 1)):
        expect_moved(before, after, "trackdb_resp_commands_total", calls,
                     command=command)
        expect_moved(before, after, "trackdb_resp_command_errors_total",
                     errors, command=command)
    print("pipelines, typed errors and refusals counted per call")


def check_grpc_counters(node):
    channel = grpc.insecure_channel("127.0.0.1:%d" % node.grpc)
    stub = pb_grpc.TrackServiceStub(channel)
    before = scrape(node)
    point = pb.Point(entity_id="v1", latitude=40.0, longitude=116.0,
                     loc_time_ms=int(time.time() * 1000))
    stub.AddPoint(pb.AddPointRequest(collection="grpcfleet", point=point))
    try:  # latitude off the globe: INVALID_ARGUMENT
        stub.AddPoint(pb.AddPointRequest(
            collection="grpcfleet",
            point=pb.Point(entity_id="v2", latitude=95, longitude=0,
                           loc_time_ms=int(time.time() * 1000))))
        fail("a latitude of 95 was accepted")
    except grpc.RpcError as e:
        if e.code() != grpc.StatusCode.INVALID_ARGUMENT:
            fail("bad point answered %s" % e.code())
    stub.SearchRadius(pb.SearchRadiusRequest(
        collection="grpcfleet", center=pb.LatLng(latitude=40.0, longitude=116.0),
        radius_m=500))
    stub.SearchHistory(pb.SearchHistoryRequest(
        collection="grpcfleet", circle=pb.CircleArea(
            center=pb.LatLng(latitude=40.0, longitude=116.0), radius_m=500)))
    after = scrape(node)
    method = "trackdb.v1.TrackService/AddPoint"
    expect_moved(before, after, "trackdb_grpc_requests_total", 2, method=method)
    expect_moved(before, after, "trackdb_grpc_request_errors_total", 1,
                 method=method)
    expect_moved(before, after, "trackdb_grpc_request_duration_seconds_count",
                 2, method=method)
    expect_moved(before, after, "trackdb_points_ingested_total", 1)
    if value(after, "trackdb_index_scans_total") <= \
            value(before, "trackdb_index_scans_total"):
        fail("SearchRadius scanned no index")
    expect_moved(before, after, "trackdb_history_searches_total", 1)
    expect_moved(before, after, "trackdb_grpc_requests_total", 1,
                 method="trackdb.v1.TrackService/SearchRadius")
    print("gRPC counters move")


def check_fence_events(node):
    r = redis.Redis(port=node.resp)
    before = scrape(node)
    # A 500 m circle around the depot, then one vehicle driving in.
    r.execute_command("FENCE.SET", "fleet2", "depot", "CIRCLE", 116.0, 40.0,
                      500, "m")
    r.geoadd("fleet2", (116.0, 40.05, "t1"))
    r.geoadd("fleet2", (116.0, 40.0, "t1"))
    after = scrape(node)
    moved = value(after, "trackdb_fence_events_total") - \
        value(before, "trackdb_fence_events_total")
    if moved < 1:
        fail("driving into a fence made %s events" % moved)
    print("fence events move")


def check_probes_and_families(node):
    for path, want in (("/healthz", 200), ("/readyz", 200), ("/nope", 404)):
        status, body = node.get(path)
        if status != want:
            fail("%s answered %d %s" % (path, status, body))
    samples = scrape(node)
    for name in ("trackdb_ready", "trackdb_memory_budget_bytes",
                 "trackdb_block_cache_usage_bytes",
                 "trackdb_rocksdb_stall_seconds_total",
                 "trackdb_replication_offset", "trackdb_connected_replicas",
                 "process_resident_memory_bytes"):
        if (name,) not in samples:
            fail("no %s in /metrics" % name)
    if value(samples, "trackdb_ready") != 1:
        fail("trackdb_ready is not 1 on a ready primary")
    if not any(k[0] == "trackdb_rocksdb_pending_compaction_bytes"
               for k in samples):
        fail("no compaction debt per column family")


def check_replica_readiness(primary):
    replica = Node("replica").wait_ready()
    try:
        redis.Redis(port=replica.resp).execute_command(
            "REPLICAOF", "127.0.0.1", primary.resp)
        for _ in range(100):
            if replica.get("/readyz")[0] == 200 and \
                    value(scrape(replica), "trackdb_replication_link_up") == 1:
                break
            time.sleep(0.1)
        else:
            fail("the replica never became ready: %s" % (replica.get("/readyz"),))
        if value(scrape(primary), "trackdb_connected_replicas") != 1:
            fail("the primary counts no replica")
        primary.stop()
        for _ in range(150):
            status, body = replica.get("/readyz")
            if status == 503:
                if "not in sync" not in body:
                    fail("a replica without its primary answered: " + body)
                break
            time.sleep(0.1)
        else:
            fail("the replica stayed ready with its primary gone")
        if replica.get("/healthz")[0] != 200:
            fail("a replica without its primary is not healthy")
        print("replica readiness follows its link")
    finally:
        replica.stop()


def check_port_in_use(taken):
    node = Node("busy", ["--metrics_port=%d" % taken.metrics])
    node.proc.wait(timeout=30)
    text = node.log_text()
    if node.proc.returncode == 0 or \
            "cannot serve metrics on 127.0.0.1:%d" % taken.metrics not in text:
        fail("a taken metrics port was not refused: " + text)


def main():
    primary = Node("primary").wait_ready()
    try:
        check_probes_and_families(primary)
        check_resp_counters(primary)
        check_pipelines_and_refusals(primary)
        check_grpc_counters(primary)
        check_fence_events(primary)
        check_port_in_use(primary)
        check_replica_readiness(primary)
        print("PASS")
    finally:
        primary.stop()


if __name__ == "__main__":
    main()
