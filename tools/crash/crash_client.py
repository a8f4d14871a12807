#!/usr/bin/env python3
"""The client of the crash test (crash_run.sh): writes on both doors while
trackd is killed, then checks what survived.

  write STATE GRPC_PORT RESP_PORT PID ROUND: two gRPC writers (AddPoints
      batches of moving entities, some points older than the entity's
      newest) and four RESP writers (GEOADD, SET, DEL, SET PX / PEXPIRE with
      short TTLs, EXPIRE, GEO keys COPYed or RENAMEd) pipeline their writes,
      recording what they sent and each reply as it arrives; PID (trackd) is
      SIGKILLed at a random moment and STATE saves what was sent and what
      was acknowledged.
  check STATE GRPC_PORT RESP_PORT: after a restart, everything acknowledged
      is there and nothing is half done; STATE is rewritten with what was
      read back, so that the next round starts from a known state.

The RESP model: every write belongs to one "object" (a key, a GEO member,
or a source/destination pair of a COPY or RENAME), whose writes are all
sent on one connection, so trackd runs them in order. An object keeps the
list of its states (state 0 known, state i after its i-th write) and how
many writes were acknowledged: after a kill, the object must read back as
one of the states from the last acknowledged one on (an unacknowledged write
may or may not have landed, but a later one never lands without the earlier
ones). Keys whose TTL elapsed read back as absent.

gRPC: each entity keeps every point sent (loc_time -> position) and which
were acknowledged. After a restart its stored history (GetTrack) holds every
acknowledged point and nothing never sent; GetLatest is the history's newest
point; SearchRadius around it finds the entity, and a whole-world
SearchBounds returns each entity once, at that position.

Fences (crash_fences.py): a fence on the gRPC collection, watched while
trackd is killed; its event log, a resumed Watch and the fence states are
checked against what the writers and the watcher saw.
"""
import json
import os
import random
import signal
import socket
import sys
import threading
import time

import grpc

import crash_fences
from trackdb.v1 import track_service_pb2 as pb
from trackdb.v1 import track_service_pb2_grpc as pb_grpc

GRPC_COLLECTION = "gfleet"
GRPC_WRITERS = 2
ENTITIES_PER_WRITER = 20
RESP_WRITERS = 4
STEP = 0.001  # degrees east per step of a RESP member


class Lost(Exception):
    pass


# --- RESP wire -------------------------------------------------------------

def encode(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


class RespReader:
    def __init__(self, sock):
        self.f = sock.makefile("rb")

    def read(self):
        line = self.f.readline()
        if not line:
            raise ConnectionResetError("closed")
        line = line.rstrip(b"\r\n")
        t, rest = line[:1], line[1:]
        if t == b"$":
            n = int(rest)
            return None if n < 0 else self.f.read(n + 2)[:-2].decode()
        if t == b"*":
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        if t == b"-":
            raise RuntimeError("error reply: %r" % line)
        return rest.decode()


def pipelined(sock, reader, commands):
    replies = []
    for i in range(0, len(commands), 1000):
        chunk = commands[i:i + 1000]
        sock.sendall(b"".join(encode(*c) for c in chunk))
        replies += [reader.read() for _ in chunk]
    return replies


# --- state -----------------------------------------------------------------

def empty_state():
    # objects: id -> {"keys": [[kind, name], ...], "states": [[value per
    #   key], ...], "acked": index of the last acknowledged state,
    #   "deadline": wall time after which TTLs sent have elapsed}
    # entities: id -> {"sent": {loc_time: [lat, lon]}, "acked": [loc_time]}
    return {"objects": {}, "entities": {}, "checked_writes": 0}


class RespWriter:
    """One RESP connection's writes; each command extends one object."""

    def __init__(self, state, lock, client, rnd):
        self.state, self.lock, self.client = state, lock, client
        self.rng = random.Random(rnd * 1000 + client)
        self.prefix = "c%d:r%d:" % (client, rnd)
        self.seq = 0
        mine = "c%d:" % client
        self.members, self.strings = [], []
        for oid, obj in state["objects"].items():
            if not oid.startswith(mine) or obj["states"][-1][0] is None:
                continue
            kind = obj["keys"][0][0]
            if kind == "member":
                self.members.append(oid)
            elif kind == "str" and not obj.get("ttl"):
                self.strings.append(oid)

    def new_object(self, keys, first):
        self.seq += 1
        oid = self.prefix + str(self.seq)
        obj = {"keys": keys, "states": [first], "acked": 0}
        with self.lock:
            self.state["objects"][oid] = obj
        return oid, obj

    def extend(self, obj, after, ttl_ms=None):
        with self.lock:
            obj["states"].append(after)
            if ttl_ms is not None:
                obj["ttl"] = True
                obj["deadline"] = time.time() + ttl_ms / 1000.0
        return obj

    def geo_member(self):
        if self.rng.random() < 0.3 or not self.members:
            oid, obj = self.new_object([["member", None]], [None])
            obj["keys"][0][1] = oid
            self.members.append(oid)
            step = 0
        else:
            oid = self.rng.choice(self.members)
            obj = self.state["objects"][oid]
            step = obj["states"][-1][0] + 1 + self.rng.randint(0, 2)
        lon = 116.0 + step * STEP
        return [(("GEOADD", "fleet", lon, 39.9, oid), self.extend(obj, [step]))]

    def string_write(self):
        r = self.rng.random()
        live = self.strings
        if r < 0.5 or not live:
            oid, obj = self.new_object([["str", None]], [None])
            obj["keys"][0][1] = oid
            value = "v" + oid
            if r < 0.1:  # a short TTL: must read back absent
                ttl = self.rng.randint(20, 300)
                return [(("SET", oid, value, "PX", ttl),
                         self.extend(obj, [None], ttl))]
            live.append(oid)
            return [(("SET", oid, value), self.extend(obj, [value]))]
        oid = live.pop(self.rng.randrange(len(live)))
        obj = self.state["objects"][oid]
        value = obj["states"][-1][0]
        if r < 0.7:
            return [(("DEL", oid), self.extend(obj, [None]))]
        if r < 0.85:
            ttl = self.rng.randint(20, 300)
            return [(("PEXPIRE", oid, ttl), self.extend(obj, [None], ttl))]
        live.append(oid)  # a long TTL keeps the value
        return [(("EXPIRE", oid, 100000), self.extend(obj, [value]))]

    def collection_op(self):
        # A GEO key of a few members, then COPYed or RENAMEd whole.
        self.seq += 1
        src = "geo:%s%d" % (self.prefix, self.seq)
        dst = src + ":dst"
        n = self.rng.randint(1, 5)
        members = sorted("m%d" % i for i in range(n))
        args = ["GEOADD", src]
        for i, m in enumerate(members):
            args += [117.0 + i * STEP, 40.0, m]
        oid, obj = self.new_object([["geo", src], ["geo", dst]], [None, None])
        cmds = [(tuple(args), self.extend(obj, [members, None]))]
        if self.rng.random() < 0.5:
            cmds.append((("RENAME", src, dst), self.extend(obj, [None, members])))
        else:
            cmds.append((("COPY", src, dst), self.extend(obj, [members, members])))
        return cmds

    def batch(self):
        cmds = []
        for _ in range(self.rng.randint(1, 100)):
            r = self.rng.random()
            if r < 0.45:
                cmds += self.geo_member()
            elif r < 0.95:
                cmds += self.string_write()
            else:
                cmds += self.collection_op()
        return cmds

    def run(self, port):
        try:
            sock = socket.create_connection(("127.0.0.1", port))
            reader = RespReader(sock)
            while True:
                cmds = self.batch()
                sock.sendall(b"".join(encode(*c) for c, _ in cmds))
                for _, obj in cmds:
                    reader.read()
                    with self.lock:  # acknowledged: it must survive
                        obj["acked"] += 1
        except (ConnectionError, OSError):
            return


class GrpcWriter:
    """AddPoints batches over this writer's entities."""

    def __init__(self, state, lock, client, rnd):
        self.state, self.lock = state, lock
        self.rng = random.Random(rnd * 1000 + 500 + client)
        self.ids = ["g%d:%d" % (client, i) for i in range(ENTITIES_PER_WRITER)]
        with lock:
            for e in self.ids:
                state["entities"].setdefault(e, {"sent": {}, "acked": []})
        self.newest = {e: max((int(t) for t in state["entities"][e]["sent"]),
                              default=1_700_000_000_000) for e in self.ids}

    def point(self, e):
        ent = self.state["entities"][e]
        sent = ent["sent"]
        newest = self.newest[e]
        if sent and self.rng.random() < 0.2:  # older than the newest
            t = newest - self.rng.randint(1, 100000)
            while str(t) in sent:
                t -= 1
        else:
            t = self.newest[e] = newest + self.rng.randint(1, 5000)
        lat = self.rng.uniform(30.0, 31.0)
        lon = self.rng.uniform(120.0, 121.0)
        with self.lock:
            sent[str(t)] = [lat, lon]
        return t, lat, lon

    def run(self, port):
        stub = pb_grpc.TrackServiceStub(
            grpc.insecure_channel("127.0.0.1:%d" % port))
        while True:
            req = pb.AddPointsRequest(collection=GRPC_COLLECTION)
            times = []
            for _ in range(self.rng.randint(1, 50)):
                e = self.rng.choice(self.ids)
                t, lat, lon = self.point(e)
                times.append((e, t))
                req.points.add(entity_id=e, loc_time_ms=t, latitude=lat,
                               longitude=lon)
            try:
                stub.AddPoints(req, timeout=10)
            except grpc.RpcError as err:
                if err.code() in (grpc.StatusCode.UNAVAILABLE,
                                  grpc.StatusCode.DEADLINE_EXCEEDED):
                    return
                print("AddPoints failed:", err, file=sys.stderr)
                os._exit(1)
            with self.lock:
                for e, t in times:
                    self.state["entities"][e]["acked"].append(str(t))


def write(state_path, grpc_port, resp_port, pid, rnd):
    state = empty_state()
    if os.path.exists(state_path):
        state = json.load(open(state_path))
    lock = threading.Lock()
    crash_fences.ensure_fence(grpc_port, GRPC_COLLECTION)
    writers = [RespWriter(state, lock, c, rnd).run for c in range(RESP_WRITERS)]
    ports = [resp_port] * RESP_WRITERS
    writers += [GrpcWriter(state, lock, c, rnd).run for c in range(GRPC_WRITERS)]
    ports += [grpc_port] * GRPC_WRITERS
    writers.append(
        crash_fences.Watcher(state, lock, grpc_port, GRPC_COLLECTION).run)
    ports.append(grpc_port)
    threads = [threading.Thread(target=w, args=(p,), daemon=True)
               for w, p in zip(writers, ports)]
    for t in threads:
        t.start()
    time.sleep(random.Random(rnd).uniform(0.5, 2.0))
    with lock:
        os.kill(pid, signal.SIGKILL)
        snapshot = json.loads(json.dumps(state))
    for t in threads:
        t.join(10)
    json.dump(snapshot, open(state_path, "w"))


# --- checks ----------------------------------------------------------------

def read_resp_objects(sock, reader, objects):
    """Each object's keys as read back: member step, string, GEO members."""
    cmds, where = [], []
    for oid, obj in objects.items():
        for i, (kind, name) in enumerate(obj["keys"]):
            if kind == "member":
                cmds.append(("GEOPOS", "fleet", name))
            elif kind == "str":
                cmds.append(("GET", name))
            else:
                cmds.append(("ZRANGE", name, 0, -1))
            where.append((oid, i, kind))
    observed = {oid: [None] * len(obj["keys"]) for oid, obj in objects.items()}
    for (oid, i, kind), reply in zip(where, pipelined(sock, reader, cmds)):
        if kind == "member":
            pos = reply[0]
            reply = None if pos is None else round(
                (float(pos[0]) - 116.0) / STEP)
        elif kind == "geo":
            reply = sorted(reply) or None
        observed[oid][i] = reply
    return observed


def check_fleet_index(sock, reader, objects, observed):
    """The GEO index holds each live member once, where GEOPOS says."""
    live = {oid: o[0] for oid, o in observed.items()
            if objects[oid]["keys"][0][0] == "member" and o[0] is not None}
    everything = pipelined(sock, reader, [(
        "GEOSEARCH", "fleet", "FROMLONLAT", 0, 0, "BYRADIUS", 21000, "km")])[0]
    if len(everything) != len(set(everything)):
        raise Lost("a member twice in a whole-world GEOSEARCH")
    if set(everything) != set(live):
        raise Lost("whole-world GEOSEARCH: %d members, %d expected" %
                   (len(everything), len(live)))
    members = sorted(live)
    found = pipelined(sock, reader, [
        ("GEOSEARCH", "fleet", "FROMLONLAT", 116.0 + live[m] * STEP, 39.9,
         "BYRADIUS", 5, "m") for m in members])
    for m, hits in zip(members, found):
        if m not in hits:
            raise Lost("GEOSEARCH around %s's position misses it" % m)


def check_resp(port, state):
    deadline = max([o.get("deadline", 0) for o in state["objects"].values()],
                   default=0)
    time.sleep(max(0, deadline + 0.2 - time.time()))  # TTLs sent elapse
    sock = socket.create_connection(("127.0.0.1", port))
    reader = RespReader(sock)
    objects = state["objects"]
    observed = read_resp_objects(sock, reader, objects)
    acked = 0
    for oid, obj in objects.items():
        allowed = obj["states"][obj["acked"]:]
        acked += obj["acked"]
        if observed[oid] not in allowed:
            raise Lost("%s: read %r, allowed %r (acknowledged %r)" %
                       (oid, observed[oid], allowed,
                        obj["states"][obj["acked"]]))
        obj["states"], obj["acked"] = [observed[oid]], 0
        obj.pop("deadline", None)
    check_fleet_index(sock, reader, objects, observed)
    return acked


def stored_track(stub, e):
    points, token = {}, ""
    while True:
        r = stub.GetTrack(pb.GetTrackRequest(
            collection=GRPC_COLLECTION, entity_id=e, page_size=1000,
            page_token=token))
        for p in r.points:
            points[str(p.loc_time_ms)] = [p.latitude, p.longitude]
        token = r.next_page_token
        if not token:
            return points


def whole_world(stub):
    ids, token = [], ""
    while True:
        r = stub.SearchBounds(pb.SearchBoundsRequest(
            collection=GRPC_COLLECTION,
            south_west=pb.LatLng(latitude=-90, longitude=-180),
            north_east=pb.LatLng(latitude=90, longitude=180),
            filter=pb.SearchFilter(page_size=1000, page_token=token,
                                   ids_and_positions_only=True)))
        ids += [(h.point.entity_id, h.point.latitude, h.point.longitude)
                for h in r.hits]
        token = r.next_page_token
        if not token:
            return ids


def check_entity(stub, e, ent):
    stored = stored_track(stub, e)
    for t in ent["acked"]:
        if stored.get(t) != ent["sent"][t]:
            raise Lost("%s: acknowledged point %s: %r, sent %r" %
                       (e, t, stored.get(t), ent["sent"][t]))
    for t, pos in stored.items():
        if ent["sent"].get(t) != pos:
            raise Lost("%s: point %s never sent as %r" % (e, t, pos))
    if not stored:
        return None
    newest = max(stored, key=int)
    r = stub.GetLatest(pb.GetLatestRequest(collection=GRPC_COLLECTION,
                                           entity_ids=[e]))
    got = [(str(p.loc_time_ms), [p.latitude, p.longitude]) for p in r.points]
    if got != [(newest, stored[newest])]:
        raise Lost("%s: GetLatest %r, newest of history %r" %
                   (e, got, (newest, stored[newest])))
    lat, lon = stored[newest]
    hits = stub.SearchRadius(pb.SearchRadiusRequest(
        collection=GRPC_COLLECTION, center=pb.LatLng(latitude=lat,
                                                     longitude=lon),
        radius_m=5, filter=pb.SearchFilter(page_size=1000))).hits
    if e not in [h.point.entity_id for h in hits]:
        raise Lost("%s: SearchRadius around its latest misses it" % e)
    return (e, lat, lon)


def check_grpc(port, state):
    stub = pb_grpc.TrackServiceStub(
        grpc.insecure_channel("127.0.0.1:%d" % port))
    expected, acked = [], 0
    for e, ent in sorted(state["entities"].items()):
        latest = check_entity(stub, e, ent)
        if latest:
            expected.append(latest)
        # Points acknowledged since the last check (older ones are checked
        # again, not counted again).
        acked += len(ent["acked"]) - ent.get("counted", 0)
        # What is stored is now known: the next round starts from it.
        ent["sent"] = stored_track(stub, e)
        ent["acked"] = list(ent["sent"])
        ent["counted"] = len(ent["acked"])
    world = whole_world(stub)
    if sorted(world) != expected:
        raise Lost("whole-world SearchBounds: %d hits, %d entities expected "
                   "(or at other positions)" % (len(world), len(expected)))
    return acked, {e: (lat, lon) for e, lat, lon in expected}


def check(state_path, grpc_port, resp_port):
    state = json.load(open(state_path))
    try:
        resp_acked = check_resp(resp_port, state)
        grpc_acked, latest = check_grpc(grpc_port, state)
        events, watched = crash_fences.check(grpc_port, GRPC_COLLECTION,
                                             state, latest)
    except (Lost, crash_fences.Lost) as lost:
        print("LOST:", lost)
        sys.exit(1)
    json.dump(state, open(state_path, "w"))
    print("checked %d acknowledged RESP writes, %d acknowledged gRPC points, "
          "%d fence events (%d watched before the kill)" %
          (resp_acked, grpc_acked, events, watched))


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2], *map(int, sys.argv[3:7]))
    else:
        check(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
