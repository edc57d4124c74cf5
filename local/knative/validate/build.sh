#!/usr/bin/env bash
# Builds local/knative/validate/main.go from the Go module proxy into the cache
# beside the local control plane's binaries. The program is Knative Serving's
# own validation of a Service (knative.dev/serving/pkg/apis/serving/v1). It is
# built through the pinned wrapper module of local/knative/serving-module.sh,
# at $VERSION (v0.50.0). The Knative CRDs of the tests come from that version
# (test/support/knative-crds.ts).
# One build at a time per cache (flock); a second call finds the binary and
# returns at once. Prints the path of the binary on its last line.
set -euo pipefail

VERSION="${CASCADE_KNATIVE_VALIDATE_VERSION:-v0.50.0}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../serving-module.sh
source "$HERE/../serving-module.sh"
# shellcheck source=../../cached-build.sh
source "$HERE/../../cached-build.sh"
SRC="$CACHE/src/knative-validate-$VERSION"
# the source's hash names the binary: a change of main.go builds it again
HASH="$(sha256sum "$HERE/main.go" | cut -c1-12)"

build() {
  mkdir -p "$SRC"
  write_serving_go_mod cascade.local/knative/validate "$VERSION" "$SRC"
  cp "$HERE/main.go" "$SRC/main.go"
  cd "$SRC"
  GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0 \
    go build "${GO_FLAGS[@]}" -ldflags "-s -w" -o "$1/knative-validate" .
}

cached_build knative-validate "Knative Serving $VERSION's validation" knative-validate \
  "$CACHE/bin/knative-validate-$VERSION-$HASH/knative-validate" build
