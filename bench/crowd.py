#!/usr/bin/python3
"""Holds a crowd of RESP connections on PORT until stdin closes, the way a
server meets them in the wild:

  idle        connected, one PING answered, then silent
  slowloris   sending one GEOADD a byte at a time, one byte per second
  non-readers that pipeline GETs of a 1 MiB value once (GETS of them each)
              and never read a reply

Usage: crowd.py PORT IDLE SLOWLORIS NONREADERS GETS
Prints "held N" once every connection is open (and the idle ones answered).
"""
import socket
import sys
import threading
import time


def command(*args):
    out = "*%d\r\n" % len(args)
    for a in args:
        out += "$%d\r\n%s\r\n" % (len(a), a)
    return out.encode()


def main():
    port, idle, slow, nonreaders, gets = (int(a) for a in sys.argv[1:6])
    socks = []
    for _ in range(idle):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"PING\r\n")
        socks.append(s)
    for s in socks:
        if not s.recv(16).startswith(b"+PONG"):
            sys.exit("an idle connection got no PONG")
    slow_socks = [socket.create_connection(("127.0.0.1", port))
                  for _ in range(slow)]
    greedy = []
    request = command("GET", "big") * gets
    for _ in range(nonreaders):
        s = socket.create_connection(("127.0.0.1", port))
        s.setblocking(False)
        try:
            s.send(request)  # what the socket takes; the server reads it
        except BlockingIOError:
            pass
        greedy.append(s)
    print("held %d" % (len(socks) + len(slow_socks) + len(greedy)),
          flush=True)
    stop = threading.Event()

    def drip():
        payload = command("GEOADD", "crowd", "116.4", "39.9", "slow")
        i = 0
        while not stop.is_set():
            for s in slow_socks:
                s.sendall(payload[i % len(payload):i % len(payload) + 1])
            i += 1
            stop.wait(1)

    dripper = threading.Thread(target=drip)
    dripper.start()
    sys.stdin.read()
    stop.set()
    dripper.join()


if __name__ == "__main__":
    main()
