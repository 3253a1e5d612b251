#!/usr/bin/python3
"""The Python and Node bot SDKs across broken streams and server restarts,
against a fake Arena server in this process that says what a real one would
after a reconnect, a crash or a restart, including what a buggy one might
(a match id handed out again).

    /usr/bin/python3 tests/sdk_resume_test.py [NODE]

NODE is the node program (default: the one on PATH). Each SDK runs the count
bot of tests/bots, whose answers are 1, 2, 3...: an answer sent again repeats
a number, a fresh decision gives a new one. Checked for each SDK:

- a request resent after a broken stream gets the answer given before;
- the same match and request ids not marked resent (a new match reusing the
  id) are decided afresh, and that new answer is the one sent again later;
- after its match ends, is aborted, or the server says it has no such match,
  a resent request of the match is decided afresh: its answers are forgotten;
- a resent request never answered is decided;
- of 300 matches that vanished without an end, the first one's answer is
  forgotten and the last one's kept: what the SDK keeps is bounded;
- with the server gone for 3 s and back on the same port, the bot registers
  again within 2.5 s;
- while its port only accepts connections and closes them (a server not up
  yet), the bot tries again at least every 1.5 s: its pauses stop growing
  at about a second;
- a status that reconnecting cannot help (UNAUTHENTICATED) ends the bot with
  exit status 1, without another attempt.

Prints one line per check and a closing 'N passed, M failed'; exits 1 if any
check failed.
"""
import os
import queue
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from concurrent import futures

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grpc  # noqa: E402
from checks import check, finish  # noqa: E402
from hoard_bot.stubs import arena_pb2, arena_pb2_grpc  # noqa: E402

NODE = sys.argv[1] if len(sys.argv) > 1 else shutil.which("node")
WORK = tempfile.mkdtemp(prefix="hoard-sdk-resume-")
BOT = "resume"
OUTAGE_S = 3.0
BACK_WITHIN_S = 2.5
VANISHED_MATCHES = 300
CLOSING_S = 6.0
TRIES_EVERY_S = 1.5


class Stream:
    """One Play stream as the fake server sees it."""

    def __init__(self):
        self.inbox = queue.Queue()   # (arrival, BotMessage); (arrival, None) once it ends
        self.outbox = queue.Queue()  # a ServerMessage to send, or a StatusCode to end with

    def receive(self, timeout=5.0):
        """The bot's next message and when it came; (None, None) if none came."""
        try:
            arrival, message = self.inbox.get(timeout=timeout)
        except queue.Empty:
            return None, None
        return message, arrival

    def send(self, **kind):
        self.outbox.put(arena_pb2.ServerMessage(**kind))

    def end(self, code):
        self.outbox.put(code)


class FakeArena(arena_pb2_grpc.ArenaServicer):
    """Play streams, each handed to the test as it opens."""

    def __init__(self):
        self.streams = queue.Queue()

    def Play(self, request_iterator, context):
        stream = Stream()

        def read():
            try:
                for message in request_iterator:
                    stream.inbox.put((time.monotonic(), message))
            except grpc.RpcError:
                pass
            stream.inbox.put((time.monotonic(), None))

        threading.Thread(target=read, daemon=True).start()
        self.streams.put(stream)
        while context.is_active():
            try:
                item = stream.outbox.get(timeout=0.05)
            except queue.Empty:
                continue
            if isinstance(item, grpc.StatusCode):
                context.abort(item, "the fake server ends the stream")
            yield item


def serve(arena, port=0):
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    arena_pb2_grpc.add_ArenaServicer_to_server(arena, server)
    port = server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    return server, port


def closing_port(port, seconds):
    """Accepts connections on the port and closes each at once, for `seconds`.

    Returns the times between the start, each connection and the end.
    """
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(16)
    listener.settimeout(0.05)
    start = time.monotonic()
    arrivals = [start]
    end = start + seconds
    while time.monotonic() < end:
        try:
            connection, _ = listener.accept()
        except socket.timeout:
            continue
        arrivals.append(time.monotonic())
        connection.close()
    listener.close()
    arrivals.append(max(end, arrivals[-1]))
    return [b - a for a, b in zip(arrivals, arrivals[1:])]


def accept(arena, timeout=30.0):
    """The next stream and its hello (None if none came in time)."""
    try:
        stream = arena.streams.get(timeout=timeout)
    except queue.Empty:
        return None, None, None
    hello, arrival = stream.receive(timeout)
    return stream, hello, arrival


def welcome(stream, *seated):
    stream.send(welcome=arena_pb2.Welcome(bot=BOT))
    for match_id in seated:
        seat(stream, match_id)


def seat(stream, match_id):
    stream.send(seated=arena_pb2.Seated(match_id=match_id, seat=0, game="village", players=2))


def end_match(stream, match_id, status):
    stream.send(event=arena_pb2.MatchEvent(match_id=match_id, finished=arena_pb2.MatchFinished(
        match=arena_pb2.Match(match_id=match_id, game="village", status=status))))


def ask(stream, match_id, request_id, resent=False):
    """Sends a decision request; the bot's answer (its legal_index), or None."""
    stream.send(decision=arena_pb2.DecisionRequest(
        match_id=match_id, request_id=request_id, seat=0, resent=resent, time_left_ms=60000,
        legal_actions=[arena_pb2.LegalAction(index=i) for i in range(3)],
        legal_actions_complete=True))
    message, _ = stream.receive()
    if message is None or message.WhichOneof("kind") != "answer":
        return None
    answer = message.answer
    if (answer.match_id, answer.request_id) != (match_id, request_id):
        return None
    return answer.legal_index


class Answers:
    """The count bot's answers so far: a fresh decision is a number not seen."""

    def __init__(self):
        self.seen = set()

    def fresh(self, answer):
        new = answer is not None and answer not in self.seen
        self.seen.add(answer)
        return new


def tail(path, lines=15):
    with open(path, errors="replace") as f:
        return "".join(f.readlines()[-lines:])


def scenario(sdk, arena, log):
    """The checks above up to the server's restart, on one bot."""
    answers = Answers()
    stream, hello, _ = accept(arena)
    check(f"{sdk}: the bot registers", hello is not None and hello.hello.register.name == BOT,
          tail(log))
    welcome(stream, "m7")
    first = ask(stream, "m7", 1)
    check(f"{sdk}: the bot answers a request", answers.fresh(first), f"answer {first}")

    stream.end(grpc.StatusCode.UNAVAILABLE)
    stream, hello, _ = accept(arena, 10)
    check(f"{sdk}: the bot reconnects after a broken stream", hello is not None, tail(log))
    welcome(stream, "m7")
    again = ask(stream, "m7", 1, resent=True)
    check(f"{sdk}: a request resent after the break gets the answer given before",
          again == first, f"first answer {first}, answer to the resent request {again}")

    reused = ask(stream, "m7", 1)
    check(f"{sdk}: the same ids not marked resent (a new match reusing the id) are "
          "decided afresh", answers.fresh(reused),
          f"earlier answer {first}, answer to the new request {reused}")
    again = ask(stream, "m7", 1, resent=True)
    check(f"{sdk}: ...and that new answer is the one sent again", again == reused,
          f"new answer {reused}, answer to the resent request {again}")

    end_match(stream, "m7", arena_pb2.MATCH_STATUS_FINISHED)
    after_end = ask(stream, "m7", 1, resent=True)
    check(f"{sdk}: after the match ends, a resent request of it is decided afresh",
          answers.fresh(after_end), f"answers so far {sorted(answers.seen - {after_end})}, "
          f"this one {after_end}")

    seat(stream, "m8")
    answers.fresh(ask(stream, "m8", 1))
    end_match(stream, "m8", arena_pb2.MATCH_STATUS_ABORTED)
    after_abort = ask(stream, "m8", 1, resent=True)
    check(f"{sdk}: after the match is aborted, a resent request of it is decided afresh",
          answers.fresh(after_abort), f"this answer {after_abort}")

    seat(stream, "m9")
    answers.fresh(ask(stream, "m9", 1))
    stream.send(error=arena_pb2.Error(code=grpc.StatusCode.NOT_FOUND.value[0],
                                      message="no match 'm9'", match_id="m9"))
    after_unknown = ask(stream, "m9", 1, resent=True)
    check(f"{sdk}: after the server says it has no such match, a resent request of it is "
          "decided afresh", answers.fresh(after_unknown), f"this answer {after_unknown}")

    never = ask(stream, "m10", 1, resent=True)
    check(f"{sdk}: a resent request never answered is decided", answers.fresh(never),
          f"this answer {never}")

    vanished = {}
    for i in range(VANISHED_MATCHES):
        seat(stream, f"v{i}")
        vanished[i] = ask(stream, f"v{i}", 1)
    first_again = ask(stream, "v0", 1, resent=True)
    last = VANISHED_MATCHES - 1
    last_again = ask(stream, f"v{last}", 1, resent=True)
    check(f"{sdk}: of {VANISHED_MATCHES} matches that vanished without an end, the first "
          "one's answer is forgotten and the last one's kept",
          None not in vanished.values() and first_again not in vanished.values()
          and first_again is not None and last_again == vanished[last],
          f"first: answered {vanished[0]}, resent {first_again}; "
          f"last: answered {vanished[last]}, resent {last_again}")


def play(sdk, command):
    arena = FakeArena()
    server, port = serve(arena)
    log = os.path.join(WORK, f"{sdk}.log")
    with open(log, "w") as out:
        bot = subprocess.Popen(command + ["count", "--server", f"127.0.0.1:{port}",
                                          "--name", BOT, "--key", "any-key"],
                               stdout=out, stderr=subprocess.STDOUT)
    try:
        scenario(sdk, arena, log)

        server.stop(0)
        time.sleep(OUTAGE_S)
        server, _ = serve(arena, port)
        back = time.monotonic()
        stream, hello, arrival = accept(arena, 15)
        took = (arrival - back) if hello is not None else None
        ok = took is not None and took <= BACK_WITHIN_S
        check(f"{sdk}: with the server gone for {OUTAGE_S:.0f} s and back, the bot registers "
              f"again within {BACK_WITHIN_S} s", ok,
              f"registered again after {took:.2f} s" if took is not None else
              "not registered again within 15 s\n" + tail(log))
        if ok:
            print(f"     back {took:.2f} s after the server")
        if stream is not None:
            welcome(stream)

        server.stop(0)
        gaps = closing_port(port, CLOSING_S)
        spans = " ".join(f"{gap:.2f}" for gap in gaps)
        ok = max(gaps) <= TRIES_EVERY_S
        check(f"{sdk}: while its port only accepts connections and closes them, the bot tries "
              f"again at least every {TRIES_EVERY_S} s", ok,
              f"{len(gaps) - 1} attempts in {CLOSING_S:.0f} s, seconds between them (and the "
              f"window's ends): {spans}")
        if ok:
            print(f"     seconds between attempts (and the window's ends): {spans}")
        server, _ = serve(arena, port)
        stream, hello, _ = accept(arena, 15)
        check(f"{sdk}: ...and registers once the server is back", hello is not None, tail(log))

        if stream is not None:
            stream.end(grpc.StatusCode.UNAUTHENTICATED)
        try:
            status = bot.wait(timeout=10)
        except subprocess.TimeoutExpired:
            status = None
        time.sleep(0.5)
        check(f"{sdk}: UNAUTHENTICATED ends the bot with exit status 1, without another attempt",
              status == 1 and arena.streams.empty(),
              f"exit status {status}, {arena.streams.qsize()} more streams\n" + tail(log))
    except Exception:  # a broken scenario fails, and the others still run
        check(f"{sdk}: the scenario runs to its end", False, traceback.format_exc())
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
        server.stop(0)


def main():
    play("python", ["/usr/bin/python3", os.path.join(REPO, "tests", "bots", "sdk_bot.py")])
    if NODE is None or not os.path.isdir(os.path.join(REPO, "bots", "node", "node_modules",
                                                      "@grpc", "grpc-js")):
        check("node and the Node SDK's packages are installed (bash scripts/setup.sh)", False)
    else:
        play("node", [NODE, os.path.join(REPO, "tests", "bots", "sdk-bot.js")])
    shutil.rmtree(WORK, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
