#!/usr/bin/env bash
# Checks that C++ sources follow the project's .clang-format (Google style,
# 100 columns): prints each file that does not, with the first lines it
# would change, and exits 1 if any; 2 if clang-format is missing.
#
#   bash scripts/format_check.sh            every .cc and .h of the project
#   bash scripts/format_check.sh FILE...    those files
#   clang-format -i FILE...                 reformats them
set -u
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
  echo "format_check: clang-format is missing (Debian: apt install clang-format)" >&2
  exit 2
fi
if [ "$#" -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(find engine bots db tournament service tests \
    -name node_modules -prune -o \( -name '*.cc' -o -name '*.h' \) -print | sort)
fi
bad=0
for file in "${files[@]}"; do
  if ! diff -q "$file" <(clang-format --style=file:.clang-format "$file") >/dev/null; then
    bad=$((bad + 1))
    echo "FAIL $file"
    diff -u "$file" <(clang-format --style=file:.clang-format "$file") | sed -n '3,12p' | sed 's/^/     /'
  fi
done
echo "${#files[@]} files, $bad not formatted (clang-format -i FILE formats one)"
[ "$bad" -eq 0 ]
