#!/usr/bin/python3
"""The folders include each other only downwards (README.md, "Layers").

    engine  <-  bots, db  <-  tournament  <-  service  <-  service/web  <-  service/cli

A folder may include its own headers, those of the layers below it, the
generated protocol (hoard/...) and libraries (absl, grpcpp, ...). bots and
db sit side by side and include neither the other. The server (service/)
includes neither its web face (service/web/) nor the command line
(service/cli/), and the web face not the command line: the `hoard` program
is the top. Inside the server, the core (service/core.*) includes neither the
API nor a face, and the two faces are siblings: the web face does not include
the gRPC face (service/grpc_server.h). In engine/, only the wire's own files include the generated
protocol — the codecs (codec.*, each game's *_proto.*), the record's JSON
and views (record_json.*, record_views.*) and the conformance suite
(testing/) — never the rules. tests/ may include anything, and is not
scanned.

Every .h and .cc file under the layered folders is read; each include of a
higher layer (or a sibling), and each protocol include in the engine outside
those files, is printed as FILE:LINE with the rule it breaks, and the test
fails. Run from anywhere: python3 tests/layers_test.py [ROOT].
"""

import pathlib
import re
import sys

# Each layered folder, and the project folders it may include besides its
# own. A file belongs to the longest folder its path starts with.
ALLOWED = {
    "engine": set(),
    "bots": {"engine"},
    "db": {"engine"},
    "tournament": {"engine", "bots", "db"},
    "service": {"engine", "bots", "db", "tournament"},
    "service/web": {"engine", "bots", "db", "tournament", "service"},
    "service/cli": {"engine", "bots", "db", "tournament", "service", "service/web"},
}

# Headers a file (by path prefix) may not include though its layer may: the
# core knows no face and no API, and the faces are siblings over it.
FORBIDDEN = {
    "service/core.": ({"service/api.h", "service/grpc_server.h"},
                      "the core (service/core.h) knows neither the API nor a face"),
    "service/web/": ({"service/grpc_server.h"},
                     "the web face and the gRPC face are siblings over the core"),
}

# engine/ files that may include the generated protocol: the wire's own.
ENGINE_PROTOCOL = re.compile(r"^engine/(codec\.|record_json\.|record_views\.|testing/|"
                             r"games/[a-z_0-9]+/[a-z_0-9]+_proto(_test)?\.)")

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(relative):
    """The layered folder `relative` (a path) belongs to, or None."""
    best = None
    for folder in ALLOWED:
        if relative == folder or relative.startswith(folder + "/"):
            if best is None or len(folder) > len(best):
                best = folder
    return best


def violations(root):
    found = []
    seen = set()
    for top in sorted({folder.split("/")[0] for folder in ALLOWED}):
        for path in sorted((root / top).rglob("*")):
            if path.suffix not in (".h", ".cc") or not path.is_file() or path in seen:
                continue
            seen.add(path)
            relative = path.relative_to(root).as_posix()
            folder = layer_of(relative)
            allowed = ALLOWED[folder]
            text = path.read_text(encoding="utf-8", errors="replace")
            for number, line in enumerate(text.splitlines(), start=1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                included = match.group(1)
                if folder == "engine" and included.startswith("hoard/") and \
                        not ENGINE_PROTOCOL.match(relative):
                    found.append(f"{relative}:{number}: {line.strip()}: only the engine's codecs, "
                                 "record JSON and views and conformance suite include the "
                                 "protocol (docs/engine.md, \"On the wire\")")
                    continue
                refusal = next((why for prefix, (headers, why) in FORBIDDEN.items()
                                if relative.startswith(prefix) and included in headers), None)
                if refusal is not None:
                    found.append(f"{relative}:{number}: {line.strip()}: {refusal}")
                    continue
                target = layer_of(included)
                if target is None or target == folder or target in allowed:
                    continue
                where = "above" if folder in ALLOWED[target] or \
                    ALLOWED[folder] < ALLOWED[target] else "beside"
                below = ", ".join(f"{name}/" for name in sorted(allowed)) or "no other folder"
                rule = (f"{target}/ is a layer {where} {folder}/, "
                        f"which may include itself and {below}")
                found.append(f"{relative}:{number}: {line.strip()}: {rule}")
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
