"""What the Python tests that start trackd share: failing with a reason,
and a free port to give it."""
import random
import socket
import sys


def fail(why):
    print("FAIL:", why)
    sys.exit(1)


def free_port():
    while True:
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", random.randint(20000, 40000)))
            return s.getsockname()[1]
        except OSError:
            pass
        finally:
            s.close()
