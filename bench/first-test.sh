#!/usr/bin/env bash
# The first `npm test` of a new machine, as near as this machine gets. It runs
# .ci/run, as CI does, in a fresh clone of this checkout's HEAD under an empty
# HOME: no npm, Go module, Go build or cluster cache. The Debian packages and
# the Go toolchain stay the machine's. Prints the time, the commit and the
# tests' counts. Usage: bash bench/first-test.sh [KEEP-DIR]
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
home="${1:-$(mktemp -d /tmp/cascade-first-test-XXXXXX)}"
mkdir -p "$home"
[ -f "$HOME/.npmrc" ] && [ ! -f "$home/.npmrc" ] && cp "$HOME/.npmrc" "$home/.npmrc"
[ -d "$home/cascade" ] || git clone -q "$repo" "$home/cascade"
commit="$(git -C "$home/cascade" rev-parse --short HEAD)"
log="$home/ci-$(date +%s).log"

cd "$home/cascade"
started=$(date +%s)
status=0
HOME="$home" XDG_CACHE_HOME="$home/.cache" bash .ci/run >"$log" 2>&1 || status=$?
ended=$(date +%s)

echo "first-test: commit $commit, HOME $home, log $log"
grep -E 'passed, .* failed|Duration' "$log" | tail -n 2 || true
echo "first-test: .ci/run exited $status after $((ended - started)) s"
exit "$status"
