#!/usr/bin/env bash
# Builds Knative Serving's queue-proxy (knative.dev/serving/cmd/queue) from the
# Go module proxy into the cache beside the local control plane's binaries,
# through a wrapper module that pins what the module proxy can serve:
#   - knative.dev/serving at $VERSION (v0.51.0);
#   - knative.dev/pkg and knative.dev/networking at the July 2026 pseudo-versions
#     that serving v0.50.0 uses: the module proxy refuses the October 2026 ones
#     that v0.51.0 pins;
#   - go.opentelemetry.io/otel/sdk at v1.44.0: with that pkg, a newer sdk makes
#     queue-proxy exit at start ("conflicting Schema URL").
# So the binary mixes versions (see local/README.md). One build at a time per
# cache (flock); a second call finds the binary and returns at once.
# Prints the path of the queue-proxy binary on its last line.
set -euo pipefail

VERSION="${CASCADE_QUEUE_PROXY_VERSION:-v0.51.0}"
PKG_VERSION="v0.0.0-20260727151759-521cb33b33dd"
NETWORKING_VERSION="v0.0.0-20260727162500-c7a7b772cac9"
OTEL_SDK_VERSION="v1.44.0"
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
    cat >"$SRC/go.mod" <<MOD
module cascade.local/queue-proxy

go 1.26

require knative.dev/serving $VERSION

replace (
	knative.dev/pkg => knative.dev/pkg $PKG_VERSION
	knative.dev/networking => knative.dev/networking $NETWORKING_VERSION
	go.opentelemetry.io/otel/sdk => go.opentelemetry.io/otel/sdk $OTEL_SDK_VERSION
)
MOD
    rm -f "$SRC/go.sum"
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
