#!/usr/bin/env bash
# The first `npm start` of a new machine, as near as this machine gets: a
# fresh clone of this checkout's HEAD under an empty HOME, so with no npm,
# Go module, Go build or cluster cache. The Debian packages and the Go
# toolchain stay the machine's. It times `npm start` from its launch to the
# banner's `cascade: ready in`, stops it with SIGINT as Ctrl-C would, and
# prints the figure with the commit. Usage: bash bench/first-start.sh [KEEP-DIR]
# KEEP-DIR (default a new temporary directory) is kept, so a second call with
# it times a later start on the same caches.
set -euo pipefail

# shellcheck source=empty-home.sh
source "$(dirname "${BASH_SOURCE[0]}")/empty-home.sh"
empty_home_clone first-start "${1:-}"
log="$home/npm-start-$(date +%s).log"

started=$(date +%s)
HOME="$home" XDG_CACHE_HOME="$home/.cache" setsid npm start >"$log" 2>&1 &
pid=$!
status=failed
while kill -0 "$pid" 2>/dev/null; do
  if grep -q '^cascade: ready in' "$log"; then
    status=ready
    break
  fi
  sleep 1
done
ended=$(date +%s)
kill -INT -- "-$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true

echo "first-start: commit $commit, HOME $home, log $log"
grep -E 'build: built|cascade: ready in|npm start failed' "$log" || true
if [ "$status" != ready ]; then
  echo "first-start: npm start ended without its banner after $((ended - started)) s" >&2
  exit 1
fi
echo "first-start: banner after $((ended - started)) s"
