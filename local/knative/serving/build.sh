#!/usr/bin/env bash
# Builds Knative Serving's controller, webhook, activator and autoscaler
# (knative.dev/serving/cmd/...) from the Go module proxy. They go into the
# cache beside the local control plane's binaries. The build goes through the
# pinned wrapper module of local/knative/serving-module.sh, so the binaries
# mix versions: see docs/local-stack.md. The queue-proxy sidecar comes from
# local/knative/queue-proxy/.
# One build at a time per cache (flock); a second call finds the binaries.
# Prints the directory of the binaries on its last line.
set -euo pipefail

VERSION="${CASCADE_KNATIVE_SERVING_VERSION:-v0.51.0}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../serving-module.sh
source "$HERE/../serving-module.sh"
# shellcheck source=../../cached-build.sh
source "$HERE/../../cached-build.sh"
SRC="$CACHE/src/knative-serving-$VERSION"
BIN="$CACHE/bin/knative-serving-$VERSION"

# build_cmd CMD SCRATCH: the first command fills Go's build cache, so the
# others take seconds.
build_cmd() {
  mkdir -p "$SRC"
  write_serving_go_mod cascade.local/knative-serving "$VERSION" "$SRC"
  cd "$SRC"
  GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0 \
    nice go build -trimpath -ldflags "-s -w" -o "$2/$CMD" "knative.dev/serving/cmd/$CMD"
}

for CMD in controller webhook activator autoscaler; do
  build() { build_cmd "$CMD" "$1"; }
  cached_build knative-serving "Knative Serving's $CMD $VERSION" knative-serving "$BIN/$CMD" build >/dev/null
done
echo "$BIN"
