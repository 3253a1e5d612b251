#!/usr/bin/env python3
"""The shape of the C++ code: the longest functions, the members and mutexes
of named classes, and the files of each folder.

  python3 scripts/code_shape.py [--root DIR] [--top N] [--class FILE:NAME ...]
                                [FOLDER ...]

Functions are found as the house style writes them: a definition starts at
the left margin and its body ends with a '}' at the left margin (members
defined inside a class body are not counted). A class's data members are its
declarations of a name ending in '_' (with or without an annotation or an initialiser); its mutexes are
those of type absl::Mutex. Meant for before/after comparisons of a change,
not as a metric to optimise.
"""

import argparse
import os
import re
import sys

DEFINITION = re.compile(r"^[A-Za-z].*\)\s*(const)?\s*(override)?\s*(ABSL_[A-Z_]+\(.*\))?\s*\{$")
MEMBER = re.compile(r"^\s+(?!return\b)[^;=]*?\b\w+_\s*(ABSL_\w+\([^)]*\)\s*)*(=[^;]*|\{[^;]*\})?;")


def sources(root, folders):
    for folder in folders:
        for directory, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if name.endswith((".cc", ".h")):
                    yield os.path.join(directory, name)


def functions(path):
    """(lines, name, path:line) for each function defined at the left margin."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    found = []
    start = None
    for number, line in enumerate(lines, 1):
        if start is None:
            if DEFINITION.match(line) and not line.startswith(("namespace", "class", "struct")):
                start = number
                name = line.split("(")[0].split()[-1] if "(" in line else line
        elif line == "}" or line.startswith("};"):
            found.append((number - start + 1, name, f"{path}:{start}"))
            start = None
    return found


def class_shape(path, name):
    """(members, mutexes) of class or struct `name` in `path`."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    opening = re.compile(rf"^(class|struct) {re.escape(name)}\b[^;]*$")
    members = mutexes = 0
    inside = False
    for line in lines:
        if not inside:
            inside = bool(opening.match(line))
            continue
        if line.startswith("};"):
            break
        if MEMBER.match(line):
            members += 1
            if re.search(r"\babsl::Mutex\b", line):
                mutexes += 1
    return members, mutexes


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", default=["engine", "bots", "db", "tournament",
                                                       "service"])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    parser.add_argument("--top", type=int, default=10, help="longest functions to list")
    parser.add_argument("--class", dest="classes", action="append", default=[],
                        metavar="FILE:NAME", help="a class whose members to count")
    args = parser.parse_args()
    root = os.path.normpath(args.root)
    everything = []
    for path in sources(root, args.folders):
        everything.extend(functions(path))
    everything.sort(reverse=True)
    print(f"longest functions in {', '.join(args.folders)}:")
    for length, name, where in everything[:args.top]:
        print(f"  {length:5d} lines  {name}  {os.path.relpath(where, root)}")
    for spec in args.classes:
        path, _, name = spec.rpartition(":")
        if not os.path.exists(os.path.join(root, path)):
            print(f"{spec}: no such file", file=sys.stderr)
            return 2
        members, mutexes = class_shape(os.path.join(root, path), name)
        print(f"class {name} ({path}): {members} data members, {mutexes} mutexes")
    print("files per folder:")
    counts = {}
    for path in sources(root, args.folders):
        folder = os.path.relpath(os.path.dirname(path), root)
        counts[folder] = counts.get(folder, 0) + 1
    for folder in sorted(counts):
        print(f"  {counts[folder]:4d}  {folder}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
