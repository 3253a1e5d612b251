#!/usr/bin/python3
"""The server's memory stays flat: finished matches are served from the
database rather than kept, and a cancelled tournament's runner is released.

    /usr/bin/python3 tests/server_memory_test.py build/hoard

A real `hoard serve --db` plays HOARD_MEMORY_MATCHES matches (default 40000)
created over gRPC, waiting after each 1,000 until they are stored. Its
resident memory is read after the first half, the third quarter and the
last: in at least one of the last two quarters it must grow by at most 5%
of the first reading (the allocator, SQLite's page cache and the store
writer's batches settle in the first half; a leak of a few hundred bytes a
match grows both quarters). Resident memory is a high-water mark: matches
that pile up, running or waiting for the writer, raise it once, as high as
they pile (seen up to 25 MB on a busy machine, at any moment of a run), and
such a step lands in one quarter at most. Then ten tournaments of 100,000
matches each are created and cancelled; the least of the last three
readings may be at most 12 MB above the first two, where eight kept runners
would add 38 MB (a reading may still hold the runner just cancelled).
Prints one line per check and a closing 'N passed, M failed'.
"""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grpc  # noqa: E402
from checks import check, finish  # noqa: E402
from hoard_bot.stubs import arena_pb2, arena_pb2_grpc  # noqa: E402
from hoard_bot.stubs import tournament_pb2, tournament_pb2_grpc  # noqa: E402

HOARD = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit(
    "usage: server_memory_test.py PATH_TO_HOARD")
MATCHES = int(os.environ.get("HOARD_MEMORY_MATCHES", "40000"))
CYCLES = 10
DRAIN_EVERY = 1000
ADMIN = (("authorization", "Bearer memory-test-admin"),)

def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    work = tempfile.mkdtemp(prefix="hoard-memory-")
    tokens = os.path.join(work, "admin-tokens")
    with open(tokens, "w") as f:
        f.write("memory-test-admin\n")
    server = subprocess.Popen(
        [HOARD, "serve", "--listen", "127.0.0.1:0", "--db", os.path.join(work, "hoard.db"),
         "--admin-token-file", tokens, "--state-dir", os.path.join(work, "state")],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        # glibc gives new threads arenas of their own (up to eight a core),
        # and an arena keeps its peak: a tournament's threads that land in a
        # fresh one grow the process by a tournament's worth for good. Two
        # arenas keep what is measured the server's memory, not the spread.
        env=dict(os.environ, MALLOC_ARENA_MAX="2"))
    try:
        address = server.stdout.readline().split()[-1]
        channel = grpc.insecure_channel(address)
        arena = arena_pb2_grpc.ArenaStub(channel)
        tournaments = tournament_pb2_grpc.TournamentsStub(channel)
        finished_matches(server.pid, arena, os.path.join(work, "hoard.db"))
        cancelled_tournaments(server.pid, tournaments)
        channel.close()
    finally:
        server.terminate()
        server.wait(timeout=60)
        shutil.rmtree(work, ignore_errors=True)
    finish()


def create(arena, request):
    """Creates a match, waiting while the token runs as many as it may."""
    while True:
        try:
            return arena.CreateMatch(request, metadata=ADMIN, timeout=60)
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise
            time.sleep(0.01)


def drain(arena, db, created):
    """Waits until no match runs (built-in bots play in the background) and
    the `created` matches are stored (the store's writer keeps a finished
    match in memory until then)."""
    running = arena_pb2.ListMatchesRequest(status=arena_pb2.MATCH_STATUS_RUNNING, page_size=1)
    while arena.ListMatches(running, timeout=30).matches:
        time.sleep(0.02)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
            if connection.execute("SELECT COUNT(*) FROM matches").fetchone()[0] >= created:
                return
        time.sleep(0.05)


def finished_matches(pid, arena, db):
    request = arena_pb2.CreateMatchRequest(
        game="village", seats=[arena_pb2.SeatSpec(builtin="random")] * 3)
    warm = max(1, MATCHES // 2)
    middle = max(warm + 1, MATCHES * 3 // 4)
    first = None
    started = time.monotonic()
    for i in range(MATCHES):
        created = create(arena, request)
        first = first or created.match_id
        # Stored as they go: at most DRAIN_EVERY finished matches wait for
        # the writer at any moment, so that its queue's high-water mark is
        # reached early and the memory measured is what stays.
        if (i + 1) % DRAIN_EVERY == 0 or i + 1 in (warm, middle):
            drain(arena, db, i + 1)
        if i + 1 == warm:
            after_warm = rss_kib(pid)
        if i + 1 == middle:
            after_middle = rss_kib(pid)
    drain(arena, db, MATCHES)
    after_all = rss_kib(pid)
    print(f"     {MATCHES} matches in {time.monotonic() - started:.1f} s; resident memory "
          f"{after_warm} KiB after {warm}, {after_middle} KiB after {middle}, "
          f"{after_all} KiB after {MATCHES}")
    # A leak grows the memory in both quarters; the high-water mark's
    # one-time step shows in one of them at most.
    growth = min(after_middle - after_warm, after_all - after_middle)
    check(f"memory stays flat over the last {MATCHES - warm} finished matches (the smaller "
          f"growth of their two halves within 5%)",
          growth <= after_warm * 0.05,
          f"{after_warm} -> {after_middle} -> {after_all} KiB")
    got = arena.GetMatch(arena_pb2.GetMatchRequest(match_id=first), timeout=30)
    check("the first match is still served, record and all, from the database",
          got.match.status == arena_pb2.MATCH_STATUS_FINISHED and got.HasField("record"),
          got.match)
    listed = arena.ListMatches(arena_pb2.ListMatchesRequest(page_size=500), timeout=30)
    check("listing pages through the stored matches",
          len(listed.matches) == 500 and listed.next_page_token, len(listed.matches))


def cancelled_tournaments(pid, tournaments):
    spec = tournament_pb2.TournamentSpec(
        game="village", players_per_match=2, rounds=50000, concurrency=2,
        participants=[tournament_pb2.Participant(name="a", builtin="random"),
                      tournament_pb2.Participant(name="b", builtin="first")])
    before = rss_kib(pid)
    sizes = []
    for cycle in range(CYCLES):
        spec.seed = cycle + 1
        created = tournaments.CreateTournament(
            tournament_pb2.CreateTournamentRequest(spec=spec), metadata=ADMIN, timeout=60)
        tournaments.CancelTournament(tournament_pb2.CancelTournamentRequest(id=created.id),
                                     metadata=ADMIN, timeout=60)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            got = tournaments.GetTournament(tournament_pb2.GetTournamentRequest(id=created.id),
                                            timeout=30)
            if got.status == tournament_pb2.TOURNAMENT_STATUS_CANCELLED:
                break
            time.sleep(0.05)
        if cycle == 0:
            check("a tournament of 100,000 matches is accepted and cancelled",
                  created.progress.scheduled == 100000
                  and got.status == tournament_pb2.TOURNAMENT_STATUS_CANCELLED, got.status)
        sizes.append(rss_kib(pid))
    # Listing releases the runners of tournaments that have ended.
    tournaments.ListTournaments(tournament_pb2.ListTournamentsRequest(), timeout=30)
    sizes.append(rss_kib(pid))
    print(f"     resident memory before the first tournament {before} KiB, after each "
          f"cancelled tournament: {sizes} KiB")
    # A kept runner holds at least its schedule: 100,000 matches of 48 bytes
    # each, 4.8 MB, so eight more tournaments kept would add 38 MB and the
    # readings would climb with every tournament. A reading may still hold
    # the runner just cancelled, whose thread is ending (readings seen
    # alternating 31 and 40 MB, any of them last), so the least of the last
    # three readings is compared: at most 12 MB above the first two, where
    # kept runners would put it 29 MB above.
    allowed = 12 * 1024
    settled = min(sizes[-3:])
    check(f"memory stays flat over {CYCLES - 2} more cancelled tournaments of 100,000 matches",
          settled <= max(sizes[:2]) + allowed,
          f"{max(sizes[:2])} KiB -> {settled} KiB (least of the last three readings), "
          f"at most {allowed} KiB more")

if __name__ == "__main__":
    main()
