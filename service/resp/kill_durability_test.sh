#!/usr/bin/env bash
# Nothing acknowledged is lost when trackd is killed (-9) in the middle of
# pipelined writes: four clients pipeline GEOADDs (new members and moves of
# their own members, one step east per move) and SETs, recording each reply
# as it arrives; trackd is killed at a random moment, restarted on the same
# data dir, and every acknowledged write must be there: each acknowledged
# SET (each of a new key) with its value, each acknowledged member at its
# last acknowledged step or a later one (a write whose reply was lost may
# land). Three kills per
# durability mode: DURABILITY_WAL_SYNC (fsync before the reply) and the
# default DURABILITY_WAL (written to the OS before the reply, which a
# process kill cannot lose).
set -u
trackd="$PWD/service/trackd"
conf="$PWD/conf/trackdb.textproto"
work="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; exit 1; }
pid=""
trap '[ -n "$pid" ] && kill -9 $pid 2>/dev/null; wait 2>/dev/null' EXIT

start() {  # start CONF DATA: starts trackd, sets pid and port
  "$trackd" --config="$1" --data_dir="$2" --grpc_port=0 --resp_port=0 \
    2>"$work/trackd.log" &
  pid=$!
  for _ in $(seq 1 200); do grep -q ready "$work/trackd.log" && break; sleep 0.1; done
  port=$(sed -n 's/.*serving the Redis protocol on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/trackd.log")
  [ -n "$port" ] || { cat "$work/trackd.log"; fail "trackd did not start"; }
}

for mode in DURABILITY_WAL_SYNC DURABILITY_WAL; do
  sed "s/durability: DURABILITY_WAL\b/durability: $mode/" "$conf" >"$work/$mode.textproto"
  grep -q "durability: $mode" "$work/$mode.textproto" || fail "could not set $mode"
  data="$work/data-$mode"
  rm -rf "$data" "$work/acked-$mode"
  for round in 1 2 3; do
    start "$work/$mode.textproto" "$data"
    python3 - "$port" "$pid" "$round" "$work/acked-$mode" <<'PY' || fail "$mode round $round: writer"
import json, os, random, signal, socket, sys, threading, time

port, pid, rnd, state_path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
# Acknowledged so far (earlier rounds included): member -> step, key -> value.
state = {"members": {}, "strings": {}}
if os.path.exists(state_path):
    state = json.load(open(state_path))
lock = threading.Lock()

def cmd(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out

def lon_of(step):
    return 116.0 + step * 0.001

def writer(client):
    rng = random.Random(rnd * 100 + client)
    sock = socket.create_connection(("127.0.0.1", port))
    buf = b""
    seq = 0
    mine = [m for m in state["members"] if m.startswith("c%d:" % client)]
    # Steps sent per member: each move goes further east than the last.
    sent = {m: state["members"][m] for m in mine}
    try:
        while True:
            batch, expect = [], []
            for _ in range(rng.randint(1, 200)):
                seq += 1
                r = rng.random()
                if r < 0.4 or not mine:
                    m = "c%d:r%d:%d" % (client, rnd, seq)
                    mine.append(m)
                    step = sent[m] = 0
                    batch.append(cmd("GEOADD", "fleet", lon_of(step), 39.9, m))
                    expect.append(("m", m, step))
                elif r < 0.7:
                    m = rng.choice(mine)
                    step = sent[m] = sent[m] + 1 + rng.randint(0, 2)
                    batch.append(cmd("GEOADD", "fleet", lon_of(step), 39.9, m))
                    expect.append(("m", m, step))
                else:
                    k, v = "k:%d:%d:%d" % (client, rnd, seq), "v%d" % seq
                    batch.append(cmd("SET", k, v))
                    expect.append(("s", k, v))
            sock.sendall(b"".join(batch))
            for kind, name, value in expect:
                while b"\r\n" not in buf:
                    chunk = sock.recv(65536)
                    if not chunk:
                        return
                    buf += chunk
                line, buf = buf.split(b"\r\n", 1)
                if line.startswith(b"-"):
                    print("error reply:", line, file=sys.stderr)
                    os._exit(1)
                with lock:  # acknowledged: it must survive
                    if kind == "m":
                        # Replies come in order: this step is the newest.
                        state["members"][name] = value
                    else:
                        state["strings"][name] = value
    except (ConnectionResetError, BrokenPipeError, OSError):
        return

threads = [threading.Thread(target=writer, args=(c,), daemon=True) for c in range(4)]
for t in threads:
    t.start()
time.sleep(random.Random(rnd).uniform(0.5, 2.0))
with lock:
    os.kill(pid, signal.SIGKILL)
    snapshot = json.loads(json.dumps(state))
for t in threads:
    t.join(5)
json.dump(snapshot, open(state_path, "w"))
print("round %d: %d members, %d strings acknowledged" %
      (rnd, len(snapshot["members"]), len(snapshot["strings"])))
PY
    wait "$pid" 2>/dev/null
    pid=""
    start "$work/$mode.textproto" "$data"
    python3 - "$port" "$work/acked-$mode" <<'PY' || fail "$mode round $round: acknowledged writes lost"
import json, socket, sys
port, state = int(sys.argv[1]), json.load(open(sys.argv[2]))
sock = socket.create_connection(("127.0.0.1", port))
f = sock.makefile("rb")

def encode(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out

def read():
    line = f.readline().rstrip(b"\r\n")
    t, rest = line[:1], line[1:]
    if t == b"$":
        n = int(rest)
        return None if n < 0 else f.read(n + 2)[:-2].decode()
    if t == b"*":
        n = int(rest)
        return None if n < 0 else [read() for _ in range(n)]
    if t == b"-":
        raise SystemExit("error: %r" % line)
    return rest.decode()

def pipelined(commands):  # replies of many commands, 1000 per write
    replies = []
    for i in range(0, len(commands), 1000):
        chunk = commands[i:i + 1000]
        sock.sendall(b"".join(encode(*c) for c in chunk))
        replies += [read() for _ in chunk]
    return replies

lost = []
members = list(state["members"].items())
for (m, step), pos in zip(members, pipelined([("GEOPOS", "fleet", m) for m, _ in members])):
    pos = pos[0]
    # Steps are 0.001 degrees apart; GEOPOS is exact to about 1e-5.
    got = None if pos is None else round((float(pos[0]) - 116.0) / 0.001)
    if got is None or got < step:
        lost.append((m, step, got))
strings = list(state["strings"].items())
for (k, v), got in zip(strings, pipelined([("GET", k) for k, _ in strings])):
    if got != v:
        lost.append((k, v, got))
for item in lost[:10]:
    print("lost:", item)
if lost:
    sys.exit(1)
print("checked %d members, %d strings" % (len(state["members"]), len(state["strings"])))
PY
    kill -TERM "$pid"
    wait "$pid" 2>/dev/null
    pid=""
  done
done
echo PASS
