#!/usr/bin/python3
"""Idle RESP connections give back what a large request and its reply took:
50 connections that each once sent ECHO of 4 MiB and read the 4 MiB reply,
then stay open and idle, leave trackd's resident memory within 2x of what
the same leaves redis-server holding (at least 16 MiB of slack), where
keeping each reply's buffer held 200 MiB."""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TRACKD = os.path.join(HERE, "trackd")
CONNECTIONS = 50
VALUE = b"x" * (4 << 20)


def fail(why):
    print("FAIL:", why)
    sys.exit(1)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def resident_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1)) / 1024


def wait_for_port(port, proc):
    for _ in range(300):
        if proc.poll() is not None:
            fail("server exited")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    fail("server did not start")


def idle_growth(port, pid):
    """MiB the server still holds 15 s (or less, once settled) after 50
    connections each exchanged 4 MiB and went idle, open."""
    time.sleep(1)
    base = resident_mib(pid)
    held = []
    for _ in range(CONNECTIONS):
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        s.sendall(b"*2\r\n$4\r\nECHO\r\n$%d\r\n%s\r\n" % (len(VALUE), VALUE))
        want, got = len(VALUE) + 16, 0
        while got < want - 16:
            chunk = s.recv(1 << 20)
            if not chunk:
                fail("connection closed before the reply")
            got += len(chunk)
        held.append(s)
    # trackd's memory returner looks every 10 s.
    growth = resident_mib(pid) - base
    for _ in range(15):
        time.sleep(1)
        growth = resident_mib(pid) - base
        if growth < 8:
            break
    for s in held:
        s.close()
    return growth


def main():
    work = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    redis_port, trackd_port = free_port(), free_port()
    redis = subprocess.Popen(
        [shutil.which("redis-server"), "--port", str(redis_port), "--save", "",
         "--appendonly", "no"], stdout=subprocess.DEVNULL)
    config = os.path.join(work, "trackd.textproto")
    open(config, "w").close()
    trackd = subprocess.Popen(
        [TRACKD, "--config=" + config, "--data_dir=" + work + "/data",
         "--grpc_port=0", "--resp_port=%d" % trackd_port],
        stderr=subprocess.DEVNULL)
    try:
        wait_for_port(redis_port, redis)
        wait_for_port(trackd_port, trackd)
        redis_mib = idle_growth(redis_port, redis.pid)
        trackd_mib = idle_growth(trackd_port, trackd.pid)
        print("idle after 50 x 4 MiB: trackd +%.1f MiB, redis-server +%.1f MiB"
              % (trackd_mib, redis_mib))
        if trackd_mib > max(2 * redis_mib, 16):
            fail("trackd holds %.1f MiB for idle connections (redis-server "
                 "%.1f)" % (trackd_mib, redis_mib))
        print("PASS")
    finally:
        for p in (trackd, redis):
            p.terminate()
            p.wait(timeout=30)


if __name__ == "__main__":
    main()
