#!/usr/bin/env bash
# Makes the secrets docker-compose.yml reads: in DIR (default $HOARD_SECRETS,
# else the checkout's secrets/), the files admin-token, py-bot-key,
# node-bot-key and postgres-password (the fleet's database), each 32 random
# hex digits (128 bits) and a newline. A file
# that exists is left as it is, so running it again changes nothing.
#
#   bash scripts/compose-secrets.sh [DIR]
#
# DIR gets mode 700: only its owner reaches the files. The files get mode 644,
# because Docker Compose mounts a file secret with the owner and mode it has
# on the host, and the containers read it as users of their own (hoard,
# nobody).
set -eu
REPO=$(cd "$(dirname "$0")/.." && pwd)
DIR=${1:-${HOARD_SECRETS:-$REPO/secrets}}

random_hex() {
  if command -v openssl >/dev/null 2>&1; then
    openssl rand -hex 16
  else
    od -An -tx1 -N16 /dev/urandom | tr -d ' \n'
    echo
  fi
}

mkdir -p "$DIR"
chmod 700 "$DIR"
made=0
for name in admin-token py-bot-key node-bot-key postgres-password; do
  file="$DIR/$name"
  if [ -e "$file" ]; then
    echo "kept $file"
    continue
  fi
  (umask 077 && random_hex >"$file.new")
  if ! grep -qxE '[0-9a-f]{32}' "$file.new"; then
    rm -f "$file.new"
    echo "compose-secrets.sh: could not make 32 random hex digits for $file" >&2
    exit 1
  fi
  chmod 644 "$file.new"
  mv "$file.new" "$file"
  echo "made $file"
  made=$((made + 1))
done
echo "$made made in $DIR (mode 700)"
