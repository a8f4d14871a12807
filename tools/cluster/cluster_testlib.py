"""What the end-to-end tests of clusters and replication share: checks that
print as they pass, a client per node, and a cluster started for a test and
stopped after it (start_cluster.sh or start_managed_cluster.sh)."""
import contextlib
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time

import redis


def check(cond, what):
    if not cond:
        print("FAIL:", what, flush=True)
        sys.exit(1)
    print("ok:", what, flush=True)


def pause(pid, timeout=10):
    """SIGSTOP `pid` and return once every one of its threads has stopped.
    kill() returns before that: one thread takes the stop and tells the
    others, and on a loaded machine the rest run on meanwhile (a replica's
    link thread can apply a batch and acknowledge it), so a test that
    relies on the pause must wait for it."""
    os.kill(pid, signal.SIGSTOP)
    deadline = time.time() + timeout
    while time.time() < deadline:
        states = []
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                    states.append(f.read().rsplit(")", 1)[1].split()[0])
            except FileNotFoundError:
                pass  # the thread ended
        if states and all(s in ("T", "t") for s in states):
            return
        time.sleep(0.005)
    raise RuntimeError("process %d did not stop" % pid)


def client(port):
    return redis.Redis(port=port, decode_responses=True, socket_timeout=10)


def missing_keys(port, keys):
    """The `keys` node `port` does not hold (one pipelined read)."""
    pipe = client(port).pipeline(transaction=False)
    for key in keys:
        pipe.get(key)
    return [k for k, v in zip(keys, pipe.execute()) if v is None]


def work_dir(name):
    return os.path.join(os.environ.get("TEST_TMPDIR", tempfile.mkdtemp()), name)


def base_port():
    """A first RESP port for a test's nodes, free now and below Linux's
    ephemeral ports (32768 on), which other tests' outgoing connections
    take: nodes use it + k, + 100 + k (gRPC), and + 200..202 (etcd, the
    controller)."""
    for _ in range(200):
        base = random.randint(100, 300) * 100
        ports = [base + d + k for d in (0, 100) for k in range(6)]
        ports += [base + 200 + k for k in range(3)]
        socks = []
        try:
            for port in ports:
                s = socket.socket()
                socks.append(s)
                s.bind(("127.0.0.1", port))
            return base
        except OSError:
            pass
        finally:
            for s in socks:
                s.close()
    raise RuntimeError("no free ports")


@contextlib.contextmanager
def cluster(script, work, shards, base, config="conf/trackdb.textproto"):
    """Starts `script` (start_cluster.sh or start_managed_cluster.sh) with
    `shards`, stops every process it started on leaving."""
    env = dict(os.environ, TRACKD=os.path.abspath("service/trackd"),
               TRACKD_CONFIG=os.path.abspath(config))
    subprocess.run(["tools/cluster/" + script, work, str(shards), str(base)],
                   check=True, env=env)
    try:
        yield
    finally:
        subprocess.run(["tools/cluster/stop_cluster.sh", work])
