#!/usr/bin/env bash
# Builds the local cluster's registry tools from the Go module proxy into the
# cache beside the control plane's binaries, versions pinned:
#   registry   CNCF Distribution, the OCI registry the real node pulls from
#   crane      go-containerregistry's CLI, which pushes dist/'s image to it
# Usage: build.sh registry|crane. One build at a time per tool (flock); a
# second call finds the binary and returns at once. Prints the binary's path
# on its last line. A throwaway wrapper module requires the pinned version, as
# kube-state-metrics/build.sh does, since the proxy here refuses version lists.
# The registry's main is registry_main: Distribution's cmd/registry with the
# filesystem storage driver alone, the one the node's registry uses.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../cached-build.sh
source "$HERE/../cached-build.sh"

case "${1:-}" in
  registry)
    VERSION="${CASCADE_REGISTRY_VERSION:-v3.0.0}"
    MODULE="github.com/distribution/distribution/v3"
    PACKAGE=.
    BUILT="registry-$VERSION-filesystem"
    ;;
  crane)
    VERSION="${CASCADE_CRANE_VERSION:-v0.21.4}"
    MODULE="github.com/google/go-containerregistry"
    PACKAGE="$MODULE/cmd/crane"
    BUILT="crane-$VERSION"
    ;;
  *) echo "usage: $0 registry|crane" >&2; exit 2 ;;
esac
TOOL="$1"

# Distribution's cmd/registry imports the Azure, GCS and S3 drivers, the proxy
# and the auth modules too: two thirds of the source it compiles.
registry_main() {
  cat <<'GO'
// Command registry is CNCF Distribution's registry with the filesystem
// storage driver only.
package main

import (
	"github.com/distribution/distribution/v3/registry"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
)

func main() { _ = registry.RootCmd.Execute() }
GO
}

build() {
  cd "$1"
  if [ "$TOOL" = registry ]; then registry_main >main.go; fi
  local gomod
  gomod="$(GOFLAGS=-mod=mod go mod download -json "$MODULE@$VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
  [ -n "$gomod" ] || { echo "go mod download $MODULE@$VERSION found no go.mod"; exit 1; }
  {
    printf 'module cascade.local/%s-build\n\n' "$TOOL"
    grep '^go ' "$gomod"
    printf '\nrequire %s %s\n\n' "$MODULE" "$VERSION"
    sed -n '/^require/,$p' "$gomod" | grep -v '^toolchain\|^replace'
  } > go.mod
  GOFLAGS="-buildvcs=false -mod=mod" CGO_ENABLED=0 go build "${GO_FLAGS[@]}" -ldflags "-s -w" -o "$1/$TOOL" "$PACKAGE"
}

cached_build "$TOOL" "$MODULE $VERSION" "$TOOL" "$CACHE/bin/$BUILT/$TOOL" build
