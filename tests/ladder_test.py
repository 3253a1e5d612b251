#!/usr/bin/python3
"""A standing ladder on a real server, with bots of three languages joining
and leaving as the docs say.

    /usr/bin/python3 tests/ladder_test.py build/hoard

`hoard ladder create` starts an open ladder with a built-in participant on
a `hoard serve --db`. A C++ bot (`hoard bot --ladder`), the Python example
bot and the Node example bot join it by its name and play; a fourth joins
late; one leaves in the middle and comes back, keeping its matches on the
leaderboard. The server is killed with SIGKILL mid-ladder and started again
on the same database: every match stored before is still there, and the
ladder goes on by itself. A finished ladder match shows its deal to anyone
(each deal is its own), one in flight does not. A ladder that is not open
seats only the bots it lists. `hoard ladder close` ends it: no match starts
after. Prints one line per check and a closing 'N passed, M failed'.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grpc  # noqa: E402
from checks import check, finish  # noqa: E402
from hoard_bot.client import BotClient  # noqa: E402
from hoard_bot.stubs import arena_pb2, arena_pb2_grpc  # noqa: E402
from hoard_bot.stubs import tournament_pb2, tournament_pb2_grpc  # noqa: E402

HOARD = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit(
    "usage: ladder_test.py PATH_TO_HOARD")
ADMIN = "ladder-test-admin"
LADDER = "village-open"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`hoard serve` on a fixed address, so that bots find it again after a
    restart."""

    def __init__(self, work, address):
        self.work, self.address = work, address
        self.tokens = os.path.join(work, "admin-tokens")
        with open(self.tokens, "w") as f:
            f.write(ADMIN + "\n")
        self.process = None

    def start(self):
        log = open(os.path.join(self.work, "serve.log"), "a")
        self.process = subprocess.Popen(
            [HOARD, "serve", "--listen", self.address, "--db",
             os.path.join(self.work, "hoard.db"), "--admin-token-file", self.tokens,
             "--state-dir", os.path.join(self.work, "state"), "--open-registration"],
            stdout=subprocess.PIPE, stderr=log, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("hoard: serving on "):
            sys.exit(f"the server did not start: {line}")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()


class Bots:
    def __init__(self, work, address):
        self.work, self.address = work, address
        self.running = {}

    def start(self, name, kind, ladder=LADDER):
        env = dict(os.environ, HOARD_SERVER=self.address, HOARD_BOT_NAME=name,
                   HOARD_BOT_KEY=f"key-of-{name}")
        if kind == "cpp":
            command = [HOARD, "bot", "--ladder", ladder, "--quiet"]
        elif kind == "python":
            command = ["/usr/bin/python3", os.path.join(REPO, "bots/python/examples/random_bot.py"),
                       "--ladder", ladder, "--quiet"]
        else:
            command = ["node", os.path.join(REPO, "bots/node/examples/random-bot.js"),
                       "--ladder", ladder, "--quiet"]
        log = open(os.path.join(self.work, f"{name}.log"), "a")
        self.running[name] = subprocess.Popen(command, env=env, stdout=log, stderr=log)

    def stop(self, name):
        process = self.running.pop(name)
        process.terminate()
        process.wait(timeout=30)

    def stop_all(self):
        for name in list(self.running):
            self.stop(name)


def hoard(*args):
    return subprocess.run([HOARD, *args], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, HOARD_TOKEN=ADMIN))


class Api:
    def __init__(self, address):
        self.channel = grpc.insecure_channel(address)
        self.arena = arena_pb2_grpc.ArenaStub(self.channel)
        self.tournaments = tournament_pb2_grpc.TournamentsStub(self.channel)

    def ladder(self, name=LADDER):
        listed = self.tournaments.ListTournaments(tournament_pb2.ListTournamentsRequest(),
                                                  timeout=30)
        for t in listed.tournaments:
            if t.spec.format == tournament_pb2.FORMAT_LADDER and t.spec.name == name:
                return t
        return None

    def matches_of(self, tournament_id):
        """bot -> matches stored in the ladder, from its leaderboard."""
        board = self.tournaments.GetLeaderboard(tournament_pb2.GetLeaderboardRequest(
            game="village", tournament_id=tournament_id), timeout=60)
        return {row.bot: row.matches for row in board.rows}, board

    def wait(self, what, predicate, seconds=60):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                got = predicate()
                if got:
                    return got
            except grpc.RpcError:
                pass
            time.sleep(0.2)
        return None


def main():
    work = tempfile.mkdtemp(prefix="hoard-ladder-")
    address = f"127.0.0.1:{free_port()}"
    server = Server(work, address)
    server.start()
    bots = Bots(work, address)
    api = Api(address)
    try:
        play(server, bots, api, address)
    finally:
        bots.stop_all()
        if server.process.poll() is None:
            server.process.terminate()
            server.process.wait(timeout=60)
        shutil.rmtree(work, ignore_errors=True)
    finish()


def play(server, bots, api, address):
    created = hoard("ladder", "create", LADDER, "--game", "village", "--open", "--participant",
                    "house=builtin:random", "--concurrency", "4", "--server", address)
    check("hoard ladder create starts an open ladder and says how to join it",
          created.returncode == 0 and f"--ladder {LADDER}" in created.stdout,
          created.stdout + created.stderr)
    again = hoard("ladder", "create", LADDER, "--game", "village", "--server", address)
    check("a second ladder of the same name is refused while the first runs",
          again.returncode != 0 and "already runs" in again.stderr, again.stderr)
    ladder = api.ladder()
    lid = ladder.id

    for name, kind in (("cpp-bot", "cpp"), ("py-bot", "python"), ("node-bot", "node")):
        bots.start(name, kind)
    counts = api.wait("all three play", lambda: (lambda m: m if all(
        m.get(b, 0) >= 3 for b in ("cpp-bot", "py-bot", "node-bot", "house")) else None)(
            api.matches_of(lid)[0]))
    check("a C++, a Python and a Node bot join the ladder by its name and play in it",
          counts is not None, api.matches_of(lid)[0])

    bots.start("late-bot", "cpp")
    late = api.wait("the late bot plays", lambda: api.matches_of(lid)[0].get("late-bot", 0) >= 3)
    check("a bot that joins late is seated within seconds", late, api.matches_of(lid)[0])

    bots.stop("py-bot")
    time.sleep(1.0)  # its last match ends
    left_with = api.matches_of(lid)[0].get("py-bot", 0)
    others = api.matches_of(lid)[0]
    time.sleep(3.0)
    after = api.matches_of(lid)[0]
    check("a bot that leaves plays no more, while the others go on",
          after.get("py-bot", 0) == left_with
          and sum(after.values()) > sum(others.values()), (left_with, others, after))
    check("the leaderboard keeps the bot that left, with its matches",
          after.get("py-bot", 0) == left_with and left_with >= 3, after)

    bots.start("py-bot", "python")
    back = api.wait("it plays again",
                    lambda: api.matches_of(lid)[0].get("py-bot", 0) >= left_with + 3)
    check("a bot that comes back plays again, its earlier matches kept under its name",
          back, api.matches_of(lid)[0])

    leave_by_asking(api, lid, address)

    stored_before = api.ladder().progress.finished
    server.kill()
    server.start()
    api = Api(address)
    resumed = api.wait("the ladder resumes", lambda: (lambda t: t if t and
                       t.progress.finished > stored_before + 20 else None)(api.ladder()), 90)
    check("a server killed with SIGKILL mid-ladder loses no stored match and goes on by itself",
          resumed is not None and resumed.status == tournament_pb2.TOURNAMENT_STATUS_RUNNING,
          (stored_before, api.ladder()))
    matches, _ = api.matches_of(lid)
    check("after the restart every bot plays again", api.wait(
        "all play", lambda: all(api.matches_of(lid)[0].get(b, 0) > matches.get(b, 0)
                                for b in ("cpp-bot", "py-bot", "node-bot", "late-bot")), 60),
          (matches, api.matches_of(lid)[0]))

    seal(api, lid)
    closed_ladder(bots, api, address)
    final_evaluation(api, address)

    shown = hoard("ladder", "show", LADDER, "--server", address)
    check("hoard ladder show prints the ladder and its leaderboard",
          shown.returncode == 0 and "RUNNING" in shown.stdout and "py-bot" in shown.stdout
          and "ML" in shown.stdout, shown.stdout + shown.stderr)
    closed = hoard("ladder", "close", LADDER, "--server", address)
    ended = api.wait("it is cancelled", lambda: (lambda t: t if t.status ==
                     tournament_pb2.TOURNAMENT_STATUS_CANCELLED else None)(api.ladder()), 60)
    check("hoard ladder close ends the ladder", closed.returncode == 0 and ended is not None,
          closed.stdout + closed.stderr)
    if ended is not None:
        time.sleep(1.5)
        check("no match starts after a ladder is closed",
              api.ladder().progress.finished == ended.progress.finished,
              (ended.progress, api.ladder().progress))


def leave_by_asking(api, lid, address):
    """A bot leaves the ladder by asking, staying connected."""
    asker = BotClient(lambda decision: 0, server=address, name="asker", key="key-of-asker",
                      ladders=[LADDER])
    thread = threading.Thread(target=asker.run, daemon=True)
    thread.start()
    played = api.wait("it plays", lambda: api.matches_of(lid)[0].get("asker", 0) >= 3)
    check("a bot of the Python SDK's BotClient joins the ladder", played,
          api.matches_of(lid)[0])
    asker.set_ladders([])
    time.sleep(1.0)  # its last match ends
    left_with = api.matches_of(lid)[0].get("asker", 0)
    time.sleep(2.5)
    bots = {b.name: b for b in api.arena.ListBots(arena_pb2.ListBotsRequest(), timeout=30).bots}
    check("a bot that asks to leave is seated no more, though still connected",
          api.matches_of(lid)[0].get("asker", 0) == left_with and bots["asker"].connected
          and not bots["asker"].ladders, (left_with, api.matches_of(lid)[0], bots.get("asker")))
    asker.stop()
    thread.join(timeout=30)


def seal(api, lid):
    """Finished ladder matches show their deal; one in flight does not."""
    listed = api.arena.ListMatches(arena_pb2.ListMatchesRequest(page_size=50), timeout=30)
    finished = [m for m in listed.matches if m.tournament_id == lid
                and m.status == arena_pb2.MATCH_STATUS_FINISHED]
    running = [m for m in listed.matches if m.tournament_id == lid
               and m.status == arena_pb2.MATCH_STATUS_RUNNING]
    got = api.arena.GetMatch(arena_pb2.GetMatchRequest(match_id=finished[0].match_id),
                             timeout=30) if finished else None
    check("a finished ladder match shows its seed and record to anyone",
          got is not None and got.match.seed != 0 and got.HasField("record"), got)
    if running:
        live = api.arena.GetMatch(arena_pb2.GetMatchRequest(match_id=running[0].match_id),
                                  timeout=30)
        check("a ladder match in flight hides its seed",
              live.match.seed == 0 or live.match.status != arena_pb2.MATCH_STATUS_RUNNING,
              live.match)


def closed_ladder(bots, api, address):
    """A ladder that is not open seats only the bots it lists."""
    # A listed bot is an account the server knows: it registers first.
    bots.start("member", "cpp", ladder="members")
    bots.start("stranger", "cpp", ladder="members")
    api.wait("both registered", lambda: {"member", "stranger"} <= {
        b.name for b in api.arena.ListBots(arena_pb2.ListBotsRequest(), timeout=30).bots
        if b.connected})
    created = hoard("ladder", "create", "members", "--game", "village", "--participant",
                    "member=registered", "--participant", "house=builtin:first",
                    "--server", address)
    check("a ladder of listed bots is created", created.returncode == 0,
          created.stdout + created.stderr)
    members = api.ladder("members")
    got = api.wait("the member plays", lambda: api.matches_of(members.id)[0].get("member", 0) >= 3)
    check("a listed bot joins a ladder that is not open and plays",
          got, api.matches_of(members.id)[0])
    check("a bot it does not list is never seated", "stranger" not in api.matches_of(
        members.id)[0], api.matches_of(members.id)[0])
    hoard("ladder", "close", "members", "--server", address)
    bots.stop("member")
    bots.stop("stranger")


def final_evaluation(api, address):
    """A frozen ladder plays on until the order of its top is settled."""
    created = hoard("ladder", "create", "finals", "--game", "village", "--participant",
                    "heuristic=builtin:heuristic", "--participant", "random=builtin:random",
                    "--participant", "first=builtin:first", "--concurrency", "2",
                    "--server", address)
    check("a ladder of three built-in bots is created", created.returncode == 0,
          created.stdout + created.stderr)
    api.wait("it plays", lambda: api.ladder("finals").progress.finished >= 30)
    refused = hoard("ladder", "freeze", "finals", "--top", "2", "--confidence", "1.5",
                    "--server", address)
    check("a confidence of 1.5 is refused, naming the flag",
          refused.returncode != 0 and "--confidence" in refused.stderr, refused.stderr)
    frozen = hoard("ladder", "freeze", "finals", "--top", "2", "--confidence", "0.9",
                   "--budget", "3000", "--server", address)
    check("hoard ladder freeze starts the final evaluation",
          frozen.returncode == 0 and "entries frozen" in frozen.stdout,
          frozen.stdout + frozen.stderr)
    again = hoard("ladder", "freeze", "finals", "--server", address)
    check("a ladder is frozen once", again.returncode != 0 and "already" in again.stderr,
          again.stderr)
    ended = api.wait("it settles", lambda: (lambda t: t if t.status ==
                     tournament_pb2.TOURNAMENT_STATUS_FINISHED else None)(api.ladder("finals")),
                     120)
    state = ended.progress.ladder if ended else None
    check("the frozen ladder ends FINISHED once the order of its top 2 is 90% sure",
          ended is not None and state.frozen and state.settled and state.confidence >= 0.9
          and 0 < state.evaluation_matches < 3000, ended)
    board = api.tournaments.GetLeaderboard(tournament_pb2.GetLeaderboardRequest(
        game="village", tournament_id=api.ladder("finals").id), timeout=60)
    check("its top two are the heuristic bot, then random",
          [row.bot for row in board.rows][:2] == ["heuristic", "random"], board.rows)
    shown = hoard("ladder", "show", "finals", "--server", address)
    check("hoard ladder show says how sure the final ranking is",
          "final evaluation of the top 2" in shown.stdout and "settled" in shown.stdout,
          shown.stdout + shown.stderr)


if __name__ == "__main__":
    main()
