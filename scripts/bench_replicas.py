#!/usr/bin/python3
"""Server-side tournaments on one replica against three, on one PostgreSQL:

    /usr/bin/python3 scripts/bench_replicas.py [LIGHT_MATCHES] [SEARCH_MATCHES]
        (defaults 2000 and 300)

A PostgreSQL server of its own (tests/postgres.py: initdb into a temporary
directory, fsync on as a real one runs), and for each workload a fresh
database and N `hoard serve` replicas on it (N = 1, then 3), each with its
tournaments at concurrency 2:

- light: random against first, village, two to a match: matches cost the
  engine almost nothing, so the store and the leases are what is measured;
- search: mcts-30 against the heuristic: the cores are what is measured.

A tournament is created on the first replica and timed from its creation to
FINISHED in the database. First, the database's own write rate on this
machine (pgbench, simple updates). For each run it prints matches/s, and what the
database did per stored match (pg_stat_database: transactions committed,
rows inserted, updated and fetched; reads count as transactions too), the
figures that say where a fleet of
many replicas saturates (docs/performance.md, "Replicas").
"""
import json
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests"))
from postgres import TemporaryPostgres  # noqa: E402

HOARD = os.path.join(REPO, "build", "hoard")
LIGHT = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
SEARCH = int(sys.argv[2]) if len(sys.argv) > 2 else 300
WORK = tempfile.mkdtemp(prefix="hoard-bench-replicas-")
TOKENS = os.path.join(WORK, "admin-tokens")
with open(TOKENS, "w") as f:
    f.write("bench-admin\n")

WORKLOADS = {
    "light": ["--participant", "r=builtin:random", "--participant", "f=builtin:first"],
    "search": ["--participant", "m=builtin:mcts-30", "--participant", "h=builtin:heuristic"],
}


def stats(pg, database):
    row = pg.psql("postgres", "SELECT xact_commit, tup_inserted, tup_updated, tup_fetched "
                              f"FROM pg_stat_database WHERE datname = '{database}'")
    return [int(x) for x in row.split("|")]


def run(pg, workload, matches, replicas):
    database = f"{workload}_{replicas}"
    url = pg.new_database(database)
    servers = []
    for i in range(replicas):
        process = subprocess.Popen(
            [HOARD, "serve", "--db", url, "--listen", "127.0.0.1:0", "--admin-token-file",
             TOKENS, "--state-dir", os.path.join(WORK, f"{database}-{i}")],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = process.stdout.readline()
        if "serving on" not in line:
            sys.exit(f"bench_replicas: hoard serve did not start: {line}")
        servers.append((process, line.split()[-1]))
    try:
        time.sleep(0.5)
        pg.psql("postgres", "SELECT pg_stat_reset()")
        time.sleep(0.6)  # the statistics collector's interval
        before = stats(pg, database)
        began = time.monotonic()
        created = subprocess.run(
            [HOARD, "tournament", "create", "--server", servers[0][1], "--token-file", TOKENS,
             "--json", "--game", "village", "--players", "2", "--rounds", str(matches // 2),
             "--concurrency", "2"] + WORKLOADS[workload], capture_output=True, text=True)
        if created.returncode != 0:
            sys.exit(f"bench_replicas: cannot create the tournament: {created.stderr}")
        tid = json.loads(created.stdout)["id"]
        while True:
            status = pg.psql(database, f"SELECT status FROM tournaments WHERE id = {tid}")
            if status != "TOURNAMENT_STATUS_RUNNING":
                break
            time.sleep(0.05)
        took = time.monotonic() - began
        stored = int(pg.psql(database, f"SELECT count(*) FROM matches WHERE tournament_id = {tid}"))
        time.sleep(0.6)
        after = stats(pg, database)
    finally:
        for process, _ in servers:
            process.terminate()
            process.wait(timeout=60)
    if status != "TOURNAMENT_STATUS_FINISHED" or stored != matches:
        sys.exit(f"bench_replicas: {workload} on {replicas}: {status}, {stored} of {matches}")
    per = [(a - b) / stored for a, b in zip(after, before)]
    print(f"{workload:6s} {replicas} replica{'s' if replicas > 1 else ' '}: {stored} matches in "
          f"{took:6.2f} s = {stored / took:8.1f} matches/s; per match: {per[0]:5.2f} transactions, "
          f"{per[1]:5.2f} rows inserted, {per[2]:5.2f} updated, {per[3]:7.1f} fetched",
          flush=True)
    return stored / took


def pgbench(pg):
    """The database's own write rate here: pgbench's simple updates (-N: one
    row updated, one inserted, three statements a transaction), 4 clients,
    5 s."""
    pg.new_database("pgbench")
    env = dict(os.environ, PGHOST=pg.dir, PGUSER="hoard")
    bench = os.path.join(pg.bin, "pgbench")
    subprocess.run([bench, "-i", "-q", "pgbench"], env=env, capture_output=True, check=True)
    done = subprocess.run([bench, "-N", "-c", "4", "-j", "2", "-T", "5", "pgbench"], env=env,
                          capture_output=True, text=True, check=True)
    tps = [line for line in done.stdout.splitlines() if line.startswith("tps")]
    return float(tps[0].split()[2]) if tps else 0.0


print(f"bench_replicas: hoard serve replicas on one PostgreSQL, {os.cpu_count()} cores; "
      f"village, 2 to a match, concurrency 2 per replica", flush=True)
with TemporaryPostgres(fsync=True) as pg:
    print(f"floor  pgbench -N (4 clients, 5 s): {pgbench(pg):8.1f} transactions/s", flush=True)
    for workload, matches in (("light", LIGHT), ("search", SEARCH)):
        one = run(pg, workload, matches, 1)
        three = run(pg, workload, matches, 3)
        print(f"{workload:6s} three replicas / one: {three / one:.2f}", flush=True)
