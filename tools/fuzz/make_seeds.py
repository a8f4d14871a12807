#!/usr/bin/env python3
"""Writes the hand-made seed inputs of fuzz/corpus/<target>/seed-*.

Seeds are where libFuzzer starts: each is a small valid (or nearly valid)
input that reaches deep into its target, so mutations explore from there.
Inputs a fuzzer found later (crashes fixed, new coverage worth keeping) are
committed beside them under other names. Run from the repo root; gRPC's
binary seeds are encoded with protoc --encode from the text ones.
"""
import os
import struct
import subprocess

ROOT = "fuzz/corpus"


def write(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def resp(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a.encode() if isinstance(a, str) else a
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def parser_seeds():
    # byte 0: limits (0x3f: the largest), byte 1: chunk size.
    hdr = b"\x3f\x05"
    write("resp_parser_fuzz", "multibulk",
          hdr + resp("SET", "k", "v") + resp("GET", "k"))
    write("resp_parser_fuzz", "inline",
          hdr + b"GEOADD k 13.36 38.11 \"a b\\x41\" 'c\\'d'\r\nPING\n")
    write("resp_parser_fuzz", "empty-and-zero",
          hdr + b"\r\n*0\r\n*-1\r\n" + resp("PING"))
    write("resp_parser_fuzz", "bad-bulk", hdr + b"*1\r\n$x\r\n")
    write("resp_parser_fuzz", "small-limits",
          b"\x40\x01" + resp("AUTH", "a" * 20) + b"*20\r\n")
    write("resp_parser_fuzz", "unbalanced", hdr + b"SET \"k v\r\n")


def dispatch_seeds():
    seeds = {
        "geo": [("GEOADD", "fleet", "13.361389", "38.115556", "a",
                 "15.087269", "37.502669", "b"),
                ("GEOADD", "fleet", "XX", "CH", "13.4", "38.1", "a"),
                ("GEOPOS", "fleet", "a", "b", "zz"),
                ("GEODIST", "fleet", "a", "b", "km"),
                ("GEOHASH", "fleet", "a", "b"),
                ("GEOSEARCH", "fleet", "FROMLONLAT", "15", "37", "BYRADIUS",
                 "200", "km", "ASC", "COUNT", "2", "ANY", "WITHCOORD",
                 "WITHDIST", "WITHHASH"),
                ("GEOSEARCH", "fleet", "FROMMEMBER", "a", "BYBOX", "400",
                 "400", "km", "DESC"),
                ("GEOSEARCHSTORE", "dst", "fleet", "FROMLONLAT", "15", "37",
                 "BYRADIUS", "500", "km", "STOREDIST"),
                ("GEORADIUS", "fleet", "15", "37", "200", "km"),
                ("ZRANGE", "fleet", "0", "-1", "WITHSCORES"),
                ("ZSCORE", "fleet", "a"), ("ZCARD", "fleet"),
                ("ZREM", "fleet", "a")],
        "geo-pipeline": [("GEOADD", "p", "1", "2", "m%d" % i)
                         for i in range(5)] + [("GEOADD", "p", "1", "95", "x"),
                                               ("GEOADD", "p", "1", "2")],
        "strings": [("SET", "k", "v", "EX", "100", "GET"),
                    ("APPEND", "k", "more"), ("SETRANGE", "k", "3", "xyz"),
                    ("GETRANGE", "k", "-3", "-1"), ("INCR", "n"),
                    ("INCRBYFLOAT", "n", "1.5"), ("MSET", "a", "1", "b", "2"),
                    ("MGET", "a", "b", "c"), ("GETEX", "a", "PX", "50"),
                    ("GETDEL", "b"), ("SETNX", "a", "x"),
                    ("STRLEN", "k"), ("DECRBY", "n", "5")],
        "keys": [("SET", "k1", "v"), ("EXPIRE", "k1", "100", "NX"),
                 ("TTL", "k1"), ("PERSIST", "k1"), ("RENAME", "k1", "k2"),
                 ("COPY", "k2", "k3", "DB", "1", "REPLACE"),
                 ("MOVE", "k3", "2"), ("KEYS", "k*"),
                 ("SCAN", "0", "MATCH", "*", "COUNT", "10", "TYPE", "string"),
                 ("TYPE", "k2"), ("EXISTS", "k2", "k3"), ("DEL", "k2"),
                 ("DBSIZE",), ("FLUSHDB",)],
        "server": [("HELLO", "3"), ("PING",), ("ECHO", "x"),
                   ("CLIENT", "SETNAME", "fuzz"), ("CLIENT", "LIST"),
                   ("INFO", "keyspace"), ("COMMAND", "INFO", "get"),
                   ("CONFIG", "GET", "maxclients"), ("SELECT", "3"),
                   ("TIME",), ("DEBUG", "SLEEP", "0"), ("QUIT",)],
        "track-search": [("GEOADD", "t", "1", "2", "a"),
                         ("GEOADD", "t", "1.001", "2.001", "a"),
                         ("TRACK.SEARCH", "t", "FROMLONLAT", "1", "2",
                          "BYRADIUS", "5", "km", "PERENTITY"),
                         ("TRACK.SEARCH", "t", "BYBOUNDS", "0", "1", "2", "3",
                          "FROM", "0", "COUNT", "1"),
                         ("TRACK.SEARCH", "t", "BYPOLYGON", "3", "0", "0",
                          "3", "0", "0", "3", "CURSOR", "0")],
        "hashes": [("HSET", "h", "a", "1", "b", "2"), ("HGET", "h", "a"),
                   ("HINCRBY", "h", "a", "5"),
                   ("HINCRBYFLOAT", "h", "b", "0.5"), ("HGETALL", "h"),
                   ("HSCAN", "h", "0", "MATCH", "*", "COUNT", "5"),
                   ("HRANDFIELD", "h", "-3", "WITHVALUES"),
                   ("HDEL", "h", "a", "b"), ("EXISTS", "h")],
        "sets": [("SADD", "s1", "a", "b", "c"), ("SADD", "s2", "b", "d"),
                 ("SINTER", "s1", "s2"), ("SUNIONSTORE", "u", "s1", "s2"),
                 ("SDIFFSTORE", "s1", "s1", "s2"),
                 ("SINTERCARD", "2", "s1", "s2", "LIMIT", "1"),
                 ("SMOVE", "s1", "s2", "a"), ("SPOP", "s2", "2"),
                 ("SRANDMEMBER", "u", "-5"), ("SSCAN", "u", "0")],
        "zsets": [("ZADD", "z", "1", "a", "2", "b", "inf", "c"),
                  ("ZADD", "z", "GT", "CH", "INCR", "5", "a"),
                  ("ZRANGE", "z", "(1", "+inf", "BYSCORE", "LIMIT", "0", "2"),
                  ("ZRANGESTORE", "d", "z", "0", "-1"),
                  ("ZUNIONSTORE", "u", "2", "z", "d", "WEIGHTS", "1", "2",
                   "AGGREGATE", "MAX"),
                  ("ZPOPMIN", "z", "2"), ("ZREMRANGEBYRANK", "u", "0", "0"),
                  ("ZRANDMEMBER", "u", "2", "WITHSCORES"),
                  ("ZSCAN", "u", "0")],
        "lists": [("RPUSH", "l", "a", "b", "c"), ("LPUSH", "l", "z"),
                  ("LINSERT", "l", "BEFORE", "b", "x"), ("LREM", "l", "0", "a"),
                  ("LRANGE", "l", "0", "-1"), ("LPOS", "l", "b", "RANK", "-1"),
                  ("LMOVE", "l", "l2", "LEFT", "RIGHT"), ("LTRIM", "l", "1", "-1"),
                  ("BLPOP", "l", "l2", "0.01"), ("LSET", "l", "0", "q"),
                  ("RPOP", "l", "5")],
        "errors": [("GET",), ("NOPE", "x"), ("GEOADD", "k", "nan", "1", "m"),
                   ("SET", "k", "v", "EX", "-1"), ("EXPIRE", "k", "x"),
                   ("GEOSEARCH", "k", "BYRADIUS", "1", "m"),
                   ("ZRANGE", "k", "0")],
    }
    for name, calls in seeds.items():
        write("resp_dispatch_fuzz", name, b"".join(resp(*c) for c in calls))
    write("resp_dispatch_fuzz", "inline",
          b"SET a 1\r\nGEOADD g 1 2 m\r\nGEOSEARCH g FROMLONLAT 1 2 "
          b"BYRADIUS 10 km\r\n")


GRPC = [
    ("AddPoint", 0, 'collection: "fleet" point { entity_id: "car1" '
     'loc_time_ms: 1763700000000 latitude: 39.9 longitude: 116.4 '
     'speed_kmh: 40 direction: 90 attributes { key: "k" value: "v" } }'),
    ("AddPoints", 1, 'collection: "fleet" points { entity_id: "a" '
     'loc_time_ms: 1763700000000 latitude: 1 longitude: 2 } points { '
     'entity_id: "b" loc_time_ms: 1763700000001 latitude: 1.001 '
     'longitude: 2.001 } points { entity_id: "a" loc_time_ms: 1763699999999 '
     'latitude: 1.5 longitude: 2.5 }'),
    ("GetLatest", 2, 'collection: "fleet" entity_ids: "a" entity_ids: "zz"'),
    ("GetTrack", 3, 'collection: "fleet" entity_id: "a" start_time_ms: 0 '
     'page_size: 1 descending: true'),
    ("DeleteEntity", 4, 'collection: "fleet" entity_id: "b"'),
    ("SearchBounds", 5, 'collection: "fleet" south_west { latitude: 0 '
     'longitude: 1 } north_east { latitude: 2 longitude: 3 } filter { '
     'page_size: 1 }'),
    ("SearchRadius", 6, 'collection: "fleet" center { latitude: 1 '
     'longitude: 2 } radius_m: 1000 filter { entity_ids: "a" '
     'active_since_ms: 0 }'),
    ("SearchPolygon", 7, 'collection: "fleet" vertices { latitude: 0 '
     'longitude: 0 } vertices { latitude: 0 longitude: 5 } vertices { '
     'latitude: 5 longitude: 5 } vertices { latitude: 5 longitude: 0 }'),
    ("SearchHistory", 13, 'collection: "fleet" circle { center { latitude: 1 '
     'longitude: 2 } radius_m: 5000 } start_time_ms: 1 per_entity: true '
     'page_size: 2'),
]


def grpc_seeds():
    for rpc, index, text in GRPC:
        write("grpc_request_fuzz", rpc + "-text", bytes([0x80 | index]) + text.encode())
        binary = subprocess.run(
            ["protoc", "-Iproto", "--encode=trackdb.v1.%sRequest" % rpc,
             "proto/trackdb/v1/track_service.proto"],
            input=text.encode(), capture_output=True, check=True).stdout
        write("grpc_request_fuzz", rpc, bytes([index]) + binary)


def conf_seeds():
    with open("conf/trackdb.textproto", "rb") as f:
        write("conf_fuzz", "shipped", f.read())
    write("conf_fuzz", "small",
          'data_dir: "/tmp/x"\nstorage { memory_budget_mb: 64 '
          'durability: DURABILITY_WAL_SYNC }\nserver { resp_port: 0 }\n')
    write("conf_fuzz", "limits",
          "limits { max_batch_points: 5 max_radius_m: 100 }\n")


def import_seeds():
    # byte 0: format (0 csv, 1 tdrive, 2 geolife, 3 ndjson, 4 geojson;
    # 0x80: the timestamp and column parsers), byte 1: options.
    write("import_fuzz", "csv",
          b"\x00\x00entity_id,time,lat,lon,speed,attr.driver\n"
          b"car1,2025-11-21T05:20:00Z,39.9,116.4,30,\"ann, b\"\n"
          b"car2,1763700000,40,116,,x\nbad,row\n")
    write("import_fuzz", "tdrive",
          b"\x01\x00" b"1,2008-02-02 15:36:08,116.51172,39.92123\n"
          b"1,2008-02-02 15:46:08,116.51135,39.93883\n")
    write("import_fuzz", "geolife",
          b"\x02\x00" + b"Geolife trajectory\nWGS 84\nAltitude is in Feet\n"
          b"Reserved 3\n0,2,255,My Track,0,0,2,8421376\n0\n"
          b"39.984702,116.318417,0,492,39744.1201851852,2008-10-23,02:53:04\n"
          b"39.984683,116.31845,0,-777,39744.1202546296,2008-10-23,02:53:10\n")
    write("import_fuzz", "ndjson",
          b"\x03\x00" b'{"entity_id": "car7", "loc_time_ms": 1763700000000, '
          b'"latitude": 39.9, "longitude": 116.4, "speed_kmh": 42, '
          b'"attributes": {"driver": "ann", "seats": 4}}\n'
          b'{"entityId": 8, "locTimeMs": "1763700000001", "latitude": "1.5", '
          b'"longitude": 2, "speedKmh": null}\n{"bad": 1}\n')
    write("import_fuzz", "geojson",
          b"\x04\x40" b'{"type": "FeatureCollection", "features": [\n'
          b'{"type": "Feature", "id": "car1", "geometry": {"type": "Point", '
          b'"coordinates": [116.4, 39.9, 12]}, "properties": {"time": '
          b'"2025-11-21T05:20:00Z", "name": "n1", "speed_kmh": 30}},\n'
          b'{"type": "Feature", "geometry": {"type": "Point", "coordinates": '
          b'[1]}, "properties": {}}]}\n')
    write("import_fuzz", "timestamp", b"\x80\x04" b"2025-11-21 05:20:00+08:00")


def index_seeds():
    def dbl(v):  # FuzzInput.DoubleIn: a selector byte, then 4 bytes
        return b"\x01" + struct.pack(">I", int(v * 4294967295.0))
    def raw(v):  # a raw double: selector 0, then the 8 bytes
        return b"\x00" + struct.pack(">d", v)
    # geohash: lat in [-86, 86], lon in [-181, 181], step.
    write("index_fuzz", "geohash", b"\x00" + dbl(0.73) + dbl(0.54) + b"\x19")
    write("index_fuzz", "geohash-edge",
          b"\x00" + raw(85.05112878) + raw(-180.0) + b"\x19")
    write("index_fuzz", "rect", b"\x01" + dbl(0.5) + dbl(0.5) + dbl(0.51) +
          dbl(0.51) + b"\x0b" + bytes(range(40)))
    write("index_fuzz", "rect-antimeridian", b"\x01" + dbl(0.4) + dbl(0.99) +
          dbl(0.6) + dbl(0.01) + b"\x0b" + bytes(range(0, 80, 3)))
    write("index_fuzz", "circle", b"\x02" + dbl(0.7) + dbl(0.3) + dbl(0.5) +
          b"\x0b" + bytes(range(60)))
    write("index_fuzz", "polygon", b"\x03\x01" + dbl(0.5) + dbl(0.5) +
          dbl(0.5) + dbl(0.51) + dbl(0.51) + dbl(0.51) + dbl(0.51) +
          dbl(0.5) + b"\x0b" + bytes(range(40)))
    write("index_fuzz", "polygon-bowtie", b"\x03\x01" + dbl(0.5) + dbl(0.5) +
          dbl(0.51) + dbl(0.51) + dbl(0.5) + dbl(0.51) + dbl(0.51) +
          dbl(0.5) + b"\x0b")


def cluster_seeds():
    a, b, c = "a" * 40, "b" * 40, "c" * 40
    write("cluster_topology_fuzz", "three-shards",
          "%s 127.0.0.1 7000 master - 0-5460\n"
          "%s 127.0.0.1 7001 master - 5461-10922\n"
          "%s 127.0.0.1 7002 master - 10923-16383\n" % (a, b, c))
    write("cluster_topology_fuzz", "slave-and-singles",
          "%s h 1 master - 0-9 20 11\n%s h 2 slave %s\n" % (a, b, a))
    write("cluster_topology_fuzz", "overlap",
          "%s h 1 master - 0-10\n%s h 2 master - 10\n" % (a, b))
    write("cluster_topology_fuzz", "hash-tag-key", "foo{bar}{zap}")


if __name__ == "__main__":
    parser_seeds()
    dispatch_seeds()
    grpc_seeds()
    conf_seeds()
    import_seeds()
    index_seeds()
    cluster_seeds()
