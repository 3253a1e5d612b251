#!/usr/bin/python3
"""Checks the thread-safety annotations with clang's analysis.

    /usr/bin/python3 scripts/thread_safety.py BUILD_DIR [FILE.cc | FILE.cc=COPY.cc ...]

GCC, which builds Hoard, ignores ABSL_GUARDED_BY and the other Abseil
thread-safety annotations; clang checks them (-Wthread-safety). This runs
clang++ -fsyntax-only -Wthread-safety -Werror=thread-safety over every
translation unit of BUILD_DIR/compile_commands.json that is annotated or
includes a header of the project that is (or over the files given; FILE=COPY
checks COPY with FILE's flags, as the test of this check does with a copy
that takes no lock), with the flags the build uses, two at a time. It prints each file's findings and
exits 1 if there are any (2 if clang++ is missing).
"""
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

ANNOTATION = re.compile(r"\bABSL_(GUARDED_BY|PT_GUARDED_BY|EXCLUSIVE_LOCKS_REQUIRED|"
                        r"SHARED_LOCKS_REQUIRED|LOCKS_EXCLUDED|LOCK_RETURNED|"
                        r"EXCLUSIVE_LOCK_FUNCTION|UNLOCK_FUNCTION|ASSERT_EXCLUSIVE_LOCK)\b")
INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)
# GCC's flags clang does not know.
DROPPED = {"-fno-fat-lto-objects", "-fdiagnostics-color=always"}


def annotated_units(root, commands):
    """The .cc files that hold annotations or include (directly) a header that does."""
    def text(path):
        try:
            with open(path, encoding="utf-8") as f:
                return f.read()
        except OSError:
            return ""
    annotated_headers = set()
    for folder, _, files in os.walk(root):
        if "/build" in folder or "node_modules" in folder or "/." in folder:
            continue
        for name in files:
            if name.endswith(".h") and ANNOTATION.search(text(os.path.join(folder, name))):
                annotated_headers.add(os.path.relpath(os.path.join(folder, name), root))
    units = []
    for entry in commands:
        source = entry["file"]
        if not source.startswith(root) or "/build" in source[len(root):]:
            continue
        body = text(source)
        if ANNOTATION.search(body) or any(h in annotated_headers for h in INCLUDE.findall(body)):
            units.append(source)
    return sorted(set(units))


def clang_command(entry):
    words = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    out = ["clang++"]
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
            continue
        if word in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if word in ("-c", "-MD", "-MMD") or word in DROPPED:
            continue
        out.append(word)
    return out + ["-fsyntax-only", "-Wthread-safety", "-Wthread-safety-beta",
                  "-Werror=thread-safety", "-Wno-unknown-warning-option"]


def check(job):
    entry, copy = job
    command = clang_command(entry)
    if copy is not None:
        command = [copy if word == entry["file"] else word for word in command]
    result = subprocess.run(command, cwd=entry["directory"], capture_output=True, text=True)
    findings = [line for line in result.stderr.splitlines() if "thread-safety" in line]
    return copy or entry["file"], findings, result.returncode, result.stderr


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    if shutil.which("clang++") is None:
        print("thread_safety: clang++ is missing (Debian: apt install clang)", file=sys.stderr)
        return 2
    build = argv[1]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    by_file = {entry["file"]: entry for entry in commands}
    jobs = []
    for given in argv[2:]:
        unit, _, copy = given.partition("=")
        unit = os.path.abspath(unit)
        if unit not in by_file:
            print(f"thread_safety: {unit} is not in {build}/compile_commands.json",
                  file=sys.stderr)
            return 2
        jobs.append((by_file[unit], os.path.abspath(copy) if copy else None))
    if not jobs:
        jobs = [(by_file[u], None) for u in annotated_units(root, commands)]
    units = jobs
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for source, findings, code, stderr in pool.map(check, jobs):
            name = os.path.relpath(source, root)
            if findings:
                failed += 1
                print(f"FAIL {name}")
                for line in findings:
                    print(f"     {line}")
            elif code != 0:
                failed += 1
                print(f"FAIL {name}: clang could not compile it")
                print("\n".join(f"     {line}" for line in stderr.splitlines()[:10]))
            else:
                print(f"ok   {name}")
    print(f"{len(units) - failed} passed, {failed} failed ({len(units)} translation units)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
