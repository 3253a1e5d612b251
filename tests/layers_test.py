#!/usr/bin/python3
"""The folders include each other only downwards (README.md, "Layers").

    engine  <-  bots, db  <-  tournament  <-  service (and service/cli)

A folder may include its own headers, those of the layers below it, the
generated protocol (hoard/...) and libraries (absl, grpcpp, ...). bots and
db sit side by side and include neither the other. tests/ may include
anything, and is not scanned.

Every .h and .cc file under the layered folders is read; each include of a
higher layer (or a sibling) is printed as FILE:LINE with the rule it breaks,
and the test fails. Run from anywhere: python3 tests/layers_test.py [ROOT].
"""

import pathlib
import re
import sys

# Each layered folder, and the project folders it may include besides its
# own.
ALLOWED = {
    "engine": set(),
    "bots": {"engine"},
    "db": {"engine"},
    "tournament": {"engine", "bots", "db"},
    "service": {"engine", "bots", "db", "tournament"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^/"]+)/')


def violations(root):
    found = []
    for folder, allowed in ALLOWED.items():
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".h", ".cc") or not path.is_file():
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for number, line in enumerate(text.splitlines(), start=1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                target = match.group(1)
                if target == folder or target not in ALLOWED or target in allowed:
                    continue
                where = "above" if folder in ALLOWED[target] else "beside"
                below = ", ".join(f"{name}/" for name in sorted(allowed)) or "no other folder"
                rule = (f"{target}/ is a layer {where} {folder}/, "
                        f"which may include itself and {below}")
                found.append(f"{path.relative_to(root)}:{number}: {line.strip()}: {rule}")
    return found


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else
                        pathlib.Path(__file__).resolve().parent.parent)
    missing = [folder for folder in ALLOWED if not (root / folder).is_dir()]
    if missing:
        print(f"layers_test: no {', '.join(missing)} under {root}", file=sys.stderr)
        return 1
    found = violations(root)
    for line in found:
        print(line)
    if found:
        print(f"FAIL: {len(found)} include(s) of a higher layer "
              "(the order is in README.md, \"Layers\")")
        return 1
    print("PASS: every folder includes only its own layer and those below")
    return 0


if __name__ == "__main__":
    sys.exit(main())
