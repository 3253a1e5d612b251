"""The Python classes of Hoard's protocol, generated from proto/ on first use.

The stubs are made with Debian's protoc and grpc_python_plugin (packages
protobuf-compiler and protobuf-compiler-grpc) into a cache folder named by a
hash of the .proto files, so a changed protocol gets fresh stubs and several
bots starting at once generate them only once.

    from hoard_bot.stubs import arena_pb2, arena_pb2_grpc

Every .proto file has its module, named after it: each game's messages are
in a module of their own beside them (village_pb2, dragons_gold_pb2,
frost_dragon_pb2, hedonia_pb2, and a new game's as its file is named).

Environment:
    HOARD_PROTO_DIR   the folder holding hoard/v1/*.proto (default: the
                      proto/ folder of the Hoard checkout this file is in)
    HOARD_STUBS_DIR   where generated stubs are kept (default:
                      bots/python/.stubs beside this package)
"""

import fcntl
import glob
import hashlib
import importlib
import os
import shutil
import subprocess
import sys

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_PYTHON_DIR = os.path.dirname(_PACKAGE_DIR)


class StubError(RuntimeError):
    """The stubs could not be generated; the message says what to install or set."""


def proto_dir():
    default = os.path.join(os.path.dirname(os.path.dirname(_PYTHON_DIR)), "proto")
    return os.environ.get("HOARD_PROTO_DIR") or default


def _proto_files(root):
    files = sorted(glob.glob(os.path.join(root, "hoard", "v1", "*.proto")))
    if not files:
        raise StubError(
            f"no hoard/v1/*.proto under {root}: set HOARD_PROTO_DIR to the proto/ folder "
            "of a Hoard checkout")
    return files


def _digest(files):
    digest = hashlib.sha256()
    for path in files:
        digest.update(os.path.basename(path).encode())
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()[:16]


def _generate(root, files, target):
    plugin = shutil.which("grpc_python_plugin")
    protoc = shutil.which("protoc")
    if protoc is None or plugin is None:
        raise StubError(
            "protoc and grpc_python_plugin are needed to generate the Python stubs: "
            "apt-get install protobuf-compiler protobuf-compiler-grpc")
    partial = f"{target}.partial-{os.getpid()}"
    os.makedirs(partial)
    command = [protoc, f"-I{root}", f"--python_out={partial}", f"--grpc_python_out={partial}",
               f"--plugin=protoc-gen-grpc_python={plugin}"]
    command += [os.path.relpath(path, root) for path in files]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        shutil.rmtree(partial, ignore_errors=True)
        raise StubError(f"protoc failed: {result.stderr.strip()}")
    os.rename(partial, target)


def stubs_dir():
    """Generates the stubs if needed and returns the folder that holds them."""
    root = proto_dir()
    files = _proto_files(root)
    cache = os.environ.get("HOARD_STUBS_DIR") or os.path.join(_PYTHON_DIR, ".stubs")
    target = os.path.join(cache, _digest(files))
    if os.path.isdir(target):
        return target
    os.makedirs(cache, exist_ok=True)
    with open(os.path.join(cache, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one generator at a time
        if not os.path.isdir(target):
            _generate(root, files, target)
    return target


def _load():
    """Every module generated from proto/hoard/v1, by name (arena_pb2,
    arena_pb2_grpc, village_pb2...)."""
    path = stubs_dir()
    if path not in sys.path:
        sys.path.insert(0, path)
    names = [os.path.splitext(os.path.basename(file))[0] for file in _proto_files(proto_dir())]
    return {module: importlib.import_module(f"hoard.v1.{module}")
            for name in names for module in (f"{name}_pb2", f"{name}_pb2_grpc")}


_modules = _load()
globals().update(_modules)
# The modules every checkout has, named for readers and linters.
arena_pb2 = _modules["arena_pb2"]
arena_pb2_grpc = _modules["arena_pb2_grpc"]
tournament_pb2 = _modules["tournament_pb2"]
tournament_pb2_grpc = _modules["tournament_pb2_grpc"]
record_pb2 = _modules["record_pb2"]
village_pb2 = _modules["village_pb2"]
dragons_gold_pb2 = _modules["dragons_gold_pb2"]
frost_dragon_pb2 = _modules["frost_dragon_pb2"]
hedonia_pb2 = _modules["hedonia_pb2"]
