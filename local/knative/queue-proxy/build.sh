#!/usr/bin/env bash
# Builds Knative Serving's queue-proxy (knative.dev/serving/cmd/queue) from the
# Go module proxy into the cache beside the local control plane's binaries,
# through the pinned wrapper module of local/knative/serving-module.sh (so the
# binary mixes versions, see docs/local-stack.md). One build at a time per
# cache (flock); a second call finds the binary and returns at once.
# Prints the path of the queue-proxy binary on its last line.
set -euo pipefail

VERSION="${CASCADE_QUEUE_PROXY_VERSION:-v0.51.0}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../serving-module.sh
source "$HERE/../serving-module.sh"
# shellcheck source=../../cached-build.sh
source "$HERE/../../cached-build.sh"
SRC="$CACHE/src/queue-proxy-$VERSION"

build() {
  mkdir -p "$SRC"
  write_serving_go_mod cascade.local/knative/queue-proxy "$VERSION" "$SRC"
  cd "$SRC"
  GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0 \
    go build -trimpath -ldflags "-s -w" -o "$1/queue-proxy" knative.dev/serving/cmd/queue
}

cached_build queue-proxy "Knative Serving's queue-proxy $VERSION" queue-proxy \
  "$CACHE/bin/queue-proxy-$VERSION/queue-proxy" build
