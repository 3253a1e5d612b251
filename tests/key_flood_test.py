#!/usr/bin/python3
"""Wrong keys cannot be turned against others: eight loops on another client
address (127.0.0.2) send wrong keys for a bot's name, four as registering
hellos and four as NAME:KEY bearers on reads, while a seated bot plays and an
admin reads. The seated bot's decision round trips and the admin's reads stay
within a generous bound of what they were before the flood, and the flood is
refused with a backoff that names its address.

    /usr/bin/python3 tests/key_flood_test.py build/hoard

HOARD_KEY_FLOOD_SECONDS sets how long the flood lasts (default 8).
Prints one line per check and a closing 'N passed, M failed'.
"""
import os
import queue
import secrets
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grpc  # noqa: E402
from checks import check, finish, start_server  # noqa: E402
from hoard_bot.stubs import arena_pb2, arena_pb2_grpc  # noqa: E402

HOARD = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit(
    "usage: key_flood_test.py PATH_TO_HOARD")
FLOOD_SECONDS = float(os.environ.get("HOARD_KEY_FLOOD_SECONDS", "8"))
WORK = tempfile.mkdtemp(prefix="hoard-key-flood-")
ADMIN = "admin-of-the-flood-test"
ATTACKER_ADDRESS = "127.0.0.2"


def meta(token):
    return (("authorization", f"Bearer {token}"),)


class Relay:
    """Accepts on 127.0.0.1 and connects to `target` from `source`, so that
    the server sees the relay's clients come from `source`."""

    def __init__(self, target, source):
        self.target, self.source = target, source
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.socket()
            upstream.bind((self.source, 0))
            host, port = self.target.rsplit(":", 1)
            upstream.connect((host, int(port)))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a, b):
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self.listener.close()


class SeatedBot:
    """A registered bot answering every request with its first legal action,
    timing each round trip: from its answer to the next request."""

    def __init__(self, channel, name, key):
        self.outgoing = queue.Queue()
        self.round_trips = []
        self.recording = threading.Event()
        self.welcomed = threading.Event()
        self.call = arena_pb2_grpc.ArenaStub(channel).Play(iter(self.outgoing.get, None))
        self.outgoing.put(arena_pb2.BotMessage(hello=arena_pb2.Hello(
            register=arena_pb2.Register(name=name, key=key, max_matches=1))))
        self.answered_at = None
        threading.Thread(target=self._play, daemon=True).start()

    def _play(self):
        try:
            for message in self.call:
                kind = message.WhichOneof("kind")
                if kind == "welcome":
                    self.welcomed.set()
                elif kind == "decision":
                    now = time.monotonic()
                    if self.answered_at is not None and self.recording.is_set():
                        self.round_trips.append(now - self.answered_at)
                    self.answered_at = time.monotonic()
                    self.outgoing.put(arena_pb2.BotMessage(answer=arena_pb2.Answer(
                        match_id=message.decision.match_id,
                        request_id=message.decision.request_id, legal_index=0)))
                elif kind == "seated":
                    self.answered_at = None
        except grpc.RpcError:
            pass

    def sample(self, arena, count):
        """`count` round trips, playing matches against the built-in `first`."""
        self.round_trips = []
        self.recording.set()
        deadline = time.monotonic() + 120
        while len(self.round_trips) < count and time.monotonic() < deadline:
            created = arena.CreateMatch(arena_pb2.CreateMatchRequest(
                game="village", seats=[arena_pb2.SeatSpec(bot="alice"),
                                       arena_pb2.SeatSpec(builtin="first")],
                time_control=arena_pb2.TimeControl(decision_ms=30000, bank_ms=0)),
                metadata=meta(ADMIN), timeout=30)
            while time.monotonic() < deadline:
                got = arena.GetMatch(arena_pb2.GetMatchRequest(match_id=created.match_id),
                                     timeout=30)
                if got.match.status != arena_pb2.MATCH_STATUS_RUNNING:
                    break
                time.sleep(0.05)
        self.recording.clear()
        return list(self.round_trips)

    def close(self):
        self.outgoing.put(None)
        self.call.cancel()


def read_times(arena, count):
    times = []
    for _ in range(count):
        start = time.monotonic()
        arena.ListGames(arena_pb2.ListGamesRequest(), metadata=meta(ADMIN), timeout=30)
        times.append(time.monotonic() - start)
        time.sleep(0.02)
    return times


def p90(values):
    return sorted(values)[max(0, int(len(values) * 0.9) - 1)]


def flood(relay_address, stop, refusals):
    """Wrong keys for 'alice' until `stop`: half the loops as hellos, half as
    bearers of reads; each key new, so no remembered refusal answers it."""
    channel = grpc.insecure_channel(relay_address)
    arena = arena_pb2_grpc.ArenaStub(channel)

    def hellos():
        while not stop.is_set():
            message = arena_pb2.BotMessage(hello=arena_pb2.Hello(register=arena_pb2.Register(
                name="alice", key=secrets.token_hex(16), max_matches=1)))
            try:
                for _ in arena.Play(iter([message]), timeout=10):
                    pass
            except grpc.RpcError as error:
                refusals.put((error.code(), error.details() or ""))

    def reads():
        while not stop.is_set():
            try:
                arena.ListGames(arena_pb2.ListGamesRequest(),
                                metadata=meta(f"alice:{secrets.token_hex(16)}"), timeout=10)
            except grpc.RpcError as error:
                refusals.put((error.code(), error.details() or ""))

    loops = [threading.Thread(target=f, daemon=True) for f in [hellos] * 4 + [reads] * 4]
    for loop in loops:
        loop.start()
    return channel, loops


def main():
    try:
        socket.socket().bind((ATTACKER_ADDRESS, 0))
    except OSError as error:
        check(f"the attacker's loopback address {ATTACKER_ADDRESS} can be bound", False, error)
        finish()
    server, address, log = start_server(HOARD, WORK, ADMIN)
    channel = grpc.insecure_channel(address)
    arena = arena_pb2_grpc.ArenaStub(channel)
    relay = Relay(address, ATTACKER_ADDRESS)
    try:
        key = arena.AddBot(arena_pb2.AddBotRequest(name="alice"), metadata=meta(ADMIN)).key
        bot = SeatedBot(channel, "alice", key)
        check("the seated bot registers", bot.welcomed.wait(30))
        before = bot.sample(arena, 60)
        reads_before = read_times(arena, 30)
        baseline = statistics.median(before)
        print(f"     before the flood: round trip median {baseline * 1000:.1f} ms, "
              f"p90 {p90(before) * 1000:.1f} ms; ListGames p90 "
              f"{p90(reads_before) * 1000:.1f} ms")

        stop = threading.Event()
        refusals = queue.Queue()
        flood_channel, loops = flood(relay.address, stop, refusals)
        time.sleep(1)  # the flood under way
        started = time.monotonic()
        during = []
        reads_during = []
        while time.monotonic() - started < FLOOD_SECONDS:
            during += bot.sample(arena, 20)
            reads_during += read_times(arena, 10)
        stop.set()
        for loop in loops:
            loop.join(timeout=15)
        flood_channel.close()
        seen = []
        while not refusals.empty():
            seen.append(refusals.get())
        print(f"     during the flood: {len(seen)} wrong keys refused; round trip median "
              f"{statistics.median(during) * 1000:.1f} ms, p90 {p90(during) * 1000:.1f} ms; "
              f"ListGames p90 {p90(reads_during) * 1000:.1f} ms")

        check("the flood's wrong keys are all refused", seen and all(
            code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.RESOURCE_EXHAUSTED,
                     grpc.StatusCode.UNAVAILABLE) for code, _ in seen), seen[:5])
        backed_off = [d for c, d in seen if c == grpc.StatusCode.RESOURCE_EXHAUSTED]
        check("most of the flood is refused at once, its address backing off",
              len(backed_off) > len(seen) / 2 and
              all(f"from {ATTACKER_ADDRESS}" in d for d in backed_off) and
              any(f"too many wrong keys from {ATTACKER_ADDRESS}" in d for d in backed_off),
              f"{len(backed_off)} of {len(seen)}: {seen[:5]}")
        # Generous bounds: the baseline is milliseconds.
        check("the seated bot's round trips stay within 0.3 s (p90) during the flood",
              during and p90(during) < 0.3,
              f"p90 {p90(during):.3f} s against {p90(before):.3f} s before")
        check("an admin's reads stay within 0.3 s (p90) during the flood",
              reads_during and p90(reads_during) < 0.3,
              f"p90 {p90(reads_during):.3f} s against {p90(reads_before):.3f} s before")
        bot.close()
        again = SeatedBot(channel, "alice", key)
        check("the bot's right key is taken at once after the flood", again.welcomed.wait(5))
        again.close()
    finally:
        relay.close()
        server.terminate()
        server.wait(timeout=60)
        channel.close()
    log.seek(0)
    check("no key appears in the server's log",
          key not in log.read())
    shutil.rmtree(WORK, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
