#!/usr/bin/python3
"""The Python and Node SDKs and `hoard bot` stop on SIGTERM and SIGINT
whenever the signal comes, and leave no process behind. Against a real
`hoard serve` over real gRPC.

    /usr/bin/python3 tests/sdk_signals_test.py build/hoard [NODE]

NODE is the node program (default: the one on PATH). Each SDK, and `hoard
bot`, plays under SLOTS bot accounts at once, each account played by the
SDK's random example bot (bots/python/examples/random_bot.py,
bots/node/examples/random-bot.js) or `hoard bot --strategy random`, with
--max-matches 3, kept busy by a thread that creates Please Don't Burn
My Village! matches for it against two built-in random bots. Once a bot is
seated it gets SIGTERM at a random moment of its first second of play, and
a new one is started in its place, until each has had its share of SIGTERMs
(SIGTERMS: 25 each SDK, 50 in all, and 10 for `hoard bot`), within
PLAY_LIMIT_S. Checked:

- every bot exits within EXIT_WITHIN_S of its SIGTERM, with status 0, after
  logging its totals (not cut short by the SDK's bound on the stop);
- no bot process of this test is left at the end;
- a bot whose decision never ends (sdk_bot.py stuck, sdk-bot.js stuck)
  exits within EXIT_WITHIN_S of SIGTERM, and of SIGINT, with status 0;
- a second SIGTERM while a bot stops ends it at once (killed by SIGTERM;
  a Node bot's stop does not wait for a decision, and may be over first).

Prints one line per check and a closing 'N passed, M failed'; exits 1 if any
check failed.
"""
import collections
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
if len(sys.argv) < 2:
    sys.exit("usage: sdk_signals_test.py PATH_TO_HOARD [NODE]")
import grpc  # noqa: E402
import sdk_think_test as real  # noqa: E402  (its `hoard serve`, connected and tail)
from checks import check, finish  # noqa: E402
from hoard_bot.stubs import arena_pb2  # noqa: E402

NODE = sys.argv[2] if len(sys.argv) > 2 else shutil.which("node")
WORK = real.WORK
# SIGTERMs sent to busy bots, by kind of bot.
SIGTERMS = {"python": 25, "node": 25, "hoard bot": 10}
SLOTS = 3             # bot accounts per SDK, each played by one process at a time
PLAY_LIMIT_S = 75     # the busy phase ends then, signals sent or not
EXIT_WITHIN_S = 5     # a bot exits this soon after its signal (the SDKs: 1 s)
SEATED_WITHIN_S = 30  # a new bot is seated this soon
# Every bot of this test runs with a name that holds this, so that any left
# behind is found among all processes.
MARK = f"sig{os.getpid()}"
# What a bot logs last when it stops of its own accord: its totals (the SDKs,
# hoard bot).
TOTALS = ("done: ", " match(es) played, ")
TIME_CONTROL = arena_pb2.TimeControl(decision_ms=2000, bank_ms=0, max_strikes=1)


def commands():
    """The command (before its flags) of each SDK's random bot and stuck bot."""
    found = {"hoard bot": {"random": [real.HOARD, "bot", "--strategy", "random"]},
             "python": {"random": ["/usr/bin/python3",
                                   os.path.join(REPO, "bots", "python", "examples",
                                                "random_bot.py")],
                        "stuck": ["/usr/bin/python3",
                                  os.path.join(REPO, "tests", "bots", "sdk_bot.py"), "stuck"]}}
    if NODE is None or shutil.which(NODE) is None or not os.path.isdir(
            os.path.join(REPO, "bots", "node", "node_modules", "@grpc", "grpc-js")):
        check("node and the Node SDK's packages are installed (bash scripts/setup.sh)", False)
        return found
    found["node"] = {"random": [NODE, os.path.join(REPO, "bots", "node", "examples",
                                                   "random-bot.js")],
                     "stuck": [NODE, os.path.join(REPO, "tests", "bots", "sdk-bot.js"),
                               "stuck"]}
    return found


class Bot:
    """One bot process, its output appended to the log of its account."""

    def __init__(self, server, command, name, key, log):
        self.log = log
        self.since = os.path.getsize(log) if os.path.exists(log) else 0
        with open(log, "a") as err:
            self.process = subprocess.Popen(
                command + ["--server", server.address, "--name", name, "--key", key,
                           "--max-matches", "3"],
                stdin=subprocess.DEVNULL, stdout=err, stderr=err)

    def said(self):
        with open(self.log, errors="replace") as f:
            f.seek(self.since)
            return f.read()

    def seated(self, within=SEATED_WITHIN_S):
        deadline = time.monotonic() + within
        while time.monotonic() < deadline and self.process.poll() is None:
            if "seated as seat" in self.said():
                return True
            time.sleep(0.02)
        return False

    def signal_and_wait(self, signum, within=EXIT_WITHIN_S):
        """Sends `signum`: (exit status or None if still running, seconds taken)."""
        sent = time.monotonic()
        self.process.send_signal(signum)
        return self.wait(sent, within)

    def wait(self, sent, within=EXIT_WITHIN_S):
        try:
            status = self.process.wait(timeout=max(0.0, sent + within - time.monotonic()))
        except subprocess.TimeoutExpired:
            status = None
        took = time.monotonic() - sent
        if status is None:  # the fault this test looks for: end it, and say so
            self.process.kill()
            self.process.wait()
        return status, took


class Feeder(threading.Thread):
    """Keeps every account busy: matches created for each name, over and over
    (those of a full or absent bot are refused, and tried again)."""

    def __init__(self, server, names):
        super().__init__(daemon=True)
        self.server, self.names = server, names
        self.created = 0
        self.done = threading.Event()

    def run(self):
        while not self.done.is_set():
            for name in self.names:
                try:
                    self.server.arena.CreateMatch(arena_pb2.CreateMatchRequest(
                        game="village", time_control=TIME_CONTROL,
                        seats=[arena_pb2.SeatSpec(bot=name), arena_pb2.SeatSpec(builtin="random"),
                               arena_pb2.SeatSpec(builtin="random")]),
                        metadata=real.ADMIN, timeout=10)
                    self.created += 1
                except grpc.RpcError:
                    pass
            self.done.wait(0.1)


class Tally:
    """The SIGTERMs sent in the busy phase and how each bot ended."""

    def __init__(self):
        self.lock = threading.Lock()
        self.sent = collections.Counter()  # sdk -> SIGTERMs sent
        self.slow = []        # (sdk, name, status, seconds, the bot's last lines)
        self.abrupt = []      # (sdk, name, the bot's last lines): stopped without its totals
        self.unseated = []    # (sdk, name, what it said)
        self.deadline = time.monotonic() + PLAY_LIMIT_S

    def claim(self, sdk):
        """Whether another SIGTERM may be sent to `sdk` (counted if so)."""
        with self.lock:
            if not self.wants(sdk):
                return False
            self.sent[sdk] += 1
            return True

    def wants(self, sdk):
        return self.sent[sdk] < SIGTERMS[sdk] and time.monotonic() < self.deadline


def play_and_stop(server, tally, sdk, command, name, key):
    """One account's life in the busy phase: a bot started, seated, sent
    SIGTERM, waited for; again until the tally is full."""
    log = os.path.join(WORK, f"{name}.log")
    while tally.wants(sdk):
        bot = Bot(server, command, name, key, log)
        if not bot.seated():
            with tally.lock:
                tally.unseated.append((sdk, name, bot.said()[-2000:]))
            bot.wait(time.monotonic(), 0)
            return
        time.sleep(random.uniform(0, 1))
        if not tally.claim(sdk):
            bot.signal_and_wait(signal.SIGTERM)
            return
        status, took = bot.signal_and_wait(signal.SIGTERM)
        said = bot.said()
        with tally.lock:
            if status != 0:
                tally.slow.append((sdk, name, status, took, said[-1500:]))
            elif not any(totals in said for totals in TOTALS):
                tally.abrupt.append((sdk, name, said[-1500:]))


def busy(server, found):
    names, threads = [], []
    tally = Tally()
    for sdk, sdk_commands in found.items():
        for slot in range(SLOTS):
            name = f"{MARK}-{sdk.replace(' ', '-')}-{slot}"
            key = server.arena.AddBot(arena_pb2.AddBotRequest(name=name), metadata=real.ADMIN,
                                      timeout=30).key
            names.append(name)
            threads.append(threading.Thread(
                target=play_and_stop, args=(server, tally, sdk, sdk_commands["random"], name, key),
                daemon=True))
    feeder = Feeder(server, names)
    feeder.start()
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(PLAY_LIMIT_S + SEATED_WITHIN_S + 2 * EXIT_WITHIN_S)
    feeder.done.set()
    feeder.join(30)
    print(f"     SIGTERMs: {', '.join(f'{n} to {sdk}' for sdk, n in tally.sent.items())}, "
          f"in {time.monotonic() - started:.0f} s; {feeder.created} matches created")
    check(f"every bot was seated in busy play before its SIGTERM",
          not tally.unseated, "\n".join(f"{sdk} {name}: {said}"
                                        for sdk, name, said in tally.unseated))
    wanted = {sdk: SIGTERMS[sdk] for sdk in found}
    check("SIGTERMs were sent to bots in busy play: " +
          ", ".join(f"{n} to {sdk}" for sdk, n in wanted.items()),
          dict(tally.sent) == wanted, f"sent {dict(tally.sent)} within {PLAY_LIMIT_S} s")
    check(f"every bot exited within {EXIT_WITHIN_S} s of its SIGTERM, with status 0",
          not tally.slow,
          "\n".join(f"{sdk} {name}: " +
                    ("still running (killed)" if status is None else f"status {status}") +
                    f" after {took:.1f} s; it said:\n{said}"
                    for sdk, name, status, took, said in tally.slow[:3]))
    check("every bot stopped of its own accord (it logged its totals), not at the bound",
          not tally.abrupt,
          "\n".join(f"{sdk} {name}: it said:\n{said}" for sdk, name, said in tally.abrupt[:3]))


def stuck(server, found):
    """Bots whose decision never ends: SIGTERM, SIGINT, and SIGTERM twice."""
    for sdk, sdk_commands in found.items():
        if "stuck" not in sdk_commands:  # hoard bot's strategies never take long
            continue
        name = f"{MARK}-{sdk}-stuck"
        key = server.arena.AddBot(arena_pb2.AddBotRequest(name=name), metadata=real.ADMIN,
                                  timeout=30).key
        feeder = Feeder(server, [name])
        feeder.start()
        log = os.path.join(WORK, f"{name}.log")
        try:
            for signum, twice in ((signal.SIGTERM, False), (signal.SIGINT, False),
                                  (signal.SIGTERM, True)):
                what = f"{sdk}: a bot stuck in a decision, sent {signal.Signals(signum).name}" + \
                    (" twice" if twice else "")
                bot = Bot(server, sdk_commands["stuck"], name, key, log)
                if not bot.seated():
                    check(f"{what}: the bot is seated", False, bot.said()[-2000:])
                    bot.wait(time.monotonic(), 0)
                    continue
                time.sleep(0.5)  # its decision is running by now
                if not twice:
                    status, took = bot.signal_and_wait(signum)
                    check(f"{what}, exits within {EXIT_WITHIN_S} s with status 0 "
                          f"({took:.2f} s)", status == 0,
                          f"status {status} after {took:.1f} s; it said:\n{bot.said()[-1500:]}")
                    continue
                sent = time.monotonic()
                bot.process.send_signal(signum)
                time.sleep(0.5)
                bot.process.send_signal(signum)
                status, took = bot.wait(sent)
                # Python's stop waits for the stuck decision until its bound;
                # Node's does not wait for it, and may be over before the second.
                ended = {-signal.SIGTERM} if sdk == "python" else {0, -signal.SIGTERM}
                check(f"{what}, ends at the second at the latest (status {status}, "
                      f"{took:.2f} s)", status in ended,
                      f"status {status} after {took:.1f} s; it said:\n{bot.said()[-1500:]}")
        finally:
            feeder.done.set()
            feeder.join(30)


def left_behind():
    """The processes still running with this test's names (zombies aside)."""
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if MARK in cmdline and state != "Z":
            left.append(f"{pid}: {cmdline}")
    return left


def main():
    server = real.Server()
    try:
        found = commands()
        busy(server, found)
        stuck(server, found)
        left = left_behind()
        check("no bot process is left", not left, "\n".join(left))
        for line in left:
            os.kill(int(line.split(":")[0]), signal.SIGKILL)
    finally:
        server.stop()
        shutil.rmtree(WORK, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
