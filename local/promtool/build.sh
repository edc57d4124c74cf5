#!/usr/bin/env bash
# Builds promtool (Prometheus's checker, for `promtool check metrics` in the
# tests) from the Go module proxy into the cache beside the local control
# plane's binaries. Version pinned; one build at a time per cache (flock); a
# second call finds the binary and returns at once.
# Prints the path of the promtool binary on its last line.
set -euo pipefail

# Prometheus v3.x is published to the Go module proxy as v0.3xx.y (v0.316.0 = 3.16.0).
VERSION="${CASCADE_PROMTOOL_VERSION:-v0.316.0}"
CACHE="${CASCADE_CLUSTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cascade-cluster}"
BIN="$CACHE/bin/promtool-$VERSION"
LOG="$CACHE/logs/promtool-$VERSION.log"

if [ ! -x "$BIN/promtool" ]; then
  mkdir -p "$BIN" "$CACHE/logs"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$CACHE/promtool.lock"
    flock 9
  fi
  if [ ! -x "$BIN/promtool" ]; then
    echo "promtool build: building promtool $VERSION from the Go module proxy (first time only, a few minutes)" >&2
    tmp="$BIN/.tmp-$$"
    rm -rf "$tmp"
    # remove_all_sd: Prometheus's own build tag leaving out the cloud service
    # discoveries, which `check metrics` never uses (a much smaller build).
    if ! (GOFLAGS="-buildvcs=false" CGO_ENABLED=0 GOBIN="$tmp" go install -trimpath -tags remove_all_sd \
      -ldflags "-s -w -X github.com/prometheus/common/version.Version=$VERSION" \
      "github.com/prometheus/prometheus/cmd/promtool@$VERSION") >"$LOG" 2>&1; then
      echo "promtool build: building promtool $VERSION failed; last lines of $LOG:" >&2
      tail -n 30 "$LOG" >&2 || true
      rm -rf "$tmp"
      exit 1
    fi
    mv "$tmp/promtool" "$BIN/promtool"
    rm -rf "$tmp"
    echo "promtool build: built $BIN/promtool in ${SECONDS}s" >&2
  fi
fi
echo "$BIN/promtool"
