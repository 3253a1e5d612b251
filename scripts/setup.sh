#!/usr/bin/env bash
# Installs what is missing (Debian 12 packages), then configures and builds
# Hoard into build/. Safe to run again: it installs and rebuilds only what is
# needed. Used by scripts/main.sh and scripts/test.sh.
#
#   bash scripts/setup.sh           everything: the program, the tests and the
#                                   Node packages the tests use
#   bash scripts/setup.sh TARGET…   only those build targets (the main job
#                                   builds only `hoard`)
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  g++ cmake ninja-build pkg-config
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler grpc-proto
  libabsl-dev libsqlite3-dev libssl-dev libgtest-dev libgmock-dev libbenchmark-dev
  libboost-dev libxxhash-dev libpq-dev libcli11-dev libgoogle-perftools-dev postgresql
  python3 python3-grpcio python3-protobuf python3-prometheus-client python3-dev pybind11-dev
  docker-compose openssl sqlite3 jq prometheus
  chromium ccache clang clang-format
)
# Node.js for the JavaScript bots: Debian's, unless a node and npm are there.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  PACKAGES+=(nodejs npm)
fi

missing=()
for package in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null |
      grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi

# Compiles go through ccache, keyed on paths relative to the checkout, so
# that another clone or worktree on this machine reuses what was compiled.
source scripts/ccache.sh
if [ ! -f build/build.ninja ]; then
  echo "setup: configuring build/"
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${CCACHE_FLAGS[@]}" >/dev/null
fi
if [ "$#" -gt 0 ]; then
  echo "setup: building $*"
  cmake --build build --target "$@"
  exit 0
fi
echo "setup: building (build/hoard and the tests)"
cmake --build build

# The Node SDK's packages, the browser tests' (puppeteer-core) and the
# Kubernetes manifests' checks' (kubernetes-models), exactly
# as their lock files say.
for dir in bots/node tests/web tests/kubernetes; do
  if [ ! -f "$dir/node_modules/.package-lock.json" ] ||
      [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    echo "setup: installing the packages of $dir (npm ci)"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
done
