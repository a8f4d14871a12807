#!/usr/bin/python3
"""trackd's gRPC door under the abuse of grpc_abuse.py: threads, streams and
memory stay bounded, an undecodable request gets INVALID_ARGUMENT naming it,
and a normal call is answered after every attack.

Runs trackd with small gRPC limits (16 streams per connection, 64 threads)
so that the bounds show quickly.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ABUSE = os.path.join(HERE, "grpc_abuse.py")
TRACKD = os.path.join(HERE, "trackd")
MAX_THREADS = 64
MAX_STREAMS = 16


def fail(why):
    print("FAIL:", why)
    sys.exit(1)


def start_trackd(work):
    config = os.path.join(work, "trackd.textproto")
    with open(config, "w") as f:
        f.write("server {\n  grpc_max_threads: %d\n"
                "  grpc_max_concurrent_streams: %d\n}\n"
                % (MAX_THREADS, MAX_STREAMS))
    log = open(os.path.join(work, "trackd.log"), "w+")
    proc = subprocess.Popen(
        [TRACKD, "--config=" + config, "--data_dir=" + work + "/data",
         "--grpc_port=0", "--resp_port=0"], stderr=log)
    for _ in range(300):
        log.seek(0)
        text = log.read()
        port = re.search(r"serving gRPC .* on 127\.0\.0\.1:(\d+)", text)
        if port and "ready" in text:
            return proc, int(port.group(1))
        if proc.poll() is not None:
            fail("trackd exited: " + text)
        time.sleep(0.1)
    fail("trackd did not start")


def abuse(*args, stdin=None, wait=True):
    cmd = ["/usr/bin/python3", ABUSE] + [str(a) for a in args]
    if not wait:
        return subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        fail("grpc_abuse %s: %s" % (args, out.stderr))
    return json.loads(out.stdout)


def threads(pid):
    return len(os.listdir("/proc/%d/task" % pid))


def resident_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        kb = re.search(r"VmRSS:\s+(\d+)", f.read()).group(1)
    return int(kb) / 1024


def expect_healthy(port, after):
    answer = abuse("health", port)
    if answer["statuses"] != {"0": 1}:
        fail("health check after %s answered %s" % (after, answer))


def check_undecodable_request(port):
    answer = abuse("bad_message", port)
    message = answer["messages"].get("3", "")
    if answer["statuses"] != {"3": 1} or \
            "not a valid trackdb.v1.AddPointsRequest" not in message:
        fail("undecodable AddPoints answered %s" % answer)


def check_threads_bounded(port, pid, base_threads):
    """Idle StreamPoints calls on 8 connections, 12 each: 96 calls for 64
    threads. Each call holds a thread; the ones beyond get
    RESOURCE_EXHAUSTED at once instead of a thread each."""
    holders = [abuse("idle_streams", port, 12, wait=False) for _ in range(8)]
    time.sleep(4)
    held = threads(pid)
    answers = []
    for h in holders:
        out, _ = h.communicate("", timeout=60)
        answers.append(json.loads(out))
    exhausted = sum(a["answered"]["statuses"].get("8", 0) for a in answers)
    if held > base_threads + MAX_THREADS:
        fail("96 idle streams raised threads %d -> %d (limit %d)"
             % (base_threads, held, MAX_THREADS))
    if exhausted < 96 - MAX_THREADS:
        fail("only %d of the calls beyond the thread limit were refused: %s"
             % (exhausted, answers))
    print("idle streams: %d threads held at most (from %d), %d refused"
          % (held, base_threads, exhausted))


def check_stream_limit(port, pid, base_threads):
    """A connection that opens more streams than it was allowed loses the
    connection (gRPC ends every stream of it), and holds no thread."""
    h = abuse("idle_streams", port, MAX_STREAMS + 8, wait=False)
    time.sleep(2)
    held = threads(pid)
    out, _ = h.communicate("", timeout=60)
    if held > base_threads + 4:
        fail("%d streams on one connection hold %d threads (from %d)"
             % (MAX_STREAMS + 8, held, base_threads))
    if h.returncode == 0:  # else the server closed before all were sent
        answer = json.loads(out)["answered"]
        if "0" in answer["statuses"] or not (answer["statuses"] or
                                             "goaway" in answer):
            fail("streams beyond the limit were not ended: %s" % answer)


def check_memory_returns(pid, base_mib, what):
    for _ in range(30):
        if resident_mib(pid) < base_mib + 40:
            return
        time.sleep(1)
    fail("after %s trackd holds %.0f MiB (from %.0f)"
         % (what, resident_mib(pid), base_mib))


def main():
    work = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    proc, port = start_trackd(work)
    try:
        time.sleep(1)
        base_threads, base_mib = threads(proc.pid), resident_mib(proc.pid)
        check_undecodable_request(port)
        check_threads_bounded(port, proc.pid, base_threads)
        check_stream_limit(port, proc.pid, base_threads)
        expect_healthy(port, "idle streams")

        sent = abuse("continuation", port, 64)["sent_bytes"]
        expect_healthy(port, "a %d-byte header block" % sent)
        check_memory_returns(proc.pid, base_mib, "a 64 MiB header block")

        reset = abuse("rapid_reset", port, 10000)
        if reset["streams_sent"] != 10000:
            fail("rapid reset stopped early: %s" % reset)
        if threads(proc.pid) > base_threads + MAX_THREADS:
            fail("rapid reset left %d threads" % threads(proc.pid))
        expect_healthy(port, "10000 reset streams")
        check_memory_returns(proc.pid, base_mib, "10000 reset streams")
        print("PASS")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
