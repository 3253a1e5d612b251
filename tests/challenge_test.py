#!/usr/bin/python3
"""Bots challenge each other on a real server, and the SDKs answer by policy.

    /usr/bin/python3 tests/challenge_test.py build/hoard

On a `hoard serve --db` with open registration: a Python bot (the SDK's
BotClient.challenge) challenges a Python, a Node and a C++ bot that accept
by their default policy, a Python bot run with `--challenges decline`, and a
stream that never answers. A rated challenge is played and rated; an
unrated one is played, stored as unrated and left out of the leaderboard;
three can sit at one table; a decline, a bot not connected, the challenger
itself, no answer in time, the fifth challenge waiting at once, and a bot
that leaves each end the challenge with a reason. Prints one line per check
and a closing 'N passed, M failed'.
"""
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
import shutil

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grpc  # noqa: E402
from checks import check, finish, start_server  # noqa: E402
from hoard_bot.client import BotClient  # noqa: E402
from hoard_bot.stubs import arena_pb2, arena_pb2_grpc  # noqa: E402
from hoard_bot.stubs import tournament_pb2, tournament_pb2_grpc  # noqa: E402

HOARD = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit(
    "usage: challenge_test.py PATH_TO_HOARD")


def first_legal(request):
    return 0


class Silent:
    """A registered stream that hears offers and never answers them."""

    def __init__(self, address, name):
        self.channel = grpc.insecure_channel(address)
        self.outgoing = queue.Queue()
        self.outgoing.put(arena_pb2.BotMessage(hello=arena_pb2.Hello(register=arena_pb2.Register(
            name=name, key=f"key-of-{name}"))))
        self.offers = []
        self.call = arena_pb2_grpc.ArenaStub(self.channel).Play(iter(self.outgoing.get, None))
        self.welcomed = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for message in self.call:
                if message.HasField("welcome"):
                    self.welcomed.set()
                if message.HasField("challenge_offer"):
                    self.offers.append(message.challenge_offer)
        except grpc.RpcError:
            pass

    def close(self):
        self.call.cancel()
        self.channel.close()


def main():
    work = tempfile.mkdtemp(prefix="hoard-challenge-")
    server, address, _ = start_server(HOARD, work, "challenge-admin", "--db",
                                      os.path.join(work, "hoard.db"), "--open-registration")
    env = dict(os.environ, HOARD_SERVER=address)
    bots = []

    def launch(name, command):
        log = open(os.path.join(work, f"{name}.log"), "w")
        bots.append(subprocess.Popen(command, env=dict(env, HOARD_BOT_NAME=name,
                                                        HOARD_BOT_KEY=f"key-of-{name}"),
                                     stdout=log, stderr=log))

    python_bot = ["/usr/bin/python3", os.path.join(REPO, "bots/python/examples/random_bot.py")]
    launch("py-accepts", python_bot)
    launch("py-declines", python_bot + ["--challenges", "decline"])
    launch("node-accepts", ["node", os.path.join(REPO, "bots/node/examples/random-bot.js")])
    launch("cpp-accepts", [HOARD, "bot", "--quiet"])
    silent = Silent(address, "silent")
    leaving = Silent(address, "leaving")
    challenger = BotClient(first_legal, server=address, name="challenger", key="key-of-c",
                           max_matches=8)
    threading.Thread(target=challenger.run, daemon=True).start()
    channel = grpc.insecure_channel(address)
    arena = arena_pb2_grpc.ArenaStub(channel)
    tournaments = tournament_pb2_grpc.TournamentsStub(channel)
    try:
        names = {"py-accepts", "py-declines", "node-accepts", "cpp-accepts", "silent", "leaving",
                 "challenger"}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            connected = {b.name for b in arena.ListBots(arena_pb2.ListBotsRequest()).bots
                         if b.connected}
            if names <= connected:
                break
            time.sleep(0.2)
        check("every bot is connected", names <= connected, connected)
        play(challenger, arena, tournaments, silent, leaving)
    finally:
        challenger.stop()
        for bot in bots:
            bot.terminate()
            bot.wait(timeout=30)
        silent.close()
        server.terminate()
        server.wait(timeout=60)
        shutil.rmtree(work, ignore_errors=True)
    finish()


def finished(arena, match_id):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        got = arena.GetMatch(arena_pb2.GetMatchRequest(match_id=match_id))
        if got.match.status == arena_pb2.MATCH_STATUS_FINISHED:
            return got.match
        time.sleep(0.1)
    return None


def play(challenger, arena, tournaments, silent, leaving):
    rated = challenger.challenge(["py-accepts"], "village")
    check("a Python bot accepts a rated challenge by its default policy",
          rated is not None and rated.accepted and rated.match_id, rated)
    match = finished(arena, rated.match_id) if rated and rated.accepted else None
    check("the challenge is played to the end, the challenger in seat 0",
          match is not None and [s.player for s in match.seats] ==
          ["bot:challenger", "bot:py-accepts"] and not match.unrated, match)

    unrated = challenger.challenge(["node-accepts"], "village", rated=False)
    check("a Node bot accepts an unrated challenge by its default policy",
          unrated is not None and unrated.accepted, unrated)
    match = finished(arena, unrated.match_id) if unrated and unrated.accepted else None
    check("an unrated challenge is stored as unrated", match is not None and match.unrated, match)

    three = challenger.challenge(["cpp-accepts", "py-accepts"], "village")
    check("a C++ and a Python bot accept a challenge to one table of three",
          three is not None and three.accepted, three)
    match = finished(arena, three.match_id) if three and three.accepted else None
    check("it seats all three", match is not None and len(match.seats) == 3, match)

    time.sleep(1.5)  # the store takes the results in
    board = tournaments.GetLeaderboard(tournament_pb2.GetLeaderboardRequest(game="village"))
    rows = {row.bot: row.matches for row in board.rows}
    check("rated challenges are on the leaderboard, the unrated one is not",
          rows.get("py-accepts") == 2 and rows.get("cpp-accepts") == 1
          and "node-accepts" not in rows and rows.get("challenger") == 2, rows)

    declined = challenger.challenge(["py-declines"], "village")
    check("a bot run with --challenges decline declines, and the challenger hears who",
          declined is not None and not declined.accepted
          and "py-declines declined" in declined.reason, declined)
    for opponents, game, why in ((["nobody"], "village", "not connected"),
                                 (["challenger"], "village", "cannot challenge itself"),
                                 (["py-accepts"], "no-such-game", "no-such-game"),
                                 (["py-accepts"], "dragons_gold", "players")):
        got = challenger.challenge(opponents, game)
        check(f"a challenge refused at once: {why}",
              got is not None and not got.accepted and why in got.reason, got)

    waiting = []
    threads = [threading.Thread(target=lambda: waiting.append(
        challenger.challenge(["silent"], "village", timeout=40))) for _ in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(1.0)
    fifth = challenger.challenge(["silent"], "village")
    check("a bot's fifth challenge waiting at once is refused",
          fifth is not None and not fifth.accepted and "4 challenges" in fifth.reason, fifth)
    for thread in threads:
        thread.join()
    check("a bot that never answers is told as much after 10 s, four times",
          len(waiting) == 4 and all(r is not None and not r.accepted and
                                    "did not answer within 10s" in r.reason for r in waiting),
          waiting)
    check("the silent bot was offered them", len(silent.offers) >= 4, len(silent.offers))

    result = []
    thread = threading.Thread(target=lambda: result.append(
        challenger.challenge(["leaving"], "village", timeout=30)))
    thread.start()
    time.sleep(1.0)
    leaving.close()
    thread.join()
    check("a bot that leaves before answering ends the challenge",
          result and result[0] is not None and "leaving left" in result[0].reason, result)


if __name__ == "__main__":
    main()
