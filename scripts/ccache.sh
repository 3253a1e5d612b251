# Sourced by scripts/setup.sh and scripts/sanitize.sh: where ccache is
# installed, CCACHE_FLAGS makes CMake compile through it, and the
# environment makes its keys independent of where the checkout lies (paths
# relative to it, the build directory left out), so that a fresh clone on a
# machine that built Hoard before compiles only what differs.
CCACHE_FLAGS=()
if command -v ccache >/dev/null; then
  CCACHE_FLAGS=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  CCACHE_BASEDIR="$(pwd)"
  CCACHE_NOHASHDIR=true
  CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime
  export CCACHE_BASEDIR CCACHE_NOHASHDIR CCACHE_SLOPPINESS
fi
