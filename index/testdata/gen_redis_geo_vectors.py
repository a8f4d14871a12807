#!/usr/bin/env python3
"""Records Redis's own GEO replies as test vectors for index/redis_geo_*.

Starts a throwaway redis-server (no persistence) on a free local port,
GEOADDs a few thousand members (uniform over the globe plus tricky places:
the Mercator latitude limit, the antimeridian, the equator / prime meridian,
dense clusters with duplicate positions), runs GEOSEARCH BYRADIUS / BYBOX
queries (unsorted, ASC, DESC, COUNT n ANY; every unit), GEODIST and GEOPOS,
and writes the replies to redis_geo_vectors.txt beside this script.
index/redis_geo_vectors_test.cc replays them without redis-server.

Usage (needs Debian's redis-server, package redis-server, on PATH):
    python3 index/testdata/gen_redis_geo_vectors.py

File format, one record per line, fields separated by single spaces:
    # comment
    V <redis-server version>
    M <key> <member> <lon> <lat> <ZSCORE reply>
    P <key> <member> <GEOPOS lon> <GEOPOS lat>
    D <key> <member1> <member2> <unit> <GEODIST reply>
    Q <key> <GEOSEARCH arguments after the key ...>
    R <member> <dist> <hash> [<lon> <lat>]    one per reply entry, in order
    E <number of R lines>
Members never contain spaces. Coordinates and sizes are written exactly as
sent to Redis, so both sides parse the same doubles.
"""

import math
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                   "redis_geo_vectors.txt")
LAT_MAX = 85.05112878
UNIT_M = {"m": 1.0, "km": 1000.0, "ft": 0.3048, "mi": 1609.34}


class Resp:
    """A minimal RESP2 client: enough for GEO commands."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.buf = b""

    def send(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(out))

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise EOFError("redis closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise EOFError("redis closed the connection")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def read(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise RuntimeError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n).decode()
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise RuntimeError("unexpected reply %r" % line)

    def call(self, *args):
        self.send(*args)
        return self.read()

    def pipeline(self, commands):
        for c in commands:
            self.send(*c)
        return [self.read() for _ in commands]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis():
    exe = shutil.which("redis-server")
    if not exe:
        sys.exit("redis-server not found (apt-get install redis-server)")
    port = free_port()
    workdir = tempfile.mkdtemp(prefix="geo_vectors_")
    proc = subprocess.Popen(
        [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--daemonize", "no", "--dir", workdir],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            r = Resp(port)
            if r.call("PING") == "PONG":
                return proc, r, workdir
        except OSError:
            time.sleep(0.05)
    proc.kill()
    sys.exit("redis-server did not start")


def fmt(x):
    """Shortest round-trip text of a float (what both sides parse)."""
    s = repr(float(x))
    return s[:-2] if s.endswith(".0") else s


def offset(lon, lat, dist_m, bearing_deg):
    """A point dist_m from (lon, lat) at a bearing (spherical earth)."""
    r = 6372797.560856
    d = dist_m / r
    b = math.radians(bearing_deg)
    la1, lo1 = math.radians(lat), math.radians(lon)
    la2 = math.asin(math.sin(la1) * math.cos(d) +
                    math.cos(la1) * math.sin(d) * math.cos(b))
    lo2 = lo1 + math.atan2(math.sin(b) * math.sin(d) * math.cos(la1),
                           math.cos(d) - math.sin(la1) * math.sin(la2))
    lon2 = (math.degrees(lo2) + 540) % 360 - 180
    return lon2, max(-LAT_MAX, min(LAT_MAX, math.degrees(la2)))


def members(rng):
    """(name, lon text, lat text) of every member of key 'world'."""
    out = []

    def add(prefix, lon, lat):
        lon_s = lon if isinstance(lon, str) else fmt(lon)
        lat_s = lat if isinstance(lat, str) else fmt(lat)
        out.append(("%s%d" % (prefix, len(out)), lon_s, lat_s))

    for _ in range(1000):  # Uniform on the sphere, within Redis's latitudes.
        lat = math.degrees(math.asin(rng.uniform(-1, 1)))
        if abs(lat) <= LAT_MAX:
            add("u", rng.uniform(-180, 180), lat)
    for _ in range(200):  # Palermo, within 3 km.
        add("pa", *offset(13.361389, 38.115556, rng.uniform(0, 3000),
                          rng.uniform(0, 360)))
    for _ in range(12):  # Identical positions: ties in every sort.
        add("dup", "13.3614", "38.1156")
    lon0, lat0 = rng.uniform(-170, 170), rng.uniform(-70, 70)
    for _ in range(250):  # A fleet within 50 km of a random place.
        add("fl", *offset(lon0, lat0, 50000 * math.sqrt(rng.random()),
                          rng.uniform(0, 360)))
    fleet_dup = out[-1]
    for _ in range(10):  # Ties inside the fleet.
        add("dupf", fleet_dup[1], fleet_dup[2])
    for _ in range(80):  # Within 4 m of one point.
        add("ti", *offset(-73.985, 40.758, rng.uniform(0, 4),
                          rng.uniform(0, 360)))
    for sign in (1, -1):  # Near the Mercator limit.
        for _ in range(200):
            add("po", rng.uniform(-180, 180),
                sign * rng.uniform(83.5, LAT_MAX))
        for lon in ("0", "180", "-180", "90.5", "-33.25"):
            add("pe", lon, ("" if sign > 0 else "-") + "85.05112878")
    for _ in range(250):  # Around the antimeridian.
        lon = rng.uniform(178.5, 180) * rng.choice((1, -1))
        add("am", lon, rng.uniform(-60, 60))
    for lat in ("0", "10.5", "-45", "60.123456"):
        add("ae", "180", lat)
        add("ae", "-180", lat)
    for _ in range(200):  # The equator and the prime meridian.
        add("eq", rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2))
    for lon, lat in (("0", "0"), ("0", "0.0001"), ("-0.0001", "0"),
                     ("0.00001", "-0.00001")):
        add("ez", lon, lat)
    return out


def small_members():
    """Key 'small': a few members for extreme shapes."""
    pts = [("s0", "0", "0"), ("s1", "13.361389", "38.115556"),
           ("s2", "-122.4194", "37.7749"), ("s3", "151.2093", "-33.8688"),
           ("s4", "180", "0"), ("s5", "-180", "85.05112878"),
           ("s6", "179.99999", "-85.05112878"), ("s7", "-0.1276", "51.5072"),
           ("s8", "139.6917", "35.6895"), ("s9", "0", "-85"),
           ("s10", "100", "85"), ("s11", "-100", "-60")]
    return pts


# Members and radii where Redis's same-meridian shortcut in
# geohashGetDistance (R * |dlat|) and the full haversine differ in the last
# bit: the centre's longitude is the member's decoded one, and each radius is
# the full formula's (smaller) result, so Redis, which takes the shortcut,
# rejects the member. Found offline by a search over random points.
MERIDIAN = [
    ("-117.21943216261438", "-37.668564294306421", "-117.21942991018295",
     "-37.742006898774278", "8168.8499080220563"),
    ("35.720933556970095", "54.490572611685764", "35.72093278169632",
     "54.410684877440161", "8885.5947644227035"),
    ("52.717626860353789", "21.408569836030896", "52.717624604701996",
     "21.340454131784611", "7576.3298888256513"),
    ("74.48341167332191", "-39.712908564655955", "74.483412802219391",
     "-39.660902336618889", "5784.5964094553474"),
]


def meridian_members():
    return [("md%d" % i, m[0], m[1]) for i, m in enumerate(MERIDIAN)]


def meridian_queries():
    out = []
    for _, _, lon, lat, radius in MERIDIAN:
        for r in (radius, repr(float(radius) * (1 + 1e-15))):
            out.append(("meridian", ["FROMLONLAT", lon, lat, "BYRADIUS", r,
                                     "m", "WITHDIST", "WITHHASH"]))
    return out


def polar_members(rng):
    """Key 'polar': members at high latitudes, where Redis's search areas
    can miss members its distance test would accept."""
    out = []
    for i in range(600):
        lat = rng.uniform(55, LAT_MAX) * rng.choice((1, -1))
        out.append(("p%d" % i, fmt(rng.uniform(-180, 180)), fmt(lat)))
    return out


def haversine(lon1, lat1, lon2, lat2):
    r = 6372797.560856
    la1, la2 = math.radians(lat1), math.radians(lat2)
    u = math.sin((la2 - la1) / 2)
    v = math.sin((math.radians(lon2) - math.radians(lon1)) / 2)
    a = min(1.0, u * u + math.cos(la1) * math.cos(la2) * v * v)
    return 2 * r * math.asin(math.sqrt(a))


def accept_margin(shape, lon, lat):
    """How far (m) inside Redis's distance test a decoded position is;
    negative outside. Python's float maths, for choosing queries only."""
    clon, clat = shape["lon"], shape["lat"]
    if shape["kind"] == "radius":
        return shape["r"] - haversine(clon, clat, lon, lat)
    lat_d = 6372797.560856 * abs(math.radians(clat) - math.radians(lat))
    lon_d = haversine(lon, lat, clon, lat)
    return min(shape["h"] / 2 - lat_d, shape["w"] / 2 - lon_d)


def polar_queries(r, rng, pts):
    """Queries on 'polar' where Redis misses members that its distance test
    accepts (its pruning and step choice at work), and a few where it does
    not; found by trying random shapes against the live server."""
    names = [p[0] for p in pts]
    pos = dict(zip(names, (tuple(map(float, xy))
                           for xy in r.call("GEOPOS", "polar", *names))))
    missing, complete = [], []
    for _ in range(10000):
        if len(missing) >= 14 and len(complete) >= 6:
            break
        lat = rng.uniform(65, 85) * rng.choice((1, -1))
        shape = {"lon": rng.uniform(-180, 180), "lat": lat,
                 "kind": rng.choice(("radius", "box")),
                 "r": 10 ** rng.uniform(4.5, 6.3),
                 "w": 10 ** rng.uniform(4.5, 6.5),
                 "h": 10 ** rng.uniform(4.5, 6.5)}
        frm = ["FROMLONLAT", fmt(shape["lon"]), fmt(shape["lat"])]
        if shape["kind"] == "radius":
            shape["r"] = float(size_text(shape["r"]))
            by = ["BYRADIUS", fmt(shape["r"]), "m"]
        else:
            shape["w"] = float(size_text(shape["w"]))
            shape["h"] = float(size_text(shape["h"]))
            by = ["BYBOX", fmt(shape["w"]), fmt(shape["h"]), "m"]
        args = frm + by + ["WITHDIST", "WITHHASH"]
        got = {e[0] for e in r.call("GEOSEARCH", "polar", *args)}
        if len(got) > 150:
            continue
        ideal = {n for n in names if accept_margin(shape, *pos[n]) > 1}
        if ideal - got:
            if len(missing) < 14:
                missing.append(args)
        elif len(complete) < 6:
            complete.append(args)
    return [("polar", a) for a in missing + complete]


def count_queries(r, rng, world):
    """COUNT n without ANY: Redis sorts partially (pqsort, not stable). The
    cut is put inside runs of members at one position (equal distances), so
    which of them make the cut is recorded too."""
    dup = next(n for n, _, _ in world if n.startswith("dup"))
    fdup = next(n for n, _, _ in world if n.startswith("dupf"))
    _, flon, flat = next(p for p in world if p[0].startswith("fl"))
    shapes = [
        (["FROMLONLAT", "13.361389", "38.115556"], ["BYRADIUS", "2", "km"]),
        (["FROMLONLAT", "13.3", "38.2"], ["BYBOX", "16", "20", "km"]),
        (["FROMMEMBER", dup], ["BYRADIUS", "100", "m"]),
        (["FROMLONLAT", flon, flat], ["BYRADIUS", "20", "km"]),
        (["FROMMEMBER", fdup], ["BYBOX", "40", "30", "km"]),
    ]
    out = []
    for frm, by in shapes:
        for sort in ("ASC", "DESC"):
            full = r.call("GEOSEARCH", "world", *(frm + by),
                          "WITHDIST", "WITHHASH", sort)
            cuts = set()
            i = 0
            while i < len(full):
                j = i
                while j + 1 < len(full) and full[j + 1][2] == full[i][2]:
                    j += 1
                if j > i:
                    cuts.add(i + (j - i + 1) // 2)
                i = j + 1
            if len(full) > 1:
                cuts.add(rng.randint(1, len(full) - 1))
            for c in sorted(cuts)[:3]:
                tail = [] if sort == "ASC" and c % 2 else [sort]
                out.append(("world", frm + by + ["WITHDIST", "WITHHASH",
                                                 "COUNT", str(c)] + tail))
    return out


def unit_variants(rng, meters):
    """The size in a random unit, spelled in a random case."""
    unit = rng.choice(list(UNIT_M))
    spelled = "".join(c.upper() if rng.random() < 0.3 else c for c in unit)
    return meters / UNIT_M[unit], spelled


def size_text(x):
    return fmt(float("%.6g" % x)) if x >= 1e-3 else fmt(x)


def queries(rng, world):
    """(key, [GEOSEARCH arguments after the key]) for every query."""
    qs = []

    def both(key, frm, by, extra_sorts=(), coord=False, any_counts=()):
        tail = ["WITHDIST", "WITHHASH"] + (["WITHCOORD"] if coord else [])
        qs.append((key, frm + by + tail))
        qs.append((key, frm + by + tail + ["ASC"]))
        for s in extra_sorts:
            qs.append((key, frm + by + tail + [s]))
        for n in any_counts:
            qs.append((key, frm + by + tail + ["COUNT", str(n), "ANY"]))

    def radius(lon, lat, meters, **kw):
        r, unit = unit_variants(rng, meters)
        both("world", ["FROMLONLAT", lon, lat],
             ["BYRADIUS", size_text(r), unit], **kw)

    def box(lon, lat, w_m, h_m, **kw):
        unit = rng.choice(list(UNIT_M))
        w, h = w_m / UNIT_M[unit], h_m / UNIT_M[unit]
        both("world", ["FROMLONLAT", lon, lat],
             ["BYBOX", size_text(w), size_text(h), unit], **kw)

    # Dense clusters, from 1 m to 200 km.
    for m in (1, 2, 5, 50, 500, 2000, 20000, 200000):
        radius("13.361389", "38.115556", m, coord=(m == 500),
               extra_sorts=("DESC",) if m == 2000 else ())
    radius("13.3614", "38.1156", 0)  # Not the duplicates' decoded position.
    dup = next(n for n, _, _ in world if n.startswith("dup"))
    both("world", ["FROMMEMBER", dup], ["BYRADIUS", "0", "m"])
    both("world", ["FROMMEMBER", dup], ["BYBOX", "0", "0", "m"])
    # The fleet, from a member near its middle.
    _, flon, flat = next(p for p in world if p[0].startswith("fl"))
    for m in (1000, 10000, 30000):
        radius(flon, flat, m, extra_sorts=("DESC",) if m == 10000 else ())
    box(flon, flat, 20000, 5000, any_counts=(6,))
    box(flon, flat, 3000, 40000, coord=True)
    radius("13.3614", "38.1156", 1, any_counts=(3,))
    for m in (0.5, 1, 2, 3, 5):
        radius("-73.985", "40.758", m, coord=(m == 2))
    for w, h in ((2, 2), (1, 4), (6, 1), (3, 3)):
        box("-73.985", "40.758", w, h)
    for w, h in ((3, 3), (100, 2000), (2000, 50), (6000, 6000)):
        box("13.361389", "38.115556", w, h, coord=(w == 100),
            any_counts=(5,) if w == 2000 else ())
    # The Mercator limit.
    for lat in ("85.05112878", "-85.05112878", "84.9", "-84.5", "85", "-80.5"):
        lon = fmt(rng.uniform(-180, 180))
        for m in (10000, 100000, 1000000):
            radius(lon, lat, m)
        box(lon, lat, 500000, 50000)
        box(lon, lat, 50000, 500000, coord=True)
    radius("180", "85.05112878", 100000)
    radius("-180", "-85.05112878", 300000)
    # The antimeridian.
    for lon, lat in (("179.999", "0"), ("-180", "10.5"), ("180", "-20"),
                     ("-179.5", "45")):
        for m in (50000, 500000):
            radius(lon, lat, m, coord=(m == 50000))
        box(lon, lat, 1000000, 10000)
        box(lon, lat, 10000, 1000000)
    # The equator and prime meridian.
    for m in (1, 100, 1000, 10000, 1000000):
        radius("0", "0", m, coord=(m == 1000))
    box("0", "0", 20000, 20000, extra_sorts=("DESC",))
    box("0.05", "-0.05", 30000, 5000)
    # Random sizes (1 m to 5000 km) around random members, so that members
    # fall on both sides of the edge.
    def near_member(size_m):
        _, lon, lat = rng.choice(world)
        lon2, lat2 = offset(float(lon), float(lat),
                            rng.uniform(0, 0.7) * size_m, rng.uniform(0, 360))
        return fmt(lon2), fmt(lat2)

    for i in range(60):
        m = 10 ** rng.uniform(0, 6.7)
        radius(*near_member(m), m, any_counts=(4,) if i % 10 == 0 else ())
    for i in range(60):
        w = 10 ** rng.uniform(0, 6.7)
        h = 10 ** rng.uniform(0, 6.7)
        box(*near_member(max(w, h) / 2), w, h, coord=(i % 8 == 0))
    # Wide and tall boxes, very large radii.
    box("20", "50", 4000000, 20000)
    box("-60", "-10", 20000, 4000000)
    box("100", "70", 6000000, 100000)
    for lon, lat in (("10", "45"), ("-120", "-30"), ("170", "60")):
        radius(lon, lat, 5000000)
    # FROMMEMBER: the centre is the member's decoded position.
    for name in (world[0][0], world[500][0], world[-1][0]):
        both("world", ["FROMMEMBER", name], ["BYRADIUS", "300", "km"])
        both("world", ["FROMMEMBER", name], ["BYBOX", "400", "200", "km"])
    # Extremes on the small key.
    for args in (["BYRADIUS", "0", "m"], ["BYRADIUS", "inf", "m"],
                 ["BYRADIUS", "20000", "km"], ["BYRADIUS", "12000", "mi"],
                 ["BYBOX", "0", "0", "m"], ["BYBOX", "40000", "20000", "km"],
                 ["BYBOX", "inf", "1", "m"], ["BYBOX", "1", "inf", "km"]):
        for frm in (["FROMLONLAT", "0", "0"], ["FROMLONLAT", "180", "0"],
                    ["FROMLONLAT", "-180", "85.05112878"],
                    ["FROMLONLAT", "100", "-85"]):
            qs.append(("small", frm + args + ["WITHDIST", "WITHHASH",
                                              "WITHCOORD"]))
    return qs


def main():
    rng = random.Random(20240607)
    proc, r, workdir = start_redis()
    try:
        lines = ["# Generated by gen_redis_geo_vectors.py from a real "
                 "redis-server; do not edit.",
                 "V " + r.call("INFO", "server").split("redis_version:")[1]
                 .split()[0]]
        world = members(rng)
        polar = polar_members(rng)
        for key, pts in (("world", world), ("small", small_members()),
                         ("polar", polar), ("meridian", meridian_members())):
            r.pipeline([["GEOADD", key, lon, lat, name]
                        for name, lon, lat in pts])
            scores = r.pipeline([["ZSCORE", key, name] for name, _, _ in pts])
            for (name, lon, lat), score in zip(pts, scores):
                lines.append("M %s %s %s %s %s" % (key, name, lon, lat, score))
        # GEOPOS for every small member and every 20th world member.
        for key, pts in (("world", world[::20]), ("small", small_members())):
            names = [p[0] for p in pts]
            for name, pos in zip(names, r.call("GEOPOS", key, *names)):
                lines.append("P %s %s %s %s" % (key, name, pos[0], pos[1]))
        # GEODIST between random pairs, in every unit.
        for i in range(300):
            a, b = rng.choice(world)[0], rng.choice(world)[0]
            unit = rng.choice(["m", "km", "ft", "mi", "KM", "Mi"])
            lines.append("D world %s %s %s %s" %
                         (a, b, unit, r.call("GEODIST", "world", a, b, unit)))
        all_queries = (queries(rng, world) + count_queries(r, rng, world) +
                       polar_queries(r, rng, polar) + meridian_queries())
        for key, args in all_queries:
            reply = r.call("GEOSEARCH", key, *args)
            lines.append("Q %s %s" % (key, " ".join(args)))
            for entry in reply:
                fields = [entry[0], entry[1], str(entry[2])]
                if len(entry) > 3:
                    fields += entry[3]
                lines.append("R " + " ".join(fields))
            lines.append("E %d" % len(reply))
    finally:
        try:
            r.call("SHUTDOWN", "NOSAVE")
        except (EOFError, OSError):
            pass  # The server closes the connection as it exits.
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(workdir, ignore_errors=True)
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %s: %d lines, %d bytes" %
          (OUT, len(lines), os.path.getsize(OUT)))


if __name__ == "__main__":
    main()
