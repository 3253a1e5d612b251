#!/usr/bin/python3
"""How much `hoard serve --http` holds, and how it answers under attack.

    /usr/bin/python3 scripts/web_bench.py build/hoard [--viewers 1000] [--matches 20]
                                                      [--seconds 10] [--decision-ms 1500]

Starts a server, plays MATCHES live matches (a built-in bot against an open
seat that times out every DECISION_MS, 1.5 s by default, so that each
match has events for 45 s or so),
connects VIEWERS Server-Sent Event viewers spread over the matches (ten per
client address, from 127.0.1.x), and prints: the viewers connected, the
events a second delivered to them all, the server's resident memory, and the
p50 and p99 of a GET of /api/v1/games from another address with nothing
else going on, with the viewers, and with the viewers plus each attack (256
slow-drip and 256 idle connections from one address; one address holding
all the event streams it may).
"""
import argparse
import http.client
import multiprocessing
import os
import selectors
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
import grpc  # noqa: E402
from hoard_bot.stubs import arena_pb2, arena_pb2_grpc  # noqa: E402

ADMIN = (("authorization", "Bearer web-bench-admin"),)
CLIENT = "127.0.0.3"


class Viewers:
    """Event-stream viewers on one selector thread, counting events."""

    def __init__(self, port):
        self.port = port
        self.selector = selectors.DefaultSelector()
        self.events = 0
        self.connected = 0
        self.refused = 0
        self.ended = 0  # streams the server ended (refusals included)
        self.lock = threading.Lock()
        self.pending = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run)
        self.thread.start()

    def open(self, path, source):
        s = socket.socket()
        s.bind((source, 0))
        s.connect(("127.0.0.1", self.port))
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: hoard\r\n\r\n".encode())
        s.setblocking(False)
        with self.lock:
            self.pending.append(s)

    def run(self):
        while not self.stop.is_set():
            with self.lock:
                pending, self.pending = self.pending, []
            for s in pending:
                self.selector.register(s, selectors.EVENT_READ, {"head": b"", "tail": b""})
            ready = self.selector.select(timeout=0.05) if self.selector.get_map() else []
            if not ready:
                time.sleep(0.01)
            for key, _ in ready:
                try:
                    data = key.fileobj.recv(262144)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                state = key.data
                if not data:
                    self.ended += 1
                    self.selector.unregister(key.fileobj)
                    key.fileobj.close()
                    continue
                if state["head"] is not None:
                    state["head"] += data
                    if b"\r\n\r\n" not in state["head"]:
                        continue
                    status = state["head"].split(b" ", 2)[1]
                    if status == b"200":
                        self.connected += 1
                    else:
                        self.refused += 1
                    data = state["head"]
                    state["head"] = None
                text = state["tail"] + data
                self.events += text.count(b"event: match\n")
                state["tail"] = text[-12:] if not text.endswith(b"\n") else b""

    def close(self):
        self.stop.set()
        self.thread.join()
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()


def latencies(port, seconds):
    """p50 and p99 (ms) of GET /api/v1/games from CLIENT for `seconds`, and
    how many failed, measured in a process of its own (this one's threads
    would hold it up)."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(measure_latencies, (port, seconds))


def measure_latencies(port, seconds):
    took = []
    failed = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        started = time.monotonic()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10,
                                                source_address=(CLIENT, 0))
        try:
            connection.request("GET", "/api/v1/games")
            response = connection.getresponse()
            response.read()
            if response.status != 200:
                failed += 1
        except OSError:
            failed += 1
        finally:
            connection.close()
        took.append((time.monotonic() - started) * 1000)
        time.sleep(0.02)
    took.sort()
    return took[len(took) // 2], took[min(len(took) - 1, int(len(took) * 0.99))], failed


def cpu_seconds(pid):
    """User and system CPU time the process has used."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def resident_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def slow_and_idle(port, stop):
    """256 slow-drip and 256 idle connections from 127.0.0.2, opened again
    as the server closes them, until `stop`."""
    request = b"GET /api/v1/games HTTP/1.1\r\nHost: hoard\r\nX-Padding: " + b"x" * 200
    sockets = []

    def connect():
        s = socket.socket()
        s.bind(("127.0.0.2", 0))
        s.settimeout(2)
        try:
            s.connect(("127.0.0.1", port))
        except OSError:
            s.close()
            return None
        return s

    slow = [connect() for _ in range(256)]
    idle = [connect() for _ in range(256)]
    position = 0
    while not stop.is_set():
        for i, s in enumerate(slow):
            try:
                if s is None:
                    raise OSError
                s.send(request[position % len(request):position % len(request) + 1])
            except OSError:
                if s is not None:
                    s.close()
                slow[i] = connect()
        for i, s in enumerate(idle):
            if s is None:
                idle[i] = connect()
        position += 1
        stop.wait(1.0)
    for s in slow + idle + sockets:
        if s is not None:
            s.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("hoard")
    parser.add_argument("--viewers", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--decision-ms", type=int, default=1500)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="hoard-web-bench-")
    with open(os.path.join(work, "admin"), "w") as f:
        f.write("web-bench-admin\n")
    server = subprocess.Popen(
        [os.path.abspath(args.hoard), "serve", "--listen", "127.0.0.1:0", "--http",
         "127.0.0.1:0", "--admin-token-file", os.path.join(work, "admin"),
         "--state-dir", os.path.join(work, "state")],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    rows = []
    try:
        address = server.stdout.readline().split()[-1]
        port = int(server.stdout.readline().split()[-1].rsplit(":", 1)[1])
        channel = grpc.insecure_channel(address)
        arena = arena_pb2_grpc.ArenaStub(channel)
        matches = [arena.CreateMatch(arena_pb2.CreateMatchRequest(
            game="village", seats=[arena_pb2.SeatSpec(builtin="random"),
                                   arena_pb2.SeatSpec(open=True)],
            time_control=arena_pb2.TimeControl(decision_ms=args.decision_ms, bank_ms=0,
                                               max_strikes=0)),
            metadata=ADMIN, timeout=30).match_id for _ in range(args.matches)]
        rows.append(("GET /api/v1/games, nothing else", *latencies(port, args.seconds / 2)))
        idle_mib = resident_mib(server.pid)
        viewers = Viewers(port)
        started = time.monotonic()
        for i in range(args.viewers):
            viewers.open(f"/api/v1/matches/{matches[i % len(matches)]}/events",
                         f"127.0.1.{1 + i // 10}")
        while viewers.connected + viewers.refused < args.viewers and \
                time.monotonic() - started < 30:
            time.sleep(0.1)
        connect_s = time.monotonic() - started
        time.sleep(1)
        before = viewers.events
        cpu_before = cpu_seconds(server.pid)
        measure_started = time.monotonic()
        rows.append((f"GET with {viewers.connected} viewers", *latencies(port, args.seconds)))
        elapsed = time.monotonic() - measure_started
        rate = (viewers.events - before) / elapsed
        cpu = (cpu_seconds(server.pid) - cpu_before) / elapsed
        viewers_mib = resident_mib(server.pid)

        stop = threading.Event()
        attacker = threading.Thread(target=slow_and_idle, args=(port, stop))
        attacker.start()
        time.sleep(1)
        rows.append(("GET with the viewers, 256 slow-drip + 256 idle from one address",
                     *latencies(port, args.seconds)))
        stop.set()
        attacker.join()

        # A match with nothing to say: held streams stay open.
        quiet = arena.CreateMatch(arena_pb2.CreateMatchRequest(
            game="village", seats=[arena_pb2.SeatSpec(builtin="random"),
                                   arena_pb2.SeatSpec(open=True)],
            time_control=arena_pb2.TimeControl(decision_ms=600000)),
            metadata=ADMIN, timeout=30).match_id
        held = Viewers(port)
        for _ in range(40):
            held.open(f"/api/v1/matches/{quiet}/events", "127.0.0.4")
        time.sleep(1)
        rows.append((f"GET with the viewers, one address holding {held.connected} streams "
                     f"({held.refused} more refused)", *latencies(port, args.seconds / 2)))
        held.close()
        attacked_mib = resident_mib(server.pid)
        connected = viewers.connected
        still_open = viewers.connected - (viewers.ended - viewers.refused)
        viewers.close()

        print(f"viewers connected: {connected} of {args.viewers} "
              f"({viewers.refused} refused) in {connect_s:.1f} s, over {len(matches)} matches")
        print(f"events delivered: {rate:.0f} a second, the server using {100 * cpu:.0f}% of "
              f"a core; {still_open} viewers still watching at the end")
        print(f"server resident memory: {idle_mib:.0f} MiB idle, {viewers_mib:.0f} MiB with "
              f"the viewers, {attacked_mib:.0f} MiB after the attacks")
        print("| GET /api/v1/games from 127.0.0.3 | p50 ms | p99 ms | failed |")
        print("|---|---|---|---|")
        for name, p50, p99, failed in rows:
            print(f"| {name} | {p50:.1f} | {p99:.1f} | {failed} |")
        channel.close()
    finally:
        server.terminate()
        server.wait(timeout=60)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
