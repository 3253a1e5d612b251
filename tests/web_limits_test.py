#!/usr/bin/python3
"""What no anonymous HTTP client can do to `hoard serve --http`, against the
real server: one address (127.0.0.2) attacks, another (127.0.0.3) is a
legitimate viewer who must be served within seconds all the while.

    /usr/bin/python3 tests/web_limits_test.py build/hoard

- 256 slow-drip connections (a header byte a second) and 256 idle ones: the
  API, the web app and /metrics still answer; the slow ones get 408 and are
  closed by the request deadline, the idle ones by the idle time-out, those
  past the address's share get 503 saying why;
- one address holding all the event streams it may: another still opens one;
- a viewer closing its page: its stream's place is free again within 5 s;
- a stream whose client never reads is dropped once its buffer fills, while a
  reader of the same events is served;
- an IPv6 client is counted by its /64.

Prints one line per check and a closing 'N passed, M failed'.
"""
import http.client
import json
import os
import shutil
import socket
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402
from web_api_test import ADMIN, Server, arena_pb2  # noqa: E402

ATTACKER = "127.0.0.2"
VIEWER = "127.0.0.3"
# A legitimate request is answered within this long, attack or not.
SERVED_WITHIN_S = 3.0
# The server's limits in this test (small ones, so that it is short).
PER_ADDRESS = 64
STREAMS_PER_ADDRESS = 4
REQUEST_TIMEOUT_S = 4
IDLE_TIMEOUT_S = 3
STREAM_BUFFER = 32768
FLAGS = ("--http-max-connections-per-address", str(PER_ADDRESS),
         "--http-max-streams-per-address", str(STREAMS_PER_ADDRESS),
         "--http-request-timeout-ms", str(REQUEST_TIMEOUT_S * 1000),
         "--http-idle-timeout-ms", str(IDLE_TIMEOUT_S * 1000),
         "--http-max-stream-buffer-bytes", str(STREAM_BUFFER))


def port_of(server):
    return int(server.web.rsplit(":", 1)[1])


def get(server, path, source=VIEWER, method="GET"):
    """(status, body, seconds taken) of one request from `source`; status 0
    if it failed."""
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port_of(server), timeout=10,
                                            source_address=(source, 0))
    try:
        connection.request(method, path)
        response = connection.getresponse()
        body = response.read()
        return response.status, body, time.monotonic() - started
    except OSError as error:
        return 0, str(error).encode(), time.monotonic() - started
    finally:
        connection.close()


class Stream:
    """An event stream opened from `source`: status, then its events."""

    def __init__(self, server, path, source):
        self.connection = http.client.HTTPConnection("127.0.0.1", port_of(server), timeout=10,
                                                     source_address=(source, 0))
        self.connection.request("GET", path)
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.error = {}
        if self.status != 200:
            self.error = json.loads(self.response.read().decode())

    def next_line(self):
        """The next line that is no heartbeat."""
        while True:
            line = self.response.readline().decode()
            if not line.startswith(":") and line != "\n":
                return line

    def close(self):
        self.response.close()
        self.connection.close()


def raw_socket(server, source, receive_buffer=None):
    s = socket.socket()
    if receive_buffer:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    s.bind((source, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port_of(server)))
    return s


def served(server, label):
    """Checks that the viewer gets the API, the app and the metrics in time."""
    for path in ("/api/v1/games", "/", "/metrics"):
        status, body, took = get(server, path)
        check(f"{label}: the viewer gets {path} in {took:.2f} s", status == 200 and
              took < SERVED_WITHIN_S, (status, took, body[:200]))


def slow_and_idle(server):
    request = b"GET /api/v1/games HTTP/1.1\r\nHost: hoard\r\nX-Padding: " + b"x" * 64
    slow, idle = [], []
    for _ in range(256):
        slow.append(raw_socket(server, ATTACKER))
        idle.append(raw_socket(server, ATTACKER))
    stop = threading.Event()
    sent = {"bytes": 0}

    def drip():
        position = 0
        while not stop.is_set() and position < len(request):
            for s in slow:
                try:
                    s.send(request[position:position + 1])
                    sent["bytes"] += 1
                except OSError:
                    pass
            position += 1
            stop.wait(1.0)

    dripper = threading.Thread(target=drip)
    started = time.monotonic()
    dripper.start()
    try:
        time.sleep(0.5)
        served(server, "256 slow-drip and 256 idle connections held")
        time.sleep(1.0)
        served(server, "still held")
        # Past the request deadline (and the idle time-out), every attacking
        # connection has been answered and closed.
        answers = {}
        for s in slow + idle:
            s.settimeout(max(0.1, started + REQUEST_TIMEOUT_S + 3 - time.monotonic()))
            got = b""
            try:
                while True:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    got += chunk
                kind = got.split(b"\r\n", 1)[0].decode() or "closed"
            except socket.timeout:
                kind = "still open"
            except OSError:
                kind = "closed"
            answers.setdefault(kind, []).append(got)
        took = time.monotonic() - started
    finally:
        stop.set()
        dripper.join()
        for s in slow + idle:
            s.close()
    kinds = {kind: len(bodies) for kind, bodies in answers.items()}
    check("every attacking connection is closed by the deadlines",
          "still open" not in kinds and took < REQUEST_TIMEOUT_S + 4, (kinds, took))
    check("the slow ones the address may hold get 408 at the request deadline",
          0 < kinds.get("HTTP/1.1 408 Request Timeout", 0) <= PER_ADDRESS, kinds)
    late = answers.get("HTTP/1.1 408 Request Timeout", [b""])[0]
    check("408 says what is wrong", b"did not arrive whole within 4 s" in late, late)
    refused = answers.get("HTTP/1.1 503 Service Unavailable", [b""])[0]
    check("connections past the address's share get 503 saying why",
          f"too many connections from your address {ATTACKER} (at most {PER_ADDRESS})".encode()
          in refused, refused[-300:])
    served(server, "after the attack")


def held_streams(server, match_id):
    path = f"/api/v1/matches/{match_id}/events"
    held = []
    refused = None
    for _ in range(STREAMS_PER_ADDRESS + 10):
        stream = Stream(server, path, ATTACKER)
        if stream.status != 200:
            refused = stream
            break
        held.append(stream)
    check(f"one address holds at most {STREAMS_PER_ADDRESS} event streams, then 503 saying why",
          len(held) == STREAMS_PER_ADDRESS and refused is not None and refused.status == 503 and
          f"(at most {STREAMS_PER_ADDRESS})" in refused.error.get("message", ""),
          (len(held), refused and refused.status, refused and refused.error))
    if refused:
        refused.close()
    started = time.monotonic()
    viewer = Stream(server, path, VIEWER)
    first = viewer.next_line() if viewer.status == 200 else ""
    check("another address still opens a stream and gets the match",
          viewer.status == 200 and first == "event: match\n" and
          time.monotonic() - started < SERVED_WITHIN_S, (viewer.status, first))
    viewer.close()
    for stream in held:
        check("a held stream got the match", stream.next_line() == "event: match\n")
    # A viewer closes its page: its place is free again within seconds, on a
    # match with nothing to say (no event comes to show it gone).
    held.pop().close()
    started = time.monotonic()
    reopened = None
    while time.monotonic() - started < 5:
        reopened = Stream(server, path, ATTACKER)
        if reopened.status == 200:
            break
        reopened.close()
        time.sleep(0.05)
    took = time.monotonic() - started
    check(f"a closed stream's place is free again within 5 s ({took:.2f} s)",
          reopened is not None and reopened.status == 200 and took < 5, took)
    heartbeat_started = time.monotonic()
    line = reopened.response.readline().decode() if reopened.status == 200 else ""
    while line and not line.startswith(":") and time.monotonic() - heartbeat_started < 10:
        line = reopened.response.readline().decode()
    check("a quiet stream gets a heartbeat comment within seconds",
          line.startswith(":") and time.monotonic() - heartbeat_started < 6, line)
    reopened.close()
    for stream in held:
        stream.close()


def unread_stream(server, match_id):
    path = f"/api/v1/matches/{match_id}/events"
    unread = raw_socket(server, ATTACKER, receive_buffer=2048)
    unread.sendall(f"GET {path} HTTP/1.1\r\nHost: hoard\r\n\r\n".encode())
    reader = Stream(server, path, VIEWER)
    events = 0
    started = time.monotonic()
    while time.monotonic() - started < 4 and reader.status == 200:
        if reader.next_line() == "event: match\n":
            events += 1
    check("a reader of a busy match's events is served", reader.status == 200 and
          events >= 20, events)
    reader.close()
    # The unread one was dropped: what reaches it ends without `end`, and
    # far short of what the reader got.
    unread.settimeout(5)
    got = b""
    closed = False
    try:
        while len(got) < 50_000_000:
            chunk = unread.recv(65536)
            if not chunk:
                closed = True
                break
            got += chunk
    except socket.timeout:
        pass
    except OSError:
        closed = True
    unread.close()
    check("a stream never read is dropped when its buffer fills", closed and
          b"event: end" not in got and b"event: match" in got,
          (closed, len(got), got[:300], got[-300:]))
    served(server, "after the unread stream")


def ipv6_block(work):
    """An IPv6 client is counted by its /64: two connections from ::1 fill a
    share of two."""
    server = Server(work, "--http-max-connections-per-address", "2", http="[::1]:0")
    try:
        port = port_of(server)
        held = []
        for _ in range(2):
            s = socket.socket(socket.AF_INET6)
            s.connect(("::1", port))
            held.append(s)
        connection = http.client.HTTPConnection("::1", port, timeout=10)
        connection.request("GET", "/api/v1/games")
        response = connection.getresponse()
        body = response.read().decode()
        connection.close()
        check("an IPv6 client's share is its /64's", response.status == 503 and
              "from your address ::/64 (at most 2)" in body, (response.status, body))
        for s in held:
            s.close()
    finally:
        server.stop()


def main():
    work = tempfile.mkdtemp(prefix="hoard-web-limits-")
    try:
        ipv6_block(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    work = tempfile.mkdtemp(prefix="hoard-web-limits-")
    server = Server(work, *FLAGS)
    try:
        served(server, "before any attack")
        slow_and_idle(server)
        # A match with nothing to say for a minute: an open seat nobody takes.
        quiet = server.arena.CreateMatch(arena_pb2.CreateMatchRequest(
            game="village",
            seats=[arena_pb2.SeatSpec(builtin="random"), arena_pb2.SeatSpec(open=True)],
            time_control=arena_pb2.TimeControl(decision_ms=60000)), metadata=ADMIN, timeout=30)
        held_streams(server, quiet.match_id)
        # A match with an event every 20 ms: its open seat times out that
        # often, and never forfeits.
        busy = server.arena.CreateMatch(arena_pb2.CreateMatchRequest(
            game="village",
            seats=[arena_pb2.SeatSpec(builtin="random"), arena_pb2.SeatSpec(open=True)],
            time_control=arena_pb2.TimeControl(decision_ms=20, bank_ms=0, max_strikes=0)),
            metadata=ADMIN, timeout=30)
        unread_stream(server, busy.match_id)
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
