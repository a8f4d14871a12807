#!/usr/bin/env python3
"""The client of kill_durability_test.sh.

  write PORT PID ROUND STATE: four connections pipeline GEOADDs (new
      members, and moves of their own members one step further east each
      time) and SETs of new keys, recording each reply as it arrives; kills
      PID (trackd) at a random moment and saves what was acknowledged, with
      what earlier rounds acknowledged, to STATE.
  check PORT STATE: every acknowledged write in STATE is in trackd: each
      SET's value, each member at its last acknowledged step or later.
"""
import json
import os
import random
import signal
import socket
import sys
import threading
import time


def encode(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def write(port, pid, rnd, state_path):
    # Acknowledged so far (earlier rounds included): member -> step, key -> value.
    state = {"members": {}, "strings": {}}
    if os.path.exists(state_path):
        state = json.load(open(state_path))
    lock = threading.Lock()

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
                        batch.append(encode("GEOADD", "fleet", lon_of(step), 39.9, m))
                        expect.append(("m", m, step))
                    elif r < 0.7:
                        m = rng.choice(mine)
                        step = sent[m] = sent[m] + 1 + rng.randint(0, 2)
                        batch.append(encode("GEOADD", "fleet", lon_of(step), 39.9, m))
                        expect.append(("m", m, step))
                    else:
                        k, v = "k:%d:%d:%d" % (client, rnd, seq), "v%d" % seq
                        batch.append(encode("SET", k, v))
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


def check(port, state):
    sock = socket.create_connection(("127.0.0.1", port))
    f = sock.makefile("rb")

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


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    else:
        check(int(sys.argv[2]), json.load(open(sys.argv[3])))
