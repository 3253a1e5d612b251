#!/usr/bin/python3
"""Random matches a second from Python, against the C++ engine in the same run.

    /usr/bin/python3 scripts/python_bench.py [BUILD_DIR] [--seconds S]

For each game (at its usual player count), three rates of random matches on
one core, measured one after the other in this run:
  engine   build/engine/random_match_benchmark (C++, the State interface);
  batch    hoard_engine.play(game, ["random"] * n, ...): whole matches in C++,
           one call from Python;
  step     a Python loop over hoard_engine.Match: seats_to_act, legal_actions,
           random.choice, apply, for every action.
and the batch runner's rate as a share of the engine's, and the step API's
cost per action beyond the engine's (the Python overhead of one step).
"""
import json
import os
import random
import subprocess
import sys
import time

GAMES = {"village": 4, "dragons_gold": 3, "frost_dragon": 3, "hedonia": 4}


def engine_rate(build, game, players, seconds):
    out = subprocess.run(
        [os.path.join(build, "engine", "random_match_benchmark"),
         f"--benchmark_filter=BM_RandomMatch/{game}/{players}$",
         f"--benchmark_min_time={seconds}", "--benchmark_format=json"],
        check=True, capture_output=True, text=True).stdout
    bench = json.loads(out)["benchmarks"][0]
    return bench["matches/s"], bench["actions/match"]


def batch_rate(engine, game, players, seconds):
    matches, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        engine.play(game, ["random"] * players, matches=200, seed=matches + 1)
        matches += 200
    return matches / (time.perf_counter() - start)


def step_rate(engine, game, players, seconds):
    rng = random.Random(1)
    matches, actions, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        match = engine.Match(game, players, matches + 1)
        while not match.is_over():
            seat = match.seats_to_act()[0]
            match.apply(seat, rng.choice(match.legal_actions(seat)))
            actions += 1
        matches += 1
    elapsed = time.perf_counter() - start
    return matches / elapsed, actions / elapsed


def main(argv):
    build = argv[1] if len(argv) > 1 and not argv[1].startswith("--") else "build"
    seconds = float(argv[argv.index("--seconds") + 1]) if "--seconds" in argv else 3.0
    sys.path.insert(0, os.path.join(build, "python"))
    import hoard_engine
    print(f"{'game':14} {'players':>7} {'engine/s':>10} {'batch/s':>10} {'batch %':>8} "
          f"{'step/s':>9} {'step µs/action':>15}")
    for game, players in GAMES.items():
        engine, per_match = engine_rate(build, game, players, seconds)
        batch = batch_rate(hoard_engine, game, players, seconds)
        step, actions = step_rate(hoard_engine, game, players, seconds)
        overhead = 1e6 / actions - 1e6 / (engine * per_match)
        print(f"{game:14} {players:>7} {engine:>10.0f} {batch:>10.0f} {100 * batch / engine:>7.0f}% "
              f"{step:>9.0f} {overhead:>15.2f}")


if __name__ == "__main__":
    main(sys.argv)
