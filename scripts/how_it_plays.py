#!/usr/bin/env python3
"""Prints the "How the game plays" section of docs/rules/<game>.md.

Runs `hoard stats` with the heuristic bots for every player count of the game
(default rules, 2,000 matches each, seed 1) and prints a summary table, then
each command with its whole output, as Markdown.

  python3 scripts/how_it_plays.py build/hoard village [--matches 2000]
"""

import argparse
import re
import subprocess
import sys


def player_counts(hoard, game):
    out = subprocess.run([hoard, "games"], check=True, capture_output=True, text=True).stdout
    block = out.split(game + " — ", 1)[1]
    low, high = re.search(r"players (\d+)-(\d+)", block).groups()
    return range(int(low), int(high) + 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("hoard")
    parser.add_argument("game")
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--bots", default="heuristic")
    args = parser.parse_args()

    runs = []
    for players in player_counts(args.hoard, args.game):
        command = ["hoard", "stats", "--game", args.game, "--players", str(players),
                   "--bots", args.bots, "--matches", str(args.matches)]
        out = subprocess.run([args.hoard] + command[1:] + ["--quiet"], check=True,
                             capture_output=True, text=True).stdout
        runs.append((players, " ".join(command), out))

    print("| players | actions (median) | largest seat gap from fair | shared first place | "
          "how matches ended |")
    print("|---|---|---|---|---|")
    for players, _, out in runs:
        median = re.search(r"^length \(actions\).*median (\S+)", out, re.M).group(1)
        gap = re.search(r"largest gap from fair: (\S+) points \(seat (\d+)\)", out)
        shared = re.search(r"^shared first place +(\S+)", out, re.M).group(1)
        ended = []
        section = re.search(r"^ended .*\n((?:  .*\n)+)", out, re.M)
        if section:
            for line in section.group(1).splitlines():
                m = re.match(r"  (.*?) +\S+ +\S+ +(\S+%)", line)
                ended.append(f"{m.group(1)} {m.group(2)}")
        print(f"| {players} | {median} | {gap.group(1)} (seat {gap.group(2)}) | {shared} | "
              f"{'; '.join(ended) or '-'} |")
    print()
    for players, command, out in runs:
        print(f"`{command}`")
        print()
        print("```")
        sys.stdout.write(out)
        print("```")
        print()


if __name__ == "__main__":
    main()
