#!/usr/bin/python3
"""HTTP/2 abuse of trackd's gRPC port, frame by frame (python3-h2's framing).

Each mode does what a hostile or broken client does to an HTTP/2 server and
prints one line of JSON saying what the server answered:

  continuation PORT MIB   one header block never ended: HEADERS then
                          CONTINUATION frames of junk headers, MIB MiB of them
  rapid_reset PORT N      N streams opened and reset at once (CVE-2023-44487)
  idle_streams PORT N     N StreamPoints calls opened and left waiting; holds
                          them until stdin closes
  bad_message PORT        an AddPoints request whose bytes are no protobuf
  health PORT             a well-formed grpc.health.v1.Health/Check call

The server's own memory and threads are read by the caller (/proc).
"""
import json
import socket
import sys

import hpack
from hyperframe.frame import (ContinuationFrame, DataFrame, Frame,
                              GoAwayFrame, HeadersFrame, RstStreamFrame,
                              SettingsFrame)

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


def continuation(port, mib):
    sock = connect(port)
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
    result = describe(read_frames(sock, 2))
    result["sent_bytes"] = sent
    sock.close()
    return result


def rapid_reset(port, n):
    sock = connect(port)
    sent = 0
    try:
        for i in range(n):
            stream = 2 * i + 1
            frames = headers_frame(
                stream, "/trackdb.v1.TrackService/GetLatest").serialize()
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


def idle_streams(port, n):
    sock = connect(port)
    acknowledge_settings(sock)
    for i in range(n):
        sock.sendall(headers_frame(
            2 * i + 1, "/trackdb.v1.TrackService/StreamPoints").serialize())
    frames = read_frames(sock, 2)
    refused = sum(1 for f in frames
                  if isinstance(f, RstStreamFrame) and f.error_code == 7)
    answered = describe(frames)
    print(json.dumps({"opened": n, "refused_stream": refused,
                      "answered": answered}), flush=True)
    sys.stdin.read()
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


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    arg = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    result = {"continuation": continuation, "rapid_reset": rapid_reset,
              "idle_streams": idle_streams}.get(mode)
    if mode in ("bad_message", "health"):
        out = {"bad_message": bad_message, "health": health}[mode](port)
    elif result is None:
        sys.exit("unknown mode " + mode)
    else:
        out = result(port, arg)
    if out is not None:
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
