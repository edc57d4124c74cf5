#!/usr/bin/env bash
# Builds Knative Serving's queue-proxy (knative.dev/serving/cmd/queue) from the
# Go module proxy into the cache beside the local control plane's binaries,
# through the pinned wrapper module of local/knative-serving-module.sh (so the
# binary mixes versions, see local/README.md). One build at a time per
# cache (flock); a second call finds the binary and returns at once.
# Prints the path of the queue-proxy binary on its last line.
set -euo pipefail

VERSION="${CASCADE_QUEUE_PROXY_VERSION:-v0.51.0}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../knative-serving-module.sh
source "$HERE/../knative-serving-module.sh"
CACHE="${CASCADE_CLUSTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cascade-cluster}"
BIN="$CACHE/bin/queue-proxy-$VERSION"
SRC="$CACHE/src/queue-proxy-$VERSION"
LOG="$CACHE/logs/queue-proxy-$VERSION.log"

if [ ! -x "$BIN/queue-proxy" ]; then
  mkdir -p "$BIN" "$SRC" "$CACHE/logs"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$CACHE/queue-proxy.lock"
    flock 9
  fi
  if [ ! -x "$BIN/queue-proxy" ]; then
    echo "queue-proxy build: building Knative Serving's queue-proxy $VERSION from the Go module proxy (first time only, a few minutes)" >&2
    write_serving_go_mod cascade.local/queue-proxy "$VERSION" "$SRC"
    if ! (cd "$SRC" && GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0 \
      go build -trimpath -ldflags "-s -w" -o "$BIN/queue-proxy.tmp" knative.dev/serving/cmd/queue) >"$LOG" 2>&1; then
      echo "queue-proxy build: building queue-proxy $VERSION failed; last lines of $LOG:" >&2
      tail -n 30 "$LOG" >&2 || true
      rm -f "$BIN/queue-proxy.tmp"
      exit 1
    fi
    mv "$BIN/queue-proxy.tmp" "$BIN/queue-proxy"
    echo "queue-proxy build: built $BIN/queue-proxy in ${SECONDS}s" >&2
  fi
fi
echo "$BIN/queue-proxy"
