#!/usr/bin/env bash
# The first `npm test` of a new machine, as near as this machine gets. It runs
# .ci/run, as CI does, in a fresh clone of this checkout's HEAD under an empty
# HOME: no npm, Go module, Go build or cluster cache. The Debian packages and
# the Go toolchain stay the machine's. Prints the time, the commit and the
# tests' counts. Usage: bash bench/first-test.sh [KEEP-DIR]
set -euo pipefail

# shellcheck source=empty-home.sh
source "$(dirname "${BASH_SOURCE[0]}")/empty-home.sh"
empty_home_clone first-test "${1:-}"
log="$home/ci-$(date +%s).log"

started=$(date +%s)
status=0
HOME="$home" XDG_CACHE_HOME="$home/.cache" bash .ci/run >"$log" 2>&1 || status=$?
ended=$(date +%s)

echo "first-test: commit $commit, HOME $home, log $log"
grep -E 'passed, .* failed|Duration' "$log" | tail -n 2 || true
echo "first-test: .ci/run exited $status after $((ended - started)) s"
exit "$status"
