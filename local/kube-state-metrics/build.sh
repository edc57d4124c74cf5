#!/usr/bin/env bash
# Builds kube-state-metrics (for the monitoring test: its CustomResourceState
# metrics of the CascadeRuns) from the Go module proxy into the cache beside
# the local control plane's binaries. Version pinned; one build at a time per
# cache (flock); a second call finds the binary and returns at once.
# Prints the path of the binary on its last line.
#
# Not `go install k8s.io/kube-state-metrics/v2@version`: that also reads the
# module's version list for deprecation notices, and the proxy here refuses
# that list (403 "This module version is not available") while it serves
# the version itself. So a throwaway wrapper module requires the pinned
# version, with kube-state-metrics' own requirements, and builds its main
# package.
set -euo pipefail

VERSION="${CASCADE_KSM_VERSION:-v2.15.0}"
MODULE="k8s.io/kube-state-metrics/v2"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../cached-build.sh
source "$HERE/../cached-build.sh"

# the wrapper module lives in the scratch directory, with the binary
build() {
  cd "$1"
  local gomod
  gomod="$(GOFLAGS=-mod=mod go mod download -json "$MODULE@$VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
  [ -n "$gomod" ] || { echo "go mod download $MODULE@$VERSION found no go.mod"; exit 1; }
  {
    printf 'module cascade.local/kube-state-metrics-build\n\n'
    grep '^go ' "$gomod"
    printf '\nrequire %s %s\n\n' "$MODULE" "$VERSION"
    sed -n '/^require/,$p' "$gomod" | grep -v '^toolchain\|^replace'
  } > go.mod
  GOFLAGS="-buildvcs=false -mod=mod" CGO_ENABLED=0 go build "${GO_FLAGS[@]}" -ldflags "-s -w" -o "$1/kube-state-metrics" "$MODULE"
}

cached_build kube-state-metrics "$MODULE $VERSION" kube-state-metrics \
  "$CACHE/bin/kube-state-metrics-$VERSION/kube-state-metrics" build
