#!/usr/bin/python3
"""A server that stops running for a while (SIGSTOP, as a paused virtual
machine or heavy swapping would stop it) charges no bot for it: SDK bots
play matches with one-second decisions, the server is stopped for 15 s and
continued, and every match ends with no time-out on any seat, though the
bots' answers waited in the server's sockets far past their deadlines.

    /usr/bin/python3 tests/server_stall_test.py build/hoard

HOARD_STALL_SECONDS sets how long the server is stopped (default 15).
Prints one line per check and a closing 'N passed, M failed'.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grpc  # noqa: E402
from checks import check, finish, start_server  # noqa: E402
from hoard_bot.stubs import arena_pb2, arena_pb2_grpc  # noqa: E402

HOARD = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit(
    "usage: server_stall_test.py PATH_TO_HOARD")
STALL_SECONDS = float(os.environ.get("HOARD_STALL_SECONDS", "15"))
WORK = tempfile.mkdtemp(prefix="hoard-stall-")
ADMIN = "admin-of-the-stall-test"
MATCHES = 6
# An SDK bot that thinks 50 ms a decision, so that matches are in play for
# seconds; then plays its first legal action.
BOT = ("import sys, time; sys.path.insert(0, sys.argv.pop(1)); import hoard_bot; "
       "hoard_bot.run(lambda decision: time.sleep(0.05) or 0)")


def meta():
    return (("authorization", f"Bearer {ADMIN}"),)


def main():
    server, address, log = start_server(HOARD, WORK, ADMIN, "--db", os.path.join(WORK, "hoard.db"))
    channel = grpc.insecure_channel(address)
    arena = arena_pb2_grpc.ArenaStub(channel)
    bots = []
    try:
        for name in ("north", "south"):
            key = arena.AddBot(arena_pb2.AddBotRequest(name=name), metadata=meta()).key
            bots.append(subprocess.Popen(
                ["/usr/bin/python3", "-c", BOT, os.path.join(REPO, "bots", "python"),
                 "--server", address, "--name", name, "--key", key,
                 "--max-matches", str(MATCHES)],
                stdout=subprocess.DEVNULL, stderr=open(os.path.join(WORK, f"{name}.log"), "w")))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            listed = arena.ListBots(arena_pb2.ListBotsRequest(), timeout=10)
            if sum(b.connected for b in listed.bots) == 2:
                break
            time.sleep(0.1)
        check("two SDK bots connect", sum(b.connected for b in listed.bots) == 2, listed)

        ids = []
        for seed in range(MATCHES):
            created = arena.CreateMatch(arena_pb2.CreateMatchRequest(
                game="village", seed=seed,
                seats=[arena_pb2.SeatSpec(bot="north"), arena_pb2.SeatSpec(bot="south"),
                       arena_pb2.SeatSpec(builtin="random")],
                time_control=arena_pb2.TimeControl(decision_ms=1000, bank_ms=0,
                                                   max_strikes=0)),
                metadata=meta(), timeout=30)
            ids.append(created.match_id)
        time.sleep(0.5)  # play under way
        running = [arena.GetMatch(arena_pb2.GetMatchRequest(match_id=i), timeout=10)
                   for i in ids]
        check("matches are in play when the server stops",
              any(r.match.status == arena_pb2.MATCH_STATUS_RUNNING for r in running))

        server.send_signal(signal.SIGSTOP)
        time.sleep(STALL_SECONDS)
        server.send_signal(signal.SIGCONT)

        deadline = time.monotonic() + 120
        results = {}
        while time.monotonic() < deadline and len(results) < len(ids):
            for match_id in ids:
                got = arena.GetMatch(arena_pb2.GetMatchRequest(match_id=match_id), timeout=10)
                if got.match.status != arena_pb2.MATCH_STATUS_RUNNING:
                    results[match_id] = got.match
            time.sleep(0.2)
        check(f"all {len(ids)} matches end after the {STALL_SECONDS:.0f} s stop",
              len(results) == len(ids) and all(
                  m.status == arena_pb2.MATCH_STATUS_FINISHED for m in results.values()),
              results)
        charged = [(m.match_id, s.seat, s.player, s.timeouts)
                   for m in results.values() for s in m.seats if s.timeouts]
        check("no seat is charged a time-out for the server's stop", not charged, charged)
    finally:
        for bot in bots:
            bot.terminate()
        for bot in bots:
            try:
                bot.wait(timeout=10)
            except subprocess.TimeoutExpired:
                bot.kill()
        server.send_signal(signal.SIGCONT)
        server.terminate()
        server.wait(timeout=60)
        channel.close()
    log.seek(0)
    stalled = [l for l in log.read().splitlines() if "stall" in l]
    check("the server logs the stall", stalled, "no line names the stall")
    shutil.rmtree(WORK, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
