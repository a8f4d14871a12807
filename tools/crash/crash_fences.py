"""The crash test's fence part (crash_client.py): a fence on the gRPC
writers' collection, a Watch that follows its event log while trackd is
killed and resumes each round from the offset after the last event it saw,
and the checks after each restart:

- the log's offsets only increase, and every event the watcher saw before
  a kill is in it, at its offset; between the first and the last offset a
  watcher saw in a round it missed none of the log's events, and a round
  resumes after the last event seen (each event seen exactly once);
- per entity, ENTER and EXIT alternate, starting with ENTER (an event of an
  acknowledged point is never lost, none is doubled);
- an entity's last event says where its latest point is (inside the
  circle or not), and GetFenceState lists exactly the entities inside.
"""
import math
import threading

import grpc

from trackdb.v1 import fence_pb2 as fpb
from trackdb.v1 import fence_pb2_grpc as fpb_grpc
from trackdb.v1 import track_service_pb2 as pb

FENCE = "ring"
CENTER = (30.5, 120.5)  # the middle of the gRPC writers' square
RADIUS_M = 30000.0
EARTH_M = 6372797.560856  # Redis's, as trackdb's haversine
ENTER, EXIT = fpb.FENCE_EVENT_ENTER, fpb.FENCE_EVENT_EXIT


class Lost(Exception):
    pass


def stub(port):
    return fpb_grpc.FenceServiceStub(
        grpc.insecure_channel("127.0.0.1:%d" % port))


def ensure_fence(port, collection):
    """Creates the fence once: replacing it would reset every state."""
    s = stub(port)
    try:
        s.GetFence(fpb.GetFenceRequest(collection=collection, name=FENCE))
        return
    except grpc.RpcError as err:
        if err.code() != grpc.StatusCode.NOT_FOUND:
            raise
    s.PutFence(fpb.PutFenceRequest(fence=fpb.Fence(
        collection=collection, name=FENCE,
        circle=fpb.FenceCircle(center=pb.LatLng(latitude=CENTER[0],
                                                longitude=CENTER[1]),
                               radius_m=RADIUS_M),
        detect=[ENTER, EXIT])))


class Watcher:
    """Follows the log from state["fence_next"], recording what it sees in
    state["fence_rounds"] until trackd dies."""

    def __init__(self, state, lock, port, collection):
        self.state, self.lock = state, lock
        self.port, self.collection = port, collection
        self.seen = []
        with lock:
            start = state.setdefault("fence_next", 1)
            state.setdefault("fence_rounds", []).append(
                {"start": start, "seen": self.seen})
        self.start = start

    def run(self, port):
        del port  # the writers' signature; self.port is the same
        req = fpb.WatchRequest(collection=self.collection,
                               from_offset=self.start)
        try:
            for e in stub(self.port).Watch(req):
                with self.lock:
                    self.seen.append([e.offset, e.point.entity_id, e.kind])
        except grpc.RpcError:
            return  # trackd was killed


def read_log(port, collection):
    """The whole log: Watch from offset 1 until nothing comes for a while
    (no one writes during the checks)."""
    events = []
    req = fpb.WatchRequest(collection=collection, from_offset=1)
    call = stub(port).Watch(req)
    timer = threading.Timer(3.0, call.cancel)
    timer.start()
    try:
        for e in call:
            events.append([e.offset, e.point.entity_id, e.kind])
    except grpc.RpcError as err:
        if err.code() != grpc.StatusCode.CANCELLED:
            raise
    timer.cancel()
    return events


def check_rounds(log, rounds):
    by_offset = {o: [o, e, k] for o, e, k in log}
    offsets = [o for o, _, _ in log]
    if offsets != sorted(set(offsets)):
        raise Lost("fence log: offsets not increasing")
    for r in rounds:
        seen = r["seen"]
        if not seen:
            continue
        if seen[0][0] < r["start"]:
            raise Lost("fence watch: resumed at %d, saw %d" %
                       (r["start"], seen[0][0]))
        for ev in seen:
            if by_offset.get(ev[0]) != ev:
                raise Lost("fence event seen before the kill: %r, in the "
                           "log: %r" % (ev, by_offset.get(ev[0])))
        want = [o for o in offsets if r["start"] <= o <= seen[-1][0]]
        if [ev[0] for ev in seen] != want:
            raise Lost("fence watch from %d: saw %d events, the log has %d" %
                       (r["start"], len(seen), len(want)))


def inside(lat, lon):
    la1, lo1, la2, lo2 = map(math.radians, (CENTER[0], CENTER[1], lat, lon))
    a = (math.sin((la2 - la1) / 2) ** 2 +
         math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2)
    d = 2 * EARTH_M * math.asin(math.sqrt(a))
    if abs(d - RADIUS_M) < 1:
        return None  # too close to the boundary to judge here
    return d < RADIUS_M


def check_states(port, collection, log, latest):
    """latest: entity -> (lat, lon) of its stored latest point."""
    last = {}
    for o, e, k in log:
        if (k == ENTER) == (last.get(e) == ENTER):
            raise Lost("fence log: %s %s at offset %d twice in a row" %
                       (e, "ENTER" if k == ENTER else "EXIT", o))
        last[e] = k
    members = set(stub(port).GetFenceState(fpb.GetFenceStateRequest(
        collection=collection, name=FENCE)).inside)
    for e, (lat, lon) in latest.items():
        want = inside(lat, lon)
        if want is None:
            continue
        if (last.get(e) == ENTER) != want or (e in members) != want:
            raise Lost("fence: %s's latest point is %s, its last event %s, "
                       "GetFenceState %s" %
                       (e, "inside" if want else "outside", last.get(e),
                        e in members))


def check(port, collection, state, latest):
    """Returns how many events the log holds and how many of them the
    watchers saw since the last check; resets the rounds."""
    log = read_log(port, collection)
    rounds = state.get("fence_rounds", [])
    check_rounds(log, rounds)
    check_states(port, collection, log, latest)
    seen = [r["seen"][-1][0] for r in rounds if r["seen"]]
    if seen:
        state["fence_next"] = seen[-1] + 1
    state["fence_rounds"] = []
    return len(log), sum(len(r["seen"]) for r in rounds)
