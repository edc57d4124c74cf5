#!/usr/bin/env bash
# Builds Knative Serving's controller, webhook, activator, autoscaler and
# queue-proxy (knative.dev/serving/cmd/..., queue-proxy as `queue`) from the Go
# module proxy, with one `go build`, so the packages they share compile once.
# They go into the cache beside the local control plane's binaries. The build
# goes through the wrapper module of local/knative/serving-module.sh. It runs
# after Eventing's build, whose compiled packages it shares: Go's build cache
# holds them then.
# One build at a time per cache (flock); a second call finds the binaries.
# Prints the directory of the binaries on its last line.
set -euo pipefail

VERSION="${CASCADE_KNATIVE_SERVING_VERSION:-v0.50.0}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../serving-module.sh
source "$HERE/../serving-module.sh"
# shellcheck source=../../cached-build.sh
source "$HERE/../../cached-build.sh"
SRC="$CACHE/src/knative-serving-$VERSION"
BIN="$CACHE/bin/knative-serving-$VERSION"
CMDS=(controller webhook activator autoscaler queue)

build() { # scratch
  local packages=() cmd
  bash "$HERE/../eventing/build.sh" >/dev/null
  mkdir -p "$SRC"
  write_serving_go_mod cascade.local/knative-serving "$VERSION" "$SRC"
  cd "$SRC"
  for cmd in "${CMDS[@]}"; do packages+=("knative.dev/serving/cmd/$cmd"); done
  GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0 \
    nice go build "${GO_FLAGS[@]}" -ldflags "-s -w" -o "$1/" "${packages[@]}"
}

cached_build_set knative-serving "Knative Serving $VERSION's ${CMDS[*]}" knative-serving "$BIN" build \
  "knative-serving-$VERSION" "${CMDS[@]}"
echo "$BIN"
